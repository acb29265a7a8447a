//! Runtime terms: the contents of the `<k>` cell and of `<store>`.
//!
//! A [`Term`] is an immutable, reference-counted node, so configurations share structure and
//! `search` forks them for free. Every production of `k-nn.md` that a rule can build is a
//! [`Node`] variant: the program syntax, the values (`tensor(L, N)`, Floats, Ints) and the
//! helpers of module `KNN` (`defineTensor`, `lookup`, `storeVal`, `reluTensorHelper`, …), so
//! intermediate states are data that prints exactly like the rest.
//!
//! Substitution (`E2[E1 / X]`, §2.5) is applied lazily below `let` bodies (see [`subst`]); the
//! accessor [`Term::node`] hides this: it always returns the substituted node.

mod from_ast;
mod traverse;

pub mod float_format;
pub mod print;
pub mod subst;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use smallvec::SmallVec;

use crate::errors::ErrorKind;
use crate::syntax::Span;

pub use from_ast::term_of_program;
pub use subst::SubstMap;

/// An identifier (`Id` in K). Compared and ordered by name, as krun orders map keys.
#[derive(Clone)]
pub struct Sym(Rc<str>);

impl Sym {
    pub fn new(name: &str) -> Sym {
        Sym(Rc::from(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `syntax Id ::= "$1"` (k-nn.md L174): the global temporary of rank ≥ 2 allocation.
    pub fn dollar_one() -> Sym {
        Sym::new("$1")
    }
}

impl PartialEq for Sym {
    fn eq(&self, other: &Sym) -> bool {
        Rc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Eq for Sym {}

impl PartialOrd for Sym {
    fn partial_cmp(&self, other: &Sym) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Sym {
    fn cmp(&self, other: &Sym) -> std::cmp::Ordering {
        self.0.as_bytes().cmp(other.0.as_bytes())
    }
}

impl Hash for Sym {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A non-empty list of Ints (`Ints` in K): a shape or an index list.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Ints(SmallVec<[i64; 2]>);

impl Ints {
    /// `None` for an empty list: `Ints` has no empty element in K.
    pub fn new(values: &[i64]) -> Option<Ints> {
        (!values.is_empty()).then(|| Ints(SmallVec::from_slice(values)))
    }

    pub fn one(i: i64) -> Ints {
        Ints(smallvec::smallvec![i])
    }

    /// `I , Rest`.
    pub fn cons(first: i64, rest: &Ints) -> Ints {
        let mut v = SmallVec::with_capacity(rest.len() + 1);
        v.push(first);
        v.extend_from_slice(&rest.0);
        Ints(v)
    }

    pub fn as_slice(&self) -> &[i64] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn first(&self) -> i64 {
        self.0[0]
    }

    /// The list matched by the pattern `I:Int` (exactly one element).
    pub fn single(&self) -> Option<i64> {
        match self.0.as_slice() {
            [i] => Some(*i),
            _ => None,
        }
    }

    /// The split matched by the pattern `I:Int, Rest:Ints` (two or more elements).
    pub fn split_first(&self) -> Option<(i64, Ints)> {
        match self.0.as_slice() {
            [first, rest @ ..] if !rest.is_empty() => Some((*first, Ints(SmallVec::from_slice(rest)))),
            _ => None,
        }
    }
}

impl fmt::Debug for Ints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0.as_slice())
    }
}

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
}

/// One node of a term. Field names follow the K variables of the rules that build them.
#[derive(Clone, Debug)]
pub enum Node {
    Float(f64),
    Int(i64),
    /// `tensor(L, N)`: the header of a tensor whose element 0 is at `L`, `N` elements long.
    Tensor {
        loc: i64,
        len: i64,
    },
    Id(Sym),
    /// `E [ Is ]`.
    Index {
        base: Term,
        ints: Ints,
    },
    Max(Term, Term),
    Min(Term, Term),
    ArgMax(Term),
    Mul(Term, Term),
    Add(Term, Term),
    /// `let E = E in E`.
    Let {
        target: Term,
        value: Term,
        body: Term,
    },
    /// `let E = Func in E`.
    LetFunc {
        target: Term,
        func: FuncTerm,
        /// Where the function call `F(…)` is written: errors about the call point there, not at
        /// the whole `let`, whose span runs to the end of its body.
        func_span: Span,
        body: Term,
    },
    /// `defineTensor(Exp, Ints)`.
    DefineTensor {
        x: Term,
        ints: Ints,
    },
    /// `defineTensorHelper(Id, Int ... Int, Ints)`.
    DefineTensorHelper {
        x: Sym,
        from: i64,
        to: i64,
        rest: Ints,
    },
    /// `lookup(Int)`.
    Lookup(i64),
    /// `storeVal(Exp, Exp)`.
    StoreVal {
        target: Term,
        value: Term,
    },
    /// `storeAtVal(Int, Val)`.
    StoreAtVal {
        loc: i64,
        value: Term,
    },
    /// `reluTensorHelper(…)`, `tanhTensorHelper(…)`, `sigmoidTensorHelper(…)`.
    ActHelper {
        act: Act,
        y: Term,
        x: Term,
        args: HelperArgs,
    },
    /// `tanhItem(Exp)`, `sigmoidItem(Exp)`.
    ActItem {
        act: Act,
        arg: Term,
    },
    /// `linearHelper(Id, Int, Int, Id, Id)`.
    LinearHelper {
        y: Sym,
        i: i64,
        j: i64,
        w: Sym,
        x: Sym,
    },
    /// `linearHelper(Id, Int ... Int, Int, Id, Id)`.
    LinearRows {
        y: Sym,
        from: i64,
        to: i64,
        j: i64,
        w: Sym,
        x: Sym,
    },
    /// `linearHelper(Id [ Int ], Int ... Int, Id [ Int ], Id)`: one symbol with seven arguments.
    LinearCols {
        y: Sym,
        y_row: i64,
        from: i64,
        to: i64,
        w: Sym,
        w_row: i64,
        x: Sym,
    },
    /// `linearHelper(Exp, Exp, Exp)`.
    LinearMac(Term, Term, Term),
    /// `ArgMaxHelper(Id, Int ... Int, Float, Int)`.
    ArgMaxHelper {
        x: Sym,
        from: i64,
        to: i64,
        max: f64,
        index: i64,
    },
    /// `fun(Exp)` (L454): declared, never built by any live rule.
    Fun(Term),
    /// `#skip` (Rev-1): the unit a helper's element write leaves, erased at the top of `<k>`.
    Skip,
    /// `knnError(S)` (Rev-5): a run-time error; `detail` says what exactly went wrong.
    Error {
        kind: ErrorKind,
        detail: Rc<str>,
    },
    /// `linearChecked(Id, Id, Id, Ints, Ints, Exp)` (Rev-8): `linear` with both shapes read.
    LinearChecked {
        y: Sym,
        w: Sym,
        x: Sym,
        w_shape: Ints,
        x_shape: Ints,
        body: Term,
    },
    /// `addTensorHelper(Id, Id, Id, Int ... Int, Ints)` (Ext-1): `X = Y + Z` element-wise,
    /// positions `from..to` (row-major) of the shape `dims` still to write.
    AddTensorHelper {
        y: Sym,
        z: Sym,
        x: Sym,
        from: i64,
        to: i64,
        dims: Ints,
    },
    /// A substitution not yet pushed into the term (never returned by [`Term::node`]).
    Subst(Box<subst::Lazy>),
}

struct TermData {
    node: Node,
    span: Span,
}

/// A shared, immutable term with the span of the source construct it comes from.
#[derive(Clone)]
pub struct Term(Rc<TermData>);

impl Term {
    pub fn new(node: Node, span: Span) -> Term {
        Term(Rc::new(TermData { node, span }))
    }

    pub fn float(x: f64, span: Span) -> Term {
        Term::new(Node::Float(x), span)
    }

    pub fn int(n: i64, span: Span) -> Term {
        Term::new(Node::Int(n), span)
    }

    pub fn id(x: &Sym, span: Span) -> Term {
        Term::new(Node::Id(x.clone()), span)
    }

    /// `knnError(S)` of the given kind.
    pub fn error(kind: ErrorKind, detail: impl Into<Rc<str>>, span: Span) -> Term {
        Term::new(Node::Error { kind, detail: detail.into() }, span)
    }

    /// The node, with any pending substitution applied.
    pub fn node(&self) -> &Node {
        match &self.0.node {
            Node::Subst(lazy) => lazy.forced().node(),
            node => node,
        }
    }

    pub fn span(&self) -> Span {
        self.0.span
    }

    /// Whether both handles point to the same allocation (a cheap equality test).
    pub fn ptr_eq(&self, other: &Term) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    /// `isKResult`: Floats, Ints and `tensor(_, _)` headers (`syntax KResult ::= Float | Int |
    /// Val`, L131 and L157; `Ints` lists never occur as terms here).
    pub fn is_value(&self) -> bool {
        matches!(self.node(), Node::Float(_) | Node::Int(_) | Node::Tensor { .. })
    }

    pub fn is_float(&self) -> bool {
        matches!(self.node(), Node::Float(_))
    }

    pub fn is_int(&self) -> bool {
        matches!(self.node(), Node::Int(_))
    }

    pub fn as_float(&self) -> Option<f64> {
        match self.node() {
            Node::Float(x) => Some(*x),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self.node() {
            Node::Int(n) => Some(*n),
            _ => None,
        }
    }

    pub fn as_id(&self) -> Option<&Sym> {
        match self.node() {
            Node::Id(x) => Some(x),
            _ => None,
        }
    }

    /// The pattern `E:Exp [ I:Int ]`: the base and the single index.
    pub fn as_single_index(&self) -> Option<(&Term, i64)> {
        match self.node() {
            Node::Index { base, ints } => ints.single().map(|i| (base, i)),
            _ => None,
        }
    }

    /// Number of nodes (substitutions applied), counted without recursion.
    pub fn size(&self) -> usize {
        let mut count = 0;
        let mut stack = vec![self.clone()];
        while let Some(t) = stack.pop() {
            count += 1;
            traverse::for_each_child(t.node(), |c| stack.push(c.clone()));
        }
        count
    }
}

impl fmt::Debug for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print::term_to_string(self))
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print::term_to_string(self))
    }
}

impl Drop for TermData {
    // Terms can be 100,000 levels deep; dropping them recursively would overflow the stack.
    fn drop(&mut self) {
        traverse::drop_iteratively(&mut self.node);
    }
}

/// Structural equality (K's `==K`): spans are ignored, floats compare by bits.
impl PartialEq for Term {
    fn eq(&self, other: &Term) -> bool {
        traverse::structurally_equal(self, other)
    }
}

impl Eq for Term {}

impl Hash for Term {
    fn hash<H: Hasher>(&self, state: &mut H) {
        traverse::hash_structure(self, state);
    }
}
