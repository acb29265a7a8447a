//! What each statement of a generated program defines and reads, and its syntax.

use super::*;

impl Stmt {
    /// The name the statement binds (a write binds none).
    pub fn defines(&self) -> Option<&str> {
        match self {
            Stmt::Alloc { name, .. }
            | Stmt::Literal { name, .. }
            | Stmt::Let { name, .. }
            | Stmt::ScalarFn { name, .. }
            | Stmt::Linear { out: name, .. }
            | Stmt::Activate { out: name, .. }
            | Stmt::AddTensor { out: name, .. }
            | Stmt::Conv2d { out: name, .. }
            | Stmt::Pool2d { out: name, .. }
            | Stmt::Reshape { out: name, .. }
            | Stmt::Transpose { out: name, .. }
            | Stmt::TensorMath { out: name, .. }
            | Stmt::Concat { out: name, .. }
            | Stmt::Slice { out: name, .. }
            | Stmt::Pad { out: name, .. }
            | Stmt::Matmul { out: name, .. }
            | Stmt::BatchNorm { out: name, .. } => Some(name),
            Stmt::Write { .. }
            | Stmt::Bias { .. }
            | Stmt::Scale { .. }
            | Stmt::BadTarget { .. }
            | Stmt::Normalise { .. } => None,
        }
    }

    /// The names it reads.
    pub fn uses(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self {
            Stmt::Alloc { .. } | Stmt::Literal { .. } => {}
            Stmt::Write { tensor, value, .. } => {
                out.push(tensor.clone());
                value.names(&mut out);
            }
            Stmt::Let { value: s, .. }
            | Stmt::ScalarFn { arg: s, .. }
            | Stmt::Activate { arg: s, .. }
            | Stmt::Pool2d { x: s, .. }
            | Stmt::Reshape { x: s, .. }
            | Stmt::Transpose { x: s, .. }
            | Stmt::TensorMath { x: s, .. }
            | Stmt::Slice { x: s, .. }
            | Stmt::Pad { x: s, .. } => s.names(&mut out),
            Stmt::Concat { xs, .. } | Stmt::BatchNorm { xs, .. } => xs.iter().for_each(|x| x.names(&mut out)),
            Stmt::Linear { w, x, .. } => out.extend([w.clone(), x.clone()]),
            Stmt::AddTensor { a, b, .. } | Stmt::Matmul { a, b, .. } => {
                a.names(&mut out);
                b.names(&mut out);
            }
            Stmt::Conv2d { x, w, b, .. } => {
                for operand in [Some(x), Some(w), b.as_ref()].into_iter().flatten() {
                    operand.names(&mut out);
                }
            }
            Stmt::Bias { tensor, .. } | Stmt::Scale { tensor, .. } | Stmt::Normalise { tensor, .. } => {
                out.push(tensor.clone())
            }
            Stmt::BadTarget { target, value } => {
                target.names(&mut out);
                value.names(&mut out);
            }
        }
        out
    }

    /// `let … in body`.
    pub(super) fn wrap(&self, body: Exp) -> Exp {
        let func = |kind: FuncKind| Func { kind, span: span() };
        let let_func = |name: &str, kind: FuncKind, body: Exp| {
            Exp::new(ExpKind::LetFunc { target: boxed(id(name)), func: func(kind), body: boxed(body) }, span())
        };
        let let_exp = |target: Exp, value: Exp, body: Exp| {
            Exp::new(ExpKind::Let { target: boxed(target), value: boxed(value), body: boxed(body) }, span())
        };
        match self {
            Stmt::Alloc { name, dims } => {
                let_func(name, FuncKind::InitTensor(dims.iter().map(|&d| d as i64).collect()), body)
            }
            Stmt::Literal { name, dims, values } => {
                let dims = dims.iter().map(|&d| d as i64).collect();
                let_func(name, FuncKind::TensorLiteral(dims, Elements::new(values.clone())), body)
            }
            Stmt::Write { tensor, index: ints, value } => let_exp(index(tensor, ints), value.exp(), body),
            Stmt::Let { name, value } => let_exp(id(name), value.exp(), body),
            Stmt::ScalarFn { name, act, arg } => {
                let arg = boxed(arg.exp());
                let kind = match act {
                    Act::Relu => FuncKind::Relu(arg),
                    Act::Tanh => FuncKind::Tanh(arg),
                    Act::Sigmoid => FuncKind::Sigmoid(arg),
                };
                let_func(name, kind, body)
            }
            Stmt::Linear { out, w, x } => {
                let ident = |n: &String| Ident { name: n.clone(), span: span() };
                let_func(out, FuncKind::Linear(ident(w), ident(x)), body)
            }
            Stmt::Activate { out, act, arg } => {
                let arg = boxed(arg.exp());
                let kind = match act {
                    Act::Relu => FuncKind::ReluTensor(arg),
                    Act::Tanh => FuncKind::TanhTensor(arg),
                    Act::Sigmoid => FuncKind::SigmoidTensor(arg),
                };
                let_func(out, kind, body)
            }
            Stmt::Matmul { out, a, b } => let_func(out, FuncKind::Matmul(boxed(a.exp()), boxed(b.exp())), body),
            Stmt::BatchNorm { out, xs, epsilon } => {
                let_func(out, FuncKind::BatchNorm(xs.iter().map(Scalar::exp).collect(), *epsilon), body)
            }
            Stmt::AddTensor { out, a, b, op: None } => {
                let_func(out, FuncKind::AddTensor(boxed(a.exp()), boxed(b.exp())), body)
            }
            Stmt::AddTensor { out, a, b, op: Some(op) } => {
                let_func(out, FuncKind::TensorArith(*op, boxed(a.exp()), boxed(b.exp())), body)
            }
            Stmt::Conv2d { out, x, w, b, attrs } => {
                let b = b.as_ref().map(|b| boxed(b.exp()));
                let_func(out, FuncKind::Conv2d(boxed(x.exp()), boxed(w.exp()), b, attrs.clone()), body)
            }
            Stmt::Pool2d { out, pool, x, attrs } => {
                let_func(out, FuncKind::Pool2d(*pool, boxed(x.exp()), attrs.clone()), body)
            }
            Stmt::Reshape { out, x, dims } => let_func(out, FuncKind::Reshape(boxed(x.exp()), dims.clone()), body),
            Stmt::Transpose { out, x, perm } => let_func(out, FuncKind::Transpose(boxed(x.exp()), perm.clone()), body),
            Stmt::Pad { out, x, value, pads } => {
                let_func(out, FuncKind::Pad(boxed(x.exp()), *value, pads.clone()), body)
            }
            Stmt::TensorMath { out, f, x, axes } => {
                let_func(out, FuncKind::TensorMath(*f, boxed(x.exp()), axes.clone()), body)
            }
            Stmt::Slice { out, x, ints } => let_func(out, FuncKind::Slice(boxed(x.exp()), ints.clone()), body),
            Stmt::Concat { out, xs, axis } => {
                let_func(out, FuncKind::Concat(xs.iter().map(Scalar::exp).collect(), *axis), body)
            }
            Stmt::BadTarget { target, value } => let_exp(target.exp(), value.exp(), body),
            Stmt::Scale { tensor, index: i, factor, add } => {
                let product =
                    Exp::new(ExpKind::Mul(boxed(index(tensor, &[*i])), boxed(Scalar::Float(*factor).exp())), span());
                let value = match add {
                    Some(b) => Exp::new(ExpKind::Add(boxed(product), boxed(Scalar::Float(*b).exp())), span()),
                    None => product,
                };
                let_exp(index(tensor, &[*i]), value, body)
            }
            Stmt::Normalise { tensor, index: i, shift, scale } => {
                let centred =
                    Exp::new(ExpKind::Sub(boxed(index(tensor, &[*i])), boxed(Scalar::Float(*shift).exp())), span());
                let value = Exp::new(ExpKind::Div(boxed(centred), boxed(Scalar::Float(*scale).exp())), span());
                let_exp(index(tensor, &[*i]), value, body)
            }
            Stmt::Bias { tensor, index: i, add } => {
                let sum = Exp::new(ExpKind::Add(boxed(index(tensor, &[*i])), boxed(Scalar::Float(*add).exp())), span());
                let_exp(index(tensor, &[*i]), sum, body)
            }
        }
    }
}
