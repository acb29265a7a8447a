//! The rules of `k-nn.md`, one Rust item per K rule, one file per section of the K file (a
//! folder with a file per subsection where the section is long), in the K file's order:
//! [`basic`], [`tensor`], [`relu`], [`linear`], [`tanh`], [`sigmoid`], [`minmax`], [`argmax`],
//! [`utility`]; [`strictness`] holds the heating and cooling rules that K generates from
//! `strict` attributes and `context` declarations.
//!
//! Every rule is a `static` [`Rule`] whose doc comment quotes its K source, with its stable
//! kebab-case ID (docs/semantics.md §1), its inventory number (`R14`) and its line in `k-nn.md`.
//! Its `apply` function reads like the rule: the left-hand side as a `let … else` pattern on
//! the top of `<k>`, the side condition as a named predicate, then the right-hand side.
//!
//! Variable names follow the K file: `X`, `Y`, `W` identifiers, `E`, `E1`, `E2` expressions,
//! `I`, `J`, `N` Ints, `Is`, `Rest` Ints lists, `L`, `T` locations, `V` values, `F`, `F2`
//! Floats; in Rust they are lower case.

pub mod argmax;
pub mod basic;
pub mod linear;
pub mod minmax;
pub mod relu;
pub mod sigmoid;
pub mod strictness;
pub mod tanh;
pub mod tensor;
pub mod utility;

pub(crate) mod activation;
mod head;

pub use head::Head;

use std::fmt;

use smallvec::SmallVec;

use crate::config::{Config, Store};
use crate::memory::{self, TooLarge};
use crate::syntax::Span;
use crate::term::{Ints, Node, Term};

/// The section of `k-nn.md` a rule appears in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    Basic,
    Tensor,
    Relu,
    Linear,
    Tanh,
    Sigmoid,
    MinMax,
    ArgMax,
    Utility,
    /// Constructs the extensions add (Ext-1 `addTensor`, Ext-3 `conv2d`, …): no section of
    /// `k-nn.md` has them.
    Extensions,
    /// Heating and cooling rules generated from `strict` and `context`.
    Strictness,
}

impl Section {
    pub fn name(self) -> &'static str {
        match self {
            Section::Basic => "basic",
            Section::Tensor => "tensor",
            Section::Relu => "relu",
            Section::Linear => "linear",
            Section::Tanh => "tanh",
            Section::Sigmoid => "sigmoid",
            Section::MinMax => "minmax",
            Section::ArgMax => "argmax",
            Section::Utility => "utility",
            Section::Extensions => "extensions",
            Section::Strictness => "strictness",
        }
    }
}

/// How the rule is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// An ordinary rule, applied at the top of `<k>` (configuration abstraction, §2.3).
    TopOfK,
    /// A generated heating rule: `C[HOLE] => HOLE ~> C[□]` when `HOLE` is not a value.
    Heat,
    /// A generated cooling rule: `HOLE ~> C[□] => C[HOLE]` when `HOLE` is a value.
    Cool,
    /// `[anywhere]`: applied whenever a term with its head is built (§2.6).
    Anywhere,
    /// A `[function]` rule, evaluated eagerly inside another rule's right-hand side (§2.7).
    Function,
    /// A `context` declaration: it fires through its generated heating and cooling rules.
    Context,
}

impl RuleKind {
    pub fn name(self) -> &'static str {
        match self {
            RuleKind::TopOfK => "top-of-k",
            RuleKind::Heat => "heat",
            RuleKind::Cool => "cool",
            RuleKind::Anywhere => "anywhere",
            RuleKind::Function => "function",
            RuleKind::Context => "context",
        }
    }
}

/// The LLVM backend's priority classes (§2.9): lower is tried first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Normal = 50,
    /// Rules whose `<k>` starts with a variable followed by more items (`lookup-id`).
    CoolLike = 100,
    Cool = 150,
    Owise = 200,
}

/// Tries the rule on the top of `<k>`: rewrites the configuration and returns `true` if the
/// left-hand side matches and the side condition holds; leaves it untouched otherwise.
pub type Apply = fn(&mut Rewrite<'_>) -> bool;

/// One rule (or context) of the definition.
pub struct Rule {
    /// Stable kebab-case ID (docs/semantics.md §1): what traces and coverage report.
    pub id: &'static str,
    /// Inventory number (`R14`), empty for generated rules.
    pub number: &'static str,
    /// Lines in `k-nn.md` (`L193`, `L165-170`).
    pub lines: &'static str,
    /// The K source text.
    pub k: &'static str,
    pub section: Section,
    pub kind: RuleKind,
    pub class: Class,
    /// The heads of `<k>` the rule can match (empty for rules applied elsewhere).
    pub heads: &'static [Head],
    /// `None` for `[anywhere]`, `[function]` rules and contexts, which are not tried at the top
    /// of `<k>`.
    pub apply: Option<Apply>,
}

impl Rule {
    /// An ordinary rule at the top of `<k>`.
    pub const fn top(
        section: Section,
        id: &'static str,
        number: &'static str,
        lines: &'static str,
        k: &'static str,
        heads: &'static [Head],
        apply: Apply,
    ) -> Rule {
        Rule { id, number, lines, k, section, kind: RuleKind::TopOfK, class: Class::Normal, heads, apply: Some(apply) }
    }

    /// A rule that fires while a term is built (`[anywhere]`, `[function]`) or a context.
    pub const fn passive(
        section: Section,
        kind: RuleKind,
        id: &'static str,
        number: &'static str,
        lines: &'static str,
        k: &'static str,
    ) -> Rule {
        Rule { id, number, lines, k, section, kind, class: Class::Normal, heads: &[], apply: None }
    }

    pub const fn with_class(mut self, class: Class) -> Rule {
        self.class = class;
        self
    }

    pub const fn with_kind(mut self, kind: RuleKind) -> Rule {
        self.kind = kind;
        self
    }

    pub fn is_same(&self, other: &Rule) -> bool {
        std::ptr::eq(self, other)
    }
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

/// `[anywhere]` and `[function]` rules fired while the right-hand side of a step was built,
/// with how many times each fired.
pub type SideFirings = SmallVec<[(&'static Rule, u32); 2]>;

/// How the profile builds `E [ Is ]` (the `[anywhere]` rules on `_[_]`).
pub type BuildIndex = fn(&mut Rewrite<'_>, Term, Ints, Span) -> Term;

/// The configuration being rewritten by one step, with what the step reports.
pub struct Rewrite<'a> {
    pub cfg: &'a mut Config,
    build_index: BuildIndex,
    /// `[anywhere]`/`[function]` rules fired by this step.
    pub side: SideFirings,
    /// Set when the step makes krun itself stop (a duplicate key in a map concatenation).
    pub abort: Option<String>,
    /// Set when the step would grow the store past the memory budget: the step then changes
    /// nothing and the run ends with a memory limit.
    pub limit: Option<TooLarge>,
}

impl<'a> Rewrite<'a> {
    pub fn new(cfg: &'a mut Config, build_index: BuildIndex) -> Rewrite<'a> {
        Rewrite { cfg, build_index, side: SideFirings::new(), abort: None, limit: None }
    }

    /// Whether the store may grow by `cells` more cells (`None`: a count that overflowed)
    /// within the memory budget. If not, the limit is recorded: the rule must then return
    /// `true` without changing the configuration, and the run stops there.
    pub fn reserve(&mut self, cells: Option<u64>) -> bool {
        let total = cells.and_then(|c| c.checked_add(self.cfg.store.len() as u64));
        match memory::check(total.and_then(|c| memory::bytes_for(c, Store::CELL_BYTES))) {
            Ok(()) => true,
            Err(too_large) => {
                self.limit = Some(too_large.of("the store (the program's tensors)"));
                false
            }
        }
    }

    /// The term at the top of `<k>`.
    pub fn top(&self) -> Option<&Term> {
        self.cfg.top_term()
    }

    pub fn top_node(&self) -> Option<&Node> {
        self.cfg.top_term().map(Term::node)
    }

    /// Builds `base [ ints ]`, applying the profile's `[anywhere]` rules on `_[_]`.
    pub fn index(&mut self, base: Term, ints: Ints, span: Span) -> Term {
        (self.build_index)(self, base, ints, span)
    }

    /// Builds `base [ i ]`.
    pub fn index1(&mut self, base: Term, i: i64, span: Span) -> Term {
        self.index(base, Ints::one(i), span)
    }

    /// Records that a side rule fired `times` times.
    pub fn fired(&mut self, rule: &'static Rule, times: u32) {
        if times == 0 {
            return;
        }
        match self.side.iter_mut().find(|(r, _)| r.is_same(rule)) {
            Some((_, n)) => *n += times,
            None => self.side.push((rule, times)),
        }
    }
}

/// The store cells a tensor of shape `dims` takes (Rev-4's layout, which the published rules
/// share): each vector is a header and its elements, `1 + d0 + d0·(1 + d1) + d0·d1·(1 + d2)…`;
/// `None` when the count overflows. A negative dimension counts as 0 (it is an error, not an
/// allocation).
pub fn tensor_cells(dims: impl IntoIterator<Item = i64>) -> Option<u64> {
    let (mut total, mut vectors) = (0u64, 1u64);
    for d in dims {
        let d = u64::try_from(d).unwrap_or(0);
        total = total.checked_add(vectors.checked_mul(d.checked_add(1)?)?)?;
        vectors = vectors.checked_mul(d)?;
    }
    Some(total)
}

/// `true` when `I <Int J` (the side condition of every `…-step` rule).
pub fn lt(i: i64, j: i64) -> bool {
    i < j
}

/// `L +Int I +Int 1`: where element `I` of the tensor whose header is at `L` lives, by the
/// layout of `define-tensor-1d` (header at `L`, elements from `L + 1`).
pub fn element_location(l: i64, i: i64) -> i64 {
    l + i + 1
}
