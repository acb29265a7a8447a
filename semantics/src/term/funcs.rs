//! The functions of terms: the activations and the argument forms of their helpers ([`Act`],
//! [`HelperArgs`]), and what stands on the right of a let-Func ([`FuncName`], [`FuncTerm`]).

use super::{Ints, Sym, Term};
use crate::syntax::{Attrs, Elements, Pool, TensorMath, TensorOp};

/// The three element-wise activations and their helper families (`reluTensorHelper`,
/// `tanhTensorHelper`, `sigmoidTensorHelper`), which have identical shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Act {
    Relu,
    Tanh,
    Sigmoid,
}

impl Act {
    pub fn helper_name(self) -> &'static str {
        match self {
            Act::Relu => "reluTensorHelper",
            Act::Tanh => "tanhTensorHelper",
            Act::Sigmoid => "sigmoidTensorHelper",
        }
    }

    /// `tanhItem` / `sigmoidItem` (relu has no item).
    pub fn item_name(self) -> &'static str {
        match self {
            Act::Relu => "reluItem",
            Act::Tanh => "tanhItem",
            Act::Sigmoid => "sigmoidItem",
        }
    }
}

/// The argument forms of an activation helper (k-nn.md L232–235).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HelperArgs {
    /// `reluTensorHelper(Exp, Exp)`: one element.
    Elem,
    /// `reluTensorHelper(Exp, Exp, Ints)`: the shape still to visit.
    Dims(Ints),
    /// `reluTensorHelper(Exp, Exp, Int ... Int, Ints)`: rows `from..to` of a rank ≥ 2 level.
    RangeDims { from: i64, to: i64, rest: Ints },
    /// `reluTensorHelper(Exp, Exp, Int ... Int)`: elements `from..to` of the last level.
    Range { from: i64, to: i64 },
}

/// The functions that can stand on the right of a let-Func (`syntax Func`, L83–90).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FuncName {
    Relu,
    ReluTensor,
    Tanh,
    TanhTensor,
    Sigmoid,
    SigmoidTensor,
}

impl FuncName {
    pub fn keyword(self) -> &'static str {
        match self {
            FuncName::Relu => "relu",
            FuncName::ReluTensor => "reluTensor",
            FuncName::Tanh => "tanh",
            FuncName::TanhTensor => "tanhTensor",
            FuncName::Sigmoid => "sigmoid",
            FuncName::SigmoidTensor => "sigmoidTensor",
        }
    }

    /// The element-wise tensor function of an activation, if this is one.
    pub fn tensor_act(self) -> Option<Act> {
        match self {
            FuncName::ReluTensor => Some(Act::Relu),
            FuncName::TanhTensor => Some(Act::Tanh),
            FuncName::SigmoidTensor => Some(Act::Sigmoid),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Hash)]
pub enum FuncTerm {
    InitTensor(Ints),
    Apply(FuncName, Term),
    /// `linear(Id, Id)`. Held as terms because substitution may put a value there (§2.5).
    Linear(Term, Term),
    /// `addTensor(Exp, Exp)` (Ext-1): the operands, names of tensors when the program is right.
    AddTensor(Term, Term),
    /// `initTensor(Is)[Vs]` (Ext-2): the shape and the elements, shared with the program.
    TensorLiteral(Ints, Elements),
    /// `conv2d(Exp, Exp, Exp?, Attrs)` (Ext-3): the input, the kernel, the optional bias (names
    /// of tensors when the program is right) and the attributes as written.
    Conv2d {
        x: Term,
        w: Term,
        b: Option<Term>,
        attrs: Attrs,
    },
    /// `maxPool2d(Exp, Attrs)`, `avgPool2d(Exp, Attrs)` (Ext-4): the input (a name of a tensor
    /// when the program is right) and the attributes as written.
    Pool2d {
        pool: Pool,
        x: Term,
        attrs: Attrs,
    },
    /// `reshape(Exp, Ints)`, `flatten(Exp)` when `dims` is `None` (Ext-5).
    Reshape {
        x: Term,
        dims: Option<Ints>,
    },
    /// `transpose(Exp, Ints)` (Ext-6): the operand and the order of its axes.
    Transpose {
        x: Term,
        perm: Ints,
    },
    /// `subTensor(Exp, Exp)`, `mulTensor(Exp, Exp)`, `divTensor(Exp, Exp)` (Ext-8): the
    /// operands, names of tensors when the program is right.
    TensorArith(TensorOp, Term, Term),
    /// `expTensor(Exp)`, `logTensor(Exp)`, `softmax(Exp, Int)`, `logSoftmax(Exp, Int)` (Ext-9),
    /// `reduceSum(Exp, Ints)`, … (Ext-10): the operand and the axes (`None` for the
    /// element-wise two).
    TensorMath {
        f: TensorMath,
        x: Term,
        axes: Option<Ints>,
    },
    /// `concat(Exps, Int)` (Ext-11): the operands, names of tensors when the program is right,
    /// and the axis.
    Concat {
        xs: Vec<Term>,
        axis: i64,
    },
    /// `slice(Exp, Ints)` (Ext-12): the operand, and its axis, start, end and optional step.
    Slice {
        x: Term,
        ints: Ints,
    },
    /// `pad(Exp, Float, Ints)` (Ext-13): the operand, the border's Float (its bits: a term is
    /// hashed) and the pads, every axis's begin then every axis's end.
    Pad {
        x: Term,
        value_bits: u64,
        pads: Ints,
    },
    /// `matmul(Exp, Exp)` (Ext-15): the operands, names of tensors when the program is right.
    Matmul(Term, Term),
    /// `batchNorm(Exp, Exp, Exp, Exp, Exp, epsilon = Float)` (Ext-14): the input, scale, bias,
    /// mean and variance, names of tensors when the program is right, and epsilon's bits.
    BatchNorm {
        xs: Vec<Term>,
        epsilon_bits: u64,
    },
}

/// `conv2dHelper(X, W, B, Y, As, K ... N, Os)` (Ext-3): the output positions `from..to`
/// (row-major) of `Y`, of shape `dims` = `Os`, still to compute; `b` is `.` when there is no
/// bias.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Conv2dHelper {
    pub x: Sym,
    pub w: Sym,
    pub b: Option<Sym>,
    pub y: Sym,
    pub attrs: Attrs,
    pub from: i64,
    pub to: i64,
    pub dims: Ints,
}

/// `maxPool2dHelper(X, Y, As, K ... N, Os)`, `avgPool2dHelper(…)` (Ext-4): the output positions
/// `from..to` (row-major) of `Y`, of shape `dims` = `Os`, still to compute.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pool2dHelper {
    pub pool: Pool,
    pub x: Sym,
    pub y: Sym,
    pub attrs: Attrs,
    pub from: i64,
    pub to: i64,
    pub dims: Ints,
}

/// The scalar operator of an element-wise tensor function (Ext-8): `addTensor`'s `+` and the
/// operators of `subTensor`, `mulTensor`, `divTensor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl ElementOp {
    pub fn of(op: TensorOp) -> ElementOp {
        match op {
            TensorOp::Sub => ElementOp::Sub,
            TensorOp::Mul => ElementOp::Mul,
            TensorOp::Div => ElementOp::Div,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            ElementOp::Add => "+",
            ElementOp::Sub => "-",
            ElementOp::Mul => "*",
            ElementOp::Div => "/",
        }
    }

    pub fn keyword(self) -> &'static str {
        match self {
            ElementOp::Add => "addTensor",
            ElementOp::Sub => "subTensor",
            ElementOp::Mul => "mulTensor",
            ElementOp::Div => "divTensor",
        }
    }
}

/// `broadcastHelper(Op, Y, Z, X, K ... N, Is, Js, Os)` (Ext-8): the positions `from..to`
/// (row-major) of `X`, of shape `dims` = `Os`, still to compute from `Y` of shape `y_dims` and
/// `Z` of shape `z_dims`, broadcast to `Os`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BroadcastHelper {
    pub op: ElementOp,
    pub y: Sym,
    pub z: Sym,
    pub x: Sym,
    pub from: i64,
    pub to: i64,
    pub y_dims: Ints,
    pub z_dims: Ints,
    pub dims: Ints,
}

/// The context `□ - B`, `A - □`, `□ / B` or `A / □` of Ext-7's `seqstrict` `-` and `/`
/// (`Context::SubDiv`): the operator (`Sub` or `Div`), whether the hole is the left operand, and
/// the operand already there.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArithHole {
    pub op: ElementOp,
    pub hole_left: bool,
    pub other: Term,
}

impl ArithHole {
    /// The operation with `hole` in the hole.
    pub fn plug(&self, hole: Term) -> super::Node {
        let (a, b) = if self.hole_left { (hole, self.other.clone()) } else { (self.other.clone(), hole) };
        match self.op {
            ElementOp::Div => super::Node::Div(a, b),
            _ => super::Node::Sub(a, b),
        }
    }
}

/// `padHelper(X, Y, V, K ... N, Ps)` (Ext-13): the positions `from..to` (row-major) of `Y`
/// still to write, each an element of `X` or the Float `V` (its bits `value_bits`), with the
/// pads `Ps` (begins, then ends).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PadHelper {
    pub x: Sym,
    pub y: Sym,
    pub value_bits: u64,
    pub from: i64,
    pub to: i64,
    pub pads: Ints,
}

/// `matmulHelper(Y, Z, X, K ... N, P, Is, Js, Os)` (Ext-15): the steps `from..to` still to
/// take, step `K` adding the product number `K modInt P` (of `inner` = `P`) to the element
/// `rowMajor(K /Int P, Os)` of `X` (shape `dims` = `Os`), from `Y` of shape `y_dims` and `Z` of
/// shape `z_dims`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MatmulHelper {
    pub y: Sym,
    pub z: Sym,
    pub x: Sym,
    pub from: i64,
    pub to: i64,
    pub inner: i64,
    pub y_dims: Ints,
    pub z_dims: Ints,
    pub dims: Ints,
}

/// `batchNormHelper(X, S, B, M, V, Y, E, K ... N, Is)` (Ext-14): the positions `from..to`
/// (row-major) of `Y`, of shape `dims` = `Is` (`X`'s), still to write, each from `X`'s element
/// and the parameters of its channel (its first index), with epsilon's bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BatchNormHelper {
    pub x: Sym,
    pub s: Sym,
    pub b: Sym,
    pub m: Sym,
    pub v: Sym,
    pub y: Sym,
    pub epsilon_bits: u64,
    pub from: i64,
    pub to: i64,
    pub dims: Ints,
}
