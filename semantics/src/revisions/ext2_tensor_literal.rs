//! Ext-2: tensor literals, `let W = initTensor(2, 3)[0.5, -1.0, 2.0, 1.0, 1.0, 1.0] in …`: a
//! tensor and all its elements in one binding. Without it a network's weights are one element
//! `let` per parameter, a chain as deep as the network is large (a 784-256-256-10 MLP is
//! 269,322 nested `let`s, 11 MB of text); with it a layer is one `let` and its weights are data.
//! The sister languages have constants of whole tensors: CNTK's configuration language reads a
//! layer's parameters with `Parameter(…, init=…)` or `Constant` nodes, and ONNX stores them as
//! `initializer` tensors, row-major.
//!
//! ```k
//! syntax Func ::= "initTensor" "(" Ints ")" "[" Nums "]"      // relaxed grammar only
//! syntax Nums ::= List{Num, ","}
//! syntax Num  ::= Int | Float
//! syntax Int  ::= count(Nums) [function]                      // the number of elements listed
//! syntax Int  ::= cells(Ints) [function]                      // the cells alloc(Is) takes
//! syntax Map  ::= layout(Int, Ints, Nums) [function]
//! // layout(L, Is, Vs): the cells `alloc(Is)` leaves at `L` (`rev-alloc-1d`, `rev-alloc-nd`,
//! // `rev-fill-step`, `rev-write-at`), whose k-th leaf, in row-major order, holds the k-th of Vs.
//! ```
//!
//! The choices:
//!
//! * **`initTensor` with its elements.** The literal is `initTensor(Is)` followed by the
//!   elements in brackets, so it reads as what it is, an allocation that is filled, and adds no
//!   keyword: no program of the revised grammar that parsed before changes meaning. Under the K
//!   grammar the `[` after `initTensor(…)` is a parse error, as in K.
//! * **Exactly the element `let`s it replaces.** `let X = initTensor(Is)[Vs] in E` ends in the
//!   configuration of `let X = initTensor(Is) in let X[rowMajor(0, Is)] = V0 in … in E` once the
//!   writes are done: the same store cells at the same locations (the layout of `alloc`), the
//!   same `<env>` and `<shape>` entries, the same `restoreScope` after `E`. Int elements stay
//!   Ints and Floats Floats, as an element `let` stores them; `-0.0`, `NaN` and `±Infinity` are
//!   written as they read.
//! * **One rule, one step.** The whole binding is one rewrite (one trace line), not one per
//!   element, so a network's trace is a few lines per layer. The count is part of the syntax: the
//!   parser refuses a literal whose element count is not the shape's size (a program that lists
//!   too few or too many elements is not a program), so the rule's side condition only matters
//!   for a term built without the parser, which `rev-let-func-error` names.
//! * **The revised profile only**, like Ext-1.

use super::Patch;
use super::rev07_shapes::scope_of;
use crate::config::{KItem, MapKey};
use crate::rules::{Head, Rewrite, Rule, Section, tensor_cells};
use crate::syntax::{Elements, Number, Span};
use crate::term::{FuncTerm, Ints, Node, Term};

const SECTION: Section = Section::Extensions;

/// `rule <k> let X:Id = initTensor(Is:Ints)[Vs:Nums] in E => E ~> restoreScope(Env, SH) ...</k>
///       <env> Env => Env[X <- L] </env> <shape> SH => SH[X <- Is] </shape>
///       <store> Store => Store layout(L, Is, Vs) </store> <nextLoc> L => L +Int cells(Is) </nextLoc>
///       requires size(Is) ==Int count(Vs)`
pub static LET_TENSOR_LITERAL: Rule = Rule::top(
    SECTION,
    "ext-let-tensor-literal",
    "Ext-2",
    "Ext-2",
    "rule <k> let X:Id = initTensor(Is:Ints)[Vs:Nums] in E => E ~> restoreScope(Env, SH) ...</k> <env> Env => Env[X <- L] </env> <shape> SH => SH[X <- Is] </shape> <store> Store => Store layout(L, Is, Vs) </store> <nextLoc> L => L +Int cells(Is) </nextLoc> requires size(Is) ==Int count(Vs)",
    &[Head::LetFunc],
    let_tensor_literal,
);

fn let_tensor_literal(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LetFunc { target, func: FuncTerm::TensorLiteral(is, values), func_span, body: e } = top.node() else {
        return false;
    };
    let Some(x) = target.as_id() else { return false };
    if literal_size(is) != Some(values.len()) {
        return false;
    }
    let (x, is, values, e, span) = (x.clone(), is.clone(), values.clone(), e.clone(), *func_span);
    if !r.reserve(tensor_cells(is.as_slice().iter().copied())) {
        return true;
    }
    let scope = scope_of(r);
    let l = r.cfg.store.next_loc();
    layout(r, &is, &values, span);
    r.cfg.env.insert(x.clone(), l);
    r.cfg.shape.insert(MapKey::id(&x), is);
    r.cfg.replace_top([KItem::Term(e), scope]);
    true
}

/// `size(Is)`, when every dimension is non-negative and the product fits: the number of
/// elements a literal of shape `Is` lists.
pub fn literal_size(is: &Ints) -> Option<usize> {
    is.as_slice().iter().try_fold(1usize, |n, &d| usize::try_from(d).ok().and_then(|d| n.checked_mul(d)))
}

/// `layout(L, Is, Vs)` at `L = <nextLoc>`: the cells `alloc(Is)` allocates, in its order (a
/// vector's header and slots, then each sub-tensor depth first, its header written in its
/// parent's slot), with the leaves' slots holding the elements in row-major order instead of
/// `0.0`. A loop with an explicit stack, as deep as the rank.
fn layout(r: &mut Rewrite<'_>, is: &Ints, values: &Elements, span: Span) {
    let dims = is.as_slice();
    let last = dims.len() - 1;
    let mut next_value = 0usize;
    let mut vector = |r: &mut Rewrite<'_>, depth: usize| -> i64 {
        let (l, n) = (r.cfg.store.next_loc(), dims[depth]);
        r.cfg.store.push(Term::new(Node::Tensor { loc: l + 1, len: n }, span));
        for _ in 0..n {
            let cell = if depth == last {
                let value = values.get(next_value).expect("the literal has size(Is) elements");
                next_value += 1;
                number_term(value, span)
            } else {
                Term::float(0.0, span)
            };
            r.cfg.store.push(cell);
        }
        l
    };
    let root = vector(r, 0);
    // (header, next row, depth) of each level being filled.
    let mut open = vec![(root, 0i64, 0usize)];
    while let Some((h, i, depth)) = open.pop() {
        if depth == last || i == dims[depth] {
            continue;
        }
        open.push((h, i + 1, depth));
        let sub = vector(r, depth + 1);
        let header = Term::new(Node::Tensor { loc: sub + 1, len: dims[depth + 1] }, span);
        r.cfg.store.set(h + 1 + i, header);
        open.push((sub, 0, depth + 1));
    }
}

fn number_term(n: Number, span: Span) -> Term {
    match n {
        Number::Int(i) => Term::int(i, span),
        Number::Float(x) => Term::float(x, span),
    }
}

pub static PATCH: Patch = Patch {
    name: "Ext-2",
    title: "tensor literals: initTensor(Is)[V, …]",
    reason: "a network's weights took one element let per parameter, a program as deep as the network is large",
    removes: &[],
    adds: &[&LET_TENSOR_LITERAL],
};
