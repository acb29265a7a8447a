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
            FuncKind::TensorMath(..) | FuncKind::Matmul(..) => None,
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
            FuncKind::Matmul(..) => "matmul",
        }
    }
}
