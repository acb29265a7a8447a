//! One program, many inputs: [`Program::batch`] compiles the program once with one input left
//! symbolic, and [`Batch::run`] runs the plan on every row of a row-major array, in parallel,
//! each row with the reference's bits.

use std::sync::Arc;

use knn_semantics::inputs::TensorInput;
use knn_semantics::memory;

use super::Source;
use super::error::KnnError;
use super::program::{Program, Semantics};
use super::report::{Answer, Report};
use crate::bigstep::ops::RowError;
use crate::bigstep::plan::ResultSpec;
use crate::bigstep::{Binding, ExecOptions, Plan, RowResult, compile, run_rows, verdict};
use crate::tensor::Precision;

/// Rows run between two calls of the progress callback.
pub const BATCH_BLOCK: usize = 8192;

/// A program compiled for rows of one input.
#[derive(Debug)]
pub struct Batch {
    plan: Plan,
    width: usize,
    source: Arc<Source>,
}

impl Program {
    /// Compiles the program (revised semantics) with `input` a vector of `width` elements that
    /// changes from row to row and `fixed` bound once for all rows.
    ///
    /// ```
    /// use knn_interpreter::{Answer, load};
    /// use knn_semantics::engine::Observed;
    /// let net = load(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/mlp.knn")).unwrap();
    /// let batch = net.batch("x", 3, &[]).unwrap();
    /// let rows = [1.0, -2.0, 0.5, /* second row */ 0.0, 1.0, 0.0];
    /// let classes: Vec<Answer> = batch.run(&rows, false, |_| {}).unwrap().iter().map(|r| batch.answer(r)).collect();
    /// assert!(matches!(classes[..], [Answer::Value { value: Observed::Int(0), .. }, Answer::Value { value: Observed::Int(1), .. }]));
    /// ```
    pub fn batch(&self, input: &str, width: usize, fixed: &[TensorInput]) -> Result<Batch, KnnError> {
        if self.semantics() != Semantics::Revised {
            return Err(KnnError::usage("a batch runs the revised semantics (the big-step engine)"));
        }
        if fixed.iter().any(|i| i.name == input) {
            return Err(KnnError::usage(format!("`{input}` is both the batched input and a --bind")));
        }
        let mut bound: Vec<&str> = fixed.iter().map(|i| i.name.as_str()).collect();
        bound.push(input);
        self.check(&bound)?;
        let bindings = Binding::with_open_input(fixed, input, vec![width]);
        Ok(Batch { plan: compile(self.syntax(), &bindings), width, source: self.shared_source() })
    }
}

impl Batch {
    /// The elements of a row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The compiled plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Runs every row of `rows` (row-major, `width` elements a row); `progress` is told the
    /// rows done after each block of [`BATCH_BLOCK`]. The results are counted against the
    /// memory budget before any row runs.
    pub fn run(&self, rows: &[f64], fast_math: bool, progress: impl Fn(usize)) -> Result<Vec<RowResult>, KnnError> {
        let count = match self.width {
            0 => 0,
            w if rows.len().is_multiple_of(w) => rows.len() / w,
            w => {
                return Err(KnnError::usage(format!("{} numbers do not make rows of {w} elements", rows.len())));
            }
        };
        self.run_rows(count, |r| &rows[r * self.width..(r + 1) * self.width], fast_math, progress)
    }

    /// [`Batch::run`] on `count` rows given by `row` (a row may have no element: `(3, 0)` is
    /// three empty inputs, not none).
    pub fn run_rows<'r>(
        &self,
        count: usize,
        row: impl Fn(usize) -> &'r [f64],
        fast_math: bool,
        progress: impl Fn(usize),
    ) -> Result<Vec<RowResult>, KnnError> {
        // Every row's result is kept: its value and, for a tensor, its elements.
        let elements = match &self.plan.result {
            ResultSpec::Tensor { leaves, .. } => leaves.len(),
            _ => 0,
        };
        let per_row = std::mem::size_of::<RowResult>().saturating_add(elements.saturating_mul(8));
        memory::check(memory::bytes_for(count as u64, per_row))
            .map_err(|e| KnnError::memory("the results of the batch", e))?;
        let precision = if fast_math { Precision::Fast } else { Precision::Exact };
        let options = ExecOptions { precision, ..ExecOptions::default() };
        let mut results: Vec<RowResult> = Vec::with_capacity(count);
        for start in (0..count).step_by(BATCH_BLOCK) {
            let refs: Vec<Vec<&[f64]>> = (start..count.min(start + BATCH_BLOCK)).map(|r| vec![row(r)]).collect();
            results.extend(run_rows(&self.plan, &refs, options));
            progress(results.len());
        }
        Ok(results)
    }

    /// A row's result as an [`Answer`], its error located in the program.
    pub fn answer(&self, result: &RowResult) -> Answer {
        match result {
            Ok(value) => Answer::Value { value: value.clone(), term: None },
            Err(e) => Answer::Failed(self.error(e)),
        }
    }

    /// A row's result as the report `knn run --engine big-step` gives for that input.
    pub fn report(&self, result: &RowResult) -> Report {
        Report::of_verdict(verdict(result.clone()), &self.source)
    }

    /// A row's error as a [`KnnError`] with its place.
    pub fn error(&self, e: &RowError) -> KnnError {
        KnnError::runtime(e.kind, &e.detail, e.span, &self.source)
    }
}
