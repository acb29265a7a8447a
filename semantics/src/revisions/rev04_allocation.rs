//! Rev-4: allocation without the global `$1`, exactly `N` sub-tensors, correct at every rank.
//!
//! The published helper visits `0 … I` inclusive (one extra sub-tensor whose header overwrites
//! the first row's), keeps `$1` in `<env>` forever, and for rank ≥ 3 rebinds `$1` under its own
//! feet so writes land in the wrong tensor (§2.8, §3(b)). Here a tensor is allocated by
//! `alloc(Is)`, which leaves the tensor's header on `<k>`; `fill` allocates the sub-tensors and
//! `writeAt` stores each sub-header in its parent; `bindTo(X)` binds the name at the end.
//! (The allocation items carry no source span: a negative dimension cannot be written in a
//! program, so its error has none to show.)

use super::Patch;
use crate::config::KItem;
use crate::errors::ErrorKind;
use crate::rules::{Head, Rewrite, Rule, Section, lt, tensor, tensor_cells, utility};
use crate::syntax::Span;
use crate::term::{Node, Term};

const SECTION: Section = Section::Tensor;

/// `rule <k> defineTensor(X:Id, Is:Ints) => alloc(Is) ~> bindTo(X) ...</k>` — replaces
/// `define-tensor-1d` and `define-tensor-nd` (R06, R07).
pub static DEFINE_TENSOR: Rule = Rule::top(
    SECTION,
    "rev-define-tensor",
    "Rev-4",
    "§4 Rev-4",
    "rule <k> defineTensor(X:Id, Is:Ints) => alloc(Is) ~> bindTo(X) ...</k>",
    &[Head::DefineTensor],
    define_tensor,
);

fn define_tensor(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::DefineTensor { x, ints: is }) = r.top_node() else { return false };
    let Some(x) = x.as_id() else { return false };
    let items = [KItem::Alloc(is.clone()), KItem::BindTo(x.clone())];
    r.cfg.replace_top(items);
    true
}

/// `L |-> tensor(L +Int 1, N) (L +Int 1) ... (L +Int N) |-> 0.0` at `L = <nextLoc>`, with
/// `<nextLoc> L => L +Int 1 +Int N`; the range map is the published function (R70, R71).
/// Returns `L`.
fn allocate_vector(r: &mut Rewrite<'_>, n: i64, span: Span) -> i64 {
    let l = r.cfg.store.next_loc();
    r.cfg.store.push(Term::new(Node::Tensor { loc: l + 1, len: n }, span));
    let zero = Term::float(0.0, span);
    for _ in 0..n {
        r.cfg.store.push(zero.clone());
    }
    r.fired(&utility::RANGE_MAP_CONS, u32::try_from(n).unwrap_or(u32::MAX));
    r.fired(&utility::RANGE_MAP_EMPTY, 1);
    l
}

/// `N >=Int 0`
fn nonnegative(n: i64) -> bool {
    n >= 0
}

/// `rule <k> alloc(N:Int) => tensor(L +Int 1, N) ...</k>
///       <store>... .Map => L |-> tensor(L +Int 1, N) (L +Int 1) ... (L +Int N) |-> 0.0 ...</store>
///       <nextLoc> L:Int => L +Int 1 +Int N </nextLoc> requires N >=Int 0`
pub static ALLOC_1D: Rule = Rule::top(
    SECTION,
    "rev-alloc-1d",
    "Rev-4",
    "§4 Rev-4",
    "rule <k> alloc(N:Int) => tensor(L +Int 1, N) ...</k> <store>... .Map => L |-> tensor(L +Int 1, N) (L +Int 1) ... (L +Int N) |-> 0.0 ...</store> <nextLoc> L:Int => L +Int 1 +Int N </nextLoc> requires N >=Int 0",
    &[Head::Alloc],
    alloc_1d,
);

fn alloc_1d(r: &mut Rewrite<'_>) -> bool {
    let Some(KItem::Alloc(ints)) = r.cfg.top() else { return false };
    let Some(n) = ints.single().filter(|&n| nonnegative(n)) else { return false };
    if !r.reserve(tensor_cells([n])) {
        return true;
    }
    let span = Span::default();
    let l = allocate_vector(r, n, span);
    r.cfg.replace_top_term(Term::new(Node::Tensor { loc: l + 1, len: n }, span));
    true
}

/// `rule <k> alloc(N:Int, Rest:Ints) => fill(L, 0, N, Rest) ~> tensor(L +Int 1, N) ...</k>
///       <store>... .Map => L |-> tensor(L +Int 1, N) (L +Int 1) ... (L +Int N) |-> 0.0 ...</store>
///       <nextLoc> L:Int => L +Int 1 +Int N </nextLoc> requires N >=Int 0`
pub static ALLOC_ND: Rule = Rule::top(
    SECTION,
    "rev-alloc-nd",
    "Rev-4",
    "§4 Rev-4",
    "rule <k> alloc(N:Int, Rest:Ints) => fill(L, 0, N, Rest) ~> tensor(L +Int 1, N) ...</k> <store>... .Map => L |-> tensor(L +Int 1, N) (L +Int 1) ... (L +Int N) |-> 0.0 ...</store> <nextLoc> L:Int => L +Int 1 +Int N </nextLoc> requires N >=Int 0",
    &[Head::Alloc],
    alloc_nd,
);

fn alloc_nd(r: &mut Rewrite<'_>) -> bool {
    let Some(KItem::Alloc(ints)) = r.cfg.top() else { return false };
    let Some((n, rest)) = ints.split_first().filter(|(n, _)| nonnegative(*n)) else { return false };
    // The whole tensor at once (its sub-tensors come in later steps): `initTensor(10^9, 10^9)`
    // is refused here with its full size, before a billion rows are started.
    if !r.reserve(tensor_cells(ints.as_slice().iter().copied())) {
        return true;
    }
    let span = Span::default();
    let l = allocate_vector(r, n, span);
    let header = Term::new(Node::Tensor { loc: l + 1, len: n }, span);
    r.cfg.replace_top([KItem::Fill { header: l, i: 0, n, rest }, KItem::Term(header)]);
    true
}

/// `rule <k> alloc(N:Int) => knnError("negative dimension") ...</k> requires N <Int 0` and
/// `rule <k> alloc(N:Int, _:Ints) => knnError("negative dimension") ...</k> requires N <Int 0`
/// (one Rust rule: both patterns, one side condition on the first dimension).
pub static ALLOC_NEGATIVE: Rule = Rule::top(
    SECTION,
    "rev-alloc-negative",
    "Rev-4",
    "§4 Rev-4",
    "rule <k> alloc(N:Int) => knnError(\"negative dimension\") ...</k> requires N <Int 0  rule <k> alloc(N:Int, _:Ints) => knnError(\"negative dimension\") ...</k> requires N <Int 0",
    &[Head::Alloc],
    alloc_negative,
);

fn alloc_negative(r: &mut Rewrite<'_>) -> bool {
    let Some(KItem::Alloc(ints)) = r.cfg.top() else { return false };
    let n = ints.first();
    if nonnegative(n) {
        return false;
    }
    let error = Term::error(ErrorKind::NegativeDimension, format!("a tensor dimension is {n}"), Span::default());
    r.cfg.replace_top_term(error);
    true
}

/// `rule <k> fill(H, I, N, Rest) => alloc(Rest) ~> writeAt(H +Int 1 +Int I) ~> fill(H, I +Int 1, N, Rest) ...</k>
///       requires I <Int N`
pub static FILL_STEP: Rule = Rule::top(
    SECTION,
    "rev-fill-step",
    "Rev-4",
    "§4 Rev-4",
    "rule <k> fill(H, I, N, Rest) => alloc(Rest) ~> writeAt(H +Int 1 +Int I) ~> fill(H, I +Int 1, N, Rest) ...</k> requires I <Int N",
    &[Head::Fill],
    fill_step,
);

fn fill_step(r: &mut Rewrite<'_>) -> bool {
    let Some(KItem::Fill { header: h, i, n, rest }) = r.cfg.top() else { return false };
    if !lt(*i, *n) {
        return false;
    }
    let (h, i, n, rest) = (*h, *i, *n, rest.clone());
    let items = [KItem::Alloc(rest.clone()), KItem::WriteAt(h + 1 + i), KItem::Fill { header: h, i: i + 1, n, rest }];
    r.cfg.replace_top(items);
    true
}

/// `rule <k> fill(_, I, N, _) => .K ...</k> requires I >=Int N`
pub static FILL_DONE: Rule = Rule::top(
    SECTION,
    "rev-fill-done",
    "Rev-4",
    "§4 Rev-4",
    "rule <k> fill(_, I, N, _) => .K ...</k> requires I >=Int N",
    &[Head::Fill],
    fill_done,
);

fn fill_done(r: &mut Rewrite<'_>) -> bool {
    let Some(KItem::Fill { i, n, .. }) = r.cfg.top() else { return false };
    if lt(*i, *n) {
        return false;
    }
    r.cfg.pop_top();
    true
}

/// `rule <k> V:Val ~> writeAt(Loc) => .K ...</k> <store>... Loc |-> (_ => V) ...</store>`
pub static WRITE_AT: Rule = Rule::top(
    SECTION,
    "rev-write-at",
    "Rev-4",
    "§4 Rev-4",
    "rule <k> V:Val ~> writeAt(Loc) => .K ...</k> <store>... Loc |-> (_ => V) ...</store>",
    Head::VALUES,
    write_at,
);

fn write_at(r: &mut Rewrite<'_>) -> bool {
    let (Some(KItem::Term(v)), Some(KItem::WriteAt(loc))) = (r.cfg.top(), r.cfg.second()) else { return false };
    if !v.is_value() || r.cfg.store.get(*loc).is_none() {
        return false;
    }
    let (v, loc) = (v.clone(), *loc);
    r.cfg.store.set(loc, v);
    r.cfg.k.truncate(r.cfg.k.len() - 2);
    true
}

/// `rule <k> tensor(B, _) ~> bindTo(X) => .K ...</k> <env> Env => Env[X <- B -Int 1] </env>`
pub static BIND_TO: Rule = Rule::top(
    SECTION,
    "rev-bind-to",
    "Rev-4",
    "§4 Rev-4",
    "rule <k> tensor(B, _) ~> bindTo(X) => .K ...</k> <env> Env => Env[X <- B -Int 1] </env>",
    &[Head::Tensor],
    bind_to,
);

fn bind_to(r: &mut Rewrite<'_>) -> bool {
    let (Some(KItem::Term(t)), Some(KItem::BindTo(x))) = (r.cfg.top(), r.cfg.second()) else { return false };
    let Node::Tensor { loc: b, .. } = t.node() else { return false };
    let (x, header) = (x.clone(), b - 1);
    r.cfg.env.insert(x, header);
    r.cfg.k.truncate(r.cfg.k.len() - 2);
    true
}

pub static PATCH: Patch = Patch {
    name: "Rev-4",
    title: "allocation without `$1`, exactly N sub-tensors, any rank",
    reason: "the published helper allocates one sub-tensor too many, overwrites a header, leaks `$1` and breaks rank 3",
    removes: &[
        &tensor::DEFINE_TENSOR_1D,
        &tensor::DEFINE_TENSOR_ND,
        &tensor::DEFINE_TENSOR_HELPER_STEP,
        &tensor::DEFINE_TENSOR_HELPER_LAST,
    ],
    adds: &[&DEFINE_TENSOR, &ALLOC_1D, &ALLOC_ND, &ALLOC_NEGATIVE, &FILL_STEP, &FILL_DONE, &WRITE_AT, &BIND_TO],
};
