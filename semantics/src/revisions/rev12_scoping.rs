//! Rev-12: lexical scoping and tensor aliasing instead of textual substitution. A `let` binds
//! its value in a fresh store cell and restores `<env>` and `<shape>` once its body is a value.
//! Substitution reached binders and ignored shadowing (`let x = 1.0 in let x = 2.0 in x` is
//! stuck at `let 1.0 = 2.0 in 1.0`), names leaked out of their `let`, and tensors could not be
//! aliased (§3(i), §3(l)). Because Rev-5 and Rev-6 address elements through the header, an
//! alias `let Y = X in …` (a cell holding a copy of `X`'s header) reads and writes `X`.
//!
//! Ours: a scalar or alias binding also drops the name's `<shape>` entry for the body, so a
//! tensor name shadowed by a scalar does not keep a stale shape (an alias has no shape entry:
//! indexing and ArgMax work on it, `reluTensor` and `linear` need a tensor with a shape).

use super::Patch;
use crate::config::{KItem, MapKey};
use crate::rules::{Head, Rewrite, Rule, Section, basic};
use crate::term::Node;

/// `rule <k> let X:Id = V:Val in E:Exp => E ~> restoreScope(Env, SH) ...</k>
///       <env> Env => Env[X <- L] </env> <shape> SH => SH[X <- undef] </shape>
///       <store>... .Map => L |-> V ...</store> <nextLoc> L:Int => L +Int 1 </nextLoc>`
/// — replaces `let-scalar-float` and `let-scalar-int` (R01, R02); also binds tensor headers.
pub static LET_VALUE: Rule = Rule::top(
    Section::Basic,
    "rev-let-value",
    "Rev-12",
    "§4 Rev-12",
    "rule <k> let X:Id = V:Val in E:Exp => E ~> restoreScope(Env, SH) ...</k> <env> Env => Env[X <- L] </env> <shape> SH => SH[X <- undef] </shape> <store>... .Map => L |-> V ...</store> <nextLoc> L:Int => L +Int 1 </nextLoc>",
    &[Head::Let],
    let_value,
);

fn let_value(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::Let { target, value: v, body: e }) = r.top_node() else { return false };
    let Some(x) = target.as_id() else { return false };
    if !v.is_value() {
        return false;
    }
    let (x, v, e) = (x.clone(), v.clone(), e.clone());
    let scope = KItem::RestoreScope { env: r.cfg.env.clone(), shape: r.cfg.shape.clone() };
    let l = r.cfg.store.next_loc();
    r.cfg.store.push(v);
    r.cfg.shape.remove(&MapKey::id(&x));
    r.cfg.env.insert(x, l);
    r.cfg.replace_top([KItem::Term(e), scope]);
    true
}

/// `rule <k> V:Val ~> restoreScope(Env, SH) => V ...</k> <env> _ => Env </env> <shape> _ => SH </shape>`
pub static RESTORE_SCOPE: Rule = Rule::top(
    Section::Basic,
    "rev-restore-scope",
    "Rev-12",
    "§4 Rev-12",
    "rule <k> V:Val ~> restoreScope(Env, SH) => V ...</k> <env> _ => Env </env> <shape> _ => SH </shape>",
    Head::VALUES,
    restore_scope,
);

fn restore_scope(r: &mut Rewrite<'_>) -> bool {
    let (Some(KItem::Term(v)), Some(KItem::RestoreScope { env, shape })) = (r.cfg.top(), r.cfg.second()) else {
        return false;
    };
    if !v.is_value() {
        return false;
    }
    let (env, shape) = (env.clone(), shape.clone());
    r.cfg.env = env;
    r.cfg.shape = shape;
    let below = r.cfg.k.len() - 2;
    r.cfg.k.remove(below);
    true
}

pub static PATCH: Patch = Patch {
    name: "Rev-12",
    title: "lexical scoping and tensor aliasing instead of substitution",
    reason: "substitution reaches binders and ignores shadowing, names leak out of their let, tensors cannot be aliased",
    removes: &[&basic::LET_SCALAR_FLOAT, &basic::LET_SCALAR_INT],
    adds: &[&LET_VALUE, &RESTORE_SCOPE],
};
