//! Running a plan on one group of rows. A group's rows are lanes laid out feature-major
//! (element `k` of every row side by side), so each operation is a loop over lanes: the kernels
//! vectorise across rows, never across the terms of one sum, and every row gets the reference's
//! bits. A row that fails keeps its first error, the others go on. `rows.rs` hands groups to
//! threads and reads their results.

use std::cell::RefCell;
use std::ops::Range;

use knn_semantics::errors::ErrorKind;
use knn_semantics::numeric::{exp_float, float_words, log_float, revised_tanh, sigmoid};
use knn_semantics::syntax::Span;

use super::combine::combine_in;
use super::element_lanes::{add_bias, elementwise, reduce_lanes};
use super::matmul_op::matmul_apply;
use super::ops::{
    Activation, Arith, FOperand, IOperand, MatmulOperand, Op, ReduceKind, RowError, argmax, float_arith, int_arith,
    int_arith_error, item, widen,
};
use super::plan::Plan;
use super::tensor_math::softmax_lanes;
use super::window_lanes::{conv2d_lanes, pool_lanes};
use crate::tensor::{AlignedFloats, Epilogue, LANE_GROUP, Matrix, Precision, map, matmul_lanes, matvec, relu};

/// Rows of inputs for a plan: for each row, one vector per input of the plan, in order. Each
/// vector must have the length its input was compiled with.
pub trait RowInputs: Sync {
    /// The rows.
    fn count(&self) -> usize;
    /// Row `row`'s vector for the plan's input `k`.
    fn input(&self, row: usize, k: usize) -> &[f64];
}

/// The state of one group, lane by lane: register `r` is `fregs[r * lanes .. (r + 1) * lanes]`,
/// buffer `b` starts at `offsets[b]` (element `k`, lane `l` at `offsets[b] + k * lanes + l`).
/// A worker reuses its frame from group to group: every buffer and register is written before
/// it is read, so nothing needs clearing but the errors and the padding lanes of the inputs.
#[derive(Default)]
pub(super) struct Frame {
    lanes: usize,
    fregs: Vec<f64>,
    iregs: Vec<i64>,
    data: AlignedFloats,
    offsets: Vec<usize>,
    /// Each lane's first error.
    pub(super) errors: Vec<Option<RowError>>,
}

thread_local! {
    /// Each thread's frame, reused from group to group and run to run: a frame of a wide
    /// network is hundreds of kilobytes, which a fresh allocation would fault in page by page.
    static FRAME: RefCell<Frame> = RefCell::new(Frame::default());
}

/// Runs `plan` on rows `rows` of `inputs` in this thread's frame, then `read` reads the
/// results from the frame (lane `l` is row `rows.start + l`).
pub(super) fn with_group<R: RowInputs + ?Sized, T>(
    plan: &Plan,
    inputs: &R,
    rows: Range<usize>,
    precision: Precision,
    read: impl FnOnce(&Frame) -> T,
) -> T {
    FRAME.with_borrow_mut(|frame| {
        load_group(plan, inputs, rows, frame);
        run_ops(plan, frame, precision);
        read(frame)
    })
}

impl Frame {
    fn prepare(&mut self, plan: &Plan, lanes: usize) {
        self.lanes = lanes;
        self.fregs.resize(plan.fregs as usize * lanes, 0.0);
        self.iregs.resize(plan.iregs as usize * lanes, 0);
        self.data.resize(plan.layout.len * lanes, 0.0);
        self.offsets.clear();
        self.offsets.extend(plan.layout.offsets.iter().map(|o| o * lanes));
        self.errors.clear();
        self.errors.resize(lanes, None);
    }

    pub(super) fn float(&self, operand: FOperand, lane: usize) -> f64 {
        match operand {
            FOperand::Const(x) => x,
            FOperand::Reg(r) => self.fregs[r as usize * self.lanes + lane],
        }
    }

    pub(super) fn int(&self, operand: IOperand, lane: usize) -> i64 {
        match operand {
            IOperand::Const(n) => n,
            IOperand::Reg(r) => self.iregs[r as usize * self.lanes + lane],
        }
    }

    /// Where elements `from .. from + len` of a buffer are, all lanes.
    fn range(&self, buf: u32, from: usize, len: usize) -> Range<usize> {
        let start = self.offsets[buf as usize] + from * self.lanes;
        start..start + len * self.lanes
    }

    pub(super) fn buffer(&self, buf: u32, from: usize, len: usize) -> &[f64] {
        &self.data[self.range(buf, from, len)]
    }

    /// Disjoint runs of buffers at once (an operation's inputs and outputs never share space).
    fn disjoint<const N: usize>(&mut self, runs: [(u32, usize, usize); N]) -> [&mut [f64]; N] {
        let ranges = runs.map(|(buf, from, len)| self.range(buf, from, len));
        self.data.get_disjoint_mut(ranges).expect("the layout keeps an operation's buffers apart")
    }

    /// A row keeps its first error: the rules discard the rest of `<k>` after one
    /// (`rev-error-abort`), so the later operations' results in that lane are never read.
    fn fail(&mut self, lane: usize, error: impl FnOnce() -> RowError) {
        if self.errors[lane].is_none() {
            self.errors[lane] = Some(error());
        }
    }

    /// Records relu's missing rule in every lane where `values` (elements × lanes) holds a NaN:
    /// `max(NaN, 0.0)` matches neither `max-left` nor `max-right`, so `rev-arith-invalid` applies.
    fn fail_relu_nan(&mut self, values: Range<usize>, span: Span) {
        let lanes = self.lanes;
        let failed: Vec<usize> = values.filter(|&k| self.data[k].is_nan()).map(|k| k % lanes).collect();
        for lane in failed {
            self.fail(lane, || RowError {
                kind: ErrorKind::InvalidOperands,
                span,
                detail: "`max` cannot compute with NaN and 0.0".into(),
            });
        }
    }
}

/// Lays a group's rows out in the frame, lane by lane.
fn load_group<R: RowInputs + ?Sized>(plan: &Plan, inputs: &R, rows: Range<usize>, frame: &mut Frame) {
    // One row runs alone (its kernels vectorise across output rows); a group is padded to a
    // whole number of lane groups (its kernels vectorise across rows of the batch).
    let count = rows.len();
    let lanes = if count == 1 { 1 } else { count.next_multiple_of(LANE_GROUP) };
    frame.prepare(plan, lanes);
    for (k, input) in plan.inputs.iter().enumerate() {
        let start = frame.offsets[input.buf as usize];
        let elements = &mut frame.data[start..start + input.len * lanes];
        if lanes == 1 {
            // One row: its lanes are its elements, in order.
            elements.copy_from_slice(inputs.input(rows.start, k));
            continue;
        }
        // Transposed 8 rows at a time: 8 rows read in order, 8 adjacent lanes written.
        for block in (0..count).step_by(8) {
            let here = (count - block).min(8);
            let mut vectors: [&[f64]; 8] = [&[]; 8];
            for (l, vector) in vectors[..here].iter_mut().enumerate() {
                *vector = inputs.input(rows.start + block + l, k);
            }
            for (at, lanes_here) in elements.chunks_exact_mut(lanes).enumerate() {
                for (l, vector) in vectors[..here].iter().enumerate() {
                    lanes_here[block + l] = vector[at];
                }
            }
        }
        // Padding lanes compute from zeros, not from a previous group's leftovers.
        for lanes_here in elements.chunks_exact_mut(lanes) {
            lanes_here[count..].fill(0.0);
        }
    }
}

/// Runs the plan's operations on the group in the frame. (Not generic over the rows' source:
/// one copy of the operations' loop, whatever the caller.)
fn run_ops(plan: &Plan, frame: &mut Frame, precision: Precision) {
    for op in &plan.ops {
        execute(op, frame, precision);
    }
}

fn execute(op: &Op, f: &mut Frame, precision: Precision) {
    let lanes = f.lanes;
    match op {
        Op::Float { op, a, b, out, span } => {
            for lane in 0..lanes {
                let (x, y) = (f.float(*a, lane), f.float(*b, lane));
                // No rule computes `max`/`min` of a NaN: `rev-arith-invalid`.
                let value = float_arith(*op, x, y).unwrap_or_else(|| {
                    f.fail(lane, || no_float_rule(*op, x, y, *span));
                    f64::NAN
                });
                f.fregs[*out as usize * lanes + lane] = value;
            }
        }
        Op::Int { op, a, b, out, span } => {
            for lane in 0..lanes {
                let (x, y) = (f.int(*a, lane), f.int(*b, lane));
                let value = int_arith(*op, x, y).unwrap_or_else(|| {
                    f.fail(lane, || {
                        // `integer-overflow`, or `division-by-zero` (`ext-div-int-zero`).
                        let (kind, detail) = int_arith_error(*op, x, y);
                        RowError { kind, span: *span, detail: detail.into() }
                    });
                    0
                });
                f.iregs[*out as usize * lanes + lane] = value;
            }
        }
        Op::Widen { a, out, .. } => {
            for lane in 0..lanes {
                f.fregs[*out as usize * lanes + lane] = widen(f.iregs[*a as usize * lanes + lane]);
            }
        }
        Op::Item { item: which, a, out, .. } => {
            for lane in 0..lanes {
                f.fregs[*out as usize * lanes + lane] = item(*which, f.fregs[*a as usize * lanes + lane]);
            }
        }
        Op::Read { buf, at, out, .. } => {
            let start = f.offsets[*buf as usize] + at * lanes;
            let (out, data) = (*out as usize * lanes, &f.data[start..start + lanes]);
            f.fregs[out..out + lanes].copy_from_slice(data);
        }
        Op::Write { buf, at, value, .. } => {
            let start = f.offsets[*buf as usize] + at * lanes;
            for lane in 0..lanes {
                f.data[start + lane] = f.float(*value, lane);
            }
        }
        Op::MatVec { out, w, x, x_at, bias, relu: None } => {
            let [input, result] = f.disjoint([(*x, *x_at, w.cols()), (*out, 0, w.rows())]);
            let epilogue = Epilogue { bias: bias.as_deref(), relu: None };
            product(w, input, result, lanes, precision, epilogue);
        }
        Op::MatVec { out, w, x, x_at, bias, relu: Some(relu) } => {
            let [input, result, activated] =
                f.disjoint([(*x, *x_at, w.cols()), (*out, 0, w.rows()), (relu.out, 0, w.rows())]);
            let epilogue = Epilogue { bias: bias.as_deref(), relu: Some(activated) };
            if product(w, input, result, lanes, precision, epilogue) {
                f.fail_relu_nan(f.range(*out, 0, w.rows()), relu.span);
            }
        }
        Op::AddBias { buf, at, values } => {
            let start = f.offsets[*buf as usize];
            let len = f.data.len();
            add_bias(&mut f.data[start..len], *at, values, lanes);
        }
        Op::Elementwise { buf, at, steps } => {
            let start = f.offsets[*buf as usize];
            let len = f.data.len();
            elementwise(&mut f.data[start..len], *at, steps, lanes);
        }
        Op::Activate { activation, input, in_at, out, len, span } => {
            let [source, target] = f.disjoint([(*input, *in_at, *len), (*out, 0, *len)]);
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
                // `ext-exp-item`, `ext-log-item`: a NaN in or out is a value, not a failure.
                Activation::Exp => {
                    map(source, target, exp_float);
                    false
                }
                Activation::Log => {
                    map(source, target, log_float);
                    false
                }
            };
            if nan {
                // relu of NaN: `max(NaN, 0.0)` has no rule in the row where it happens.
                f.fail_relu_nan(f.range(*input, *in_at, *len), *span);
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
        Op::Conv2d { out, x, x_at, conv } => {
            let [input, result] = f.disjoint([(*x, *x_at, conv.input_len()), (*out, 0, conv.output_len())]);
            conv2d_lanes(conv, input, result, lanes);
        }
        Op::Pool2d { pool, out, x, x_at, geometry, span } => {
            let (input_len, output_len) =
                (geometry.input.iter().product::<i64>(), geometry.output.iter().product::<i64>());
            let [input, result] = f.disjoint([(*x, *x_at, input_len as usize), (*out, 0, output_len as usize)]);
            for (lane, nan) in pool_lanes(*pool, geometry, input, result, lanes) {
                f.fail(lane, || RowError {
                    kind: ErrorKind::InvalidOperands,
                    span: *span,
                    detail: nan.detail().into(),
                });
            }
        }
        Op::Copy { out, x, x_at, len } => {
            let [input, result] = f.disjoint([(*x, *x_at, *len), (*out, 0, *len)]);
            result.copy_from_slice(input);
        }
        Op::Permute { out, x, x_at, from } => {
            let [input, result] = f.disjoint([(*x, *x_at, from.len()), (*out, 0, from.len())]);
            for (row, &j) in result.chunks_exact_mut(lanes).zip(from.iter()) {
                row.copy_from_slice(&input[j * lanes..(j + 1) * lanes]);
            }
        }
        Op::Gather { out, from } => {
            for (k, &(buf, at)) in from.iter().enumerate() {
                let source = f.range(buf, at, 1);
                let target = f.range(*out, k, 1).start;
                f.data.copy_within(source, target);
            }
        }
        Op::Pad { out, x, x_at, x_len, from, value } => {
            let [input, result] = f.disjoint([(*x, *x_at, *x_len), (*out, 0, from.len())]);
            for (row, source) in result.chunks_exact_mut(lanes).zip(from.iter()) {
                match source {
                    Some(j) => row.copy_from_slice(&input[j * lanes..(j + 1) * lanes]),
                    None => row.fill(*value),
                }
            }
        }
        Op::Raise { error } => {
            for lane in 0..lanes {
                f.fail(lane, || error.clone());
            }
        }
        Op::Combine { op, a, b, out, len, .. } => combine_in(&mut f.data, &f.offsets, (*out, *len), *op, (a, b), lanes),
        Op::MatMul { out, a, b, geometry, .. } => {
            // A buffer and a constant: the result's rows as the tensor core's products.
            if let (Some(rows), Some(run)) = (&geometry.by_rows, geometry.buffer_run(a, b)) {
                let [buffer, result] = f.disjoint([run, (*out, 0, geometry.bases.len())]);
                return rows.apply(buffer, result, lanes);
            }
            // The operands may share a buffer (`matmul(x, x)`): they are read from copies.
            let read = |f: &Frame, operand: &MatmulOperand, len: usize| match operand {
                MatmulOperand::Buffer { buf, at } => f.buffer(*buf, *at, len).to_vec(),
                MatmulOperand::Const(values) => values.to_vec(),
            };
            let (left, right) = (read(f, a, geometry.left_len), read(f, b, geometry.right_len));
            let range = f.range(*out, 0, geometry.bases.len());
            let views = (a.view(&left, lanes), b.view(&right, lanes));
            matmul_apply(geometry, views, &mut f.data[range], lanes);
        }
        Op::Reduce { kind, out, x, x_at, input_len, outputs, group, from, span } => {
            let [input, result] = f.disjoint([(*x, *x_at, *input_len), (*out, 0, *outputs)]);
            let op = if *kind == ReduceKind::Min { Arith::Min } else { Arith::Max };
            for (lane, acc, element) in reduce_lanes(*kind, *group, from, input, result, lanes) {
                f.fail(lane, || no_float_rule(op, acc, element, *span));
            }
        }
        Op::Softmax { log, out, x, x_at, dims, axis, span } => {
            let len = dims.iter().product::<usize>();
            let [input, result] = f.disjoint([(*x, *x_at, len), (*out, 0, len)]);
            for (lane, nan) in softmax_lanes(*log, dims, *axis, input, result, lanes) {
                f.fail(lane, || RowError {
                    kind: ErrorKind::InvalidOperands,
                    span: *span,
                    detail: nan.detail().into(),
                });
            }
        }
    }
}

/// `max`/`min` of a NaN: no rule applies (`rev-arith-invalid`); the reference's wording.
fn no_float_rule(op: Arith, x: f64, y: f64, span: Span) -> RowError {
    let detail = format!("`{}` cannot compute with {} and {}", op.symbol(), float_words(x), float_words(y));
    RowError { kind: ErrorKind::InvalidOperands, span, detail: detail.into() }
}

/// `W x` for one input or a group, then the epilogue; whether relu met a NaN.
fn product(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize, precision: Precision, epilogue: Epilogue) -> bool {
    if lanes == 1 {
        matvec(w, x, out, precision, epilogue)
    } else {
        matmul_lanes(w, x, out, lanes, precision, epilogue)
    }
}
