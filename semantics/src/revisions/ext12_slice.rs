//! Ext-12: `slice(X, A, B, E)` and `slice(X, A, B, E, S)`, a fresh tensor with the elements of
//! `X` whose index along the axis `A` is `B, B + S, …` below `E` (`S` 1 when not written):
//! NumPy's `x[..., B:E:S, ...]`, ONNX's `Slice` on one axis, CNTK's `Slice`. What a network that
//! splits a tensor into parts (a gated unit's halves, an LSTM's gates) or drops a border needs.
//!
//! ```k
//! syntax Func  ::= "slice" "(" Exp "," Ints ")"   // A, B, E or A, B, E, S
//! syntax KItem ::= sliceHelper(Id, Id, Int, Int, Int, Int, Int, Ints)   // printed `X, Y, A, B, S, K ... N, Os`
//! // sliceShape(Is, A, B, E, S): Is with (E -Int B +Int S -Int 1) /Int S at A;
//! // validSlice(Is, A, B, E, S): 0 <=Int A <Int size(Is), S >=Int 1, 0 <=Int B <=Int E <=Int Is[A].
//! ```
//!
//! The choices:
//!
//! * **A function bound by `let`, its operand a name** diagnosed by `rev-let-func-error`
//!   (`unknown-tensor`, `unbound-identifier`, `aliased-output`), then three or four unsigned Int
//!   literals: the axis, the start, the end (excluded) and the step.
//! * **No clamping, no negative indices**: the axis must be below the rank, the step at least
//!   1, and `0 <= B <= E <= SH[X][A]`, else `invalid-attribute` (`ext-slice-invalid-attribute`).
//!   ONNX clamps its ends and counts negative ones from the back; the importer resolves both
//!   into these before writing the program, so a K-NN program says exactly which elements it
//!   takes. `B = E` is allowed: an extent of 0.
//! * **A copy in the result's row-major order**, as `transpose`'s (Ext-6): element `K` of the
//!   result, at `I = rowMajor(K, Os)`, is written by an element `let` from `X`'s element at `I`
//!   with `I[A]` replaced by `B + I[A] * S`, read through the indexing rules (Rev-5): Floats and
//!   Ints as they are, a row overwritten by a scalar `too-many-indices` when it is read.
//! * **The revised profile only**: `slice` is an identifier under the K grammar.

use super::Patch;
use super::axes::{count, valid_axis};
use super::ext1_add_tensor::row_major;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::config::{KItem, MapKey};
use crate::errors::{ErrorKind, shape_text};
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::Span;
use crate::term::{FuncTerm, Ints, Node, Sym, Term};

const SECTION: Section = Section::Extensions;

/// A slice's attributes: `ints` as written, `A, B, E` or `A, B, E, S`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceAttrs {
    pub axis: i64,
    pub begin: i64,
    pub end: i64,
    pub step: i64,
}

impl SliceAttrs {
    /// The attributes as written (the parser gives three or four).
    pub fn of(ints: &[i64]) -> Option<SliceAttrs> {
        match *ints {
            [axis, begin, end] => Some(SliceAttrs { axis, begin, end, step: 1 }),
            [axis, begin, end, step] => Some(SliceAttrs { axis, begin, end, step }),
            _ => None,
        }
    }
}

/// `sliceShape(SH[X], A, B, E, S)` when `validSlice` holds, else the detail of
/// `ext-slice-invalid-attribute`, shared with the big-step engine.
pub fn slice_shape(x: &str, shape: &[i64], ints: &[i64]) -> Result<Vec<i64>, String> {
    let written: Vec<String> = ints.iter().map(i64::to_string).collect();
    let call = format!("slice({x}, {})", written.join(", "));
    let Some(SliceAttrs { axis, begin, end, step }) = SliceAttrs::of(ints) else {
        return Err(format!("{call}: a slice takes an axis, a start, an end and an optional step"));
    };
    if !valid_axis(axis, shape.len()) {
        let last = shape.len() as i64 - 1;
        return Err(format!(
            "{call}: {x} has shape {} and {} axes; the axis must be one of 0 … {last}",
            shape_text(shape),
            shape.len()
        ));
    }
    let extent = shape[axis as usize];
    if step < 1 {
        return Err(format!("{call}: the step must be at least 1"));
    }
    if !(0 <= begin && begin <= end && end <= extent) {
        return Err(format!(
            "{call}: {x} has {extent} along axis {axis}; the start and the end must satisfy 0 ≤ start ≤ end ≤ {extent}"
        ));
    }
    let mut result = shape.to_vec();
    // `(E - B + S - 1) / S`, written so that no step overflows it.
    result[axis as usize] = if end == begin { 0 } else { (end - begin - 1) / step + 1 };
    Ok(result)
}

/// The index in `X` of the result's element at `index`: `index[A]` is `B + index[A] * S`.
pub fn slice_source(index: &[i64], attrs: SliceAttrs) -> Vec<i64> {
    let mut source = index.to_vec();
    let a = attrs.axis as usize;
    source[a] = attrs.begin + index[a] * attrs.step;
    source
}

/// The left-hand side `let Y:Id = slice(X:Id, Ints) in E`, `X` a name with a shape, not `Y`.
struct Redex {
    y: Sym,
    x: Sym,
    ints: Ints,
    shape: Ints,
    body: Term,
    call: Span,
}

fn slice_redex(r: &Rewrite<'_>) -> Option<Redex> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::Slice { x, ints }, body, func_span } = top.node() else {
        return None;
    };
    let (y, x) = (target.as_id()?, x.as_id()?);
    if y == x {
        return None;
    }
    let shape = r.cfg.shape_of(x)?.clone();
    Some(Redex { y: y.clone(), x: x.clone(), ints: ints.clone(), shape, body: body.clone(), call: *func_span })
}

/// `rule <k> let Y:Id = slice(X:Id, A, B, E, S) in E' => defineTensor(Y, sliceShape(SH[X], A, B, E, S)) ~> sliceHelper(X, Y, A, B, S, 0 ... size(sliceShape(SH[X], A, B, E, S)), sliceShape(SH[X], A, B, E, S)) ~> E' ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[Y <- sliceShape(SH[X], A, B, E, S)] </shape>
///       requires X in_keys(SH) andBool X =/=K Y andBool validSlice(SH[X], A, B, E, S)`
pub static LET_SLICE: Rule = Rule::top(
    SECTION,
    "ext-let-slice",
    "Ext-12",
    "Ext-12",
    "rule <k> let Y:Id = slice(X:Id, A, B, E, S) in E' => defineTensor(Y, sliceShape(SH[X], A, B, E, S)) ~> sliceHelper(X, Y, A, B, S, 0 ... size(sliceShape(SH[X], A, B, E, S)), sliceShape(SH[X], A, B, E, S)) ~> E' ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- sliceShape(SH[X], A, B, E, S)] </shape> requires X in_keys(SH) andBool X =/=K Y andBool validSlice(SH[X], A, B, E, S)   // slice(X, A, B, E) is slice(X, A, B, E, 1)",
    &[Head::LetFunc],
    let_slice,
);

fn let_slice(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = slice_redex(r) else { return false };
    let Ok(os) = slice_shape(redex.x.as_str(), redex.shape.as_slice(), redex.ints.as_slice()) else { return false };
    let attrs = SliceAttrs::of(redex.ints.as_slice()).expect("a valid slice has its attributes");
    let span = r.top().map(Term::span).unwrap_or_default();
    let Redex { y, x, body, .. } = redex;
    let to = count(&os);
    let os = Ints::new(&os).expect("the operand's rank, at least 1");
    let define = Term::new(Node::DefineTensor { x: Term::id(&y, span), ints: os.clone() }, span);
    let helper = Node::SliceHelper {
        x,
        y: y.clone(),
        axis: attrs.axis,
        begin: attrs.begin,
        step: attrs.step,
        from: 0,
        to,
        dims: os.clone(),
    };
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&y), os);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(Term::new(helper, span)), KItem::Term(body), scope]);
    true
}

/// `rule <k> let Y:Id = slice(X:Id, Is) in _ => knnError("invalid attribute") ...</k> <shape> SH </shape>
///       requires X in_keys(SH) andBool X =/=K Y andBool notBool validSlice(SH[X], Is)`
pub static SLICE_INVALID_ATTRIBUTE: Rule = Rule::top(
    SECTION,
    "ext-slice-invalid-attribute",
    "Ext-12",
    "Ext-12",
    "rule <k> let Y:Id = slice(X:Id, Is) in _ => knnError(\"invalid attribute\") ...</k> <shape> SH </shape> requires X in_keys(SH) andBool X =/=K Y andBool notBool validSlice(SH[X], Is)",
    &[Head::LetFunc],
    slice_invalid_attribute,
);

fn slice_invalid_attribute(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = slice_redex(r) else { return false };
    let Err(detail) = slice_shape(redex.x.as_str(), redex.shape.as_slice(), redex.ints.as_slice()) else {
        return false;
    };
    r.cfg.replace_top_term(Term::error(ErrorKind::InvalidAttribute, detail, redex.call));
    true
}

/// `rule <k> sliceHelper(X, Y, A, B, S, K ... N, Os) => let Y[rowMajor(K, Os)] = X[rowMajor(K, Os)[A <- B +Int rowMajor(K, Os)[A] *Int S]] in #skip ~> sliceHelper(X, Y, A, B, S, (K +Int 1) ... N, Os) ...</k> requires K <Int N`
pub static SLICE_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-slice-helper-step",
    "Ext-12",
    "Ext-12",
    "rule <k> sliceHelper(X, Y, A, B, S, K ... N, Os) => let Y[rowMajor(K, Os)] = X[rowMajor(K, Os)[A <- B +Int rowMajor(K, Os)[A] *Int S]] in #skip ~> sliceHelper(X, Y, A, B, S, (K +Int 1) ... N, Os) ...</k> requires K <Int N",
    &[Head::SliceHelper],
    slice_helper_step,
);

fn slice_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::SliceHelper { x, y, axis, begin, step, from, to, dims } = top.node() else { return false };
    if !lt(*from, *to) {
        return false;
    }
    let span = top.span();
    let (x, y, dims) = (x.clone(), y.clone(), dims.clone());
    let attrs = SliceAttrs { axis: *axis, begin: *begin, end: 0, step: *step };
    let (from, to) = (*from, *to);
    let at = row_major(from, &dims);
    let source_index = Ints::new(&slice_source(at.as_slice(), attrs)).expect("an index of every axis");
    let source = r.index(Term::id(&x, span), source_index, span);
    let target = r.index(Term::id(&y, span), at, span);
    let write = Term::new(Node::Let { target, value: source, body: skip(span) }, span);
    let (axis, begin, step) = (attrs.axis, attrs.begin, attrs.step);
    let next = Term::new(Node::SliceHelper { x, y, axis, begin, step, from: from + 1, to, dims }, span);
    r.cfg.replace_top([KItem::Term(write), KItem::Term(next)]);
    true
}

/// `rule <k> sliceHelper(_, _, _, _, _, N ... N, _) => . ...</k>`
pub static SLICE_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-slice-helper-done",
    "Ext-12",
    "Ext-12",
    "rule <k> sliceHelper(_, _, _, _, _, N ... N, _) => . ...</k>",
    &[Head::SliceHelper],
    slice_helper_done,
);

fn slice_helper_done(r: &mut Rewrite<'_>) -> bool {
    match r.top_node() {
        Some(Node::SliceHelper { from, to, .. }) if from == to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    }
}

pub static PATCH: Patch = Patch {
    name: "Ext-12",
    title: "slice(X, A, B, E) and slice(X, A, B, E, S)",
    reason: "a network that splits a tensor into parts or drops a border takes a range of one axis; CNTK's Slice and ONNX's Slice do it",
    removes: &[],
    adds: &[&LET_SLICE, &SLICE_INVALID_ATTRIBUTE, &SLICE_HELPER_STEP, &SLICE_HELPER_DONE],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extent_counts_every_step_from_the_start_below_the_end() {
        assert_eq!(slice_shape("x", &[2, 5], &[1, 1, 4]), Ok(vec![2, 3]));
        // 0, 2, 4 of 0 … 4: ceil(5 / 2) = 3; 1, 3 of 1 … 4: ceil(4 / 2) = 2.
        assert_eq!(slice_shape("x", &[5], &[0, 0, 5, 2]), Ok(vec![3]));
        assert_eq!(slice_shape("x", &[5], &[0, 1, 5, 2]), Ok(vec![2]));
        assert_eq!(slice_shape("x", &[5], &[0, 3, 3]), Ok(vec![0]), "an empty range");
        assert!(slice_shape("x", &[5], &[1, 0, 1]).is_err(), "an axis out of range");
        assert!(slice_shape("x", &[5], &[0, 0, 5, 0]).is_err(), "a step of 0");
        assert!(slice_shape("x", &[5], &[0, 0, 6]).is_err(), "an end past the extent");
        assert!(slice_shape("x", &[5], &[0, 3, 2]).is_err(), "a start past the end");
        assert!(slice_shape("x", &[5], &[0, 3]).is_err(), "too few attributes");
    }

    #[test]
    fn each_element_comes_from_the_start_plus_its_index_times_the_step() {
        let attrs = SliceAttrs { axis: 1, begin: 1, end: 5, step: 2 };
        assert_eq!(slice_source(&[1, 0], attrs), [1, 1]);
        assert_eq!(slice_source(&[1, 1], attrs), [1, 3]);
    }
}
