//! Ext-9: `expTensor(Y)`, `logTensor(Y)` element-wise at every rank, and `softmax(Y, A)`,
//! `logSoftmax(Y, A)` along the axis `A`: the classifier's last layer (CuPit and CNTK's
//! `Softmax`, ONNX's `Softmax`, `LogSoftmax`, `Exp`, `Log`).
//!
//! ```k
//! syntax Func  ::= "expTensor" "(" Exp ")" | "logTensor" "(" Exp ")"
//!                | "softmax" "(" Exp "," Int ")" | "logSoftmax" "(" Exp "," Int ")"
//! syntax KItem ::= FHelper(Id, Id, Int, Int, Ints)          // F in expTensor, logTensor
//!                | FHelper(Id, Id, Int, Int, Int, Ints)     // F in softmax, logSoftmax: K ... N
//!                | FMax(Id, Id, Int, Int, Ints) | FSum(Id, Id, Int, Int, Ints, Float)
//! syntax Exp   ::= expItem(Exp) [strict] | logItem(Exp) [strict] | expShiftItem(Exp, Float) [strict(1)]
//!                | softmaxItem(Exp, Float, Float) [strict(1)] | logSoftmaxItem(Exp, Float, Float) [strict(1)]
//! // slices(Is, A): the product of Is without A; slice(K, Is, A, I): the index with I at A and
//! // the other indices rowMajor(K, Is without A); n = Is[A]. `axes.rs`.
//! ```
//!
//! The choices:
//!
//! * **Functions bound by `let`**, the operand a name diagnosed by `rev-let-func-error`; the
//!   axis an Int literal (K-NN's Int literals are unsigned: a negative axis cannot be written,
//!   an importer counts ONNX's negative axes from the end); an axis not below the rank is
//!   `invalid-attribute`. A fresh result of `Y`'s shape.
//! * **`expFloat` and `logFloat` are correctly rounded** (CORE-MATH, as MPFR's are), the policy
//!   of `tanh` and `sigmoid`: the two engines give the same bits on every platform.
//! * **The order is the semantics**: for each slice, in row-major order of the other indices,
//!   `M` = `max(… max(-Infinity, y0) …, yn-1)` by the scalar `max` (so a NaN or an Int element is
//!   `invalid-operands`, `rev-arith-invalid`, as in `maxPool2d`); `S` = `0.0 + expFloat(y0 -Float
//!   M) + …` left to right; then each element in order: softmax `expFloat(yk -Float M) /Float S`,
//!   logSoftmax `(yk -Float M) -Float logFloat(S)`. IEEE decides the rest: a slice of `-Infinity`
//!   has `M = -Infinity` and `-Infinity - -Infinity` is NaN, so every element is NaN; a `+Infinity`
//!   element makes `M = +Infinity`, its own term NaN (`∞ - ∞`) and `S` NaN, so the slice is NaN.
//! * **Int elements are `invalid-operands`** (`ext-math-item-invalid` for `expTensor` and
//!   `logTensor`, the `max` of the first pass for the softmax), as `tanhTensor`'s are.

use super::Patch;
use super::axes::{axis_detail, slice_count, slice_indices, valid_axis};
use super::ext1_add_tensor::row_major;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::config::{KItem, MapKey, MathStep, Wait};
use crate::errors::ErrorKind;
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::{Span, TensorMath};
use crate::term::{FuncTerm, Ints, MathFn, Node, Sym, Term};

const SECTION: Section = Section::Extensions;

/// The left-hand side `let X:Id = F(Y:Id, As) in E`, `Y` a name with a shape, not `X`, `F` one
/// `accepts` takes.
pub(super) struct MathRedex {
    pub f: TensorMath,
    pub x: Sym,
    pub y: Sym,
    pub axes: Option<Ints>,
    pub shape: Ints,
    pub body: Term,
    pub call: Span,
    pub span: Span,
}

pub(super) fn math_redex(r: &Rewrite<'_>, accepts: fn(TensorMath) -> bool) -> Option<MathRedex> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::TensorMath { f, x: y, axes }, body, func_span } = top.node() else {
        return None;
    };
    let (x, y) = (target.as_id()?, y.as_id()?);
    if x == y || !accepts(*f) {
        return None;
    }
    let shape = r.cfg.shape_of(y)?.clone();
    Some(MathRedex {
        f: *f,
        x: x.clone(),
        y: y.clone(),
        axes: axes.clone(),
        shape,
        body: body.clone(),
        call: *func_span,
        span: top.span(),
    })
}

/// `let X = F(Y, As) in E => defineTensor(X, Os) ~> FHelper(Y, X, As, 0 ... N, SH[Y]) ~> E ~>
/// restoreScope(Env, SH)` with `<shape>` updated: the common right-hand side of the `let` rules.
pub(super) fn define_and_walk(r: &mut Rewrite<'_>, redex: MathRedex, os: Ints, to: i64) {
    let span = redex.span;
    let define = Term::new(Node::DefineTensor { x: Term::id(&redex.x, span), ints: os.clone() }, span);
    let wait = Wait::Helper { from: 0, to };
    let (x, axes, dims) = (redex.x.clone(), redex.axes, redex.shape);
    let step = MathStep { f: redex.f, y: redex.y, x, axes, dims, wait, span };
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&redex.x), os);
    r.cfg.replace_top([KItem::Term(define), KItem::TensorMath(Box::new(step)), KItem::Term(redex.body), scope]);
}

fn is_exp_log(f: TensorMath) -> bool {
    matches!(f, TensorMath::ExpTensor | TensorMath::LogTensor)
}

fn is_softmax(f: TensorMath) -> bool {
    matches!(f, TensorMath::Softmax | TensorMath::LogSoftmax)
}

/// `rule <k> let X:Id = F(Y:Id) in E => defineTensor(X, SH[Y]) ~> FHelper(Y, X, 0 ... size(SH[Y]), SH[Y]) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape> requires Y in_keys(SH) andBool X =/=K Y`
/// for `F` in `expTensor`, `logTensor`.
pub static LET_EXP_LOG_TENSOR: Rule = Rule::top(
    SECTION,
    "ext-let-exp-log-tensor",
    "Ext-9",
    "Ext-9",
    "rule <k> let X:Id = F(Y:Id) in E => defineTensor(X, SH[Y]) ~> FHelper(Y, X, 0 ... size(SH[Y]), SH[Y]) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape> requires Y in_keys(SH) andBool X =/=K Y   // F in expTensor, logTensor",
    &[Head::LetFunc],
    let_exp_log_tensor,
);

fn let_exp_log_tensor(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = math_redex(r, is_exp_log) else { return false };
    let os = redex.shape.clone();
    let to = super::axes::count(os.as_slice());
    define_and_walk(r, redex, os, to);
    true
}

/// `rule <k> FHelper(Y, X, K ... N, Is) => let X[rowMajor(K, Is)] = fItem(Y[rowMajor(K, Is)]) in #skip ~> FHelper(Y, X, (K +Int 1) ... N, Is) ...</k> requires K <Int N`
/// for `F`, `fItem` in (`expTensor`, `expItem`), (`logTensor`, `logItem`).
pub static EXP_LOG_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-exp-log-helper-step",
    "Ext-9",
    "Ext-9",
    "rule <k> FHelper(Y, X, K ... N, Is) => let X[rowMajor(K, Is)] = fItem(Y[rowMajor(K, Is)]) in #skip ~> FHelper(Y, X, (K +Int 1) ... N, Is) ...</k> requires K <Int N   // F, fItem in (expTensor, expItem), (logTensor, logItem)",
    &[Head::TensorMath],
    exp_log_helper_step,
);

fn exp_log_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(KItem::TensorMath(step)) = r.cfg.top() else { return false };
    let Wait::Helper { from, to } = step.wait else { return false };
    if !is_exp_log(step.f) || !lt(from, to) {
        return false;
    }
    let step = (**step).clone();
    let span = step.span;
    let at = row_major(from, &step.dims);
    let f = if step.f == TensorMath::ExpTensor { MathFn::Exp } else { MathFn::Log };
    let element = r.index(Term::id(&step.y, span), at.clone(), span);
    let value = Term::new(Node::MathItem { f, arg: element }, span);
    let target = r.index(Term::id(&step.x, span), at, span);
    let write = Term::new(Node::Let { target, value, body: skip(span) }, span);
    let next = MathStep { wait: Wait::Helper { from: from + 1, to }, ..step };
    r.cfg.replace_top([KItem::Term(write), KItem::TensorMath(Box::new(next))]);
    true
}

/// `rule <k> let X:Id = F(Y:Id, A) in E => defineTensor(X, SH[Y]) ~> FHelper(Y, X, A, 0 ... slices(SH[Y], A), SH[Y]) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape> requires Y in_keys(SH) andBool X =/=K Y andBool A <Int size(SH[Y])`
/// for `F` in `softmax`, `logSoftmax`.
pub static LET_SOFTMAX: Rule = Rule::top(
    SECTION,
    "ext-let-softmax",
    "Ext-9",
    "Ext-9",
    "rule <k> let X:Id = F(Y:Id, A) in E => defineTensor(X, SH[Y]) ~> FHelper(Y, X, A, 0 ... slices(SH[Y], A), SH[Y]) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape> requires Y in_keys(SH) andBool X =/=K Y andBool A <Int size(SH[Y])   // F in softmax, logSoftmax",
    &[Head::LetFunc],
    let_softmax,
);

fn softmax_axis(redex: &MathRedex) -> i64 {
    redex.axes.as_ref().map_or(0, |a| a.as_slice()[0])
}

fn let_softmax(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = math_redex(r, is_softmax) else { return false };
    let axis = softmax_axis(&redex);
    if !valid_axis(axis, redex.shape.len()) {
        return false;
    }
    let os = redex.shape.clone();
    let to = slice_count(os.as_slice(), axis as usize);
    define_and_walk(r, redex, os, to);
    true
}

/// `rule <k> let X:Id = F(Y:Id, A) in _ => knnError("invalid attribute") ...</k> <shape> SH </shape>
///       requires Y in_keys(SH) andBool X =/=K Y andBool notBool A <Int size(SH[Y])` for `F` in `softmax`, `logSoftmax`.
pub static SOFTMAX_INVALID_AXIS: Rule = Rule::top(
    SECTION,
    "ext-softmax-invalid-axis",
    "Ext-9",
    "Ext-9",
    "rule <k> let X:Id = F(Y:Id, A) in _ => knnError(\"invalid attribute\") ...</k> <shape> SH </shape> requires Y in_keys(SH) andBool X =/=K Y andBool notBool A <Int size(SH[Y])   // F in softmax, logSoftmax",
    &[Head::LetFunc],
    softmax_invalid_axis,
);

fn softmax_invalid_axis(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = math_redex(r, is_softmax) else { return false };
    let axis = softmax_axis(&redex);
    if valid_axis(axis, redex.shape.len()) {
        return false;
    }
    let detail = axis_detail(redex.f.keyword(), redex.y.as_str(), redex.shape.as_slice(), axis);
    r.cfg.replace_top_term(Term::error(ErrorKind::InvalidAttribute, detail, redex.call));
    true
}

/// The elements of slice `k` of `step`'s operand, read through the indexing rules.
fn slice_elements(r: &mut Rewrite<'_>, step: &MathStep, k: i64, span: Span) -> Vec<(Ints, Term)> {
    let axis = step.axes.as_ref().map_or(0, |a| a.as_slice()[0]) as usize;
    slice_indices(step.dims.as_slice(), axis, k)
        .into_iter()
        .map(|index| {
            let at = Ints::new(&index).expect("an index of every axis");
            (at.clone(), r.index(Term::id(&step.y, span), at, span))
        })
        .collect()
}

/// `rule <k> FHelper(Y, X, A, K ... N, Is) => max(… max(-Infinity, Y[slice(K, Is, A, 0)]) …, Y[slice(K, Is, A, n -Int 1)]) ~> FMax(Y, X, A, K, Is) ~> FHelper(Y, X, A, (K +Int 1) ... N, Is) ...</k> requires K <Int N`
/// for `F` in `softmax`, `logSoftmax`.
pub static SOFTMAX_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-softmax-helper-step",
    "Ext-9",
    "Ext-9",
    "rule <k> FHelper(Y, X, A, K ... N, Is) => max(… max(-Infinity, Y[slice(K, Is, A, 0)]) …, Y[slice(K, Is, A, n -Int 1)]) ~> FMax(Y, X, A, K, Is) ~> FHelper(Y, X, A, (K +Int 1) ... N, Is) ...</k> requires K <Int N   // F in softmax, logSoftmax",
    &[Head::TensorMath],
    softmax_helper_step,
);

fn softmax_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(KItem::TensorMath(step)) = r.cfg.top() else { return false };
    let Wait::Helper { from, to } = step.wait else { return false };
    if !is_softmax(step.f) || !lt(from, to) {
        return false;
    }
    let step = (**step).clone();
    let span = step.span;
    let mut max = Term::float(f64::NEG_INFINITY, span);
    for (_, element) in slice_elements(r, &step, from, span) {
        max = Term::new(Node::Max(max, element), span);
    }
    let wait = MathStep { wait: Wait::Max { slice: from }, ..step.clone() };
    let next = MathStep { wait: Wait::Helper { from: from + 1, to }, ..step };
    r.cfg.replace_top([KItem::Term(max), KItem::TensorMath(Box::new(wait)), KItem::TensorMath(Box::new(next))]);
    true
}

/// `rule <k> M:Float ~> FMax(Y, X, A, K, Is) => 0.0 + expShiftItem(Y[slice(K, Is, A, 0)], M) + … + expShiftItem(Y[slice(K, Is, A, n -Int 1)], M) ~> FSum(Y, X, A, K, Is, M) ...</k>`
pub static SOFTMAX_MAX: Rule = Rule::top(
    SECTION,
    "ext-softmax-max",
    "Ext-9",
    "Ext-9",
    "rule <k> M:Float ~> FMax(Y, X, A, K, Is) => 0.0 + expShiftItem(Y[slice(K, Is, A, 0)], M) + … + expShiftItem(Y[slice(K, Is, A, n -Int 1)], M) ~> FSum(Y, X, A, K, Is, M) ...</k>   // F in softmax, logSoftmax",
    &[Head::Float],
    softmax_max,
);

fn softmax_max(r: &mut Rewrite<'_>) -> bool {
    let (Some(KItem::Term(m)), Some(KItem::TensorMath(step))) = (r.cfg.top(), r.cfg.second()) else { return false };
    let (Some(max), Wait::Max { slice }) = (m.as_float(), &step.wait) else { return false };
    let (step, slice) = ((**step).clone(), *slice);
    let span = step.span;
    let mut sum = Term::float(0.0, span);
    for (_, element) in slice_elements(r, &step, slice, span) {
        let term = Term::new(Node::MathItem { f: MathFn::ExpShift { max }, arg: element }, span);
        sum = Term::new(Node::Add(sum, term), span);
    }
    let wait = MathStep { wait: Wait::Sum { slice, max_bits: max.to_bits() }, ..step };
    r.cfg.pop_top();
    r.cfg.replace_top([KItem::Term(sum), KItem::TensorMath(Box::new(wait))]);
    true
}

/// `rule <k> S:Float ~> FSum(Y, X, A, K, Is, M) => let X[slice(K, Is, A, 0)] = fItem(Y[slice(K, Is, A, 0)], M, S) in #skip ~> … ~> let X[slice(K, Is, A, n -Int 1)] = fItem(Y[slice(K, Is, A, n -Int 1)], M, S) in #skip ...</k>`
/// for `F`, `fItem` in (`softmax`, `softmaxItem`), (`logSoftmax`, `logSoftmaxItem`).
pub static SOFTMAX_SUM: Rule = Rule::top(
    SECTION,
    "ext-softmax-sum",
    "Ext-9",
    "Ext-9",
    "rule <k> S:Float ~> FSum(Y, X, A, K, Is, M) => let X[slice(K, Is, A, 0)] = fItem(Y[slice(K, Is, A, 0)], M, S) in #skip ~> … ~> let X[slice(K, Is, A, n -Int 1)] = fItem(Y[slice(K, Is, A, n -Int 1)], M, S) in #skip ...</k>   // F, fItem in (softmax, softmaxItem), (logSoftmax, logSoftmaxItem)",
    &[Head::Float],
    softmax_sum,
);

fn softmax_sum(r: &mut Rewrite<'_>) -> bool {
    let (Some(KItem::Term(s)), Some(KItem::TensorMath(step))) = (r.cfg.top(), r.cfg.second()) else { return false };
    let (Some(sum), Wait::Sum { slice, max_bits }) = (s.as_float(), &step.wait) else { return false };
    let (step, slice, max) = ((**step).clone(), *slice, f64::from_bits(*max_bits));
    let span = step.span;
    let f = if step.f == TensorMath::Softmax { MathFn::Softmax { max, sum } } else { MathFn::LogSoftmax { max, sum } };
    let mut writes = Vec::new();
    for (at, element) in slice_elements(r, &step, slice, span) {
        let value = Term::new(Node::MathItem { f, arg: element }, span);
        let target = r.index(Term::id(&step.x, span), at, span);
        writes.push(KItem::Term(Term::new(Node::Let { target, value, body: skip(span) }, span)));
    }
    r.cfg.pop_top();
    r.cfg.pop_top();
    r.cfg.k.extend(writes.into_iter().rev());
    true
}

/// `rule <k> FHelper(_, _, …, N ... N, _) => . ...</k>` for `F` in `expTensor`, `logTensor`,
/// `softmax`, `logSoftmax`.
pub static MATH_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-math-helper-done",
    "Ext-9",
    "Ext-9",
    "rule <k> FHelper(_, _, …, N ... N, _) => . ...</k>   // F in expTensor, logTensor, softmax, logSoftmax",
    &[Head::TensorMath],
    math_helper_done,
);

fn math_helper_done(r: &mut Rewrite<'_>) -> bool {
    match r.cfg.top() {
        Some(KItem::TensorMath(step)) if step.f.patch() == "Ext-9" && step.wait_done() => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    }
}

impl MathStep {
    /// `N ... N`: a helper with no position left.
    pub fn wait_done(&self) -> bool {
        matches!(self.wait, Wait::Helper { from, to } if from == to)
    }
}

pub static PATCH: Patch = Patch {
    name: "Ext-9",
    title: "expTensor(Y), logTensor(Y), softmax(Y, A), logSoftmax(Y, A)",
    reason: "a classifier's last layer turns scores into probabilities; CuPit's and CNTK's Softmax and ONNX's Softmax, LogSoftmax, Exp and Log compute them",
    removes: &[],
    adds: &[
        &LET_EXP_LOG_TENSOR,
        &EXP_LOG_HELPER_STEP,
        &LET_SOFTMAX,
        &SOFTMAX_INVALID_AXIS,
        &SOFTMAX_HELPER_STEP,
        &SOFTMAX_MAX,
        &SOFTMAX_SUM,
        &MATH_HELPER_DONE,
        &super::ext9_items::HEAT_MATH_ITEM,
        &super::ext9_items::COOL_MATH_ITEM,
        &super::ext9_items::EXP_ITEM,
        &super::ext9_items::LOG_ITEM,
        &super::ext9_items::EXP_SHIFT_ITEM,
        &super::ext9_items::SOFTMAX_ITEM,
        &super::ext9_items::LOG_SOFTMAX_ITEM,
        &super::ext9_items::MATH_ITEM_INVALID,
    ],
};
