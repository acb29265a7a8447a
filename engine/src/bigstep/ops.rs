//! The operations of a plan and their scalar semantics. The same functions fold constants at
//! compile time and compute at run time, and they are the revised rules' right-hand sides
//! (`knn_semantics::numeric`), so a plan computes the reference's bits.

use std::sync::Arc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::numeric::{exp_float, int_to_float, k_max, k_min, log_float, revised_tanh, sigmoid};
use knn_semantics::syntax::{Pool, Span};
use knn_semantics::window::Pool2dGeometry;

pub use super::matmul_op::{MatmulGeometry, MatmulOperand, MatmulRows};
pub use super::window_ops::ConvKernel;
#[cfg(doc)]
use super::window_ops::pool_apply;
use crate::tensor::Matrix;

/// A register: one scalar per row of a batch. Float and Int registers are numbered apart.
pub type Reg = u32;
/// A buffer: a run of Floats per row (an input tensor, the output of a layer).
pub type BufId = u32;

/// A Float operand: a constant or a Float register.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FOperand {
    Const(f64),
    Reg(Reg),
}

/// An Int operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IOperand {
    Const(i64),
    Reg(Reg),
}

/// A binary operator of the language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Mul,
    Max,
    Min,
    /// `/` (Ext-7: `ext-div-float`, `ext-div-int`, the mixed rules), and `poolMean` of
    /// `avgPool2d` (`ext-pool-mean`, a Float sum by a Float count).
    Div,
    /// `-` (Ext-7: `ext-sub-float`, `ext-sub-int`, the mixed rules).
    Sub,
}

impl Arith {
    /// `+`, `*`, `-`, `/`: the operators with Int and mixed rules (`max`, `min` have neither).
    pub fn is_arithmetic(self) -> bool {
        !matches!(self, Arith::Max | Arith::Min)
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Arith::Add => "+",
            Arith::Mul => "*",
            Arith::Max => "max",
            Arith::Min => "min",
            Arith::Div => "/",
            Arith::Sub => "-",
        }
    }
}

/// A scalar function: `tanhItem`, `sigmoidItem`; `expFloat`, `logFloat` (Ext-9's items).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    Tanh,
    Sigmoid,
    Exp,
    Log,
    /// `sqrtFloat` (Ext-14's `sqrtItem`, `batchNorm`'s divisor).
    Sqrt,
}

impl Item {
    /// The function's name in K-NN (the reference's errors name it so).
    pub fn name(self) -> &'static str {
        match self {
            Item::Tanh => "tanhItem",
            Item::Sigmoid => "sigmoidItem",
            Item::Exp => "expItem",
            Item::Log => "logItem",
            Item::Sqrt => "sqrtItem",
        }
    }
}

/// An element-wise tensor function: the activations, and Ext-9's `expTensor`, `logTensor`
/// of one run of a buffer (`expFloat`, `logFloat`: never an error on a Float).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Relu,
    Tanh,
    Sigmoid,
    Exp,
    Log,
}

/// What a [`Op::Reduce`] computes of each group (Ext-10, `ext-reduce-helper-step`): the sum
/// from `0.0` (`reduceSum`), that sum `/Float` the count (`reduceMean`, `ext-pool-mean`), or
/// the scalar `max` from `-Infinity` (`reduceMax`) or `min` from `Infinity` (`reduceMin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    Sum,
    Mean,
    Max,
    Min,
}

/// A run-time error of one row: the kind the reference reports, where, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct RowError {
    pub kind: ErrorKind,
    pub span: Span,
    pub detail: Arc<str>,
}

/// A result of compiling: an error found then makes every row fail where it occurs.
pub(super) type Eval<T> = Result<T, RowError>;

pub(super) fn error(kind: ErrorKind, span: Span, detail: impl Into<Arc<str>>) -> RowError {
    RowError { kind, span, detail: detail.into() }
}

/// `op(a, b)` on Floats: `+Float` (`add-float`), `*Float` (`mul-float`), `-Float`
/// (`ext-sub-float`), `/Float` (`ext-div-float`: IEEE, a division by zero is no error), the
/// `max`/`min` rules (`max-left`, `max-right`, `min-left`, `min-right`); `None` when no rule
/// applies (a NaN in `max`/`min`), which is `rev-arith-invalid`'s `invalid-operands`.
pub fn float_arith(op: Arith, a: f64, b: f64) -> Option<f64> {
    match op {
        Arith::Add => Some(a + b),
        Arith::Mul => Some(a * b),
        Arith::Max => k_max(a, b),
        Arith::Min => k_min(a, b),
        Arith::Div => Some(a / b),
        Arith::Sub => Some(a - b),
    }
}

/// `op(a, b)` on Ints (`+Int`: `rev-add-int`, `*Int`: `rev-mul-int`, `-Int`: `ext-sub-int`,
/// `/Int` toward zero: `ext-div-int`); `None` beyond 64 bits or for a division by `0`
/// (`ext-div-int-zero`), [`int_arith_error`] says which. `max`/`min` have no Int rule.
pub fn int_arith(op: Arith, a: i64, b: i64) -> Option<i64> {
    match op {
        Arith::Add => a.checked_add(b),
        Arith::Mul => a.checked_mul(b),
        Arith::Sub => a.checked_sub(b),
        // `checked_div` truncates toward zero, as `/Int` does.
        Arith::Div => a.checked_div(b),
        Arith::Max | Arith::Min => None,
    }
}

/// The error of an Int operation [`int_arith`] has no result for: `division-by-zero` for a
/// division by `0` (`ext-div-int-zero`), `integer-overflow` otherwise (as the reference words
/// them).
pub fn int_arith_error(op: Arith, a: i64, b: i64) -> (ErrorKind, String) {
    if op == Arith::Div && b == 0 {
        (ErrorKind::DivisionByZero, format!("{a} / 0: an Int divided by the Int 0"))
    } else {
        (ErrorKind::IntegerOverflow, format!("{a} and {b}: the result does not fit in 64 bits"))
    }
}

/// `tanhItem(X)` of a Float by Rev-13 (`rev-tanh-item-nonnegative`, `rev-tanh-item-negative`),
/// `sigmoidItem(X)` by `sigmoid-item-float`; `expFloat` and `logFloat` (`ext-exp-item`,
/// `ext-log-item`, and the softmax's `ext-exp-shift-item`, `ext-softmax-item`,
/// `ext-log-softmax-item`).
pub fn item(item: Item, x: f64) -> f64 {
    match item {
        Item::Tanh => revised_tanh(x),
        Item::Sigmoid => sigmoid(x),
        Item::Exp => exp_float(x),
        Item::Log => log_float(x),
        // `ext-sqrt-item`: IEEE's correctly rounded root, NaN below zero.
        Item::Sqrt => x.sqrt(),
    }
}

/// The Float an Int operand becomes in mixed arithmetic (`Int2Float(I, 53, 11)`).
pub fn widen(i: i64) -> f64 {
    int_to_float(i)
}

/// The revised ArgMax over `values`: start from element 0 (`rev-argmax-start`), move on a
/// strictly greater element (`rev-argmax-step-greater`), keep the earlier index otherwise (ties,
/// NaN: `rev-argmax-step-not-greater`); past the last element the index is the answer
/// (`argmax-done`).
pub fn argmax(values: impl IntoIterator<Item = f64>) -> i64 {
    let mut values = values.into_iter();
    let Some(mut best) = values.next() else { return 0 };
    let mut index = 0;
    for (i, v) in values.enumerate() {
        if v > best {
            best = v;
            index = i as i64 + 1;
        }
    }
    index
}

/// A `reluTensor` fused into the `MatVec` that computes its argument: the buffer it writes,
/// and the `reluTensor` it came from (a NaN is reported there).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReluInto {
    pub out: BufId,
    pub span: Span,
}

/// One step of an element's fused chain ([`Op::Elementwise`]): `v * c`, `v + c`, `v - c` or
/// `v / c` (Ext-7), each the Float operation of its rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ElementStep {
    Mul(f64),
    Add(f64),
    Sub(f64),
    Div(f64),
}

/// Where element `k` of a [`Op::Combine`]'s result reads one operand.
#[derive(Clone, Debug, PartialEq)]
pub enum CombineOperand {
    /// Slot `at + k` of a buffer: an operand of the result's shape.
    Run { buf: BufId, at: usize },
    /// Slot `from[k]` of a buffer: an operand broadcast to the result's shape.
    Gather { buf: BufId, from: Arc<[usize]> },
    /// `values[k]`: a constant operand, broadcast to the result's shape (Ints widened).
    Constants(Arc<[f64]>),
}

/// One operation of a plan. Rows are independent: an operation computes every row of a batch.
#[derive(Clone, Debug)]
pub enum Op {
    /// `out = a op b` on Floats; `max`/`min` of a NaN is the row's error.
    Float { op: Arith, a: FOperand, b: FOperand, out: Reg, span: Span },
    /// `out = a op b` on Ints; overflow is the row's error.
    Int { op: Arith, a: IOperand, b: IOperand, out: Reg, span: Span },
    /// `out = Int2Float(a)`.
    Widen { a: Reg, out: Reg, span: Span },
    /// `out = tanhItem(a)` or `sigmoidItem(a)`.
    Item { item: Item, a: Reg, out: Reg, span: Span },
    /// Reads element `at` of a buffer into a register (a snapshot: later writes do not change it).
    /// The span (of every op that has one) is the construct's, for the verifier's messages.
    Read { buf: BufId, at: usize, out: Reg, span: Span },
    /// Writes a Float into element `at` of a buffer.
    Write { buf: BufId, at: usize, value: FOperand, span: Span },
    /// `out[i] = ((0.0 + w[i][0]*x[0]) + w[i][1]*x[1]) + …` with `x` the elements
    /// `x_at .. x_at + J` of buffer `x` (`linear`, multiply then add, in order); then, where
    /// `bias[i]` is given, `out[i] = out[i] + bias[i]` (a bias `let` fused by the optimiser);
    /// then, with `relu`, the `reluTensor` of `out` that followed (fused by the optimiser).
    MatVec {
        out: BufId,
        w: Arc<Matrix>,
        x: BufId,
        x_at: usize,
        bias: Option<Arc<[Option<f64>]>>,
        relu: Option<ReluInto>,
    },
    /// `buf[at + k] = buf[at + k] + values[k]` where `values[k]` is given (bias `let`s
    /// `let z[i] = z[i] + b in …`, fused by the optimiser).
    AddBias { buf: BufId, at: usize, values: Vec<Option<f64>> },
    /// `buf[at + k] = ((buf[at + k] op c) op c') …` with the steps `steps[k]` in order, none
    /// for an element left as it is (`let z[i] = z[i] * a + b in …`, `z[i] * a * c`: an imported
    /// scaling or batch normalisation, fused by the optimiser).
    Elementwise { buf: BufId, at: usize, steps: Vec<Vec<ElementStep>> },
    /// `out[k] = f(input[in_at + k])` for `k < len`; relu of NaN is the row's error.
    Activate { activation: Activation, input: BufId, in_at: usize, out: BufId, len: usize, span: Span },
    /// `out = ArgMax` of elements `at .. at + len` of a buffer (`len > 0`).
    ArgMaxBuffer { buf: BufId, at: usize, len: usize, out: Reg },
    /// `out = ArgMax` of Float operands (`len > 0`).
    ArgMaxOperands { items: Vec<FOperand>, out: Reg },
    /// `conv2d` (Ext-3) of the image in `x[x_at ..]` with a constant kernel and bias into
    /// `out`, element by element as [`ConvKernel::apply`] (the rules' order).
    Conv2d { out: BufId, x: BufId, x_at: usize, conv: Arc<ConvKernel> },
    /// `maxPool2d` / `avgPool2d` (Ext-4) of the image in `x[x_at ..]` into `out`, as
    /// [`pool_apply`]; `max` of a NaN is the row's error, at `span`.
    Pool2d { pool: Pool, out: BufId, x: BufId, x_at: usize, geometry: Pool2dGeometry, span: Span },
    /// `out[k] = x[x_at + k]` for `k < len` (`reshape`, `flatten`: Ext-5, a copy in row-major
    /// order).
    Copy { out: BufId, x: BufId, x_at: usize, len: usize },
    /// `out[k] = x[x_at + from[k]]` for `k < from.len()`, `from` a permutation of
    /// `0 .. from.len()` (`transpose`: Ext-6, a copy in the result's row-major order).
    Permute { out: BufId, x: BufId, x_at: usize, from: Arc<[usize]> },
    /// Every row that has not failed yet fails here (an error the compiler found).
    Raise { error: RowError },
    /// `softmax` or, with `log`, `logSoftmax` (Ext-9) of `x[x_at ..]`, of shape `dims`, along
    /// `axis` into `out`, slice by slice as `tensor_math::softmax_apply` computes it (the
    /// rules' order); `max` of a NaN is the row's error, at `span`.
    Softmax { log: bool, out: BufId, x: BufId, x_at: usize, dims: Arc<[usize]>, axis: usize, span: Span },
    /// `out[g] = 0.0 + x[from[g·group]] + … + x[from[g·group + group − 1]]` for each of the
    /// `outputs` groups, then `/ group` for a `Mean`; or `max(…max(-Infinity, x[from[g·group]])…)`
    /// for a `Max`, `min(…min(Infinity, …)…)` for a `Min`: Ext-10's reductions of one run of
    /// `input_len` slots of a buffer (`ext-reduce-helper-step`, `ext-pool-mean`), the groups in
    /// the result's row-major order, each in row-major order of the reduced indices. A sum never
    /// fails; `max`/`min` of a NaN is the row's error (`rev-arith-invalid`), at `span`.
    Reduce {
        kind: ReduceKind,
        out: BufId,
        x: BufId,
        x_at: usize,
        input_len: usize,
        outputs: usize,
        group: usize,
        from: Arc<[usize]>,
        span: Span,
    },
    /// `out[k] = from[k].0[from[k].1]` for `k < from.len()`: each element copied from a slot of
    /// any buffer (`concat`: Ext-11, `slice`: Ext-12, copies in the result's row-major order;
    /// `out` none of the sources).
    Gather { out: BufId, from: Arc<[(BufId, usize)]> },
    /// `out[k] = a[k] op b[k]` for `k < len` with `op` one of `+ - * /` on Floats (never an
    /// error): Ext-1's `addTensor` and Ext-8's element-wise functions when each operand is one
    /// run of a buffer or a constant tensor and one of them is not constant, element by element
    /// in the result's row-major order as `ext-add-helper-step` / `ext-broadcast-helper-step`.
    Combine { op: Arith, a: CombineOperand, b: CombineOperand, out: BufId, len: usize, span: Span },
    /// `out[k] = x[x_at + j]` when `from[k]` is `Some(j)`, else `value`, for `k < from.len()`
    /// (`pad`: Ext-13, the copies of `ext-pad-helper-copy` and the constants of
    /// `ext-pad-helper-fill` in the result's row-major order); `x_len` elements are read.
    Pad { out: BufId, x: BufId, x_at: usize, x_len: usize, from: Arc<[Option<usize>]>, value: f64 },
    /// `matmul` (Ext-15) of two operands, at least one a buffer, into `out`: each element of the
    /// result, in row-major order, is `((0.0 + a0*b0) + a1*b1) + …` over its products in
    /// increasing `P` (`ext-matmul-helper-step`: the left element times the right one, then the
    /// sum; no fused multiply-add), the positions as [`MatmulGeometry`] says; `span` is the
    /// call's, for the verifier's messages.
    MatMul { out: BufId, a: MatmulOperand, b: MatmulOperand, geometry: Arc<MatmulGeometry>, span: Span },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argmax_starts_from_element_zero_and_keeps_ties_and_nan() {
        assert_eq!(argmax([-3.0, -1.0, -2.0]), 1);
        assert_eq!(argmax([1.0, 5.0, 5.0]), 1);
        assert_eq!(argmax([0.0, 2.0, 0.0]), 1);
        assert_eq!(argmax([4.0, 3.0]), 0);
        assert_eq!(argmax([f64::NAN, 1.0]), 0, "NaN > x and x > NaN are both false");
        assert_eq!(argmax([1.0, f64::NAN, 2.0]), 2);
        assert_eq!(argmax([-0.0, 0.0]), 0);
    }

    #[test]
    fn int_arithmetic_overflows_into_an_error() {
        assert_eq!(int_arith(Arith::Add, i64::MAX, 1), None);
        assert_eq!(int_arith(Arith::Mul, 3, 4), Some(12));
        assert_eq!(int_arith(Arith::Max, 3, 4), None);
    }

    /// Ext-7: `-Int` and `/Int` toward zero in 64 bits; which error a missing result is.
    #[test]
    fn int_subtraction_and_division_truncate_and_fail_as_the_rules_say() {
        assert_eq!(int_arith(Arith::Sub, 5, 7), Some(-2));
        assert_eq!(int_arith(Arith::Sub, i64::MIN, 1), None);
        assert_eq!(int_arith(Arith::Div, 7, 2), Some(3));
        assert_eq!(int_arith(Arith::Div, -7, 2), Some(-3));
        assert_eq!(int_arith(Arith::Div, 7, -2), Some(-3));
        assert_eq!(int_arith(Arith::Div, i64::MIN, -1), None);
        assert_eq!(int_arith_error(Arith::Div, i64::MIN, -1).0, ErrorKind::IntegerOverflow);
        assert_eq!(int_arith(Arith::Div, 7, 0), None);
        assert_eq!(int_arith_error(Arith::Div, 7, 0).0, ErrorKind::DivisionByZero);
        assert_eq!(float_arith(Arith::Div, -1.0, 0.0), Some(f64::NEG_INFINITY));
        assert!(float_arith(Arith::Div, 0.0, 0.0).is_some_and(f64::is_nan));
        assert_eq!(float_arith(Arith::Sub, 0.5, 2.0), Some(-1.5));
    }
}
