//! "Tensor" (k-nn.md L143–213): allocation with `initTensor`, lookups, indexing (`[anywhere]`)
//! and element assignment through `storeVal`.

use super::{Class, Head, Rewrite, Rule, RuleKind, Section, element_location, lt};
use crate::config::{KItem, MapKey};
use crate::syntax::Span;
use crate::term::{FuncTerm, Ints, Node, Sym, Term};

const SECTION: Section = Section::Tensor;

/// R05 `let-init-tensor` (L162-163)
/// `rule <k> let X = initTensor(Is:Ints) in E:Exp => defineTensor(X, Is) ~> E ...</k>
///       <shape>... .Map => X |-> (Is) ...</shape>`
pub static LET_INIT_TENSOR: Rule = Rule::top(
    SECTION,
    "let-init-tensor",
    "R05",
    "L162-163",
    "rule <k> let X = initTensor(Is:Ints) in E:Exp => defineTensor(X, Is) ~> E ...</k> <shape>... .Map => X |-> (Is) ...</shape>",
    &[Head::LetFunc],
    let_init_tensor,
);

fn let_init_tensor(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LetFunc { target: x, func: FuncTerm::InitTensor(is), body: e, .. } = top.node() else {
        return false;
    };
    let key = MapKey(x.clone());
    if r.cfg.shape.contains_key(&key) {
        // `.Map => X |-> Is` is a map concatenation: with X already a key the LLVM backend's
        // MAP.concat hook raises "Duplicate keys in map concatenation" and krun stops (§3(i)).
        r.abort = Some(format!("duplicate keys in map concatenation: <shape> already has the key {x}"));
        return true;
    }
    let define = Term::new(Node::DefineTensor { x: x.clone(), ints: is.clone() }, top.span());
    let (is, e) = (is.clone(), e.clone());
    r.cfg.shape.insert(key, is);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(e)]);
    true
}

/// R06 `define-tensor-1d` (L165-170)
/// `rule <k> defineTensor(X:Id,N:Int) => . ...</k> <env> Env => Env[X <- L] </env>
///       <store>... .Map => L |-> tensor(L +Int 1, N) (L +Int 1) ... (L +Int N) |-> 0.0 ...</store>
///       <nextLoc> L:Int => L +Int 1 +Int N </nextLoc> when N >=Int 0`
pub static DEFINE_TENSOR_1D: Rule = Rule::top(
    SECTION,
    "define-tensor-1d",
    "R06",
    "L165-170",
    "rule <k> defineTensor(X:Id,N:Int) => . ...</k> <env> Env => Env[X <- L] </env> <store>... .Map => L |-> tensor(L +Int 1, N) (L +Int 1) ... (L +Int N) |-> 0.0 ...</store> <nextLoc> L:Int => L +Int 1 +Int N </nextLoc> when N >=Int 0",
    &[Head::DefineTensor],
    define_tensor_1d,
);

/// `N >=Int 0`
fn nonnegative(n: i64) -> bool {
    n >= 0
}

fn define_tensor_1d(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::DefineTensor { x, ints } = top.node() else {
        return false;
    };
    let (Some(x), Some(n)) = (x.as_id(), ints.single()) else {
        return false;
    };
    if !nonnegative(n) {
        return false;
    }
    let (x, span) = (x.clone(), top.span());
    if !r.reserve(super::tensor_cells([n])) {
        return true;
    }
    let l = r.cfg.store.next_loc();
    r.cfg.env.insert(x, l);
    r.cfg.store.push(Term::new(Node::Tensor { loc: l + 1, len: n }, span));
    // `(L +Int 1) ... (L +Int N) |-> 0.0`: the range-map function (R70/R71) unfolds N times.
    let zero = Term::float(0.0, span);
    for _ in 0..n {
        r.cfg.store.push(zero.clone());
    }
    r.fired(&super::utility::RANGE_MAP_CONS, u32::try_from(n).unwrap_or(u32::MAX));
    r.fired(&super::utility::RANGE_MAP_EMPTY, 1);
    r.cfg.pop_top();
    true
}

/// R07 `define-tensor-nd` (L172)
/// `rule <k> defineTensor(X:Id, I:Int, Rest:Ints) => defineTensor(X, I) ~> defineTensorHelper(X, 0 ...I, Rest:Ints) ...</k>`
pub static DEFINE_TENSOR_ND: Rule = Rule::top(
    SECTION,
    "define-tensor-nd",
    "R07",
    "L172",
    "rule <k> defineTensor(X:Id, I:Int, Rest:Ints) => defineTensor(X, I) ~> defineTensorHelper(X, 0 ...I, Rest:Ints) ...</k>",
    &[Head::DefineTensor],
    define_tensor_nd,
);

fn define_tensor_nd(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::DefineTensor { x: x_term, ints } = top.node() else {
        return false;
    };
    let (Some(x), Some((i, rest))) = (x_term.as_id(), ints.split_first()) else {
        return false;
    };
    // The whole tensor at once, before its rows are started one step each.
    let cells = super::tensor_cells(ints.as_slice().iter().copied());
    let (x, x_term, span) = (x.clone(), x_term.clone(), top.span());
    if !r.reserve(cells) {
        return true;
    }
    let outer = Term::new(Node::DefineTensor { x: x_term, ints: Ints::one(i) }, span);
    let helper = Term::new(Node::DefineTensorHelper { x, from: 0, to: i, rest }, span);
    r.cfg.replace_top([KItem::Term(outer), KItem::Term(helper)]);
    true
}

/// R08 `define-tensor-helper-step` (L175-176)
/// `rule <k> defineTensorHelper(X, I...J, Rest) => defineTensor($1, Rest) ~> storeVal(X[I], $1)
///       ~> defineTensorHelper(X, (I +Int 1)...J, Rest) ...</k> when I <Int J`
pub static DEFINE_TENSOR_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "define-tensor-helper-step",
    "R08",
    "L175-176",
    "rule <k> defineTensorHelper(X, I...J, Rest) => defineTensor($1, Rest) ~> storeVal(X[I], $1) ~> defineTensorHelper(X, (I +Int 1)...J, Rest) ...</k> when I <Int J",
    &[Head::DefineTensorHelper],
    define_tensor_helper_step,
);

fn define_tensor_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::DefineTensorHelper { x, from: i, to: j, rest } = top.node() else {
        return false;
    };
    if !lt(*i, *j) {
        return false;
    }
    let (x, i, j, rest, span) = (x.clone(), *i, *j, rest.clone(), top.span());
    let [define, store] = allocate_row(r, &x, i, &rest, span);
    let next = Term::new(Node::DefineTensorHelper { x, from: i + 1, to: j, rest }, span);
    r.cfg.replace_top([define, store, KItem::Term(next)]);
    true
}

/// R09 `define-tensor-helper-last` (L178)
/// `rule <k> defineTensorHelper(X, I...I, Rest) => defineTensor($1, Rest) ~> storeVal(X[I], $1) ...</k>`
pub static DEFINE_TENSOR_HELPER_LAST: Rule = Rule::top(
    SECTION,
    "define-tensor-helper-last",
    "R09",
    "L178",
    "rule <k> defineTensorHelper(X, I...I, Rest) => defineTensor($1, Rest) ~> storeVal(X[I], $1) ...</k>",
    &[Head::DefineTensorHelper],
    define_tensor_helper_last,
);

fn define_tensor_helper_last(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::DefineTensorHelper { x, from: i, to: j, rest } = top.node() else {
        return false;
    };
    if i != j {
        return false;
    }
    let (x, i, rest, span) = (x.clone(), *i, rest.clone(), top.span());
    let [define, store] = allocate_row(r, &x, i, &rest, span);
    r.cfg.replace_top([define, store]);
    true
}

/// `defineTensor($1, Rest) ~> storeVal(X[I], $1)`: allocate a sub-tensor under the global
/// name `$1`, then store its header in element `I` of `X` (§2.8).
fn allocate_row(r: &mut Rewrite<'_>, x: &Sym, i: i64, rest: &Ints, span: Span) -> [KItem; 2] {
    let dollar_one = Term::id(&Sym::dollar_one(), span);
    let define = Term::new(Node::DefineTensor { x: dollar_one.clone(), ints: rest.clone() }, span);
    let target = r.index1(Term::id(x, span), i, span);
    let store = Term::new(Node::StoreVal { target, value: dollar_one }, span);
    [KItem::Term(define), KItem::Term(store)]
}

/// R10 `lookup-id` (L181-183)
/// `rule <k> X:Id => V ...</k> <env>... X |-> L ...</env> <store>... L |-> V:Val ...</store> [lookup]`
///
/// Its `<k>` starts with a variable followed by more items, so K marks it cool-like (§2.9).
pub static LOOKUP_ID: Rule = Rule::top(
    SECTION,
    "lookup-id",
    "R10",
    "L181-183",
    "rule <k> X:Id => V ...</k> <env>... X |-> L ...</env> <store>... L |-> V:Val ...</store> [lookup]",
    &[Head::Id],
    lookup_id,
)
.with_class(Class::CoolLike);

fn lookup_id(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::Id(x)) = r.top_node() else {
        return false;
    };
    let Some(&l) = r.cfg.env.get(x) else {
        return false;
    };
    let Some(v) = r.cfg.store.get(l).filter(|v| v.is_value()) else {
        return false;
    };
    let v = v.clone();
    r.cfg.replace_top_term(v);
    true
}

/// R11 `index-tensor-anywhere` (L187): `rule tensor(L,_)[N:Int] => lookup(L +Int N) [structural, anywhere]`
pub static INDEX_TENSOR_ANYWHERE: Rule = Rule::passive(
    SECTION,
    RuleKind::Anywhere,
    "index-tensor-anywhere",
    "R11",
    "L187",
    "rule tensor(L,_)[N:Int] => lookup(L +Int N) [structural, anywhere]",
);

/// R12 `index-tensor-split-anywhere` (L188):
/// `rule tensor(L,I)[N:Int, Rest:Ints] => tensor(L,I)[N:Int][Rest:Ints] [structural, anywhere]`
pub static INDEX_TENSOR_SPLIT_ANYWHERE: Rule = Rule::passive(
    SECTION,
    RuleKind::Anywhere,
    "index-tensor-split-anywhere",
    "R12",
    "L188",
    "rule tensor(L,I)[N:Int, Rest:Ints] => tensor(L,I)[N:Int][Rest:Ints] [structural, anywhere]",
);

/// Builds `base [ ints ]` as the LLVM backend does for an anywhere symbol (§2.6): the
/// `[anywhere]` rules R11/R12 apply as the term is constructed, so `tensor(L, N)[I]` never
/// exists; there is no bounds check.
pub fn build_index_published(r: &mut Rewrite<'_>, base: Term, ints: Ints, span: Span) -> Term {
    let Node::Tensor { loc, .. } = *base.node() else {
        return Term::new(Node::Index { base, ints }, span);
    };
    match ints.split_first() {
        None => {
            r.fired(&INDEX_TENSOR_ANYWHERE, 1);
            Term::new(Node::Lookup(loc + ints.first()), span)
        }
        Some((n, rest)) => {
            r.fired(&INDEX_TENSOR_SPLIT_ANYWHERE, 1);
            let inner = r.index1(base, n, span);
            r.index(inner, rest, span)
        }
    }
}

/// R13 `lookup-loc` (L189): `rule <k> lookup(L) => V ...</k> <store>... L |-> V:Val ...</store> [lookup]`
pub static LOOKUP_LOC: Rule = Rule::top(
    SECTION,
    "lookup-loc",
    "R13",
    "L189",
    "rule <k> lookup(L) => V ...</k> <store>... L |-> V:Val ...</store> [lookup]",
    &[Head::Lookup],
    lookup_loc,
);

fn lookup_loc(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::Lookup(l)) = r.top_node() else {
        return false;
    };
    let Some(v) = r.cfg.store.get(*l).filter(|v| v.is_value()) else {
        return false;
    };
    let v = v.clone();
    r.cfg.replace_top_term(v);
    true
}

/// R14 `let-index-assign` (L193)
/// `rule <k> let X:Id [Is:Ints] = E:Exp in E1:Exp => storeVal(X[Is], E) ~> E1...</k>`
pub static LET_INDEX_ASSIGN: Rule = Rule::top(
    SECTION,
    "let-index-assign",
    "R14",
    "L193",
    "rule <k> let X:Id [Is:Ints] = E:Exp in E1:Exp => storeVal(X[Is], E) ~> E1...</k>",
    &[Head::Let],
    let_index_assign,
);

fn let_index_assign(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Let { target, value: e, body: e1 } = top.node() else {
        return false;
    };
    let Node::Index { base, .. } = target.node() else {
        return false;
    };
    if base.as_id().is_none() {
        return false;
    }
    // `X[Is]` with an identifier base is built as is: no `[anywhere]` rule applies.
    let store = Term::new(Node::StoreVal { target: target.clone(), value: e.clone() }, top.span());
    let e1 = e1.clone();
    r.cfg.replace_top([KItem::Term(store), KItem::Term(e1)]);
    true
}

/// R15 `ctx-storeval-value` (L195): `context storeVal(_, HOLE)`
pub static CTX_STOREVAL_VALUE: Rule =
    Rule::passive(SECTION, RuleKind::Context, "ctx-storeval-value", "R15", "L195", "context storeVal(_, HOLE)");

/// R16 `ctx-storeval-base` (L196): `context storeVal(HOLE[_:Int, _:Ints],_)`
pub static CTX_STOREVAL_BASE: Rule = Rule::passive(
    SECTION,
    RuleKind::Context,
    "ctx-storeval-base",
    "R16",
    "L196",
    "context storeVal(HOLE[_:Int, _:Ints],_)",
);

/// R17 `storeval-split` (L198): `rule storeVal(X[I:Int, Rest:Ints], V:Val) => storeVal(X[I][Rest], V)`
pub static STOREVAL_SPLIT: Rule = Rule::top(
    SECTION,
    "storeval-split",
    "R17",
    "L198",
    "rule storeVal(X[I:Int, Rest:Ints], V:Val) => storeVal(X[I][Rest], V)",
    &[Head::StoreVal],
    storeval_split,
);

fn storeval_split(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::StoreVal { target, value: v } = top.node() else {
        return false;
    };
    let Node::Index { base: x, ints } = target.node() else {
        return false;
    };
    let Some((i, rest)) = ints.split_first() else {
        return false;
    };
    if !v.is_value() {
        return false;
    }
    let (x, v, span) = (x.clone(), v.clone(), top.span());
    let x_i = r.index1(x, i, span);
    let target = r.index(x_i, rest, span);
    r.cfg.replace_top_term(Term::new(Node::StoreVal { target, value: v }, span));
    true
}

/// R18 `storeval-id-1d` (L200-202)
/// `rule <k> storeVal(X[I:Int], V) => . ...</k> <env>... X |-> L ...</env>
///       <store>... (L +Int I +Int 1) |-> (_ => V) ...</store>`
///
/// `V` is not restricted to values, and there is no bounds check.
pub static STOREVAL_ID_1D: Rule = Rule::top(
    SECTION,
    "storeval-id-1d",
    "R18",
    "L200-202",
    "rule <k> storeVal(X[I:Int], V) => . ...</k> <env>... X |-> L ...</env> <store>... (L +Int I +Int 1) |-> (_ => V) ...</store>",
    &[Head::StoreVal],
    storeval_id_1d,
);

fn storeval_id_1d(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::StoreVal { target, value: v }) = r.top_node() else {
        return false;
    };
    let Some((x, i)) = target.as_single_index() else {
        return false;
    };
    let Some(x) = x.as_id() else { return false };
    let Some(&l) = r.cfg.env.get(x) else {
        return false;
    };
    let location = element_location(l, i);
    if r.cfg.store.get(location).is_none() {
        return false;
    }
    let v = v.clone();
    r.cfg.store.set(location, v);
    r.cfg.pop_top();
    true
}

/// R19 `storeval-lookup` (L204-205)
/// `rule <k> storeVal(lookup(L)[I:Int], V) => storeAtVal(T +Int I, V) ...</k>
///       <store>... L |-> tensor(T,_) ...</store>`
pub static STOREVAL_LOOKUP: Rule = Rule::top(
    SECTION,
    "storeval-lookup",
    "R19",
    "L204-205",
    "rule <k> storeVal(lookup(L)[I:Int], V) => storeAtVal(T +Int I, V) ...</k> <store>... L |-> tensor(T,_) ...</store>",
    &[Head::StoreVal],
    storeval_lookup,
);

fn storeval_lookup(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::StoreVal { target, value: v } = top.node() else {
        return false;
    };
    let Some((base, i)) = target.as_single_index() else {
        return false;
    };
    let Node::Lookup(l) = base.node() else {
        return false;
    };
    // `V` has sort Val: it is the second argument of `storeAtVal(Int, Val)`.
    if !v.is_value() {
        return false;
    }
    let Some(Node::Tensor { loc: t, .. }) = r.cfg.store.get(*l).map(Term::node) else {
        return false;
    };
    let store_at = Term::new(Node::StoreAtVal { loc: t + i, value: v.clone() }, top.span());
    r.cfg.replace_top_term(store_at);
    true
}

/// R20 `store-at-val` (L209-210): `rule <k> storeAtVal(L:Int, V:Val) => . ...</k> <store>... L |-> (_ => V) ...</store>`
pub static STORE_AT_VAL: Rule = Rule::top(
    SECTION,
    "store-at-val",
    "R20",
    "L209-210",
    "rule <k> storeAtVal(L:Int, V:Val) => . ...</k> <store>... L |-> (_ => V) ...</store>",
    &[Head::StoreAtVal],
    store_at_val,
);

fn store_at_val(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::StoreAtVal { loc: l, value: v }) = r.top_node() else {
        return false;
    };
    if !v.is_value() || r.cfg.store.get(*l).is_none() {
        return false;
    }
    let (l, v) = (*l, v.clone());
    r.cfg.store.set(l, v);
    r.cfg.pop_top();
    true
}

/// The rules and contexts of this section, in file order.
pub static RULES: &[&Rule] = &[
    &LET_INIT_TENSOR,
    &DEFINE_TENSOR_1D,
    &DEFINE_TENSOR_ND,
    &DEFINE_TENSOR_HELPER_STEP,
    &DEFINE_TENSOR_HELPER_LAST,
    &LOOKUP_ID,
    &INDEX_TENSOR_ANYWHERE,
    &INDEX_TENSOR_SPLIT_ANYWHERE,
    &LOOKUP_LOC,
    &LET_INDEX_ASSIGN,
    &CTX_STOREVAL_VALUE,
    &CTX_STOREVAL_BASE,
    &STOREVAL_SPLIT,
    &STOREVAL_ID_1D,
    &STOREVAL_LOOKUP,
    &STORE_AT_VAL,
];
