//! Rev-6: ArgMax starts from element 0, resolves ties (and `0.0` against `-0.0`, and NaN) to the
//! first index, handles all-negative vectors, and reads through the header, so it needs no
//! `<shape>` entry and works on the output of any layer. The published rules start from the
//! value `0.0` and have no rule for equal elements (§3(d)).

use super::{Patch, header_at};
use crate::errors::ErrorKind;
use crate::rules::{Class, Head, Rewrite, Rule, Section, argmax, lt};
use crate::term::{Node, Sym, Term};

const SECTION: Section = Section::ArgMax;

/// `<env>... X |-> L ...</env> <store>... L |-> tensor(T, N) ...</store>`: `(T, N)`.
fn vector_of(r: &Rewrite<'_>, x: &Sym) -> Option<(i64, i64)> {
    header_at(r.cfg, *r.cfg.env.get(x)?)
}

/// `rule <k> ArgMax(X:Id) => ArgMaxHelper(X, 1 ... N, F0, 0) ...</k> <env>... X |-> L ...</env>
///       <store>... L |-> tensor(T, N) T |-> F0:Float ...</store> requires N >Int 0`
/// — replaces `argmax-start` (R66).
pub static ARGMAX_START: Rule = Rule::top(
    SECTION,
    "rev-argmax-start",
    "Rev-6",
    "§4 Rev-6",
    "rule <k> ArgMax(X:Id) => ArgMaxHelper(X, 1 ... N, F0, 0) ...</k> <env>... X |-> L ...</env> <store>... L |-> tensor(T, N) T |-> F0:Float ...</store> requires N >Int 0",
    &[Head::ArgMax],
    argmax_start,
);

fn argmax_start(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ArgMax(x) = top.node() else { return false };
    let Some(x) = x.as_id() else { return false };
    let Some((t, n)) = vector_of(r, x).filter(|(_, n)| *n > 0) else { return false };
    let Some(f0) = r.cfg.store.get(t).and_then(Term::as_float) else { return false };
    let helper = Term::new(Node::ArgMaxHelper { x: x.clone(), from: 1, to: n, max: f0, index: 0 }, top.span());
    r.cfg.replace_top_term(helper);
    true
}

/// `rule <k> ArgMaxHelper(X, I...J, F:Float, _:Int) => ArgMaxHelper(X, (I +Int 1)...J, F2, I) ...</k>
///       <env>... X |-> L ...</env> <store>... L |-> tensor(T, _) (T +Int I) |-> F2:Float ...</store>
///       requires I <Int J andBool F2 >Float F` — replaces `argmax-step-greater` (R67).
pub static ARGMAX_STEP_GREATER: Rule = Rule::top(
    SECTION,
    "rev-argmax-step-greater",
    "Rev-6",
    "§4 Rev-6",
    "rule <k> ArgMaxHelper(X, I...J, F:Float, _:Int) => ArgMaxHelper(X, (I +Int 1)...J, F2, I) ...</k> <env>... X |-> L ...</env> <store>... L |-> tensor(T, _) (T +Int I) |-> F2:Float ...</store> requires I <Int J andBool F2 >Float F",
    &[Head::ArgMaxHelper],
    |r| argmax_step(r, true),
);

/// `rule <k> ArgMaxHelper(X, I...J, F:Float, II:Int) => ArgMaxHelper(X, (I +Int 1)...J, F, II) ...</k>
///       <env>... X |-> L ...</env> <store>... L |-> tensor(T, _) (T +Int I) |-> F2:Float ...</store>
///       requires I <Int J andBool notBool (F2 >Float F)` — replaces `argmax-step-less` (R68):
/// "not greater" keeps the earlier index (ties, equal zeros, NaN).
pub static ARGMAX_STEP_NOT_GREATER: Rule = Rule::top(
    SECTION,
    "rev-argmax-step-not-greater",
    "Rev-6",
    "§4 Rev-6",
    "rule <k> ArgMaxHelper(X, I...J, F:Float, II:Int) => ArgMaxHelper(X, (I +Int 1)...J, F, II) ...</k> <env>... X |-> L ...</env> <store>... L |-> tensor(T, _) (T +Int I) |-> F2:Float ...</store> requires I <Int J andBool notBool (F2 >Float F)",
    &[Head::ArgMaxHelper],
    |r| argmax_step(r, false),
);

/// One step; `greater` selects which of the two rules this is.
fn argmax_step(r: &mut Rewrite<'_>, greater: bool) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ArgMaxHelper { x, from: i, to: j, max: f, index: ii } = top.node() else { return false };
    let Some((t, _)) = vector_of(r, x) else { return false };
    let Some(f2) = r.cfg.store.get(t + i).and_then(Term::as_float) else { return false };
    if !lt(*i, *j) || (f2 > *f) != greater {
        return false;
    }
    let (max, index) = if greater { (f2, *i) } else { (*f, *ii) };
    let next = Node::ArgMaxHelper { x: x.clone(), from: i + 1, to: *j, max, index };
    let next = Term::new(next, top.span());
    r.cfg.replace_top_term(next);
    true
}

/// Ours, splitting §4's `[owise]` error: `rule <k> ArgMax(X:Id) => knnError("ArgMax of an empty
/// vector") ...</k> <env>... X |-> L ...</env> <store>... L |-> tensor(_, 0) ...</store>`
pub static ARGMAX_EMPTY: Rule = Rule::top(
    SECTION,
    "rev-argmax-empty",
    "Rev-6",
    "§4 Rev-6 (ours)",
    "rule <k> ArgMax(X:Id) => knnError(\"ArgMax of an empty vector\") ...</k> <env>... X |-> L ...</env> <store>... L |-> tensor(_, 0) ...</store>",
    &[Head::ArgMax],
    argmax_empty,
);

fn argmax_empty(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ArgMax(x) = top.node() else { return false };
    let Some(x) = x.as_id() else { return false };
    if vector_of(r, x).is_none_or(|(_, n)| n != 0) {
        return false;
    }
    let error = Term::error(ErrorKind::ArgmaxEmpty, format!("`{x}` has no element"), top.span());
    r.cfg.replace_top_term(error);
    true
}

/// `rule <k> ArgMax(X:Id) => knnError("unbound identifier") ...</k> <env> Env </env>
///       requires notBool X in_keys(Env) [owise]` and
/// `rule <k> ArgMax(_) => knnError("ArgMax expects a non-empty vector of floats") ...</k> [owise]`
/// (§4 has the second only; an unbound name is reported as such).
pub static ARGMAX_ERROR: Rule = Rule::top(
    SECTION,
    "rev-argmax-error",
    "Rev-6",
    "§4 Rev-6",
    "rule <k> ArgMax(X:Id) => knnError(\"unbound identifier\") ...</k> <env> Env </env> requires notBool X in_keys(Env) [owise]  rule <k> ArgMax(_) => knnError(\"ArgMax expects a non-empty vector of floats\") ...</k> [owise]",
    &[Head::ArgMax],
    argmax_error,
)
.with_class(Class::Owise);

fn argmax_error(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ArgMax(arg) = top.node() else { return false };
    let error = match arg.as_id() {
        Some(x) if !r.cfg.env.contains_key(x) => {
            Term::error(ErrorKind::UnboundIdentifier, format!("`{x}` is not bound here"), top.span())
        }
        _ => Term::error(ErrorKind::ArgmaxNotAVector, format!("`{arg}` is not a vector of floats"), top.span()),
    };
    r.cfg.replace_top_term(error);
    true
}

/// Ours: `rule <k> ArgMaxHelper(X, I...J, _, _) => knnError("ArgMax expects a non-empty vector of
/// floats") ...</k> requires I <Int J [owise]` — an element that is not a Float (a sub-tensor
/// written into the vector) has no step rule.
pub static ARGMAX_HELPER_ERROR: Rule = Rule::top(
    SECTION,
    "rev-argmax-helper-error",
    "Rev-6",
    "§4 Rev-6 (ours)",
    "rule <k> ArgMaxHelper(X, I...J, _, _) => knnError(\"ArgMax expects a non-empty vector of floats\") ...</k> requires I <Int J [owise]",
    &[Head::ArgMaxHelper],
    argmax_helper_error,
)
.with_class(Class::Owise);

fn argmax_helper_error(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ArgMaxHelper { x, from: i, to: j, .. } = top.node() else { return false };
    if !lt(*i, *j) {
        return false;
    }
    let error = Term::error(ErrorKind::ArgmaxNotAVector, format!("element {i} of `{x}` is not a Float"), top.span());
    r.cfg.replace_top_term(error);
    true
}

pub static PATCH: Patch = Patch {
    name: "Rev-6",
    title: "ArgMax from element 0, ties to the first index, no shape needed",
    reason: "the published ArgMax starts from 0.0, is stuck on ties and equal zeros, and needs a <shape> entry",
    removes: &[&argmax::ARGMAX_START, &argmax::ARGMAX_STEP_GREATER, &argmax::ARGMAX_STEP_LESS],
    adds: &[
        &ARGMAX_START,
        &ARGMAX_STEP_GREATER,
        &ARGMAX_STEP_NOT_GREATER,
        &ARGMAX_EMPTY,
        &ARGMAX_ERROR,
        &ARGMAX_HELPER_ERROR,
    ],
};
