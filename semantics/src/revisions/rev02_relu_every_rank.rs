//! Rev-2: relu is `max(·, 0.0)` on every element at every rank, and nothing else is clamped.
//! In the published rules the only `max` is in `relu-let-2d-max`, which fires on any write with
//! exactly two index levels: rank-1 relu copies (§3(a)), rank-2 tanh/sigmoid are clamped
//! (§3(c)), rank-3 writes get stuck (§3(b)).

use super::Patch;
use super::rev01_unit_marker::skip;
use crate::rules::activation;
use crate::rules::{Head, Rewrite, Rule, Section, relu, sigmoid, tanh};
use crate::term::{Act, Ints, Node, Term};

/// `rule reluTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = max(E1[I], 0.0) in #skip`
/// — replaces `relu-helper-elem` (R28): the max belongs to the element, not to the index shape.
pub static RELU_HELPER_ELEM: Rule = Rule::top(
    Section::Relu,
    "rev-relu-helper-elem",
    "Rev-2",
    "§4 Rev-2",
    "rule reluTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = max(E1[I], 0.0) in #skip",
    &[Head::ActHelper],
    |r| activation::elem(r, Act::Relu, |e, span| Term::new(Node::Max(e, Term::float(0.0, span)), span), skip),
);

/// `rule let E:Exp[I:Int][Is:Ints] = V:Val in B:Exp => let E[I, Is] = V in B`
/// — replaces `relu-let-2d-max` (R29): flattens `X[i][j]…[k]` into `X[i, j, …, k]`, without a
/// max; it also subsumes `tanh-let-2d` (R48) and `sigmoid-let-2d` (R59).
pub static LET_INDEX_FLATTEN: Rule = Rule::top(
    Section::Relu,
    "rev-let-index-flatten",
    "Rev-2",
    "§4 Rev-2",
    "rule let E:Exp[I:Int][Is:Ints] = V:Val in B:Exp => let E[I, Is] = V in B",
    &[Head::Let],
    let_index_flatten,
);

fn let_index_flatten(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Let { target, value: v, body: b } = top.node() else { return false };
    let Node::Index { base: e_i, ints: is } = target.node() else { return false };
    let Some((e, i)) = e_i.as_single_index() else { return false };
    if !v.is_value() {
        return false;
    }
    let (e, is, v, b, span) = (e.clone(), Ints::cons(i, is), v.clone(), b.clone(), top.span());
    let target = r.index(e, is, span);
    r.cfg.replace_top_term(Term::new(Node::Let { target, value: v, body: b }, span));
    true
}

pub static PATCH: Patch = Patch {
    name: "Rev-2",
    title: "relu at every rank; no accidental clamping of tanh and sigmoid",
    reason: "the only max is in relu-let-2d-max, which matches any write with two index levels",
    removes: &[&relu::RELU_HELPER_ELEM, &relu::RELU_LET_2D_MAX, &tanh::TANH_LET_2D, &sigmoid::SIGMOID_LET_2D],
    adds: &[&RELU_HELPER_ELEM, &LET_INDEX_FLATTEN],
};
