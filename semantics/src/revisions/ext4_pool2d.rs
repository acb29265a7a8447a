//! Ext-4: `maxPool2d(X, kernel = [KH, KW], …)` and `avgPool2d(X, kernel = [KH, KW], …)`, the
//! 2-D pools of a `C×H×Wd` input into a `C×OH×OW` result, each channel on its own: the layers
//! convolutional networks shrink their feature maps with. CNTK's BrainScript has them as
//! `MaxPooling(x, window, stride=…)` and `AveragePooling(…)`; ONNX as `MaxPool` and
//! `AveragePool`, whose attribute names (`kernel_shape` shortened to `kernel`, `strides`,
//! `pads`, `dilations`, `count_include_pad` as `countPad`) K-NN takes.
//!
//! ```k
//! syntax Func  ::= "maxPool2d" "(" Exp "," Attrs ")" | "avgPool2d" "(" Exp "," Attrs ")"
//! syntax Attr  ::= ... | "kernel" "=" "[" Int "," Int "]" | "countPad" "=" Int
//! syntax KItem ::= maxPool2dHelper(Id, Id, Attrs, Int, Int, Ints)   // printed `K ... N, Os`
//!                | avgPool2dHelper(Id, Id, Attrs, Int, Int, Ints)
//! syntax Exp   ::= poolMean(Exp, Int) [strict(1)]
//! syntax Exp   ::= poolMax(Id, Attrs, Ints, Ints) | poolSum(Id, Attrs, Ints, Ints) [function]
//! // poolMax(X, As, SH[X], (O, I, J)) = max(… max(max(-Infinity, X[O, r1, s1]), X[O, r2, s2]) …)
//! // poolSum(X, As, SH[X], (O, I, J)) = 0.0 + X[O, r1, s1] + X[O, r2, s2] + …
//! // over the window's taps (KI, KJ) in row-major order that are not padding positions, with
//! // r = I *Int SH -Int TOP +Int KI *Int DH and s = J *Int SW -Int LEFT +Int KJ *Int DW.
//! // poolCount(As, SH[X], (I, J)) is KH *Int KW if countPad = 1, else the number of those taps.
//! // poolShape and validAttrs: `window.rs`.
//! ```
//!
//! The choices:
//!
//! * **As `conv2d`** (Ext-3): a function bound by `let`; its operand a name, diagnosed by
//!   `rev-let-func-error`; the attributes Int literals after it (`kernel` required by the
//!   grammar; `strides`, `pads`, and `dilations` for `maxPool2d`, `countPad` for `avgPool2d`),
//!   errors in the order operand, `invalid-attribute` (a kernel, stride or dilation of 0, a
//!   `countPad` other than 0 and 1), `shape-mismatch` (rank ≠ 3, a window larger than the
//!   padded input); a fresh result written in row-major order.
//! * **Padding is no value**: a padding tap is skipped (ONNX pads a max pool with `-∞` and
//!   leaves padding out of an average unless `count_include_pad`).
//! * **Max: the scalar `max` from `-Infinity`**, over the taps in row-major window order
//!   (`max-right` when the accumulator is `<Float` the element, `max-left` otherwise). So a
//!   window wholly in padding is `-Infinity`; on a tie the earlier element stays (`max(-0.0,
//!   0.0)` is `-0.0`); `+Infinity` wins; a NaN element, or an Int element (no rule computes
//!   `max` with an Int), is `invalid-operands` (`rev-arith-invalid`), as `max` is everywhere.
//! * **Average: the scalar `+` from `0.0`, then `/Float` by the count**: the sum in row-major
//!   window order through Rev-10/11's `+` (an Int element widened, a tensor header
//!   `invalid-operands`), so the sum is a Float; `poolMean(F, N) => F /Float Int2Float(N)`,
//!   IEEE binary64 division. A window with no tap inside the input and `countPad = 0` divides
//!   `0.0` by `0`: `NaN`, as IEEE says, not an error (as a sum of NaNs is NaN).

use super::Patch;
use super::ext1_add_tensor::row_major;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::config::{Context, KItem, MapKey};
use crate::errors::ErrorKind;
use crate::rules::{Class, Head, Rewrite, Rule, RuleKind, Section, lt, strictness};
use crate::syntax::{Attrs, Pool, Span};
use crate::term::{FuncTerm, Ints, Node, Pool2dHelper, Sym, Term};
use crate::window::{Pool2dGeometry, WindowAttrs};

const SECTION: Section = Section::Extensions;

/// The left-hand side `let Y:Id = P(X:Id, As) in E`, `X` a name with a shape, not `Y`.
struct Redex {
    pool: Pool,
    y: Sym,
    x: Sym,
    attrs: Attrs,
    shape: Ints,
    body: Term,
    call: Span,
}

fn pool_redex(r: &Rewrite<'_>) -> Option<Redex> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::Pool2d { pool, x, attrs }, body, func_span } = top.node() else {
        return None;
    };
    let (y, x) = (target.as_id()?, x.as_id()?);
    if y == x {
        return None;
    }
    let shape = r.cfg.shape_of(x)?.clone();
    Some(Redex {
        pool: *pool,
        y: y.clone(),
        x: x.clone(),
        attrs: attrs.clone(),
        shape,
        body: body.clone(),
        call: *func_span,
    })
}

impl Redex {
    fn invalid(&self) -> Option<String> {
        WindowAttrs::of(&self.attrs).invalid(self.pool.keyword())
    }

    fn geometry(&self) -> Result<Pool2dGeometry, String> {
        Pool2dGeometry::check(self.pool.keyword(), self.x.as_str(), self.shape.as_slice(), WindowAttrs::of(&self.attrs))
    }
}

/// `rule <k> let Y:Id = P(X:Id, As) in E => defineTensor(Y, poolShape(SH[X], As)) ~> PHelper(X, Y, As, 0 ... size(poolShape(SH[X], As)), poolShape(SH[X], As)) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[Y <- poolShape(SH[X], As)] </shape>
///       requires X in_keys(SH) andBool X =/=K Y andBool validAttrs(As) andBool poolShapeOk(SH[X], As)`
/// for `P` in `maxPool2d`, `avgPool2d`.
pub static LET_POOL2D: Rule = Rule::top(
    SECTION,
    "ext-let-pool2d",
    "Ext-4",
    "Ext-4",
    "rule <k> let Y:Id = P(X:Id, As) in E => defineTensor(Y, poolShape(SH[X], As)) ~> PHelper(X, Y, As, 0 ... size(poolShape(SH[X], As)), poolShape(SH[X], As)) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- poolShape(SH[X], As)] </shape> requires X in_keys(SH) andBool X =/=K Y andBool validAttrs(As) andBool poolShapeOk(SH[X], As)   // P in maxPool2d, avgPool2d",
    &[Head::LetFunc],
    let_pool2d,
);

fn let_pool2d(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = pool_redex(r) else { return false };
    if redex.invalid().is_some() {
        return false;
    }
    let Ok(geometry) = redex.geometry() else { return false };
    let Some(os) = Ints::new(&geometry.output) else { return false };
    let span = r.top().map(Term::span).unwrap_or_default();
    let Redex { pool, y, x, attrs, body, .. } = redex;
    let define = Term::new(Node::DefineTensor { x: Term::id(&y, span), ints: os.clone() }, span);
    let to = geometry.output.iter().fold(1i64, |n, &d| n.saturating_mul(d));
    let helper = Pool2dHelper { pool, x, y: y.clone(), attrs, from: 0, to, dims: os.clone() };
    let helper = Term::new(Node::Pool2dHelper(Box::new(helper)), span);
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&y), os);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(body), scope]);
    true
}

/// `rule <k> let Y:Id = P(X:Id, As) in _ => knnError("invalid attribute") ...</k>
///       requires X in_keys(SH) andBool X =/=K Y andBool notBool validAttrs(As)`
pub static POOL2D_INVALID_ATTRIBUTE: Rule = Rule::top(
    SECTION,
    "ext-pool2d-invalid-attribute",
    "Ext-4",
    "Ext-4",
    "rule <k> let Y:Id = P(X:Id, As) in _ => knnError(\"invalid attribute\") ...</k> requires X in_keys(SH) andBool X =/=K Y andBool notBool validAttrs(As)   // P in maxPool2d, avgPool2d",
    &[Head::LetFunc],
    pool2d_invalid_attribute,
);

fn pool2d_invalid_attribute(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = pool_redex(r) else { return false };
    let Some(detail) = redex.invalid() else { return false };
    r.cfg.replace_top_term(Term::error(ErrorKind::InvalidAttribute, detail, redex.call));
    true
}

/// `rule <k> let Y:Id = P(X:Id, As) in _ => knnError("shape mismatch") ...</k> <shape> SH </shape>
///       requires X in_keys(SH) andBool X =/=K Y andBool validAttrs(As) andBool notBool poolShapeOk(SH[X], As)`
pub static POOL2D_SHAPE_MISMATCH: Rule = Rule::top(
    SECTION,
    "ext-pool2d-shape-mismatch",
    "Ext-4",
    "Ext-4",
    "rule <k> let Y:Id = P(X:Id, As) in _ => knnError(\"shape mismatch\") ...</k> <shape> SH </shape> requires X in_keys(SH) andBool X =/=K Y andBool validAttrs(As) andBool notBool poolShapeOk(SH[X], As)   // P in maxPool2d, avgPool2d",
    &[Head::LetFunc],
    pool2d_shape_mismatch,
);

fn pool2d_shape_mismatch(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = pool_redex(r) else { return false };
    if redex.invalid().is_some() {
        return false;
    }
    let Err(detail) = redex.geometry() else { return false };
    r.cfg.replace_top_term(Term::error(ErrorKind::ShapeMismatch, detail, redex.call));
    true
}

/// `rule <k> maxPool2dHelper(X, Y, As, K ... N, Os) => let Y[rowMajor(K, Os)] = poolMax(X, As, SH[X], rowMajor(K, Os)) in #skip ~> maxPool2dHelper(X, Y, As, (K +Int 1) ... N, Os) ...</k>
///       <shape> SH </shape> requires K <Int N`
pub static MAX_POOL2D_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-max-pool2d-helper-step",
    "Ext-4",
    "Ext-4",
    "rule <k> maxPool2dHelper(X, Y, As, K ... N, Os) => let Y[rowMajor(K, Os)] = poolMax(X, As, SH[X], rowMajor(K, Os)) in #skip ~> maxPool2dHelper(X, Y, As, (K +Int 1) ... N, Os) ...</k> <shape> SH </shape> requires K <Int N",
    &[Head::Pool2dHelper],
    |r| pool2d_helper_step(r, Pool::Max),
);

/// `rule <k> avgPool2dHelper(X, Y, As, K ... N, Os) => let Y[rowMajor(K, Os)] = poolMean(poolSum(X, As, SH[X], rowMajor(K, Os)), poolCount(As, SH[X], rowMajor(K, Os))) in #skip ~> avgPool2dHelper(X, Y, As, (K +Int 1) ... N, Os) ...</k>
///       <shape> SH </shape> requires K <Int N`
pub static AVG_POOL2D_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-avg-pool2d-helper-step",
    "Ext-4",
    "Ext-4",
    "rule <k> avgPool2dHelper(X, Y, As, K ... N, Os) => let Y[rowMajor(K, Os)] = poolMean(poolSum(X, As, SH[X], rowMajor(K, Os)), poolCount(As, SH[X], rowMajor(K, Os))) in #skip ~> avgPool2dHelper(X, Y, As, (K +Int 1) ... N, Os) ...</k> <shape> SH </shape> requires K <Int N",
    &[Head::Pool2dHelper],
    |r| pool2d_helper_step(r, Pool::Avg),
);

fn pool2d_helper_step(r: &mut Rewrite<'_>, pool: Pool) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Pool2dHelper(helper) = top.node() else { return false };
    if helper.pool != pool || !lt(helper.from, helper.to) {
        return false;
    }
    let (helper, span) = ((**helper).clone(), top.span());
    // `<shape>` still has `X`: the helper runs before the body, and `Y` is not `X`.
    let Some(xs) = r.cfg.shape_of(&helper.x) else { return false };
    let attrs = WindowAttrs::of(&helper.attrs);
    let Ok(g) = Pool2dGeometry::check(pool.keyword(), helper.x.as_str(), xs.as_slice(), attrs) else { return false };
    let index = row_major(helper.from, &helper.dims);
    let &[o, i, j] = index.as_slice() else { return false };
    let (start, count) = match pool {
        Pool::Max => (Term::float(f64::NEG_INFINITY, span), None),
        Pool::Avg => (Term::float(0.0, span), Some(g.count(i, j))),
    };
    let mut value = start;
    for (row, col) in g.taps(i, j).flatten() {
        let at = Ints::new(&[o, row, col]).expect("three indices");
        let element = r.index(Term::id(&helper.x, span), at, span);
        value = Term::new(if pool == Pool::Max { Node::Max(value, element) } else { Node::Add(value, element) }, span);
    }
    if let Some(count) = count {
        value = Term::new(Node::PoolMean { sum: value, count }, span);
    }
    let target = r.index(Term::id(&helper.y, span), index, span);
    let write = Term::new(Node::Let { target, value, body: skip(span) }, span);
    let next = Pool2dHelper { from: helper.from + 1, ..helper };
    r.cfg.replace_top([KItem::Term(write), KItem::Term(Term::new(Node::Pool2dHelper(Box::new(next)), span))]);
    true
}

/// `rule <k> PHelper(_, _, _, N ... N, _) => . ...</k>` for `P` in `maxPool2d`, `avgPool2d`
pub static POOL2D_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-pool2d-helper-done",
    "Ext-4",
    "Ext-4",
    "rule <k> PHelper(_, _, _, N ... N, _) => . ...</k>   // P in maxPool2d, avgPool2d",
    &[Head::Pool2dHelper],
    pool2d_helper_done,
);

fn pool2d_helper_done(r: &mut Rewrite<'_>) -> bool {
    match r.top_node() {
        Some(Node::Pool2dHelper(h)) if h.from == h.to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    }
}

/// `rule <k> poolMean(HOLE, N) => HOLE ~> poolMean(□, N) ...</k> requires notBool isKResult(HOLE) [heat]`
/// — `strict(1)`.
pub static HEAT_POOL_MEAN: Rule = Rule::top(
    Section::Strictness,
    "ext-heat-pool-mean",
    "Ext-4",
    "Ext-4",
    "rule <k> poolMean(HOLE, N) => HOLE ~> poolMean(□, N) ...</k> requires notBool isKResult(HOLE) [heat]",
    &[Head::PoolMean],
    |r| {
        strictness::heat(r, |n| match n {
            Node::PoolMean { sum, count } => Some((sum.clone(), Context::PoolMean(*count))),
            _ => None,
        })
    },
)
.with_kind(RuleKind::Heat);

/// `rule <k> HOLE ~> poolMean(□, N) => poolMean(HOLE, N) ...</k> requires isKResult(HOLE) [cool]`
pub static COOL_POOL_MEAN: Rule = Rule::top(
    Section::Strictness,
    "ext-cool-pool-mean",
    "Ext-4",
    "Ext-4",
    "rule <k> HOLE ~> poolMean(□, N) => poolMean(HOLE, N) ...</k> requires isKResult(HOLE) [cool]",
    Head::VALUES,
    |r| strictness::cool(r, |c| matches!(c, Context::PoolMean(_))),
)
.with_kind(RuleKind::Cool)
.with_class(Class::Cool);

/// `rule poolMean(F:Float, N:Int) => F /Float Int2Float(N, 53, 11)`
pub static POOL_MEAN: Rule = Rule::top(
    SECTION,
    "ext-pool-mean",
    "Ext-4",
    "Ext-4",
    "rule poolMean(F:Float, N:Int) => F /Float Int2Float(N, 53, 11)",
    &[Head::PoolMean],
    pool_mean,
);

fn pool_mean(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::PoolMean { sum, count } = top.node() else { return false };
    let Some(f) = sum.as_float() else { return false };
    let mean = Term::float(f / *count as f64, top.span());
    r.cfg.replace_top_term(mean);
    true
}

pub static PATCH: Patch = Patch {
    name: "Ext-4",
    title: "2-D pooling: maxPool2d(X, kernel, strides, pads, dilations), avgPool2d(X, kernel, strides, pads, countPad)",
    reason: "convolutional networks could not shrink their feature maps; CNTK's MaxPooling and AveragePooling and ONNX's MaxPool and AveragePool compute them",
    removes: &[],
    adds: &[
        &LET_POOL2D,
        &POOL2D_INVALID_ATTRIBUTE,
        &POOL2D_SHAPE_MISMATCH,
        &MAX_POOL2D_HELPER_STEP,
        &AVG_POOL2D_HELPER_STEP,
        &POOL2D_HELPER_DONE,
        &HEAT_POOL_MEAN,
        &COOL_POOL_MEAN,
        &POOL_MEAN,
    ],
};
