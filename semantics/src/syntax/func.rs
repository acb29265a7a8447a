//! What a `Func` (the right-hand side of a let-Func) holds: its expression arguments and its
//! keyword.

use super::ast::{Children, Exp, Func, FuncKind};

impl Func {
    /// The expression argument of `relu`, `reluTensor`, `tanh`, … (none for `initTensor` and
    /// `linear`).
    pub fn argument(&self) -> Option<&Exp> {
        match &self.kind {
            FuncKind::Relu(e)
            | FuncKind::ReluTensor(e)
            | FuncKind::Tanh(e)
            | FuncKind::TanhTensor(e)
            | FuncKind::Sigmoid(e)
            | FuncKind::SigmoidTensor(e) => Some(e),
            FuncKind::InitTensor(_)
            | FuncKind::TensorLiteral(..)
            | FuncKind::Linear(..)
            | FuncKind::AddTensor(..)
            | FuncKind::Conv2d(..)
            | FuncKind::Pool2d(..)
            | FuncKind::Reshape(..)
            | FuncKind::Transpose(..)
            | FuncKind::TensorArith(..) => None,
            FuncKind::TensorMath(..) | FuncKind::Concat(..) | FuncKind::Slice(..) | FuncKind::Pad(..) => None,
            FuncKind::Matmul(..) | FuncKind::BatchNorm(..) => None,
        }
    }

    /// Every expression argument, left to right: [`Func::argument`], both operands of
    /// `addTensor`, the tensor operands of `conv2d`.
    pub fn arguments(&self) -> Children<'_> {
        match &self.kind {
            FuncKind::AddTensor(a, b) | FuncKind::TensorArith(_, a, b) | FuncKind::Matmul(a, b) => {
                Children::from_slice(&[a, b])
            }
            FuncKind::Conv2d(x, w, b, _) => {
                let mut children = Children::from_slice(&[x, w]);
                children.extend(b.as_deref());
                children
            }
            FuncKind::Pool2d(_, x, _)
            | FuncKind::Reshape(x, _)
            | FuncKind::Transpose(x, _)
            | FuncKind::TensorMath(_, x, _) => Children::from_slice(&[x]),
            FuncKind::Concat(xs, _) | FuncKind::BatchNorm(xs, _) => xs.iter().collect(),
            FuncKind::Slice(x, _) | FuncKind::Pad(x, ..) => Children::from_slice(&[x]),
            _ => self.argument().into_iter().collect(),
        }
    }

    /// The keyword that introduces this function.
    pub fn keyword(&self) -> &'static str {
        match &self.kind {
            FuncKind::InitTensor(_) | FuncKind::TensorLiteral(..) => "initTensor",
            FuncKind::Relu(_) => "relu",
            FuncKind::ReluTensor(_) => "reluTensor",
            FuncKind::Tanh(_) => "tanh",
            FuncKind::TanhTensor(_) => "tanhTensor",
            FuncKind::Sigmoid(_) => "sigmoid",
            FuncKind::SigmoidTensor(_) => "sigmoidTensor",
            FuncKind::Linear(..) => "linear",
            FuncKind::AddTensor(..) => "addTensor",
            FuncKind::Conv2d(..) => "conv2d",
            FuncKind::Pool2d(pool, ..) => pool.keyword(),
            FuncKind::Reshape(_, Some(_)) => "reshape",
            FuncKind::Reshape(_, None) => "flatten",
            FuncKind::Transpose(..) => "transpose",
            FuncKind::TensorArith(op, ..) => op.keyword(),
            FuncKind::TensorMath(f, ..) => f.keyword(),
            FuncKind::Concat(..) => "concat",
            FuncKind::Slice(..) => "slice",
            FuncKind::Pad(..) => "pad",
            FuncKind::Matmul(..) => "matmul",
            FuncKind::BatchNorm(..) => "batchNorm",
        }
    }
}

impl Clone for Func {
    fn clone(&self) -> Func {
        // Each argument is cloned by `Exp`'s loop.
        let kind = match &self.kind {
            FuncKind::InitTensor(is) => FuncKind::InitTensor(is.clone()),
            FuncKind::TensorLiteral(is, values) => FuncKind::TensorLiteral(is.clone(), values.clone()),
            FuncKind::Linear(w, x) => FuncKind::Linear(w.clone(), x.clone()),
            FuncKind::Relu(e) => FuncKind::Relu(e.clone()),
            FuncKind::ReluTensor(e) => FuncKind::ReluTensor(e.clone()),
            FuncKind::Tanh(e) => FuncKind::Tanh(e.clone()),
            FuncKind::TanhTensor(e) => FuncKind::TanhTensor(e.clone()),
            FuncKind::Sigmoid(e) => FuncKind::Sigmoid(e.clone()),
            FuncKind::SigmoidTensor(e) => FuncKind::SigmoidTensor(e.clone()),
            FuncKind::AddTensor(a, b) => FuncKind::AddTensor(a.clone(), b.clone()),
            FuncKind::TensorArith(op, a, b) => FuncKind::TensorArith(*op, a.clone(), b.clone()),
            FuncKind::Conv2d(x, w, b, attrs) => FuncKind::Conv2d(x.clone(), w.clone(), b.clone(), attrs.clone()),
            FuncKind::Pool2d(pool, x, attrs) => FuncKind::Pool2d(*pool, x.clone(), attrs.clone()),
            FuncKind::Reshape(x, dims) => FuncKind::Reshape(x.clone(), dims.clone()),
            FuncKind::Transpose(x, perm) => FuncKind::Transpose(x.clone(), perm.clone()),
            FuncKind::TensorMath(f, x, axes) => FuncKind::TensorMath(*f, x.clone(), axes.clone()),
            FuncKind::Concat(xs, axis) => FuncKind::Concat(xs.clone(), *axis),
            FuncKind::Slice(x, ints) => FuncKind::Slice(x.clone(), ints.clone()),
            FuncKind::Pad(x, v, pads) => FuncKind::Pad(x.clone(), *v, pads.clone()),
            FuncKind::Matmul(a, b) => FuncKind::Matmul(a.clone(), b.clone()),
            FuncKind::BatchNorm(xs, epsilon) => FuncKind::BatchNorm(xs.clone(), *epsilon),
        };
        Func { kind, span: self.span }
    }
}
