//! The program syntax of K-NN (`KNN-SYNTAX` in `k-nn.md`, lines 50–91) as an owned tree with
//! source spans. Brackets `( E )` are `[bracket]` in K and leave no node behind.
//!
//! Programs can be 100,000 `let`s deep, so nothing here recurses on depth: `Drop` is iterative
//! and traversals use [`Exp::children`] with an explicit stack.

use std::fmt;

use smallvec::SmallVec;

pub use super::attrs::{Attr, AttrName, Attrs, Pool};
pub use super::elements::{Elements, Number};
pub use super::tensor_math::TensorMath;
use super::tensor_op::TensorOp;

/// A byte range `start..end` into the source text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start: clamp_u32(start), end: clamp_u32(end) }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A non-empty list of integer literals (`Ints` in K): the shape of `initTensor` and the
/// indices of `E[Is]`.
pub type IntList = Vec<i64>;

/// An expression (`syntax Exp` in K). `Clone`, `Drop`, `PartialEq` and `Debug` (in
/// `print.rs`) are written by hand, without recursion.
pub struct Exp {
    pub kind: ExpKind,
    pub span: Span,
}

#[derive(Debug)]
pub enum ExpKind {
    Float(f64),
    Int(i64),
    Id(String),
    /// `E [ Is ]`
    Index(Box<Exp>, IntList),
    Max(Box<Exp>, Box<Exp>),
    Min(Box<Exp>, Box<Exp>),
    ArgMax(Box<Exp>),
    Mul(Box<Exp>, Box<Exp>),
    Add(Box<Exp>, Box<Exp>),
    /// `let E = E in E` (strict in the value).
    Let {
        target: Box<Exp>,
        value: Box<Exp>,
        body: Box<Exp>,
    },
    /// `let E = Func in E`.
    LetFunc {
        target: Box<Exp>,
        func: Func,
        body: Box<Exp>,
    },
    /// `E - E` and `E / E` (Ext-7, relaxed grammar only).
    Sub(Box<Exp>, Box<Exp>),
    Div(Box<Exp>, Box<Exp>),
}

/// `syntax Func` (k-nn.md L83–90): only ever the right-hand side of a `let`.
#[derive(Debug)]
pub struct Func {
    pub kind: FuncKind,
    pub span: Span,
}

#[derive(Debug)]
pub enum FuncKind {
    InitTensor(IntList),
    Relu(Box<Exp>),
    ReluTensor(Box<Exp>),
    Tanh(Box<Exp>),
    TanhTensor(Box<Exp>),
    Sigmoid(Box<Exp>),
    SigmoidTensor(Box<Exp>),
    /// `linear(Id, Id)`: the weights and the input vector, with their spans.
    Linear(Ident, Ident),
    /// `addTensor(E, E)` (Ext-1, relaxed grammar only): element-wise sum of two tensors.
    AddTensor(Box<Exp>, Box<Exp>),
    /// `initTensor(Is)[V, …]` (Ext-2, relaxed grammar only): a tensor and its elements in
    /// row-major order.
    TensorLiteral(IntList, Elements),
    /// `conv2d(X, W, B, attributes)` (Ext-3, relaxed grammar only): the input, the kernel, the
    /// optional bias, then the attributes as written.
    Conv2d(Box<Exp>, Box<Exp>, Option<Box<Exp>>, Attrs),
    /// `maxPool2d(X, attributes)`, `avgPool2d(X, attributes)` (Ext-4, relaxed grammar only).
    Pool2d(Pool, Box<Exp>, Attrs),
    /// `reshape(X, Is)`, or `flatten(X)` without `Is` (Ext-5, relaxed grammar only).
    Reshape(Box<Exp>, Option<IntList>),
    /// `transpose(X, Ps)` (Ext-6, relaxed grammar only): the axes of `X` in the order `Ps`.
    Transpose(Box<Exp>, IntList),
    /// `subTensor(E, E)`, `mulTensor(E, E)`, `divTensor(E, E)` (Ext-8, relaxed grammar only):
    /// element-wise arithmetic of two tensors of broadcastable shapes.
    TensorArith(TensorOp, Box<Exp>, Box<Exp>),
    /// `expTensor(Y)`, `logTensor(Y)`, `softmax(Y, A)`, `logSoftmax(Y, A)` (Ext-9) and
    /// `reduceSum(Y, As)`, `reduceMean`, `reduceMax`, `reduceMin` (Ext-10), relaxed grammar
    /// only: the operand and the axes as written (none for `expTensor`, `logTensor`).
    TensorMath(TensorMath, Box<Exp>, IntList),
    /// `concat(X1, …, Xn, A)` (Ext-11, relaxed grammar only): the operands, then the axis.
    Concat(Vec<Exp>, i64),
    /// `slice(X, A, B, E)` or `slice(X, A, B, E, S)` (Ext-12, relaxed grammar only).
    Slice(Box<Exp>, IntList),
    /// `pad(X, V, Ps)` (Ext-13, relaxed grammar only): the operand, the Float the border holds,
    /// the pads (every axis's begin, then every axis's end).
    Pad(Box<Exp>, f64, IntList),
    /// `matmul(A, B)` (Ext-15, relaxed grammar only): NumPy's matrix product of two tensors.
    Matmul(Box<Exp>, Box<Exp>),
    /// `batchNorm(X, S, B, M, V, epsilon = E)` (Ext-14, relaxed grammar only): the input, the
    /// scale, the bias, the mean and the variance, then `epsilon` (`1e-05` when not written).
    BatchNorm(Vec<Exp>, f64),
}

/// `batchNorm`'s epsilon when the program does not write it: ONNX's default (Ext-14).
pub const BATCH_NORM_EPSILON: f64 = 1e-05;

/// An identifier in an `Id`-sorted position (the arguments of `linear`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

impl Exp {
    pub fn new(kind: ExpKind, span: Span) -> Exp {
        Exp { kind, span }
    }

    /// The direct sub-expressions, left to right (a `Func` argument counts as a child of its
    /// `let`), without allocating: traversals call this once per node.
    pub fn children(&self) -> Children<'_> {
        let mut children = Children::new();
        match &self.kind {
            ExpKind::Float(_) | ExpKind::Int(_) | ExpKind::Id(_) => {}
            ExpKind::Index(e, _) | ExpKind::ArgMax(e) => children.push(e),
            ExpKind::Max(a, b)
            | ExpKind::Min(a, b)
            | ExpKind::Mul(a, b)
            | ExpKind::Add(a, b)
            | ExpKind::Sub(a, b)
            | ExpKind::Div(a, b) => {
                children.push(a);
                children.push(b);
            }
            ExpKind::Let { target, value, body } => {
                children.push(target);
                children.push(value);
                children.push(body);
            }
            ExpKind::LetFunc { target, func, body } => {
                children.push(target);
                children.extend(func.arguments());
                children.push(body);
            }
        }
        children
    }

    /// Number of nodes, counted without recursion.
    pub fn size(&self) -> usize {
        let mut count = 0;
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            count += 1;
            stack.extend(e.children());
        }
        count
    }
}

/// The direct sub-expressions of a node, left to right: at most four but for `conv2d` with a
/// bias (`let X = addTensor(A, B) in E` has `X`, `A`, `B`, `E`), so they seldom leave the stack.
pub type Children<'e> = SmallVec<[&'e Exp; 4]>;

/// Moves the boxed children of `kind` onto `stack`, leaving `kind` childless.
fn take_children(kind: ExpKind, stack: &mut Vec<Exp>) {
    match kind {
        ExpKind::Float(_) | ExpKind::Int(_) | ExpKind::Id(_) => {}
        ExpKind::Index(e, _) | ExpKind::ArgMax(e) => stack.push(*e),
        ExpKind::Max(a, b)
        | ExpKind::Min(a, b)
        | ExpKind::Mul(a, b)
        | ExpKind::Add(a, b)
        | ExpKind::Sub(a, b)
        | ExpKind::Div(a, b) => {
            stack.push(*a);
            stack.push(*b);
        }
        ExpKind::Let { target, value, body } => {
            stack.push(*target);
            stack.push(*value);
            stack.push(*body);
        }
        ExpKind::LetFunc { target, func, body } => {
            stack.push(*target);
            stack.push(*body);
            match func.kind {
                FuncKind::Relu(e)
                | FuncKind::ReluTensor(e)
                | FuncKind::Tanh(e)
                | FuncKind::TanhTensor(e)
                | FuncKind::Sigmoid(e)
                | FuncKind::SigmoidTensor(e) => stack.push(*e),
                FuncKind::AddTensor(a, b) | FuncKind::TensorArith(_, a, b) | FuncKind::Matmul(a, b) => {
                    stack.push(*a);
                    stack.push(*b);
                }
                FuncKind::Conv2d(x, w, b, _) => {
                    stack.push(*x);
                    stack.push(*w);
                    stack.extend(b.map(|b| *b));
                }
                FuncKind::Pool2d(_, x, _)
                | FuncKind::Reshape(x, _)
                | FuncKind::Transpose(x, _)
                | FuncKind::TensorMath(_, x, _)
                | FuncKind::Slice(x, _)
                | FuncKind::Pad(x, ..) => stack.push(*x),
                FuncKind::Concat(xs, _) | FuncKind::BatchNorm(xs, _) => stack.extend(xs),
                FuncKind::InitTensor(_) | FuncKind::TensorLiteral(..) | FuncKind::Linear(..) => {}
            }
        }
    }
}

impl Clone for Exp {
    // Post-order with explicit stacks: a node is rebuilt once its children are (a derived
    // `Clone` recursed once per `let`, and an imported network is a chain of 10^5–10^7).
    fn clone(&self) -> Exp {
        let mut todo: Vec<(&Exp, bool)> = vec![(self, false)];
        let mut done: Vec<Exp> = Vec::new();
        while let Some((e, children_done)) = todo.pop() {
            if children_done {
                let n = e.children().len();
                let kids = done.split_off(done.len() - n);
                done.push(e.with_children(kids));
            } else {
                todo.push((e, true));
                todo.extend(e.children().into_iter().rev().map(|c| (c, false)));
            }
        }
        done.pop().expect("the root is rebuilt last")
    }
}

impl Exp {
    /// A copy of this node whose children are `kids`, in the order of [`Exp::children`].
    fn with_children(&self, kids: Vec<Exp>) -> Exp {
        let mut kids = kids.into_iter().map(Box::new);
        let mut kid = || kids.next().expect("one rebuilt child per child");
        let kind = match &self.kind {
            ExpKind::Float(x) => ExpKind::Float(*x),
            ExpKind::Int(n) => ExpKind::Int(*n),
            ExpKind::Id(name) => ExpKind::Id(name.clone()),
            ExpKind::Index(_, is) => ExpKind::Index(kid(), is.clone()),
            ExpKind::ArgMax(_) => ExpKind::ArgMax(kid()),
            ExpKind::Max(..) => ExpKind::Max(kid(), kid()),
            ExpKind::Min(..) => ExpKind::Min(kid(), kid()),
            ExpKind::Mul(..) => ExpKind::Mul(kid(), kid()),
            ExpKind::Add(..) => ExpKind::Add(kid(), kid()),
            ExpKind::Sub(..) => ExpKind::Sub(kid(), kid()),
            ExpKind::Div(..) => ExpKind::Div(kid(), kid()),
            ExpKind::Let { .. } => ExpKind::Let { target: kid(), value: kid(), body: kid() },
            ExpKind::LetFunc { func, .. } => {
                let target = kid();
                let kind = match &func.kind {
                    FuncKind::InitTensor(is) => FuncKind::InitTensor(is.clone()),
                    FuncKind::TensorLiteral(is, values) => FuncKind::TensorLiteral(is.clone(), values.clone()),
                    FuncKind::Linear(w, x) => FuncKind::Linear(w.clone(), x.clone()),
                    FuncKind::Relu(_) => FuncKind::Relu(kid()),
                    FuncKind::ReluTensor(_) => FuncKind::ReluTensor(kid()),
                    FuncKind::Tanh(_) => FuncKind::Tanh(kid()),
                    FuncKind::TanhTensor(_) => FuncKind::TanhTensor(kid()),
                    FuncKind::Sigmoid(_) => FuncKind::Sigmoid(kid()),
                    FuncKind::SigmoidTensor(_) => FuncKind::SigmoidTensor(kid()),
                    FuncKind::AddTensor(..) => FuncKind::AddTensor(kid(), kid()),
                    FuncKind::TensorArith(op, ..) => FuncKind::TensorArith(*op, kid(), kid()),
                    FuncKind::Conv2d(_, _, b, attrs) => {
                        let (x, w) = (kid(), kid());
                        FuncKind::Conv2d(x, w, b.as_ref().map(|_| kid()), attrs.clone())
                    }
                    FuncKind::Pool2d(pool, _, attrs) => FuncKind::Pool2d(*pool, kid(), attrs.clone()),
                    FuncKind::Reshape(_, dims) => FuncKind::Reshape(kid(), dims.clone()),
                    FuncKind::Transpose(_, perm) => FuncKind::Transpose(kid(), perm.clone()),
                    FuncKind::TensorMath(f, _, axes) => FuncKind::TensorMath(*f, kid(), axes.clone()),
                    FuncKind::Concat(xs, axis) => FuncKind::Concat(xs.iter().map(|_| *kid()).collect(), *axis),
                    FuncKind::Slice(_, ints) => FuncKind::Slice(kid(), ints.clone()),
                    FuncKind::Pad(_, v, pads) => FuncKind::Pad(kid(), *v, pads.clone()),
                    FuncKind::Matmul(..) => FuncKind::Matmul(kid(), kid()),
                    FuncKind::BatchNorm(xs, e) => FuncKind::BatchNorm(xs.iter().map(|_| *kid()).collect(), *e),
                };
                let func = Func { kind, span: func.span };
                ExpKind::LetFunc { target, func, body: kid() }
            }
        };
        Exp { kind, span: self.span }
    }
}

impl Drop for Exp {
    // Dropping a 100,000-deep `let` chain recursively would overflow the stack.
    fn drop(&mut self) {
        let kind = std::mem::replace(&mut self.kind, ExpKind::Int(0));
        let mut stack = Vec::new();
        take_children(kind, &mut stack);
        while let Some(mut child) = stack.pop() {
            let kind = std::mem::replace(&mut child.kind, ExpKind::Int(0));
            take_children(kind, &mut stack);
        }
    }
}

/// Structural equality ignoring spans (what `parse(print(p)) == p` compares). Floats are equal
/// when their bits are equal, so `NaN == NaN` and `0.0 != -0.0`.
impl PartialEq for Exp {
    fn eq(&self, other: &Exp) -> bool {
        let mut stack = vec![(self, other)];
        while let Some((a, b)) = stack.pop() {
            if !shallow_eq(a, b) {
                return false;
            }
            let (ca, cb) = (a.children(), b.children());
            if ca.len() != cb.len() {
                return false;
            }
            stack.extend(ca.into_iter().zip(cb));
        }
        true
    }
}

fn shallow_eq(a: &Exp, b: &Exp) -> bool {
    use ExpKind as K;
    match (&a.kind, &b.kind) {
        (K::Float(x), K::Float(y)) => x.to_bits() == y.to_bits(),
        (K::Int(x), K::Int(y)) => x == y,
        (K::Id(x), K::Id(y)) => x == y,
        (K::Index(_, x), K::Index(_, y)) => x == y,
        (K::Max(..), K::Max(..))
        | (K::Min(..), K::Min(..))
        | (K::ArgMax(_), K::ArgMax(_))
        | (K::Mul(..), K::Mul(..))
        | (K::Add(..), K::Add(..))
        | (K::Sub(..), K::Sub(..))
        | (K::Div(..), K::Div(..))
        | (K::Let { .. }, K::Let { .. }) => true,
        (K::LetFunc { func: f, .. }, K::LetFunc { func: g, .. }) => match (&f.kind, &g.kind) {
            (FuncKind::InitTensor(x), FuncKind::InitTensor(y)) => x == y,
            (FuncKind::TensorLiteral(x, u), FuncKind::TensorLiteral(y, v)) => x == y && u == v,
            (FuncKind::Linear(w1, x1), FuncKind::Linear(w2, x2)) => w1.name == w2.name && x1.name == x2.name,
            (FuncKind::Conv2d(_, _, b1, a1), FuncKind::Conv2d(_, _, b2, a2)) => {
                b1.is_some() == b2.is_some() && a1 == a2
            }
            (FuncKind::Pool2d(p1, _, a1), FuncKind::Pool2d(p2, _, a2)) => p1 == p2 && a1 == a2,
            (FuncKind::Reshape(_, d1), FuncKind::Reshape(_, d2)) => d1 == d2,
            (FuncKind::Transpose(_, p1), FuncKind::Transpose(_, p2)) => p1 == p2,
            (FuncKind::TensorArith(o1, ..), FuncKind::TensorArith(o2, ..)) => o1 == o2,
            (FuncKind::TensorMath(f1, _, a1), FuncKind::TensorMath(f2, _, a2)) => f1 == f2 && a1 == a2,
            (FuncKind::Concat(_, a1), FuncKind::Concat(_, a2)) => a1 == a2,
            (FuncKind::Slice(_, i1), FuncKind::Slice(_, i2)) => i1 == i2,
            (FuncKind::Pad(_, v1, p1), FuncKind::Pad(_, v2, p2)) => v1.to_bits() == v2.to_bits() && p1 == p2,
            (FuncKind::BatchNorm(x1, e1), FuncKind::BatchNorm(x2, e2)) => {
                x1.len() == x2.len() && e1.to_bits() == e2.to_bits()
            }
            (f, g) => std::mem::discriminant(f) == std::mem::discriminant(g),
        },
        _ => false,
    }
}
