//! "Utility functions" (k-nn.md L445–460): the range-map function used by
//! `define-tensor-1d`, and `fun`, which no live rule ever builds.

use super::{Head, Rewrite, Rule, RuleKind, Section};
use crate::term::{Ints, Node, Term};

const SECTION: Section = Section::Utility;

/// R70 `range-map-empty` (L451): `rule N...M |-> _ => .Map requires N >Int M`
///
/// A `[function]` rule: it fires inside `define-tensor-1d` when the range is exhausted.
pub static RANGE_MAP_EMPTY: Rule = Rule::passive(
    SECTION,
    RuleKind::Function,
    "range-map-empty",
    "R70",
    "L451",
    "rule N...M |-> _ => .Map requires N >Int M",
);

/// R71 `range-map-cons` (L452): `rule N...M |-> K => N |-> K (N +Int 1)...M |-> K requires N <=Int M`
pub static RANGE_MAP_CONS: Rule = Rule::passive(
    SECTION,
    RuleKind::Function,
    "range-map-cons",
    "R71",
    "L452",
    "rule N...M |-> K => N |-> K (N +Int 1)...M |-> K requires N <=Int M",
);

/// R72 `fun-merge-2` (L455): `rule fun(E:Exp[I:Int][J:Int]) => fun(E[I,J]) [function]`
///
/// `fun` is not a function symbol, so in K 5 this is an ordinary rule; it is dead because no
/// live rule builds `fun(…)` (the rule that did is commented out at L249).
pub static FUN_MERGE_2: Rule = Rule::top(
    SECTION,
    "fun-merge-2",
    "R72",
    "L455",
    "rule fun(E:Exp[I:Int][J:Int]) => fun(E[I,J]) [function]",
    &[Head::Fun],
    |r| fun_merge(r, |is| is.single().map(Ints::one)),
);

/// R73 `fun-merge-n` (L456): `rule fun(E:Exp[I:Int][Is:Ints]) => fun(E[I, Is]) [function]`
///
/// It overlaps `fun-merge-2` with the same result; K sorts the variable `Is` before `J`, so it
/// is tried first (the rule order of this file's `RULES`).
pub static FUN_MERGE_N: Rule = Rule::top(
    SECTION,
    "fun-merge-n",
    "R73",
    "L456",
    "rule fun(E:Exp[I:Int][Is:Ints]) => fun(E[I, Is]) [function]",
    &[Head::Fun],
    |r| fun_merge(r, |is| Some(is.clone())),
);

/// `fun(E:Exp[I:Int][Is]) => fun(E[I, Is])` where `rest` accepts the outer index list.
fn fun_merge(r: &mut Rewrite<'_>, rest: fn(&Ints) -> Option<Ints>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Fun(arg) = top.node() else {
        return false;
    };
    let Node::Index { base: inner, ints: outer } = arg.node() else {
        return false;
    };
    let Some((e, i)) = inner.as_single_index() else {
        return false;
    };
    let Some(is) = rest(outer) else { return false };
    let (e, span) = (e.clone(), top.span());
    let merged = r.index(e, Ints::cons(i, &is), span);
    r.cfg.replace_top_term(Term::new(Node::Fun(merged), span));
    true
}

/// R74 `fun-unwrap` (L457): `rule fun(X:Id[Is:Ints]) => X:Id[Is:Ints] [function]`
pub static FUN_UNWRAP: Rule = Rule::top(
    SECTION,
    "fun-unwrap",
    "R74",
    "L457",
    "rule fun(X:Id[Is:Ints]) => X:Id[Is:Ints] [function]",
    &[Head::Fun],
    fun_unwrap,
);

fn fun_unwrap(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::Fun(arg)) = r.top_node() else {
        return false;
    };
    let Node::Index { base, .. } = arg.node() else {
        return false;
    };
    if base.as_id().is_none() {
        return false;
    }
    let arg = arg.clone();
    r.cfg.replace_top_term(arg);
    true
}

/// The rules of this section, in krun's order (`fun-merge-n` before `fun-merge-2`).
pub static RULES: &[&Rule] = &[&RANGE_MAP_EMPTY, &RANGE_MAP_CONS, &FUN_MERGE_N, &FUN_MERGE_2, &FUN_UNWRAP];
