//! "Linear Layer" (k-nn.md L263–295, repeated verbatim at L370–395; K merges the duplicate
//! productions and the LLVM backend always uses the first copy of each rule, docs/semantics.md §1).
//!
//! `linear(W, X)` computes `Y[i] = ((0.0 + W[i][0]*X[0]) + W[i][1]*X[1]) + …` through
//! element writes `let Y[i] = Y[i] + (W[i][j]*X[j]) in 0`.

use super::{Head, Rewrite, Rule, Section, lt};
use crate::config::KItem;
use crate::syntax::Span;
use crate::term::{FuncTerm, Ints, Node, Term};

const SECTION: Section = Section::Linear;

/// R31 `let-linear` (L279-280, again L378-379)
/// `rule <k> let Y:Id = linear(W, X) in E => defineTensor(Y, I) ~> linearHelper(Y, I, J, W, X) ~> E ...</k>
///       <shape>... W |-> I:Int,J:Int ...</shape>`
///
/// Only `W`'s shape is read: the length of `X` is never checked (§3(h)).
pub static LET_LINEAR: Rule = Rule::top(
    SECTION,
    "let-linear",
    "R31",
    "L279-280",
    "rule <k> let Y:Id = linear(W, X) in E => defineTensor(Y, I) ~> linearHelper(Y, I, J, W, X) ~> E ...</k> <shape>... W |-> I:Int,J:Int ...</shape>",
    &[Head::LetFunc],
    let_linear,
);

fn let_linear(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LetFunc { target, func: FuncTerm::Linear(w, x), body: e, .. } = top.node() else {
        return false;
    };
    let (Some(y), Some(w), Some(x)) = (target.as_id(), w.as_id(), x.as_id()) else {
        return false;
    };
    let Some(&[i, j]) = r.cfg.shape_of(w).map(Ints::as_slice) else {
        return false;
    };
    let span = top.span();
    let define = Term::new(Node::DefineTensor { x: target.clone(), ints: Ints::one(i) }, span);
    let helper = Term::new(Node::LinearHelper { y: y.clone(), i, j, w: w.clone(), x: x.clone() }, span);
    let e = e.clone();
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(e)]);
    true
}

/// R32 `linear-rows-range` (L282, again L381): `rule linearHelper(Y, I:Int, J:Int, W, X) => linearHelper(Y, 0 ...I, J, W, X)`
pub static LINEAR_ROWS_RANGE: Rule = Rule::top(
    SECTION,
    "linear-rows-range",
    "R32",
    "L282",
    "rule linearHelper(Y, I:Int, J:Int, W, X) => linearHelper(Y, 0 ...I, J, W, X)",
    &[Head::LinearHelper],
    linear_rows_range,
);

fn linear_rows_range(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LinearHelper { y, i, j, w, x } = top.node() else {
        return false;
    };
    let rows = Node::LinearRows { y: y.clone(), from: 0, to: *i, j: *j, w: w.clone(), x: x.clone() };
    let rows = Term::new(rows, top.span());
    r.cfg.replace_top_term(rows);
    true
}

/// R33 `linear-rows-step` (L284-285, again L383-384)
/// `rule linearHelper(Y, I1:Int...I2:Int, J:Int, W, X) => linearHelper(Y[I1], 0 ...J, W[I1], X)
///       ~> linearHelper(Y, (I1 +Int 1)...I2:Int, J:Int, W, X) when I1 <Int I2`
pub static LINEAR_ROWS_STEP: Rule = Rule::top(
    SECTION,
    "linear-rows-step",
    "R33",
    "L284-285",
    "rule linearHelper(Y, I1:Int...I2:Int, J:Int, W, X) => linearHelper(Y[I1], 0 ...J, W[I1], X) ~> linearHelper(Y, (I1 +Int 1)...I2:Int, J:Int, W, X) when I1 <Int I2",
    &[Head::LinearRows],
    linear_rows_step,
);

fn linear_rows_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LinearRows { y, from: i1, to: i2, j, w, x } = top.node() else {
        return false;
    };
    if !lt(*i1, *i2) {
        return false;
    }
    let span = top.span();
    let row = Node::LinearCols { y: y.clone(), y_row: *i1, from: 0, to: *j, w: w.clone(), w_row: *i1, x: x.clone() };
    let next = Node::LinearRows { y: y.clone(), from: i1 + 1, to: *i2, j: *j, w: w.clone(), x: x.clone() };
    r.cfg.replace_top([KItem::Term(Term::new(row, span)), KItem::Term(Term::new(next, span))]);
    true
}

/// R34 `linear-rows-done` (L287, again L386): `rule linearHelper(_, I:Int...I:Int, _:Int, _:Id, _:Id) => .`
pub static LINEAR_ROWS_DONE: Rule = Rule::top(
    SECTION,
    "linear-rows-done",
    "R34",
    "L287",
    "rule linearHelper(_, I:Int...I:Int, _:Int, _:Id, _:Id) => .",
    &[Head::LinearRows],
    linear_rows_done,
);

fn linear_rows_done(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::LinearRows { from, to, .. }) = r.top_node() else {
        return false;
    };
    if from != to {
        return false;
    }
    r.cfg.pop_top();
    true
}

/// R35 `linear-cols-step` (L289-290, again L388-389)
/// `rule linearHelper(Y[I1], J1...J2, W[I1], X) => linearHelper(Y[I1], W[I1][J1], X[J1])
///       ~> linearHelper(Y[I1], (J1 +Int 1)...J2, W[I1], X) when J1 <Int J2`
///
/// `Y[I1]` and `W[I1]` are parts of one seven-argument symbol, and `I1` occurs twice: the
/// pattern is non-linear.
pub static LINEAR_COLS_STEP: Rule = Rule::top(
    SECTION,
    "linear-cols-step",
    "R35",
    "L289-290",
    "rule linearHelper(Y[I1], J1...J2, W[I1], X) => linearHelper(Y[I1], W[I1][J1], X[J1]) ~> linearHelper(Y[I1], (J1 +Int 1)...J2, W[I1], X) when J1 <Int J2",
    &[Head::LinearCols],
    linear_cols_step,
);

fn linear_cols_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LinearCols { y, y_row: i1, from: j1, to: j2, w, w_row, x } = top.node() else {
        return false;
    };
    if i1 != w_row || !lt(*j1, *j2) {
        return false;
    }
    let span = top.span();
    let (y, i1, j1, j2, w, x) = (y.clone(), *i1, *j1, *j2, w.clone(), x.clone());
    let y_i1 = r.index1(Term::id(&y, span), i1, span);
    let w_i1 = r.index1(Term::id(&w, span), i1, span);
    let w_i1_j1 = r.index1(w_i1, j1, span);
    let x_j1 = r.index1(Term::id(&x, span), j1, span);
    let mac = Term::new(Node::LinearMac(y_i1, w_i1_j1, x_j1), span);
    let next = Term::new(Node::LinearCols { y, y_row: i1, from: j1 + 1, to: j2, w, w_row: i1, x }, span);
    r.cfg.replace_top([KItem::Term(mac), KItem::Term(next)]);
    true
}

/// R36 `linear-cols-done` (L292, again L391): `rule linearHelper(_:Id[_:Int], J...J, _:Id[_:Int], _:Id) => .`
pub static LINEAR_COLS_DONE: Rule = Rule::top(
    SECTION,
    "linear-cols-done",
    "R36",
    "L292",
    "rule linearHelper(_:Id[_:Int], J...J, _:Id[_:Int], _:Id) => .",
    &[Head::LinearCols],
    linear_cols_done,
);

fn linear_cols_done(r: &mut Rewrite<'_>) -> bool {
    let Some(Node::LinearCols { from, to, .. }) = r.top_node() else {
        return false;
    };
    if from != to {
        return false;
    }
    r.cfg.pop_top();
    true
}

/// R37 `linear-mac` (L294, again L393): `rule linearHelper(E1, E2, E3) => let E1 = E1 + (E2*E3) in 0`
pub static LINEAR_MAC: Rule = Rule::top(
    SECTION,
    "linear-mac",
    "R37",
    "L294",
    "rule linearHelper(E1, E2, E3) => let E1 = E1 + (E2*E3) in 0",
    &[Head::LinearMac],
    |r| linear_mac(r, super::activation::int_zero),
);

/// `linearHelper(E1, E2, E3) => let E1 = E1 + (E2*E3) in unit` (`unit` is `0`, or `#skip`
/// under Rev-1).
pub fn linear_mac(r: &mut Rewrite<'_>, unit: fn(Span) -> Term) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LinearMac(e1, e2, e3) = top.node() else {
        return false;
    };
    let span = top.span();
    let product = Term::new(Node::Mul(e2.clone(), e3.clone()), span);
    let sum = Term::new(Node::Add(e1.clone(), product), span);
    let assign = Node::Let { target: e1.clone(), value: sum, body: unit(span) };
    r.cfg.replace_top_term(Term::new(assign, span));
    true
}

/// The rules of this section, in file order (the duplicated block adds nothing).
pub static RULES: &[&Rule] = &[
    &LET_LINEAR,
    &LINEAR_ROWS_RANGE,
    &LINEAR_ROWS_STEP,
    &LINEAR_ROWS_DONE,
    &LINEAR_COLS_STEP,
    &LINEAR_COLS_DONE,
    &LINEAR_MAC,
];
