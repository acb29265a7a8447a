//! "Tensor", allocation (k-nn.md L152–178): `let X = initTensor(Is)` records the shape and
//! `defineTensor`/`defineTensorHelper` allocate the tensor and, row by row under `$1`, its
//! sub-tensors.

use super::SECTION;
use crate::config::{KItem, MapKey};
use crate::rules::{Head, Rewrite, Rule, lt, tensor_cells, utility};
use crate::syntax::Span;
use crate::term::{FuncTerm, Ints, Node, Sym, Term};

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
    if !r.reserve(tensor_cells([n])) {
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
    r.fired(&utility::RANGE_MAP_CONS, u32::try_from(n).unwrap_or(u32::MAX));
    r.fired(&utility::RANGE_MAP_EMPTY, 1);
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
    let cells = tensor_cells(ints.as_slice().iter().copied());
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
