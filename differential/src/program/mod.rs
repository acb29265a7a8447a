//! Generated programs: a list of `let`s and a result, the shape K-NN programs have. The model
//! keeps what shrinking needs (which statement defines and uses which name); [`Program::exp`]
//! turns it into the parser's syntax tree and [`Program::source`] into source text; shrinking is
//! in `shrink.rs`.

mod extensions;
mod shrink;
mod stmt;

use std::fmt;

use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{
    Attrs, Elements, Exp, ExpKind, Func, FuncKind, Ident, Number, Pool, Span, TensorMath, TensorOp, print::to_source,
};

/// A scalar expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Float(f64),
    /// A non-negative Int literal (`-1` is a Float in K).
    Int(i64),
    Var(String),
    /// `t[i, j]` (a sub-tensor when there are fewer indices than dimensions).
    Read(String, Vec<i64>),
    Bin(BinOp, Box<Scalar>, Box<Scalar>),
    /// `(let name = value in body)` as an operand.
    Nested(String, Box<Scalar>, Box<Scalar>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Mul,
    Max,
    Min,
    /// `-` and `/` (Ext-7).
    Sub,
    Div,
}

/// The activations, as tensor functions (`reluTensor`) or scalar ones (`relu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Relu,
    Tanh,
    Sigmoid,
}

/// One `let … in` of a program.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let name = initTensor(dims) in`
    Alloc { name: String, dims: Vec<usize> },
    /// `let tensor[index] = value in`
    Write { tensor: String, index: Vec<i64>, value: Scalar },
    /// `let name = value in`
    Let { name: String, value: Scalar },
    /// `let name = relu(arg) in` (and `tanh`, `sigmoid`)
    ScalarFn { name: String, act: Act, arg: Scalar },
    /// `let out = linear(w, x) in`
    Linear { out: String, w: String, x: String },
    /// `let out = reluTensor(arg) in` (and `tanhTensor`, `sigmoidTensor`); the argument is
    /// usually a name, sometimes a scalar (an error).
    Activate { out: String, act: Act, arg: Scalar },
    /// `let tensor[index] = tensor[index] + add in`: a bias, the pattern networks use.
    Bias { tensor: String, index: i64, add: f64 },
    /// `let tensor[index] = tensor[index] * factor (+ add) in`: an imported scaling or batch
    /// normalisation, which the big-step engine fuses.
    Scale { tensor: String, index: i64, factor: f64, add: Option<f64> },
    /// `let out = addTensor(a, b) in` (Ext-1), or `subTensor`, `mulTensor`, `divTensor` for
    /// `op` (Ext-8): the operands are usually names of tensors of one shape, sometimes of two
    /// shapes (which may broadcast) or a scalar (an error).
    AddTensor { out: String, a: Scalar, b: Scalar, op: Option<TensorOp> },
    /// `let out = conv2d(x, w, b, attributes) in` (Ext-3): the operands are usually names of
    /// tensors whose shapes fit, sometimes not, or a scalar (an error).
    Conv2d { out: String, x: Scalar, w: Scalar, b: Option<Scalar>, attrs: Attrs },
    /// `let out = maxPool2d(x, attributes) in` or `avgPool2d` (Ext-4): the input usually the
    /// name of a tensor whose shape fits, sometimes not, or a scalar (an error).
    Pool2d { out: String, pool: Pool, x: Scalar, attrs: Attrs },
    /// `let out = reshape(x, dims) in`, or `flatten(x)` when `dims` is `None` (Ext-5): the input
    /// usually the name of a tensor of as many elements, sometimes not, or a scalar (an error).
    Reshape { out: String, x: Scalar, dims: Option<Vec<i64>> },
    /// `let out = transpose(x, perm) in` (Ext-6): the input usually the name of a tensor and
    /// `perm` a permutation of its axes, sometimes not, or a scalar (an error).
    Transpose { out: String, x: Scalar, perm: Vec<i64> },
    /// `let out = f(x, axes) in` (Ext-9 `expTensor`, `logTensor`, `softmax`, `logSoftmax`; Ext-10
    /// the reductions): the input usually the name of a tensor and the axes fitting it, sometimes
    /// not, or a scalar (an error).
    TensorMath { out: String, f: TensorMath, x: Scalar, axes: Vec<i64> },
    /// `let out = pad(x, value, pads) in` (Ext-13): the input usually the name of a tensor and
    /// two pads per axis, sometimes not, or a scalar (an error).
    Pad { out: String, x: Scalar, value: f64, pads: Vec<i64> },
    /// `let name = initTensor(dims)[values] in` (Ext-2): a tensor and its elements, row-major.
    Literal { name: String, dims: Vec<usize>, values: Vec<Number> },
    /// `let target = value in` with a target that is neither a name nor an indexed name
    /// (`let 1.0 = 2.0 in`, `let (a + b)[0] = …`): an error to exercise.
    BadTarget { target: Scalar, value: Scalar },
    /// `let tensor[index] = (tensor[index] - shift) / scale in` (Ext-7): an imported
    /// normalisation, which the big-step engine fuses into an `Elementwise` chain.
    Normalise { tensor: String, index: i64, shift: f64, scale: f64 },
    /// `let out = concat(x1, …, xn, axis) in` (Ext-11): the operands usually names of tensors
    /// that agree but along the axis, sometimes not, or a scalar (an error).
    Concat { out: String, xs: Vec<Scalar>, axis: i64 },
    /// `let out = slice(x, ints) in` (Ext-12): the input usually the name of a tensor and the
    /// axis, start, end (and step) fitting it, sometimes not, or a scalar (an error).
    Slice { out: String, x: Scalar, ints: Vec<i64> },
    /// `let out = matmul(a, b) in` (Ext-15): usually names of tensors whose shapes fit,
    /// sometimes not, or a scalar (an error).
    Matmul { out: String, a: Scalar, b: Scalar },
    /// `let out = batchNorm(x, s, b, m, v, epsilon = e) in` (Ext-14): the operands usually
    /// names of a tensor and four vectors of its first extent, sometimes not, or a scalar (an
    /// error).
    BatchNorm { out: String, xs: Vec<Scalar>, epsilon: f64 },
}

/// What the program evaluates to.
#[derive(Clone, Debug, PartialEq)]
pub enum Final {
    Scalar(Scalar),
    /// `ArgMax(name)`
    ArgMax(String),
}

/// A tensor bound before the program runs (`--input`), with one or more rows of values: the
/// single-run properties use the first, the batch properties all of them.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub name: String,
    pub shape: Vec<usize>,
    pub rows: Vec<Vec<f64>>,
}

#[derive(Clone, PartialEq)]
pub struct Program {
    /// The seed it was generated from (`KNN_DIFF_SEED` regenerates it).
    pub seed: u64,
    pub input: Option<Input>,
    pub stmts: Vec<Stmt>,
    pub result: Final,
}

fn span() -> Span {
    Span::default()
}

fn id(name: &str) -> Exp {
    Exp::new(ExpKind::Id(name.to_string()), span())
}

fn boxed(e: Exp) -> Box<Exp> {
    Box::new(e)
}

fn index(name: &str, ints: &[i64]) -> Exp {
    Exp::new(ExpKind::Index(boxed(id(name)), ints.to_vec()), span())
}

impl Scalar {
    pub fn exp(&self) -> Exp {
        let kind = match self {
            Scalar::Float(x) => ExpKind::Float(*x),
            Scalar::Int(n) => ExpKind::Int(*n),
            Scalar::Var(x) => ExpKind::Id(x.clone()),
            Scalar::Read(t, ints) => return index(t, ints),
            Scalar::Bin(op, a, b) => {
                let (a, b) = (boxed(a.exp()), boxed(b.exp()));
                match op {
                    BinOp::Add => ExpKind::Add(a, b),
                    BinOp::Mul => ExpKind::Mul(a, b),
                    BinOp::Max => ExpKind::Max(a, b),
                    BinOp::Min => ExpKind::Min(a, b),
                    BinOp::Sub => ExpKind::Sub(a, b),
                    BinOp::Div => ExpKind::Div(a, b),
                }
            }
            Scalar::Nested(name, value, body) => {
                ExpKind::Let { target: boxed(id(name)), value: boxed(value.exp()), body: boxed(body.exp()) }
            }
        };
        Exp::new(kind, span())
    }

    /// The names it reads.
    pub fn names(&self, out: &mut Vec<String>) {
        match self {
            Scalar::Float(_) | Scalar::Int(_) => {}
            Scalar::Var(x) | Scalar::Read(x, _) => out.push(x.clone()),
            Scalar::Bin(_, a, b) => {
                a.names(out);
                b.names(out);
            }
            Scalar::Nested(name, value, body) => {
                value.names(out);
                let mut inner = Vec::new();
                body.names(&mut inner);
                out.extend(inner.into_iter().filter(|n| n != name));
            }
        }
    }
}

impl Act {
    pub const ALL: [Act; 3] = [Act::Relu, Act::Tanh, Act::Sigmoid];
}

impl Final {
    fn exp(&self) -> Exp {
        match self {
            Final::Scalar(s) => s.exp(),
            Final::ArgMax(name) => Exp::new(ExpKind::ArgMax(boxed(id(name))), span()),
        }
    }

    fn uses(&self) -> Vec<String> {
        match self {
            Final::Scalar(s) => {
                let mut out = Vec::new();
                s.names(&mut out);
                out
            }
            Final::ArgMax(name) => vec![name.clone()],
        }
    }
}

impl Program {
    /// The syntax tree the parser would build from [`Program::source`].
    pub fn exp(&self) -> Exp {
        self.stmts.iter().rev().fold(self.result.exp(), |body, stmt| stmt.wrap(body))
    }

    /// The program as source text, parenthesised where K's priorities need it.
    pub fn source(&self) -> String {
        to_source(&self.exp())
    }

    /// The input bound to its first row (empty without an input).
    pub fn first_inputs(&self) -> Vec<TensorInput> {
        self.input.iter().map(|i| i.row(0)).collect()
    }
}

impl Input {
    pub fn row(&self, k: usize) -> TensorInput {
        TensorInput { name: self.name.clone(), shape: self.shape.clone(), data: self.rows[k].clone() }
    }
}

impl fmt::Debug for Program {
    /// What a failure report shows: the seed, the input and the program as source text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "seed {} (KNN_DIFF_SEED={} reruns it)", self.seed, self.seed)?;
        if let Some(input) = &self.input {
            writeln!(f, "input {} {:?} = {:?}", input.name, input.shape, input.rows)?;
        }
        write!(f, "{}", self.source())
    }
}
