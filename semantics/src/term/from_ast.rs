//! Programs (`syntax::Exp`) as runtime terms, without recursion on their depth.

use crate::syntax::{Exp, ExpKind, FuncKind};

use super::{FuncName, FuncTerm, Ints, Node, Sym, Term};

enum Task<'e> {
    Visit(&'e Exp),
    Build(&'e Exp),
}

/// The term `$PGM` that the initial `<k>` cell holds.
pub fn term_of_program(program: &Exp) -> Term {
    let mut tasks = vec![Task::Visit(program)];
    let mut results: Vec<Term> = Vec::new();
    while let Some(task) = tasks.pop() {
        match task {
            Task::Visit(e) => {
                tasks.push(Task::Build(e));
                // Children are built left to right, so they are pushed right to left.
                for child in e.children().into_iter().rev() {
                    tasks.push(Task::Visit(child));
                }
            }
            Task::Build(e) => {
                let n = e.children().len();
                let mut children = results.split_off(results.len() - n).into_iter();
                let mut next = || children.next().expect("one term per child");
                let node = match &e.kind {
                    ExpKind::Float(x) => Node::Float(*x),
                    ExpKind::Int(n) => Node::Int(*n),
                    ExpKind::Id(name) => Node::Id(Sym::new(name)),
                    ExpKind::Index(_, ints) => Node::Index { base: next(), ints: ints_of(ints) },
                    ExpKind::Max(..) => Node::Max(next(), next()),
                    ExpKind::Min(..) => Node::Min(next(), next()),
                    ExpKind::ArgMax(_) => Node::ArgMax(next()),
                    ExpKind::Mul(..) => Node::Mul(next(), next()),
                    ExpKind::Add(..) => Node::Add(next(), next()),
                    ExpKind::Sub(..) => Node::Sub(next(), next()),
                    ExpKind::Div(..) => Node::Div(next(), next()),
                    ExpKind::Let { .. } => Node::Let { target: next(), value: next(), body: next() },
                    ExpKind::LetFunc { func, .. } => {
                        let target = next();
                        let func_term = match &func.kind {
                            FuncKind::InitTensor(shape) => FuncTerm::InitTensor(ints_of(shape)),
                            FuncKind::TensorLiteral(shape, elements) => {
                                FuncTerm::TensorLiteral(ints_of(shape), elements.clone())
                            }
                            FuncKind::Linear(w, x) => FuncTerm::Linear(
                                Term::id(&Sym::new(&w.name), w.span),
                                Term::id(&Sym::new(&x.name), x.span),
                            ),
                            FuncKind::AddTensor(..) => FuncTerm::AddTensor(next(), next()),
                            FuncKind::TensorArith(op, ..) => FuncTerm::TensorArith(*op, next(), next()),
                            FuncKind::Matmul(..) => FuncTerm::Matmul(next(), next()),
                            FuncKind::BatchNorm(xs, epsilon) => FuncTerm::BatchNorm {
                                xs: xs.iter().map(|_| next()).collect(),
                                epsilon_bits: epsilon.to_bits(),
                            },
                            FuncKind::Conv2d(_, _, b, attrs) => {
                                let (x, w) = (next(), next());
                                FuncTerm::Conv2d { x, w, b: b.as_ref().map(|_| next()), attrs: attrs.clone() }
                            }
                            FuncKind::Pool2d(pool, _, attrs) => {
                                FuncTerm::Pool2d { pool: *pool, x: next(), attrs: attrs.clone() }
                            }
                            FuncKind::Reshape(_, dims) => {
                                FuncTerm::Reshape { x: next(), dims: dims.as_deref().map(ints_of) }
                            }
                            FuncKind::Transpose(_, perm) => FuncTerm::Transpose { x: next(), perm: ints_of(perm) },
                            FuncKind::TensorMath(f, _, axes) => {
                                FuncTerm::TensorMath { f: *f, x: next(), axes: Ints::new(axes) }
                            }
                            FuncKind::Concat(xs, axis) => {
                                FuncTerm::Concat { xs: xs.iter().map(|_| next()).collect(), axis: *axis }
                            }
                            FuncKind::Slice(_, ints) => FuncTerm::Slice { x: next(), ints: ints_of(ints) },
                            FuncKind::Pad(_, value, pads) => {
                                FuncTerm::Pad { x: next(), value_bits: value.to_bits(), pads: ints_of(pads) }
                            }
                            FuncKind::Relu(_) => FuncTerm::Apply(FuncName::Relu, next()),
                            FuncKind::ReluTensor(_) => FuncTerm::Apply(FuncName::ReluTensor, next()),
                            FuncKind::Tanh(_) => FuncTerm::Apply(FuncName::Tanh, next()),
                            FuncKind::TanhTensor(_) => FuncTerm::Apply(FuncName::TanhTensor, next()),
                            FuncKind::Sigmoid(_) => FuncTerm::Apply(FuncName::Sigmoid, next()),
                            FuncKind::SigmoidTensor(_) => FuncTerm::Apply(FuncName::SigmoidTensor, next()),
                        };
                        Node::LetFunc { target, func: func_term, func_span: func.span, body: next() }
                    }
                };
                results.push(Term::new(node, e.span));
            }
        }
    }
    results.pop().expect("one term for the program")
}

fn ints_of(values: &[i64]) -> Ints {
    // The parser never produces an empty list.
    Ints::new(values).unwrap_or_else(|| Ints::one(0))
}
