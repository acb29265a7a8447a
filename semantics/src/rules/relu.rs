//! "Relu" (k-nn.md L215–261): `reluTensor` through `reluTensorHelper`, the rank-2 `max` rule,
//! and `0 => .`, which discards the `in 0` bodies of the helpers' element writes.

use super::activation::{self, as_double_index, int_zero};
use super::{Head, Rewrite, Rule, Section};
use crate::syntax::Span;
use crate::term::{Act, Ints, Node, Term};

const SECTION: Section = Section::Relu;
const ACT: Act = Act::Relu;

/// R21 `let-relu-tensor` (L229-230)
/// `rule <k> let X:Id = reluTensor(Y:Id) in E => defineTensor(X,Is) ~> reluTensorHelper(Y, X, Is) ~> E ... </k>
///       <shape>... Y |-> Is ...</shape>`
pub static LET_RELU_TENSOR: Rule = Rule::top(
    SECTION,
    "let-relu-tensor",
    "R21",
    "L229-230",
    "rule <k> let X:Id = reluTensor(Y:Id) in E => defineTensor(X,Is) ~> reluTensorHelper(Y, X, Is) ~> E ... </k> <shape>... Y |-> Is ...</shape>",
    &[Head::LetFunc],
    |r| activation::let_tensor(r, ACT),
);

/// R22 `relu-helper-nd-range` (L237): `rule reluTensorHelper(Y, X, I:Int, Is:Ints) => reluTensorHelper(Y, X, 0 ...I, Is)`
pub static RELU_HELPER_ND_RANGE: Rule = Rule::top(
    SECTION,
    "relu-helper-nd-range",
    "R22",
    "L237",
    "rule reluTensorHelper(Y, X, I:Int, Is:Ints) => reluTensorHelper(Y, X, 0 ...I, Is)",
    &[Head::ActHelper],
    |r| activation::nd_range(r, ACT),
);

/// R23 `relu-helper-1d-range` (L238): `rule reluTensorHelper(Y, X, I:Int) => reluTensorHelper(Y, X, 0 ...I)`
pub static RELU_HELPER_1D_RANGE: Rule = Rule::top(
    SECTION,
    "relu-helper-1d-range",
    "R23",
    "L238",
    "rule reluTensorHelper(Y, X, I:Int) => reluTensorHelper(Y, X, 0 ...I)",
    &[Head::ActHelper],
    |r| activation::range_1d(r, ACT),
);

/// R24 `relu-helper-nd-step` (L240-241)
/// `rule <k> reluTensorHelper(Y, X, I...J:Int, Is:Ints) => reluTensorHelper(Y[I], X[I], Is:Ints)
///       ~> reluTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J`
pub static RELU_HELPER_ND_STEP: Rule = Rule::top(
    SECTION,
    "relu-helper-nd-step",
    "R24",
    "L240-241",
    "rule <k> reluTensorHelper(Y, X, I...J:Int, Is:Ints) => reluTensorHelper(Y[I], X[I], Is:Ints) ~> reluTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J",
    &[Head::ActHelper],
    |r| activation::nd_step(r, ACT),
);

/// R25 `relu-helper-range-step` (L243-244)
/// `rule <k> reluTensorHelper(Y, X, I...J:Int) => reluTensorHelper(Y[I], X[I])
///       ~> reluTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J`
pub static RELU_HELPER_RANGE_STEP: Rule = Rule::top(
    SECTION,
    "relu-helper-range-step",
    "R25",
    "L243-244",
    "rule <k> reluTensorHelper(Y, X, I...J:Int) => reluTensorHelper(Y[I], X[I]) ~> reluTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J",
    &[Head::ActHelper],
    |r| activation::range_step(r, ACT),
);

/// R26 `relu-helper-nd-done` (L246): `rule <k> reluTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>`
pub static RELU_HELPER_ND_DONE: Rule = Rule::top(
    SECTION,
    "relu-helper-nd-done",
    "R26",
    "L246",
    "rule <k> reluTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>",
    &[Head::ActHelper],
    |r| activation::nd_done(r, ACT),
);

/// R27 `relu-helper-range-done` (L247): `rule <k> reluTensorHelper(_, _, I...I:Int) => . ...</k>`
pub static RELU_HELPER_RANGE_DONE: Rule = Rule::top(
    SECTION,
    "relu-helper-range-done",
    "R27",
    "L247",
    "rule <k> reluTensorHelper(_, _, I...I:Int) => . ...</k>",
    &[Head::ActHelper],
    |r| activation::range_done(r, ACT),
);

/// R28 `relu-helper-elem` (L251)
/// `rule reluTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = E1[I] in 0`
///
/// A plain copy: the only `max` is in `relu-let-2d-max`, which needs two index levels (§3(a)).
pub static RELU_HELPER_ELEM: Rule = Rule::top(
    SECTION,
    "relu-helper-elem",
    "R28",
    "L251",
    "rule reluTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = E1[I] in 0",
    &[Head::ActHelper],
    |r| activation::elem(r, ACT, copy_element, int_zero),
);

fn copy_element(e1_i: Term, _: Span) -> Term {
    e1_i
}

/// R29 `relu-let-2d-max` (L253)
/// `rule let E:Exp[I:Int][J:Int] = E2:Exp in E3:Exp => let E:Exp[I,J] = max(E2:Exp, 0.0) in E3:Exp`
///
/// It matches any write with exactly two single-index levels: rank-2 relu, but also rank-2
/// tanh/sigmoid writes and user writes `let m[0][1] = …` (§3(c)).
pub static RELU_LET_2D_MAX: Rule = Rule::top(
    SECTION,
    "relu-let-2d-max",
    "R29",
    "L253",
    "rule let E:Exp[I:Int][J:Int] = E2:Exp in E3:Exp => let E:Exp[I,J] = max(E2:Exp, 0.0) in E3:Exp",
    &[Head::Let],
    relu_let_2d_max,
);

fn relu_let_2d_max(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Let { target, value: e2, body: e3 } = top.node() else {
        return false;
    };
    let Some((e, i, j)) = as_double_index(target) else {
        return false;
    };
    let (e, e2, e3, span) = (e.clone(), e2.clone(), e3.clone(), top.span());
    let target = r.index(e, Ints::cons(i, &Ints::one(j)), span);
    let clamped = Term::new(Node::Max(e2, Term::float(0.0, span)), span);
    r.cfg.replace_top_term(Term::new(Node::Let { target, value: clamped, body: e3 }, span));
    true
}

/// R30 `drop-int-zero` (L259): `rule <k> 0 => . ...</k>`
///
/// Meant for the `in 0` bodies of the helpers, it also erases real results equal to `0`.
pub static DROP_INT_ZERO: Rule =
    Rule::top(SECTION, "drop-int-zero", "R30", "L259", "rule <k> 0 => . ...</k>", &[Head::Int], drop_int_zero);

fn drop_int_zero(r: &mut Rewrite<'_>) -> bool {
    if r.top().and_then(Term::as_int) != Some(0) {
        return false;
    }
    r.cfg.pop_top();
    true
}

/// The rules of this section, in file order.
pub static RULES: &[&Rule] = &[
    &LET_RELU_TENSOR,
    &RELU_HELPER_ND_RANGE,
    &RELU_HELPER_1D_RANGE,
    &RELU_HELPER_ND_STEP,
    &RELU_HELPER_RANGE_STEP,
    &RELU_HELPER_ND_DONE,
    &RELU_HELPER_RANGE_DONE,
    &RELU_HELPER_ELEM,
    &RELU_LET_2D_MAX,
    &DROP_INT_ZERO,
];
