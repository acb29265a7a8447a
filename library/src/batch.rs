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
use knn_engine::bigstep::ops::RowError;
use knn_engine::bigstep::plan::ResultSpec;
use knn_engine::bigstep::rows::{ByRow, Destination, Packed, RowFailure, run_inputs, run_inputs_into, values_per_row};
use knn_engine::bigstep::{Binding, ExecOptions, Plan, RowResult, compile, verdict};
use knn_engine::tensor::Precision;

/// Rows run between two calls of the progress callback.
pub const BATCH_BLOCK: usize = 8192;

/// Every row's value of a batch in one row-major array ([`Batch::run_values`]).
#[derive(Clone, Debug, PartialEq)]
pub enum RowValues {
    /// Floats or tensors of floats: `shape` is the rows, then the shape of a row's tensor.
    Floats { shape: Vec<usize>, data: Vec<f64> },
    /// Integers (classes), one a row.
    Ints(Vec<i64>),
}

/// Why [`Batch::run_values`] gave no array: a row's run-time error or refused input (`row`,
/// the first in row order) or, before any row ran, the rows or the result.
#[derive(Clone, Debug)]
pub struct BatchFailure {
    pub row: Option<usize>,
    /// The element of the row that is NaN, when that is why it failed.
    pub nan_element: Option<usize>,
    pub error: KnnError,
}

/// How [`Batch::run_values`] runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct ValuesOptions {
    /// Fused multiply-adds and reassociated sums (`--fast-math`): not the reference's bits.
    pub fast_math: bool,
    /// Refuse a row with a NaN element, as a caller's error, instead of running it (a NaN
    /// input is almost always a bug upstream). Each group of rows is checked just before it
    /// runs, while its rows are in cache.
    pub refuse_nan: bool,
}

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
    /// use knn::{Answer, load};
    /// use knn_semantics::engine::Observed;
    /// let net = load(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/mlp.knn")).unwrap();
    /// let batch = net.batch("x", 3, &[]).unwrap();
    /// let rows = [1.0, -2.0, 0.5, /* second row */ 0.0, 1.0, 0.0];
    /// let classes: Vec<Answer> = batch.run(&rows, false, |_| {}).unwrap().iter().map(|r| batch.answer(r)).collect();
    /// assert!(matches!(classes[..], [Answer::Value { value: Observed::Int(0), .. }, Answer::Value { value: Observed::Int(1), .. }]));
    /// ```
    pub fn batch(&self, input: &str, width: usize, fixed: &[TensorInput]) -> Result<Batch, KnnError> {
        self.batch_of_shape(input, &[width], fixed)
    }

    /// [`Program::batch`] with `input` a tensor of shape `shape` (an image `(C, H, W)` for a
    /// convolutional network): each row holds its elements in row-major order.
    pub fn batch_of_shape(&self, input: &str, shape: &[usize], fixed: &[TensorInput]) -> Result<Batch, KnnError> {
        if self.semantics() != Semantics::Revised {
            return Err(KnnError::usage("a batch runs the revised semantics (the big-step engine)"));
        }
        if fixed.iter().any(|i| i.name == input) {
            return Err(KnnError::usage(format!("`{input}` is both the batched input and a --bind")));
        }
        let mut bound: Vec<&str> = fixed.iter().map(|i| i.name.as_str()).collect();
        bound.push(input);
        self.check(&bound)?;
        let bindings = Binding::with_open_input(fixed, input, shape.to_vec());
        let width = shape.iter().product();
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
        let count = self.row_count(rows)?;
        self.run_rows(count, |r| &rows[r * self.width..(r + 1) * self.width], fast_math, progress)
    }

    /// [`Batch::run`] on `count` rows given by `row` (a row may have no element: `(3, 0)` is
    /// three empty inputs, not none).
    pub fn run_rows<'r>(
        &self,
        count: usize,
        row: impl Fn(usize) -> &'r [f64] + Sync,
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
        let options = ExecOptions { precision: Precision::fast_if(fast_math), ..ExecOptions::default() };
        let mut results: Vec<RowResult> = Vec::with_capacity(count);
        for start in (0..count).step_by(BATCH_BLOCK) {
            let block = ByRow::new(count.min(start + BATCH_BLOCK) - start, |r| row(start + r));
            results.extend(run_inputs(&self.plan, &block, options));
            progress(results.len());
        }
        Ok(results)
    }

    /// Runs every row of `rows` (row-major, `width` elements a row) and gives every row's
    /// value in one array, written as the rows finish: what an array library wants, without a
    /// value per row on the way. It stops at a failing row (the first in row order, with its
    /// error located in the program, or its NaN when `options` refuse NaNs), and a result that
    /// is not a dense tensor is refused before any row runs.
    ///
    /// ```
    /// use knn::{RowValues, load};
    /// let net = load(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/mlp.knn")).unwrap();
    /// let batch = net.batch("x", 3, &[]).unwrap();
    /// let rows = [1.0, -2.0, 0.5, /* second row */ 0.0, 1.0, 0.0];
    /// let classes = batch.run_values(&rows, Default::default());
    /// assert!(matches!(classes, Ok(RowValues::Ints(classes)) if classes == [0, 1]));
    /// ```
    pub fn run_values(&self, rows: &[f64], options: ValuesOptions) -> Result<RowValues, BatchFailure> {
        let before_rows = |error| BatchFailure { row: None, nan_element: None, error };
        let count = self.row_count(rows).map_err(before_rows)?;
        let per_row = values_per_row(&self.plan);
        let int_result = matches!(self.plan.result, ResultSpec::Int(_));
        let mut shape = vec![count];
        match &self.plan.result {
            ResultSpec::Tensor { shape: row_shape, .. } => shape.extend_from_slice(row_shape),
            ResultSpec::Malformed(why) => {
                return Err(before_rows(KnnError::usage(format!("the result is not a dense tensor ({why})"))));
            }
            ResultSpec::Float(_) | ResultSpec::Int(_) | ResultSpec::Failed => {}
        }
        let elements = count.saturating_mul(per_row);
        memory::check(memory::bytes_for(elements as u64, 8))
            .map_err(|e| before_rows(KnnError::memory("the results of the batch", e)))?;
        let inputs = Packed { data: rows, width: self.width, count };
        let exec = ExecOptions { precision: Precision::fast_if(options.fast_math), ..ExecOptions::default() };
        let refuse_nan = options.refuse_nan;
        let failed = |(row, failure): (usize, RowFailure)| match failure {
            RowFailure::Error(e) => BatchFailure { row: Some(row), nan_element: None, error: self.error(&e) },
            RowFailure::NanInput { element, .. } => BatchFailure {
                row: Some(row),
                nan_element: Some(element),
                error: KnnError::usage(format!("row {row}: element {element} is NaN")),
            },
        };
        if int_result {
            let mut classes = vec![0; elements];
            run_inputs_into(&self.plan, &inputs, exec, refuse_nan, Destination::Ints(&mut classes)).map_err(failed)?;
            Ok(RowValues::Ints(classes))
        } else {
            let mut data = vec![0.0; elements];
            run_inputs_into(&self.plan, &inputs, exec, refuse_nan, Destination::Floats(&mut data)).map_err(failed)?;
            Ok(RowValues::Floats { shape, data })
        }
    }

    /// The rows in `rows`, or why its length is not a whole number of rows.
    fn row_count(&self, rows: &[f64]) -> Result<usize, KnnError> {
        match self.width {
            0 => Ok(0),
            w if rows.len().is_multiple_of(w) => Ok(rows.len() / w),
            w => Err(KnnError::usage(format!("{} numbers do not make rows of {w} elements", rows.len()))),
        }
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
