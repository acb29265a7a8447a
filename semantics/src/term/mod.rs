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

mod atoms;
mod from_ast;
mod funcs;
mod math;
mod traverse;

pub mod float_format;
pub mod print;
pub mod subst;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use crate::errors::ErrorKind;
use crate::syntax::Span;

pub use atoms::{Ints, Sym};
pub use from_ast::term_of_program;
pub use funcs::{
    Act, ArithHole, BatchNormHelper, BroadcastHelper, Conv2dHelper, ElementOp, FuncName, FuncTerm, HelperArgs,
    MatmulHelper, PadHelper, Pool2dHelper,
};
pub use math::MathFn;
pub use subst::SubstMap;

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
    /// `conv2dHelper(Id, Id, Id, Id, Attrs, Int ... Int, Ints)` (Ext-3), boxed: it is the
    /// largest helper.
    Conv2dHelper(Box<Conv2dHelper>),
    /// `maxPool2dHelper(…)`, `avgPool2dHelper(…)` (Ext-4).
    Pool2dHelper(Box<Pool2dHelper>),
    /// `poolMean(Exp, Int)` (Ext-4): the sum of an average pool's window over its count, strict
    /// in the sum.
    PoolMean {
        sum: Term,
        count: i64,
    },
    /// `reshapeHelper(Id, Id, Int ... Int, Ints)` (Ext-5): `Y[rowMajor(K, dims)] =
    /// X[rowMajor(K, SH[X])]` for the positions `from..to` still to copy.
    ReshapeHelper {
        x: Sym,
        y: Sym,
        from: i64,
        to: i64,
        dims: Ints,
    },
    /// `transposeHelper(Id, Id, Int ... Int, Ints)` (Ext-6): `Y[rowMajor(K, SH[Y])] =
    /// X[permute(rowMajor(K, SH[Y]), Ps)]` for the positions `from..to` still to copy.
    TransposeHelper {
        x: Sym,
        y: Sym,
        from: i64,
        to: i64,
        perm: Ints,
    },
    /// `E - E` and `E / E` (Ext-7): `seqstrict`, as `+` and `*` are in the revised profile.
    Sub(Term, Term),
    Div(Term, Term),
    /// `broadcastHelper(…)` (Ext-8): see [`BroadcastHelper`].
    BroadcastHelper(Box<BroadcastHelper>),
    /// `expItem(Exp)`, `logItem(Exp)`, `expShiftItem(Exp, Float)`, `softmaxItem(Exp, Float,
    /// Float)`, `logSoftmaxItem(Exp, Float, Float)` (Ext-9), strict in the operand.
    MathItem {
        f: MathFn,
        arg: Term,
    },
    /// `concatHelper(Ids, Id, Int, Int ... Int, Ints)` (Ext-11): `Y[I] = Xj[I - offset]` for
    /// the positions `from..to` of `Y`, of shape `dims`, still to copy along `axis`.
    ConcatHelper {
        xs: Vec<Sym>,
        y: Sym,
        axis: i64,
        from: i64,
        to: i64,
        dims: Ints,
    },
    /// `sliceHelper(Id, Id, Int, Int, Int, Int ... Int, Ints)` (Ext-12): `Y[I] = X[I with
    /// I[A] = B + I[A] * S]` for the positions `from..to` of `Y`, of shape `dims`, still to copy.
    SliceHelper {
        x: Sym,
        y: Sym,
        axis: i64,
        begin: i64,
        step: i64,
        from: i64,
        to: i64,
        dims: Ints,
    },
    /// `padHelper(…)` (Ext-13): see [`PadHelper`].
    PadHelper(Box<PadHelper>),
    /// A substitution not yet pushed into the term (never returned by [`Term::node`]).
    Subst(Box<subst::Lazy>),
    /// `matmulHelper(…)` (Ext-15): see [`MatmulHelper`].
    MatmulHelper(Box<MatmulHelper>),
    /// `batchNormHelper(…)` (Ext-14): see [`BatchNormHelper`].
    BatchNormHelper(Box<BatchNormHelper>),
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

impl Term {
    /// How an error's detail names this value as an operand, in the big-step engine's words
    /// too: a Float by [`crate::numeric::float_words`], an Int as `an Int` (the big-step engine
    /// may hold it in a register, its value known only when the program runs), a tensor as
    /// `a tensor`; anything else as the term.
    pub fn operand_words(&self) -> String {
        match self.node() {
            Node::Float(x) => crate::numeric::float_words(*x),
            Node::Int(_) => "an Int".to_string(),
            Node::Tensor { .. } => "a tensor".to_string(),
            _ => self.to_string(),
        }
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
