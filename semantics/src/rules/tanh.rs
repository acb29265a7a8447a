//! "Tanh" (k-nn.md L296–333): `tanhTensor` through `tanhTensorHelper` and `tanhItem`.
//! The scalar rule `tanh-item-float` is in the "Min and Max" section ([`super::minmax`]).

use super::activation::{self, int_zero};
use super::{Head, Rule, RuleKind, Section};
use crate::syntax::Span;
use crate::term::{Act, Node, Term};

const SECTION: Section = Section::Tanh;
const ACT: Act = Act::Tanh;

/// R38 `let-tanh-tensor` (L306-307)
/// `rule <k> let X:Id = tanhTensor(Y:Id) in E => defineTensor(X,Is) ~> tanhTensorHelper(Y, X, Is) ~> E ... </k>
///       <shape>... Y |-> Is ...</shape>`
pub static LET_TANH_TENSOR: Rule = Rule::top(
    SECTION,
    "let-tanh-tensor",
    "R38",
    "L306-307",
    "rule <k> let X:Id = tanhTensor(Y:Id) in E => defineTensor(X,Is) ~> tanhTensorHelper(Y, X, Is) ~> E ... </k> <shape>... Y |-> Is ...</shape>",
    &[Head::LetFunc],
    |r| activation::let_tensor(r, ACT),
);

/// R39 `tanh-helper-nd-range` (L315): `rule tanhTensorHelper(Y, X, I:Int, Is:Ints) => tanhTensorHelper(Y, X, 0 ...I, Is)`
pub static TANH_HELPER_ND_RANGE: Rule = Rule::top(
    SECTION,
    "tanh-helper-nd-range",
    "R39",
    "L315",
    "rule tanhTensorHelper(Y, X, I:Int, Is:Ints) => tanhTensorHelper(Y, X, 0 ...I, Is)",
    &[Head::ActHelper],
    |r| activation::nd_range(r, ACT),
);

/// R40 `tanh-helper-1d-range` (L316): `rule tanhTensorHelper(Y, X, I:Int) => tanhTensorHelper(Y, X, 0 ...I)`
pub static TANH_HELPER_1D_RANGE: Rule = Rule::top(
    SECTION,
    "tanh-helper-1d-range",
    "R40",
    "L316",
    "rule tanhTensorHelper(Y, X, I:Int) => tanhTensorHelper(Y, X, 0 ...I)",
    &[Head::ActHelper],
    |r| activation::range_1d(r, ACT),
);

/// R41 `tanh-helper-nd-step` (L318-319)
/// `rule <k> tanhTensorHelper(Y, X, I...J:Int, Is:Ints) => tanhTensorHelper(Y[I], X[I], Is:Ints)
///       ~> tanhTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J`
pub static TANH_HELPER_ND_STEP: Rule = Rule::top(
    SECTION,
    "tanh-helper-nd-step",
    "R41",
    "L318-319",
    "rule <k> tanhTensorHelper(Y, X, I...J:Int, Is:Ints) => tanhTensorHelper(Y[I], X[I], Is:Ints) ~> tanhTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J",
    &[Head::ActHelper],
    |r| activation::nd_step(r, ACT),
);

/// R42 `tanh-helper-range-step` (L321-322)
/// `rule <k> tanhTensorHelper(Y, X, I...J:Int) => tanhTensorHelper(Y[I], X[I])
///       ~> tanhTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J`
pub static TANH_HELPER_RANGE_STEP: Rule = Rule::top(
    SECTION,
    "tanh-helper-range-step",
    "R42",
    "L321-322",
    "rule <k> tanhTensorHelper(Y, X, I...J:Int) => tanhTensorHelper(Y[I], X[I]) ~> tanhTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J",
    &[Head::ActHelper],
    |r| activation::range_step(r, ACT),
);

/// R43 `tanh-helper-nd-done` (L324): `rule <k> tanhTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>`
pub static TANH_HELPER_ND_DONE: Rule = Rule::top(
    SECTION,
    "tanh-helper-nd-done",
    "R43",
    "L324",
    "rule <k> tanhTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>",
    &[Head::ActHelper],
    |r| activation::nd_done(r, ACT),
);

/// R44 `tanh-helper-range-done` (L325): `rule <k> tanhTensorHelper(_, _, I...I:Int) => . ...</k>`
pub static TANH_HELPER_RANGE_DONE: Rule = Rule::top(
    SECTION,
    "tanh-helper-range-done",
    "R44",
    "L325",
    "rule <k> tanhTensorHelper(_, _, I...I:Int) => . ...</k>",
    &[Head::ActHelper],
    |r| activation::range_done(r, ACT),
);

/// R45 `tanh-helper-elem` (L327)
/// `rule tanhTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = tanhItem(E1[I]) in 0`
pub static TANH_HELPER_ELEM: Rule = Rule::top(
    SECTION,
    "tanh-helper-elem",
    "R45",
    "L327",
    "rule tanhTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = tanhItem(E1[I]) in 0",
    &[Head::ActHelper],
    |r| activation::elem(r, ACT, tanh_item, int_zero),
);

/// `tanhItem(E1[I])`
fn tanh_item(e1_i: Term, span: Span) -> Term {
    Term::new(Node::ActItem { act: ACT, arg: e1_i }, span)
}

/// R46 `ctx-tanh-item` (L329): `context tanhItem(HOLE)`
pub static CTX_TANH_ITEM: Rule =
    Rule::passive(SECTION, RuleKind::Context, "ctx-tanh-item", "R46", "L329", "context tanhItem(HOLE)");

/// R47 `tanh-item-merge-index` (L330): `rule tanhItem(E:Exp[I:Int][J:Int]) => tanhItem(E:Exp[I:Int,J:Int])`
///
/// Dead under krun: `heat-tanh-item` is tried first (§2.9).
pub static TANH_ITEM_MERGE_INDEX: Rule = Rule::top(
    SECTION,
    "tanh-item-merge-index",
    "R47",
    "L330",
    "rule tanhItem(E:Exp[I:Int][J:Int]) => tanhItem(E:Exp[I:Int,J:Int])",
    &[Head::ActItem],
    |r| activation::item_merge_index(r, ACT),
);

/// R48 `tanh-let-2d` (L331)
/// `rule let E:Exp[I:Int][J:Int] = tanhItem(E2:Exp) in E3:Exp => let E:Exp[I,J] = tanhItem(E2:Exp) in E3:Exp`
///
/// Dead under krun: `heat-let-2` and `relu-let-2d-max` are tried first (§2.9); `search` finds
/// the unclamped result it leads to.
pub static TANH_LET_2D: Rule = Rule::top(
    SECTION,
    "tanh-let-2d",
    "R48",
    "L331",
    "rule let E:Exp[I:Int][J:Int] = tanhItem(E2:Exp) in E3:Exp => let E:Exp[I,J] = tanhItem(E2:Exp) in E3:Exp",
    &[Head::Let],
    |r| activation::let_2d_item(r, ACT),
);

/// The rules and contexts of this section, in file order.
pub static RULES: &[&Rule] = &[
    &LET_TANH_TENSOR,
    &TANH_HELPER_ND_RANGE,
    &TANH_HELPER_1D_RANGE,
    &TANH_HELPER_ND_STEP,
    &TANH_HELPER_RANGE_STEP,
    &TANH_HELPER_ND_DONE,
    &TANH_HELPER_RANGE_DONE,
    &TANH_HELPER_ELEM,
    &CTX_TANH_ITEM,
    &TANH_ITEM_MERGE_INDEX,
    &TANH_LET_2D,
];
