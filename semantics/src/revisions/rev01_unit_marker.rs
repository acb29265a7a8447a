//! Rev-1: a unit marker `#skip` instead of the Int `0` at the end of the helpers' element
//! writes. `drop-int-zero` erased any `0` at the top of `<k>`: an `ArgMax` answer of 0, the
//! program `0`, and (beating cooling) a `0` on its way into `let k = □ in …` (§3(d)).

use super::Patch;
use crate::rules::activation::{self};
use crate::rules::{Head, Rewrite, Rule, Section, linear, relu, sigmoid, tanh};
use crate::syntax::Span;
use crate::term::{Act, Node, Term};

/// `#skip`, the unit of the revised helpers.
pub fn skip(span: Span) -> Term {
    Term::new(Node::Skip, span)
}

/// `rule <k> #skip => .K ...</k>` — replaces `drop-int-zero` (R30).
pub static SKIP: Rule =
    Rule::top(Section::Relu, "rev-skip", "Rev-1", "§4 Rev-1", "rule <k> #skip => .K ...</k>", &[Head::Skip], drop_skip);

fn drop_skip(r: &mut Rewrite<'_>) -> bool {
    if !matches!(r.top_node(), Some(Node::Skip)) {
        return false;
    }
    r.cfg.pop_top();
    true
}

/// `rule tanhTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = tanhItem(E1[I]) in #skip`
/// — replaces `tanh-helper-elem` (R45).
pub static TANH_HELPER_ELEM: Rule = Rule::top(
    Section::Tanh,
    "rev-tanh-helper-elem",
    "Rev-1",
    "§4 Rev-1",
    "rule tanhTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = tanhItem(E1[I]) in #skip",
    &[Head::ActHelper],
    |r| activation::elem(r, Act::Tanh, |e, span| Term::new(Node::ActItem { act: Act::Tanh, arg: e }, span), skip),
);

/// `rule sigmoidTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = sigmoidItem(E1[I]) in #skip`
/// — replaces `sigmoid-helper-elem` (R56).
pub static SIGMOID_HELPER_ELEM: Rule = Rule::top(
    Section::Sigmoid,
    "rev-sigmoid-helper-elem",
    "Rev-1",
    "§4 Rev-1",
    "rule sigmoidTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = sigmoidItem(E1[I]) in #skip",
    &[Head::ActHelper],
    |r| activation::elem(r, Act::Sigmoid, |e, span| Term::new(Node::ActItem { act: Act::Sigmoid, arg: e }, span), skip),
);

/// `rule linearHelper(E1, E2, E3) => let E1 = E1 + (E2*E3) in #skip` — replaces `linear-mac` (R37).
pub static LINEAR_MAC: Rule = Rule::top(
    Section::Linear,
    "rev-linear-mac",
    "Rev-1",
    "§4 Rev-1",
    "rule linearHelper(E1, E2, E3) => let E1 = E1 + (E2*E3) in #skip",
    &[Head::LinearMac],
    |r| linear::linear_mac(r, skip),
);

pub static PATCH: Patch = Patch {
    name: "Rev-1",
    title: "a unit marker instead of the Int 0",
    reason: "`drop-int-zero` also erases real results equal to 0 and beats cooling into a waiting `let`",
    removes: &[&relu::DROP_INT_ZERO, &tanh::TANH_HELPER_ELEM, &sigmoid::SIGMOID_HELPER_ELEM, &linear::LINEAR_MAC],
    adds: &[&SKIP, &TANH_HELPER_ELEM, &SIGMOID_HELPER_ELEM, &LINEAR_MAC],
};
