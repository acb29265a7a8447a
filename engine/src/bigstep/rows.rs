//! Rows in, results out: the plan runs on groups of rows in parallel (rayon, each worker
//! reusing one frame), and each row's result is either collected as a [`RowResult`] or written
//! straight into the caller's array ([`run_inputs_into`]), which spares a batch a value per row.

use std::marker::PhantomData;
use std::ops::Range;

use rayon::prelude::*;

use knn_semantics::engine::Observed;
use knn_semantics::observables::DenseTensor;

pub use super::exec::RowInputs;
use super::exec::{Frame, with_group};
use super::ops::{FOperand, RowError};
use super::plan::{Leaf, Plan, ResultSpec};
use crate::tensor::{LANE_GROUP, Precision};

/// The result of one row.
pub type RowResult = Result<Observed, RowError>;

/// Options for running a plan.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExecOptions {
    pub precision: Precision,
    /// Rows per group a thread processes at once, rounded up to a multiple of [`LANE_GROUP`];
    /// by default as many as keep a group's frame within [`FRAME_BUDGET`] bytes.
    pub group: Option<usize>,
}

/// The bytes of buffers a group of rows should need at most, so that a layer's input and
/// output stay in a core's L2 cache while the weights stream past them.
pub const FRAME_BUDGET: usize = 256 * 1024;

/// The most rows a group holds.
const MAX_GROUP: usize = 256;

impl ExecOptions {
    /// The rows of a group for `plan`.
    pub fn group_for(&self, plan: &Plan) -> usize {
        let per_row = (plan.layout.len * size_of::<f64>()).max(1);
        match self.group {
            Some(group) => group.max(1).next_multiple_of(LANE_GROUP),
            None => (FRAME_BUDGET / per_row / LANE_GROUP * LANE_GROUP).clamp(LANE_GROUP, MAX_GROUP),
        }
    }
}

impl RowInputs for [Vec<&[f64]>] {
    fn count(&self) -> usize {
        self.len()
    }

    fn input(&self, row: usize, k: usize) -> &[f64] {
        self[row][k]
    }
}

/// Rows of a plan's one input, `width` elements a row, packed in one row-major array.
pub struct Packed<'a> {
    pub data: &'a [f64],
    pub width: usize,
    pub count: usize,
}

impl RowInputs for Packed<'_> {
    fn count(&self) -> usize {
        self.count
    }

    fn input(&self, row: usize, _: usize) -> &[f64] {
        &self.data[row * self.width..(row + 1) * self.width]
    }
}

/// `count` rows of a plan's one input, row `r` given by a function.
pub struct ByRow<'r, F> {
    count: usize,
    row: F,
    rows: PhantomData<&'r [f64]>,
}

impl<'r, F: Fn(usize) -> &'r [f64] + Sync> ByRow<'r, F> {
    pub fn new(count: usize, row: F) -> Self {
        ByRow { count, row, rows: PhantomData }
    }
}

impl<'r, F: Fn(usize) -> &'r [f64] + Sync> RowInputs for ByRow<'r, F> {
    fn count(&self) -> usize {
        self.count
    }

    fn input(&self, row: usize, _: usize) -> &[f64] {
        (self.row)(row)
    }
}

/// Runs `plan` on `rows` (for each row, one vector per input of the plan, in order). Groups
/// of rows run in parallel on the current rayon pool, each worker reusing one frame.
pub fn run_rows(plan: &Plan, rows: &[Vec<&[f64]>], options: ExecOptions) -> Vec<RowResult> {
    run_inputs(plan, rows, options)
}

/// [`run_rows`] on any [`RowInputs`].
pub fn run_inputs<R: RowInputs + ?Sized>(plan: &Plan, inputs: &R, options: ExecOptions) -> Vec<RowResult> {
    let count = inputs.count();
    let run = |rows: Range<usize>| {
        let lanes = rows.len();
        with_group(plan, inputs, rows, options.precision, |frame| {
            (0..lanes).map(|lane| row_result(plan, frame, lane)).collect::<Vec<_>>()
        })
    };
    let group = options.group_for(plan);
    // One group (one row, above all) runs here, its results as they are: no list of groups
    // and no second vector, which cost one input through ACAS Xu 6% (about 50 ns).
    if count <= group {
        return if count == 0 { Vec::new() } else { run(0..count) };
    }
    groups(count, group).into_par_iter().flat_map_iter(run).collect()
}

/// An array every row's result is written into: `per_row` numbers a row, float64 for a float
/// or a tensor, int64 for an integer (a class).
pub enum Destination<'a> {
    Floats(&'a mut [f64]),
    Ints(&'a mut [i64]),
}

/// Why a row gave no value.
#[derive(Clone, Debug)]
pub enum RowFailure {
    /// The program's run-time error.
    Error(RowError),
    /// A NaN among the row's inputs, which the caller asked to refuse: the plan's input and
    /// the element.
    NanInput { input: usize, element: usize },
}

/// A row that failed and why: the first in row order when several fail.
pub type FirstFailure = (usize, RowFailure);

/// Where the first NaN of `values` is. A block is checked with no exit inside, which the
/// compiler vectorises; a scan stopping at the first NaN does not vectorise and took longer
/// than reading the elements from memory.
pub fn first_nan(values: &[f64]) -> Option<usize> {
    const BLOCK: usize = 512;
    values.chunks(BLOCK).enumerate().find_map(|(b, block)| {
        let any = block.iter().fold(false, |seen, v| seen | v.is_nan());
        any.then(|| b * BLOCK + block.iter().position(|v| v.is_nan()).unwrap_or(0))
    })
}

/// Runs `plan` on `inputs` as [`run_inputs`] does, writing row `r`'s value into
/// `out[r * per_row .. (r + 1) * per_row]`, where `per_row` is [`values_per_row`] of the plan.
/// `out` must be a float array for a float or tensor result and an integer array for an
/// integer one, of `per_row` times the rows' numbers (the caller checks: `knn::Batch`
/// does). A failed row's place in `out` is left as it was. With `refuse_nan`, a row with a NaN
/// among its inputs fails: each group's rows are scanned just before the group reads them,
/// while they are in cache, which costs less than a scan of the whole array first.
pub fn run_inputs_into<R: RowInputs + ?Sized>(
    plan: &Plan,
    inputs: &R,
    options: ExecOptions,
    refuse_nan: bool,
    out: Destination,
) -> Result<(), FirstFailure> {
    let rows = WrittenRows { plan, inputs, options, refuse_nan };
    match out {
        Destination::Floats(out) => rows.write(out, |frame, lane, to| match &plan.result {
            ResultSpec::Float(o) => to[0] = frame.float(*o, lane),
            ResultSpec::Tensor { leaves, .. } => {
                for (to, leaf) in to.iter_mut().zip(leaves) {
                    *to = leaf_value(frame, *leaf, lane);
                }
            }
            // The caller checked the result's kind; every row of a failed plan has an error.
            ResultSpec::Int(_) | ResultSpec::Malformed(_) | ResultSpec::Failed => {}
        }),
        Destination::Ints(out) => rows.write(out, |frame, lane, to| {
            if let ResultSpec::Int(o) = &plan.result {
                to[0] = frame.int(*o, lane);
            }
        }),
    }
}

/// The numbers of a row's result: 1 for a scalar, a tensor's elements, none otherwise.
pub fn values_per_row(plan: &Plan) -> usize {
    match &plan.result {
        ResultSpec::Float(_) | ResultSpec::Int(_) => 1,
        ResultSpec::Tensor { leaves, .. } => leaves.len(),
        ResultSpec::Malformed(_) | ResultSpec::Failed => 0,
    }
}

/// The groups' rows: `count` rows cut every `group`.
fn groups(count: usize, group: usize) -> Vec<Range<usize>> {
    (0..count).step_by(group).map(|start| start..count.min(start + group)).collect()
}

/// What [`run_inputs_into`] runs.
struct WrittenRows<'a, R: ?Sized> {
    plan: &'a Plan,
    inputs: &'a R,
    options: ExecOptions,
    refuse_nan: bool,
}

impl<R: RowInputs + ?Sized> WrittenRows<'_, R> {
    fn write<T: Send>(
        &self,
        out: &mut [T],
        write: impl Fn(&Frame, usize, &mut [T]) + Sync,
    ) -> Result<(), FirstFailure> {
        let per_row = values_per_row(self.plan);
        let run = |rows: Range<usize>, to: &mut [T]| {
            let nan = if self.refuse_nan { self.first_nan(rows.clone()) } else { None };
            let start = rows.start;
            let lanes = rows.len();
            with_group(self.plan, self.inputs, rows, self.options.precision, |frame| {
                for lane in 0..lanes {
                    match (&nan, &frame.errors[lane]) {
                        (Some((row, failure)), _) if *row == start + lane => return Some((*row, failure.clone())),
                        (_, Some(error)) => return Some((start + lane, RowFailure::Error(error.clone()))),
                        _ => write(frame, lane, &mut to[lane * per_row..(lane + 1) * per_row]),
                    }
                }
                None
            })
        };
        let (count, group) = (self.inputs.count(), self.options.group_for(self.plan));
        // One group runs here, with no list of groups (see `run_inputs`).
        if count <= group {
            let first = if count == 0 { None } else { run(0..count, out) };
            return first.map_or(Ok(()), Err);
        }
        let groups = groups(count, group);
        let mut outs: Vec<&mut [T]> = Vec::with_capacity(groups.len());
        let mut rest = out;
        for rows in &groups {
            let (here, after) = rest.split_at_mut(rows.len() * per_row);
            outs.push(here);
            rest = after;
        }
        // The first failure in row order, whichever group finds one first.
        let first = groups.into_par_iter().zip(outs).filter_map(|(rows, to)| run(rows, to)).min_by_key(|(row, _)| *row);
        first.map_or(Ok(()), Err)
    }

    /// The first row of `rows` with a NaN among its inputs, and where.
    fn first_nan(&self, rows: Range<usize>) -> Option<FirstFailure> {
        rows.into_iter().find_map(|row| {
            (0..self.plan.inputs.len()).find_map(|input| {
                first_nan(self.inputs.input(row, input)).map(|element| (row, RowFailure::NanInput { input, element }))
            })
        })
    }
}

fn leaf_value(f: &Frame, leaf: Leaf, lane: usize) -> f64 {
    match leaf {
        Leaf::Const(x) => x,
        Leaf::Reg(r) => f.float(FOperand::Reg(r), lane),
        Leaf::Slot(buf, at) => f.buffer(buf, at, 1)[lane],
    }
}

fn row_result(plan: &Plan, f: &Frame, lane: usize) -> RowResult {
    if let Some(error) = &f.errors[lane] {
        return Err(error.clone());
    }
    Ok(match &plan.result {
        ResultSpec::Float(o) => Observed::Float(f.float(*o, lane)),
        ResultSpec::Int(o) => Observed::Int(f.int(*o, lane)),
        ResultSpec::Tensor { shape, leaves } => Observed::Tensor(DenseTensor {
            shape: shape.clone(),
            data: leaves.iter().map(|leaf| leaf_value(f, *leaf, lane)).collect(),
        }),
        ResultSpec::Malformed(why) => Observed::Malformed(why.clone()),
        ResultSpec::Failed => unreachable!("a failed plan ends with Raise, which fails every row"),
    })
}
