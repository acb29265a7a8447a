//! Ext-10: `reduceSum(Y, A0, …)`, `reduceMean(Y, …)`, `reduceMax(Y, …)`, `reduceMin(Y, …)`
//! over the listed axes, which leave the result (keepdims = 0; a `reshape`, Ext-5, puts the
//! axes of extent 1 back): CuPit's `REDUCTION … :sum` and ONNX's `ReduceSum`, `ReduceMean`,
//! `ReduceMax`, `ReduceMin`.
//!
//! ```k
//! syntax Func  ::= "reduceSum" "(" Exp "," Ints ")" | "reduceMean" "(" Exp "," Ints ")"
//!                | "reduceMax" "(" Exp "," Ints ")" | "reduceMin" "(" Exp "," Ints ")"
//! syntax KItem ::= RHelper(Id, Id, Ints, Int, Int, Ints)   // printed `As, K ... N, Is`
//! // reduceShape(Is, As): Is without the axes As, or 1 when every axis is reduced;
//! // group(K, Is, As): the indices with the kept ones rowMajor(K, reduceShape(Is, As)) and the
//! // reduced ones in row-major order by increasing axis; validAxes(As, N). `axes.rs`.
//! ```
//!
//! The choices:
//!
//! * **As `softmax`** (Ext-9): a function bound by `let`, the operand a name diagnosed by
//!   `rev-let-func-error`, the axes unsigned Int literals, one or more; an axis not below the
//!   rank, or listed twice, is `invalid-attribute` (`ext-reduce-invalid-axes`). Reducing every
//!   axis gives a tensor of shape `1` (K-NN's functions bind tensors: there is no rank 0).
//! * **Each output by the scalar rules, as the pools** (Ext-4): for each output in row-major
//!   order, its group's elements in row-major order of the reduced indices, whatever order the
//!   axes are listed in. Sum: `0.0 + y1 + …` by Rev-10/11's `+` (an Int element widened, so
//!   the sum is a Float). Mean: that sum `poolMean`'d by the count (`ext-pool-mean`: `F /Float
//!   Int2Float(N)`). Max: `max(… max(-Infinity, y1) …)`, min: `min(… min(Infinity, y1) …)`, the
//!   language's `max`/`min` (a NaN or an Int element is `invalid-operands`, ties keep the earlier
//!   element for `max`, take the later for `min`: `min-right`). Starting from `∓Infinity` gives
//!   the first element's own value for every Float, and is ONNX's value for an empty group (an
//!   axis of extent 0); an empty mean is `0.0 /Float 0.0`, NaN.

use super::Patch;
use super::axes::{axes_detail, count, group_indices, reduced_shape, valid_axes};
use super::ext1_add_tensor::row_major;
use super::ext9_softmax::{define_and_walk, math_redex};
use super::rev01_unit_marker::skip;
use crate::config::{KItem, MathStep, Wait};
use crate::errors::ErrorKind;
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::TensorMath;
use crate::term::{Ints, Node, Term};

const SECTION: Section = Section::Extensions;

fn is_reduction(f: TensorMath) -> bool {
    f.patch() == "Ext-10"
}

/// `rule <k> let X:Id = R(Y:Id, As) in E => defineTensor(X, reduceShape(SH[Y], As)) ~> RHelper(Y, X, As, 0 ... size(reduceShape(SH[Y], As)), SH[Y]) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[X <- reduceShape(SH[Y], As)] </shape>
///       requires Y in_keys(SH) andBool X =/=K Y andBool validAxes(As, size(SH[Y]))`
pub static LET_REDUCE: Rule = Rule::top(
    SECTION,
    "ext-let-reduce",
    "Ext-10",
    "Ext-10",
    "rule <k> let X:Id = R(Y:Id, As) in E => defineTensor(X, reduceShape(SH[Y], As)) ~> RHelper(Y, X, As, 0 ... size(reduceShape(SH[Y], As)), SH[Y]) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- reduceShape(SH[Y], As)] </shape> requires Y in_keys(SH) andBool X =/=K Y andBool validAxes(As, size(SH[Y]))   // R in reduceSum, reduceMean, reduceMax, reduceMin",
    &[Head::LetFunc],
    let_reduce,
);

fn axes_of(axes: &Option<Ints>) -> &[i64] {
    axes.as_ref().map_or(&[], |a| a.as_slice())
}

fn let_reduce(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = math_redex(r, is_reduction) else { return false };
    let axes = axes_of(&redex.axes);
    if !valid_axes(axes, redex.shape.len()) {
        return false;
    }
    let os = reduced_shape(redex.shape.as_slice(), axes);
    let to = count(&os);
    let os = Ints::new(&os).expect("a reduced shape has an axis");
    define_and_walk(r, redex, os, to);
    true
}

/// `rule <k> let X:Id = R(Y:Id, As) in _ => knnError("invalid attribute") ...</k> <shape> SH </shape>
///       requires Y in_keys(SH) andBool X =/=K Y andBool notBool validAxes(As, size(SH[Y]))`
pub static REDUCE_INVALID_AXES: Rule = Rule::top(
    SECTION,
    "ext-reduce-invalid-axes",
    "Ext-10",
    "Ext-10",
    "rule <k> let X:Id = R(Y:Id, As) in _ => knnError(\"invalid attribute\") ...</k> <shape> SH </shape> requires Y in_keys(SH) andBool X =/=K Y andBool notBool validAxes(As, size(SH[Y]))   // R in reduceSum, reduceMean, reduceMax, reduceMin",
    &[Head::LetFunc],
    reduce_invalid_axes,
);

fn reduce_invalid_axes(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = math_redex(r, is_reduction) else { return false };
    let axes = axes_of(&redex.axes);
    if valid_axes(axes, redex.shape.len()) {
        return false;
    }
    let detail = axes_detail(redex.f.keyword(), redex.y.as_str(), redex.shape.as_slice(), axes);
    r.cfg.replace_top_term(Term::error(ErrorKind::InvalidAttribute, detail, redex.call));
    true
}

/// `rule <k> RHelper(Y, X, As, K ... N, Is) => let X[rowMajor(K, reduceShape(Is, As))] = reduced(R, Y, group(K, Is, As)) in #skip ~> RHelper(Y, X, As, (K +Int 1) ... N, Is) ...</k> requires K <Int N`
/// with `reduced` the sum `0.0 + Y[J1] + …`, the mean `poolMean(0.0 + Y[J1] + …, size(group))`,
/// the max `max(… max(-Infinity, Y[J1]) …)` or the min `min(… min(Infinity, Y[J1]) …)`.
pub static REDUCE_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-reduce-helper-step",
    "Ext-10",
    "Ext-10",
    "rule <k> RHelper(Y, X, As, K ... N, Is) => let X[rowMajor(K, reduceShape(Is, As))] = reduced(R, Y, group(K, Is, As)) in #skip ~> RHelper(Y, X, As, (K +Int 1) ... N, Is) ...</k> requires K <Int N   // reduced: reduceSum 0.0 + Y[J1] + …; reduceMean poolMean(0.0 + Y[J1] + …, size(group)); reduceMax max(… max(-Infinity, Y[J1]) …); reduceMin min(… min(Infinity, Y[J1]) …)",
    &[Head::TensorMath],
    reduce_helper_step,
);

fn reduce_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(KItem::TensorMath(step)) = r.cfg.top() else { return false };
    let Wait::Helper { from, to } = step.wait else { return false };
    if !is_reduction(step.f) || !lt(from, to) {
        return false;
    }
    let step = (**step).clone();
    let span = step.span;
    let axes = axes_of(&step.axes);
    let group = group_indices(step.dims.as_slice(), axes, from);
    let n = group.len() as i64;
    let mut value = Term::float(
        match step.f {
            TensorMath::ReduceMax => f64::NEG_INFINITY,
            TensorMath::ReduceMin => f64::INFINITY,
            _ => 0.0,
        },
        span,
    );
    for index in group {
        let element = r.index(Term::id(&step.y, span), Ints::new(&index).expect("an index of every axis"), span);
        value = Term::new(
            match step.f {
                TensorMath::ReduceMax => Node::Max(value, element),
                TensorMath::ReduceMin => Node::Min(value, element),
                _ => Node::Add(value, element),
            },
            span,
        );
    }
    if step.f == TensorMath::ReduceMean {
        value = Term::new(Node::PoolMean { sum: value, count: n }, span);
    }
    let os = Ints::new(&reduced_shape(step.dims.as_slice(), axes)).expect("a reduced shape has an axis");
    let target = r.index(Term::id(&step.x, span), row_major(from, &os), span);
    let write = Term::new(Node::Let { target, value, body: skip(span) }, span);
    let next = MathStep { wait: Wait::Helper { from: from + 1, to }, ..step };
    r.cfg.replace_top([KItem::Term(write), KItem::TensorMath(Box::new(next))]);
    true
}

/// `rule <k> RHelper(_, _, _, N ... N, _) => . ...</k>`
pub static REDUCE_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-reduce-helper-done",
    "Ext-10",
    "Ext-10",
    "rule <k> RHelper(_, _, _, N ... N, _) => . ...</k>   // R in reduceSum, reduceMean, reduceMax, reduceMin",
    &[Head::TensorMath],
    reduce_helper_done,
);

fn reduce_helper_done(r: &mut Rewrite<'_>) -> bool {
    match r.cfg.top() {
        Some(KItem::TensorMath(step)) if is_reduction(step.f) && step.wait_done() => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    }
}

pub static PATCH: Patch = Patch {
    name: "Ext-10",
    title: "reduceSum(Y, As), reduceMean(Y, As), reduceMax(Y, As), reduceMin(Y, As)",
    reason: "sums, means and extremes along axes took one element let each; CuPit's REDUCTION and ONNX's ReduceSum, ReduceMean, ReduceMax and ReduceMin compute them",
    removes: &[],
    adds: &[&LET_REDUCE, &REDUCE_INVALID_AXES, &REDUCE_HELPER_STEP, &REDUCE_HELPER_DONE],
};
