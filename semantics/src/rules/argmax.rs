//! "Argmax" (k-nn.md L421–443): the index of the largest element of a vector.
//!
//! The running maximum starts at `0.0` with index `0`, and there are rules only for a strictly
//! greater and a strictly smaller element: ties (and `0.0` against the start value) are stuck,
//! and an all-negative vector answers `0`, which `drop-int-zero` then erases (§3(d)).

use super::{Head, Rewrite, Rule, Section, element_location, lt};
use crate::term::{Node, Sym, Term};

const SECTION: Section = Section::ArgMax;

/// R66 `argmax-start` (L426-427)
/// `rule <k> ArgMax(X:Id) => ArgMaxHelper(X, 0 ...I, 0.0, 0) ...</k> <shape>... X |-> I:Int ...</shape>`
pub static ARGMAX_START: Rule = Rule::top(
    SECTION,
    "argmax-start",
    "R66",
    "L426-427",
    "rule <k> ArgMax(X:Id) => ArgMaxHelper(X, 0 ...I, 0.0, 0) ...</k> <shape>... X |-> I:Int ...</shape>",
    &[Head::ArgMax],
    argmax_start,
);

fn argmax_start(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ArgMax(x) = top.node() else {
        return false;
    };
    let Some(x) = x.as_id() else { return false };
    let Some(i) = r.cfg.shape_of(x).and_then(|is| is.single()) else {
        return false;
    };
    let helper = Node::ArgMaxHelper { x: x.clone(), from: 0, to: i, max: 0.0, index: 0 };
    let helper = Term::new(helper, top.span());
    r.cfg.replace_top_term(helper);
    true
}

/// R67 `argmax-step-greater` (L431-434)
/// `rule <k> ArgMaxHelper(X, I...J, F:Float, _:Int) => ArgMaxHelper(X, (I +Int 1)...J, F2, I) ...</k>
///       <env>... X|->L ...</env> <store>... (L +Int I +Int 1)|-> F2 ...</store>
///       when F2 >Float F andBool J >Int I`
pub static ARGMAX_STEP_GREATER: Rule = Rule::top(
    SECTION,
    "argmax-step-greater",
    "R67",
    "L431-434",
    "rule <k> ArgMaxHelper(X, I...J, F:Float, _:Int) => ArgMaxHelper(X, (I +Int 1)...J, F2, I) ...</k> <env>... X|->L ...</env> <store>... (L +Int I +Int 1)|-> F2 ...</store> when F2 >Float F andBool J >Int I",
    &[Head::ArgMaxHelper],
    |r| argmax_step(r, |f2, f| f2 > f, Keep::Element),
);

/// R68 `argmax-step-less` (L436-439)
/// `rule <k> ArgMaxHelper(X, I...J, F:Float, II:Int) => ArgMaxHelper(X, (I +Int 1)...J, F, II) ...</k>
///       <env>... X|->L ...</env> <store>... (L +Int I +Int 1)|-> F2 ...</store>
///       when F2 <Float F andBool J >Int I`
pub static ARGMAX_STEP_LESS: Rule = Rule::top(
    SECTION,
    "argmax-step-less",
    "R68",
    "L436-439",
    "rule <k> ArgMaxHelper(X, I...J, F:Float, II:Int) => ArgMaxHelper(X, (I +Int 1)...J, F, II) ...</k> <env>... X|->L ...</env> <store>... (L +Int I +Int 1)|-> F2 ...</store> when F2 <Float F andBool J >Int I",
    &[Head::ArgMaxHelper],
    |r| argmax_step(r, |f2, f| f2 < f, Keep::Running),
);

/// Which maximum the step carries on with.
enum Keep {
    /// The element read (`F2`, index `I`).
    Element,
    /// The running maximum (`F`, index `II`).
    Running,
}

/// Element `I` of `X` (`(L +Int I +Int 1) |-> F2`, a Float by sort inference).
fn element(r: &Rewrite<'_>, x: &Sym, i: i64) -> Option<f64> {
    let l = *r.cfg.env.get(x)?;
    r.cfg.store.get(element_location(l, i))?.as_float()
}

fn argmax_step(r: &mut Rewrite<'_>, condition: fn(f64, f64) -> bool, keep: Keep) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ArgMaxHelper { x, from: i, to: j, max: f, index: ii } = top.node() else {
        return false;
    };
    let Some(f2) = element(r, x, *i) else {
        return false;
    };
    if !(condition(f2, *f) && lt(*i, *j)) {
        return false;
    }
    let (max, index) = match keep {
        Keep::Element => (f2, *i),
        Keep::Running => (*f, *ii),
    };
    let next = Node::ArgMaxHelper { x: x.clone(), from: i + 1, to: *j, max, index };
    let next = Term::new(next, top.span());
    r.cfg.replace_top_term(next);
    true
}

/// R69 `argmax-done` (L441): `rule <k> ArgMaxHelper(_, I...I, _:Float, II:Int) => II ...</k>`
pub static ARGMAX_DONE: Rule = Rule::top(
    SECTION,
    "argmax-done",
    "R69",
    "L441",
    "rule <k> ArgMaxHelper(_, I...I, _:Float, II:Int) => II ...</k>",
    &[Head::ArgMaxHelper],
    argmax_done,
);

fn argmax_done(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ArgMaxHelper { from, to, index, .. } = top.node() else {
        return false;
    };
    if from != to {
        return false;
    }
    let result = Term::int(*index, top.span());
    r.cfg.replace_top_term(result);
    true
}

/// The rules of this section, in file order.
pub static RULES: &[&Rule] = &[&ARGMAX_START, &ARGMAX_STEP_GREATER, &ARGMAX_STEP_LESS, &ARGMAX_DONE];
