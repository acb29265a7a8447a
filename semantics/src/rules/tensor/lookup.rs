//! "Tensor", lookups and indexing (k-nn.md L181–189): a name read from `<env>` and `<store>`,
//! the `[anywhere]` rules that turn `tensor(L, N)[I]` into `lookup(L +Int I)`, and `lookup`.

use super::SECTION;
use crate::rules::{Class, Head, Rewrite, Rule, RuleKind};
use crate::syntax::Span;
use crate::term::{Ints, Node, Term};

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
