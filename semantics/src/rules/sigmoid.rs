//! "Sigmoid" (k-nn.md L335–368): `sigmoidTensor` through `sigmoidTensorHelper` and `sigmoidItem`.
//! The scalar rule `sigmoid-item-float` is in the "Min and Max" section ([`super::minmax`]).

use super::activation::{self, int_zero};
use super::{Head, Rule, RuleKind, Section};
use crate::syntax::Span;
use crate::term::{Act, Node, Term};

const SECTION: Section = Section::Sigmoid;
const ACT: Act = Act::Sigmoid;

/// R49 `let-sigmoid-tensor` (L341-342)
/// `rule <k> let X:Id = sigmoidTensor(Y:Id) in E => defineTensor(X,Is) ~> sigmoidTensorHelper(Y, X, Is) ~> E ... </k>
///       <shape>... Y |-> Is ...</shape>`
pub static LET_SIGMOID_TENSOR: Rule = Rule::top(
    SECTION,
    "let-sigmoid-tensor",
    "R49",
    "L341-342",
    "rule <k> let X:Id = sigmoidTensor(Y:Id) in E => defineTensor(X,Is) ~> sigmoidTensorHelper(Y, X, Is) ~> E ... </k> <shape>... Y |-> Is ...</shape>",
    &[Head::LetFunc],
    |r| activation::let_tensor(r, ACT),
);

/// R50 `sigmoid-helper-nd-range` (L350): `rule sigmoidTensorHelper(Y, X, I:Int, Is:Ints) => sigmoidTensorHelper(Y, X, 0 ...I, Is)`
pub static SIGMOID_HELPER_ND_RANGE: Rule = Rule::top(
    SECTION,
    "sigmoid-helper-nd-range",
    "R50",
    "L350",
    "rule sigmoidTensorHelper(Y, X, I:Int, Is:Ints) => sigmoidTensorHelper(Y, X, 0 ...I, Is)",
    &[Head::ActHelper],
    |r| activation::nd_range(r, ACT),
);

/// R51 `sigmoid-helper-1d-range` (L351): `rule sigmoidTensorHelper(Y, X, I:Int) => sigmoidTensorHelper(Y, X, 0 ...I)`
pub static SIGMOID_HELPER_1D_RANGE: Rule = Rule::top(
    SECTION,
    "sigmoid-helper-1d-range",
    "R51",
    "L351",
    "rule sigmoidTensorHelper(Y, X, I:Int) => sigmoidTensorHelper(Y, X, 0 ...I)",
    &[Head::ActHelper],
    |r| activation::range_1d(r, ACT),
);

/// R52 `sigmoid-helper-nd-step` (L353-354)
/// `rule <k> sigmoidTensorHelper(Y, X, I...J:Int, Is:Ints) => sigmoidTensorHelper(Y[I], X[I], Is:Ints)
///       ~> sigmoidTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J`
pub static SIGMOID_HELPER_ND_STEP: Rule = Rule::top(
    SECTION,
    "sigmoid-helper-nd-step",
    "R52",
    "L353-354",
    "rule <k> sigmoidTensorHelper(Y, X, I...J:Int, Is:Ints) => sigmoidTensorHelper(Y[I], X[I], Is:Ints) ~> sigmoidTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J",
    &[Head::ActHelper],
    |r| activation::nd_step(r, ACT),
);

/// R53 `sigmoid-helper-range-step` (L356-357)
/// `rule <k> sigmoidTensorHelper(Y, X, I...J:Int) => sigmoidTensorHelper(Y[I], X[I])
///       ~> sigmoidTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J`
pub static SIGMOID_HELPER_RANGE_STEP: Rule = Rule::top(
    SECTION,
    "sigmoid-helper-range-step",
    "R53",
    "L356-357",
    "rule <k> sigmoidTensorHelper(Y, X, I...J:Int) => sigmoidTensorHelper(Y[I], X[I]) ~> sigmoidTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J",
    &[Head::ActHelper],
    |r| activation::range_step(r, ACT),
);

/// R54 `sigmoid-helper-nd-done` (L359): `rule <k> sigmoidTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>`
pub static SIGMOID_HELPER_ND_DONE: Rule = Rule::top(
    SECTION,
    "sigmoid-helper-nd-done",
    "R54",
    "L359",
    "rule <k> sigmoidTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>",
    &[Head::ActHelper],
    |r| activation::nd_done(r, ACT),
);

/// R55 `sigmoid-helper-range-done` (L360): `rule <k> sigmoidTensorHelper(_, _, I...I:Int) => . ...</k>`
pub static SIGMOID_HELPER_RANGE_DONE: Rule = Rule::top(
    SECTION,
    "sigmoid-helper-range-done",
    "R55",
    "L360",
    "rule <k> sigmoidTensorHelper(_, _, I...I:Int) => . ...</k>",
    &[Head::ActHelper],
    |r| activation::range_done(r, ACT),
);

/// R56 `sigmoid-helper-elem` (L362)
/// `rule sigmoidTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = sigmoidItem(E1[I]) in 0`
pub static SIGMOID_HELPER_ELEM: Rule = Rule::top(
    SECTION,
    "sigmoid-helper-elem",
    "R56",
    "L362",
    "rule sigmoidTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = sigmoidItem(E1[I]) in 0",
    &[Head::ActHelper],
    |r| activation::elem(r, ACT, sigmoid_item, int_zero),
);

/// `sigmoidItem(E1[I])`
fn sigmoid_item(e1_i: Term, span: Span) -> Term {
    Term::new(Node::ActItem { act: ACT, arg: e1_i }, span)
}

/// R57 `ctx-sigmoid-item` (L364): `context sigmoidItem(HOLE)`
pub static CTX_SIGMOID_ITEM: Rule =
    Rule::passive(SECTION, RuleKind::Context, "ctx-sigmoid-item", "R57", "L364", "context sigmoidItem(HOLE)");

/// R58 `sigmoid-item-merge-index` (L365): `rule sigmoidItem(E:Exp[I:Int][J:Int]) => sigmoidItem(E:Exp[I:Int,J:Int])`
///
/// Dead under krun: `heat-sigmoid-item` is tried first (§2.9).
pub static SIGMOID_ITEM_MERGE_INDEX: Rule = Rule::top(
    SECTION,
    "sigmoid-item-merge-index",
    "R58",
    "L365",
    "rule sigmoidItem(E:Exp[I:Int][J:Int]) => sigmoidItem(E:Exp[I:Int,J:Int])",
    &[Head::ActItem],
    |r| activation::item_merge_index(r, ACT),
);

/// R59 `sigmoid-let-2d` (L366)
/// `rule let E:Exp[I:Int][J:Int] = sigmoidItem(E2:Exp) in E3:Exp => let E:Exp[I,J] = sigmoidItem(E2:Exp) in E3:Exp`
///
/// Dead under krun: `heat-let-2` and `relu-let-2d-max` are tried first (§2.9); `search` finds
/// the unclamped result it leads to.
pub static SIGMOID_LET_2D: Rule = Rule::top(
    SECTION,
    "sigmoid-let-2d",
    "R59",
    "L366",
    "rule let E:Exp[I:Int][J:Int] = sigmoidItem(E2:Exp) in E3:Exp => let E:Exp[I,J] = sigmoidItem(E2:Exp) in E3:Exp",
    &[Head::Let],
    |r| activation::let_2d_item(r, ACT),
);

/// The rules and contexts of this section, in file order.
pub static RULES: &[&Rule] = &[
    &LET_SIGMOID_TENSOR,
    &SIGMOID_HELPER_ND_RANGE,
    &SIGMOID_HELPER_1D_RANGE,
    &SIGMOID_HELPER_ND_STEP,
    &SIGMOID_HELPER_RANGE_STEP,
    &SIGMOID_HELPER_ND_DONE,
    &SIGMOID_HELPER_RANGE_DONE,
    &SIGMOID_HELPER_ELEM,
    &CTX_SIGMOID_ITEM,
    &SIGMOID_ITEM_MERGE_INDEX,
    &SIGMOID_LET_2D,
];
