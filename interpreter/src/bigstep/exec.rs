//! Running a plan on rows of inputs. Rows are processed in groups of lanes laid out
//! feature-major (element `k` of every row side by side), so each operation is a loop over
//! lanes: the kernels vectorise across rows, never across the terms of one sum, and every row
//! gets the reference's bits. Groups run in parallel (rayon); a row that fails keeps its first
//! error, the others go on.

use rayon::prelude::*;

use knn_semantics::engine::Observed;
use knn_semantics::errors::ErrorKind;
use knn_semantics::observables::DenseTensor;

use knn_semantics::numeric::{revised_tanh, sigmoid};

use super::ops::{Activation, FOperand, IOperand, Op, RowError, argmax, float_arith, int_arith, item, widen};
use super::plan::{Leaf, Plan, ResultSpec};
use crate::tensor::{LANE_GROUP, Precision, map, matmul_lanes, matvec, relu};

/// The result of one row.
pub type RowResult = Result<Observed, RowError>;

/// Options for running a plan.
#[derive(Clone, Copy, Debug)]
pub struct ExecOptions {
    pub precision: Precision,
    /// Rows per group a thread processes at once (rounded up to a multiple of [`LANE_GROUP`]).
    pub group: usize,
}

impl Default for ExecOptions {
    fn default() -> ExecOptions {
        ExecOptions { precision: Precision::Exact, group: 256 }
    }
}

/// Runs `plan` on `rows` (for each row, one vector per input of the plan, in order).
pub fn run_rows(plan: &Plan, rows: &[Vec<&[f64]>], options: ExecOptions) -> Vec<RowResult> {
    let group = options.group.max(1).next_multiple_of(LANE_GROUP);
    if rows.len() <= group {
        return run_group(plan, rows, options.precision);
    }
    rows.par_chunks(group).flat_map_iter(|chunk| run_group(plan, chunk, options.precision)).collect()
}

/// The state of one group, lane by lane: register `r` is `fregs[r * lanes .. (r + 1) * lanes]`,
/// buffer `b` starts at `offsets[b]` (element `k`, lane `l` at `offsets[b] + k * lanes + l`).
struct Frame {
    lanes: usize,
    fregs: Vec<f64>,
    iregs: Vec<i64>,
    data: Vec<f64>,
    offsets: Vec<usize>,
    errors: Vec<Option<RowError>>,
}

impl Frame {
    fn float(&self, operand: FOperand, lane: usize) -> f64 {
        match operand {
            FOperand::Const(x) => x,
            FOperand::Reg(r) => self.fregs[r as usize * self.lanes + lane],
        }
    }

    fn int(&self, operand: IOperand, lane: usize) -> i64 {
        match operand {
            IOperand::Const(n) => n,
            IOperand::Reg(r) => self.iregs[r as usize * self.lanes + lane],
        }
    }

    /// Elements `from .. from + len` of a buffer, all lanes.
    fn buffer(&self, buf: u32, from: usize, len: usize) -> &[f64] {
        let start = self.offsets[buf as usize] + from * self.lanes;
        &self.data[start..start + len * self.lanes]
    }

    /// Elements of two different buffers, the first read, the second written.
    fn buffers(
        &mut self,
        (read, from, len): (u32, usize, usize),
        (write, to, count): (u32, usize, usize),
    ) -> (&[f64], &mut [f64]) {
        let r =
            self.offsets[read as usize] + from * self.lanes..self.offsets[read as usize] + (from + len) * self.lanes;
        let w =
            self.offsets[write as usize] + to * self.lanes..self.offsets[write as usize] + (to + count) * self.lanes;
        assert!(r.end <= w.start || w.end <= r.start, "an operation reads and writes one buffer");
        if r.start < w.start {
            let (low, high) = self.data.split_at_mut(w.start);
            (&low[r], &mut high[..w.end - w.start])
        } else {
            let (low, high) = self.data.split_at_mut(r.start);
            (&high[..r.end - r.start], &mut low[w])
        }
    }

    fn fail(&mut self, lane: usize, error: impl FnOnce() -> RowError) {
        if self.errors[lane].is_none() {
            self.errors[lane] = Some(error());
        }
    }
}

fn run_group(plan: &Plan, rows: &[Vec<&[f64]>], precision: Precision) -> Vec<RowResult> {
    // One row runs alone (its kernels vectorise across output rows); a group is padded to a
    // whole number of lane groups (its kernels vectorise across rows of the batch).
    let lanes = if rows.len() == 1 { 1 } else { rows.len().next_multiple_of(LANE_GROUP) };
    let mut offsets = Vec::with_capacity(plan.buffers.len());
    let mut total = 0;
    for &len in &plan.buffers {
        offsets.push(total);
        total += len * lanes;
    }
    let mut frame = Frame {
        lanes,
        fregs: vec![0.0; plan.fregs as usize * lanes],
        iregs: vec![0; plan.iregs as usize * lanes],
        data: vec![0.0; total],
        offsets,
        errors: vec![None; lanes],
    };
    for (k, input) in plan.inputs.iter().enumerate() {
        let start = frame.offsets[input.buf as usize];
        for (lane, row) in rows.iter().enumerate() {
            for (at, &v) in row[k][..input.len].iter().enumerate() {
                frame.data[start + at * lanes + lane] = v;
            }
        }
    }
    for op in &plan.ops {
        execute(op, &mut frame, precision);
    }
    (0..rows.len()).map(|lane| row_result(plan, &frame, lane)).collect()
}

fn execute(op: &Op, f: &mut Frame, precision: Precision) {
    let lanes = f.lanes;
    match op {
        Op::Float { op, a, b, out, span } => {
            for lane in 0..lanes {
                let (x, y) = (f.float(*a, lane), f.float(*b, lane));
                let value = float_arith(*op, x, y).unwrap_or_else(|| {
                    f.fail(lane, || RowError {
                        kind: ErrorKind::InvalidOperands,
                        span: *span,
                        detail: format!("`{}` cannot compute with {x:?} and {y:?}", op.symbol()).into(),
                    });
                    f64::NAN
                });
                f.fregs[*out as usize * lanes + lane] = value;
            }
        }
        Op::Int { op, a, b, out, span } => {
            for lane in 0..lanes {
                let (x, y) = (f.int(*a, lane), f.int(*b, lane));
                let value = int_arith(*op, x, y).unwrap_or_else(|| {
                    f.fail(lane, || RowError {
                        kind: ErrorKind::IntegerOverflow,
                        span: *span,
                        detail: format!("{x} and {y}: the result does not fit in 64 bits").into(),
                    });
                    0
                });
                f.iregs[*out as usize * lanes + lane] = value;
            }
        }
        Op::Widen { a, out } => {
            for lane in 0..lanes {
                f.fregs[*out as usize * lanes + lane] = widen(f.iregs[*a as usize * lanes + lane]);
            }
        }
        Op::Item { item: which, a, out } => {
            for lane in 0..lanes {
                f.fregs[*out as usize * lanes + lane] = item(*which, f.fregs[*a as usize * lanes + lane]);
            }
        }
        Op::Read { buf, at, out } => {
            let start = f.offsets[*buf as usize] + at * lanes;
            let (out, data) = (*out as usize * lanes, &f.data[start..start + lanes]);
            f.fregs[out..out + lanes].copy_from_slice(data);
        }
        Op::Write { buf, at, value } => {
            let start = f.offsets[*buf as usize] + at * lanes;
            for lane in 0..lanes {
                f.data[start + lane] = f.float(*value, lane);
            }
        }
        Op::MatVec { out, w, x, x_at, bias } => {
            let (input, result) = f.buffers((*x, *x_at, w.cols()), (*out, 0, w.rows()));
            if lanes == 1 {
                matvec(w, input, result, precision);
            } else {
                matmul_lanes(w, input, result, lanes, precision);
            }
            if let Some(bias) = bias {
                add_bias(result, 0, bias, lanes);
            }
        }
        Op::AddBias { buf, at, values } => {
            let start = f.offsets[*buf as usize];
            let len = f.data.len();
            add_bias(&mut f.data[start..len], *at, values, lanes);
        }
        Op::Activate { activation, input, in_at, out, len, span } => {
            let (source, target) = f.buffers((*input, *in_at, *len), (*out, 0, *len));
            let nan = match activation {
                Activation::Relu => relu(source, target),
                Activation::Tanh => {
                    map(source, target, revised_tanh);
                    false
                }
                Activation::Sigmoid => {
                    map(source, target, sigmoid);
                    false
                }
            };
            if nan {
                // relu of NaN: `max(NaN, 0.0)` has no rule in the row where it happens.
                let failed: Vec<usize> = (0..len * lanes).filter(|k| source[*k].is_nan()).map(|k| k % lanes).collect();
                for lane in failed {
                    f.fail(lane, || RowError {
                        kind: ErrorKind::InvalidOperands,
                        span: *span,
                        detail: "`max` cannot compute with NaN and 0.0".into(),
                    });
                }
            }
        }
        Op::ArgMaxBuffer { buf, at, len, out } => {
            for lane in 0..lanes {
                let values = f.buffer(*buf, *at, *len);
                let index = argmax((0..*len).map(|k| values[k * lanes + lane]));
                f.iregs[*out as usize * lanes + lane] = index;
            }
        }
        Op::ArgMaxOperands { items, out } => {
            for lane in 0..lanes {
                let index = argmax(items.iter().map(|o| f.float(*o, lane)));
                f.iregs[*out as usize * lanes + lane] = index;
            }
        }
        Op::Raise { error } => {
            for lane in 0..lanes {
                f.fail(lane, || error.clone());
            }
        }
    }
}

/// `buffer[at + k] = buffer[at + k] + values[k]` in every lane, where `values[k]` is given.
fn add_bias(buffer: &mut [f64], at: usize, values: &[Option<f64>], lanes: usize) {
    for (k, value) in values.iter().enumerate() {
        if let Some(b) = value {
            for x in &mut buffer[(at + k) * lanes..(at + k + 1) * lanes] {
                *x += b;
            }
        }
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
            data: leaves
                .iter()
                .map(|leaf| match *leaf {
                    Leaf::Const(x) => x,
                    Leaf::Reg(r) => f.fregs[r as usize * f.lanes + lane],
                    Leaf::Slot(buf, at) => f.buffer(buf, at, 1)[lane],
                })
                .collect(),
        }),
        ResultSpec::Malformed(why) => Observed::Malformed(why.clone()),
        ResultSpec::Failed => unreachable!("a failed plan ends with Raise, which fails every row"),
    })
}
