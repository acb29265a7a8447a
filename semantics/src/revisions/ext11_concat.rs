//! Ext-11: `concat(X1, …, Xn, A)`, a fresh tensor with the operands one after another along the
//! axis `A`: what a network that joins two branches (an Inception block, a U-Net's skip
//! connection) or a feature vector and a constant needs. CNTK's BrainScript has `Splice`, ONNX
//! `Concat`.
//!
//! ```k
//! syntax Func  ::= "concat" "(" Exps "," Int ")"
//! syntax KItem ::= concatHelper(Ids, Id, Int, Int, Int, Ints)   // printed `(Xs), Y, A, K ... N, Os`
//! // concatShape(SH, Xs, A): SH[X1] with the sum of the SH[Xi][A] at A;
//! // sameExcept(SH, Xs, A): every SH[Xi] has SH[X1]'s rank and its extents but at A;
//! // concatSource(SH, Xs, A, I): Xj[I with I[A] -Int Oj] for the j with Oj <=Int I[A] <Int
//! //   Oj +Int SH[Xj][A], Oj the sum of SH[Xi][A] for i < j.
//! ```
//!
//! The choices:
//!
//! * **A function bound by `let`, its operands names** diagnosed left to right by
//!   `rev-let-func-error` (`unknown-tensor`, `unbound-identifier`, `aliased-output`), one or
//!   more, then the axis, an Int literal as `softmax`'s (Ext-9): unsigned, so there are no
//!   negative axes (the importer turns ONNX's into these). The parser takes an Int literal
//!   followed by `)` as the axis; every other expression is an operand.
//! * **The axis must be below the first operand's rank**, else `invalid-attribute`
//!   (`ext-concat-invalid-axis`); then **every operand must have the first one's rank and
//!   extents except along the axis**, else `shape-mismatch` (`ext-concat-shape-mismatch`). An
//!   extent of 0 is allowed (the operand adds no element).
//! * **A copy in the result's row-major order**, as `transpose`'s (Ext-6): element `K` of the
//!   result, at `I = rowMajor(K, Os)`, is written by an element `let` from the operand whose
//!   run along the axis holds `I[A]`, at `I` with `I[A]` less the extents before it, read
//!   through the indexing rules (Rev-5). Float and Int elements are copied as they are; a row
//!   overwritten by a scalar is `too-many-indices` when it is read. The operands are unchanged,
//!   and one tensor may be given twice.
//! * **The revised profile only**: `concat` is an identifier under the K grammar.

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

/// Why a `concat` has no result, with the detail both engines give.
#[derive(Debug, PartialEq, Eq)]
pub enum ConcatFault {
    /// `ext-concat-invalid-axis`.
    InvalidAxis(String),
    /// `ext-concat-shape-mismatch`.
    ShapeMismatch(String),
}

impl ConcatFault {
    pub fn kind(&self) -> ErrorKind {
        match self {
            ConcatFault::InvalidAxis(_) => ErrorKind::InvalidAttribute,
            ConcatFault::ShapeMismatch(_) => ErrorKind::ShapeMismatch,
        }
    }

    pub fn detail(&self) -> &str {
        match self {
            ConcatFault::InvalidAxis(detail) | ConcatFault::ShapeMismatch(detail) => detail,
        }
    }
}

/// `concatShape(SH, Xs, A)` after the checks of the two error rules, in their order: the axis
/// against the first operand's rank, then each operand's shape against the first's. `names`
/// and `shapes` are the operands' in order (at least one).
pub fn concat_shape(names: &[&str], shapes: &[&[i64]], axis: i64) -> Result<Vec<i64>, ConcatFault> {
    let first = shapes[0];
    if !valid_axis(axis, first.len()) {
        let detail = format!(
            "concat({}, {axis}): {} has shape {} and {} axes; the axis must be one of 0 … {}",
            names.join(", "),
            names[0],
            shape_text(first),
            first.len(),
            first.len() - 1
        );
        return Err(ConcatFault::InvalidAxis(detail));
    }
    let a = axis as usize;
    let mut result = first.to_vec();
    for (name, shape) in names.iter().zip(shapes).skip(1) {
        let agrees =
            shape.len() == first.len() && shape.iter().zip(first).enumerate().all(|(i, (d, f))| i == a || d == f);
        if !agrees {
            let detail = format!(
                "concat along axis {axis}: {} has shape {} and {name} {}; they must agree on every other axis",
                names[0],
                shape_text(first),
                shape_text(shape)
            );
            return Err(ConcatFault::ShapeMismatch(detail));
        }
        result[a] = result[a].saturating_add(shape[a]);
    }
    Ok(result)
}

/// `concatSource(SH, Xs, A, I)`: which operand holds the result's element at `index`, and its
/// index there. `extents` are the operands' extents along the axis, in order.
pub fn concat_source(index: &[i64], axis: usize, extents: &[i64]) -> (usize, Vec<i64>) {
    let mut at = index[axis];
    for (j, &extent) in extents.iter().enumerate() {
        if at < extent {
            let mut source = index.to_vec();
            source[axis] = at;
            return (j, source);
        }
        at -= extent;
    }
    unreachable!("an index of the result lies in one operand's run")
}

/// The left-hand side `let Y:Id = concat(Xs:Ids, A) in E`, every operand a name with a shape,
/// none of them `Y`.
struct Redex {
    y: Sym,
    xs: Vec<Sym>,
    shapes: Vec<Ints>,
    axis: i64,
    body: Term,
    call: Span,
}

fn concat_redex(r: &Rewrite<'_>) -> Option<Redex> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::Concat { xs, axis }, body, func_span } = top.node() else {
        return None;
    };
    let y = target.as_id()?;
    let mut names = Vec::with_capacity(xs.len());
    let mut shapes = Vec::with_capacity(xs.len());
    for x in xs {
        let x = x.as_id()?;
        if x == y {
            return None;
        }
        shapes.push(r.cfg.shape_of(x)?.clone());
        names.push(x.clone());
    }
    if names.is_empty() {
        return None;
    }
    Some(Redex { y: y.clone(), xs: names, shapes, axis: *axis, body: body.clone(), call: *func_span })
}

fn shape_of_redex(redex: &Redex) -> Result<Vec<i64>, ConcatFault> {
    let names: Vec<&str> = redex.xs.iter().map(Sym::as_str).collect();
    let shapes: Vec<&[i64]> = redex.shapes.iter().map(Ints::as_slice).collect();
    concat_shape(&names, &shapes, redex.axis)
}

/// `rule <k> let Y:Id = concat(Xs:Ids, A:Int) in E => defineTensor(Y, concatShape(SH, Xs, A)) ~> concatHelper(Xs, Y, A, 0 ... size(concatShape(SH, Xs, A)), concatShape(SH, Xs, A)) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[Y <- concatShape(SH, Xs, A)] </shape>
///       requires allInKeys(Xs, SH) andBool notBool Y in Xs andBool validAxis(A, size(SH[head(Xs)])) andBool sameExcept(SH, Xs, A)`
pub static LET_CONCAT: Rule = Rule::top(
    SECTION,
    "ext-let-concat",
    "Ext-11",
    "Ext-11",
    "rule <k> let Y:Id = concat(Xs:Ids, A:Int) in E => defineTensor(Y, concatShape(SH, Xs, A)) ~> concatHelper(Xs, Y, A, 0 ... size(concatShape(SH, Xs, A)), concatShape(SH, Xs, A)) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- concatShape(SH, Xs, A)] </shape> requires allInKeys(Xs, SH) andBool notBool Y in Xs andBool validAxis(A, size(SH[head(Xs)])) andBool sameExcept(SH, Xs, A)",
    &[Head::LetFunc],
    let_concat,
);

fn let_concat(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = concat_redex(r) else { return false };
    let Ok(os) = shape_of_redex(&redex) else { return false };
    let span = r.top().map(Term::span).unwrap_or_default();
    let Redex { y, xs, axis, body, .. } = redex;
    let to = count(&os);
    let os = Ints::new(&os).expect("the first operand's rank, at least 1");
    let define = Term::new(Node::DefineTensor { x: Term::id(&y, span), ints: os.clone() }, span);
    let helper = Term::new(Node::ConcatHelper { xs, y: y.clone(), axis, from: 0, to, dims: os.clone() }, span);
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&y), os);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(body), scope]);
    true
}

/// `rule <k> let Y:Id = concat(Xs:Ids, A:Int) in _ => knnError("invalid attribute") ...</k> <shape> SH </shape>
///       requires allInKeys(Xs, SH) andBool notBool Y in Xs andBool notBool validAxis(A, size(SH[head(Xs)]))`
pub static CONCAT_INVALID_AXIS: Rule = Rule::top(
    SECTION,
    "ext-concat-invalid-axis",
    "Ext-11",
    "Ext-11",
    "rule <k> let Y:Id = concat(Xs:Ids, A:Int) in _ => knnError(\"invalid attribute\") ...</k> <shape> SH </shape> requires allInKeys(Xs, SH) andBool notBool Y in Xs andBool notBool validAxis(A, size(SH[head(Xs)]))",
    &[Head::LetFunc],
    |r| concat_error(r, false),
);

/// `rule <k> let Y:Id = concat(Xs:Ids, A:Int) in _ => knnError("shape mismatch") ...</k> <shape> SH </shape>
///       requires allInKeys(Xs, SH) andBool notBool Y in Xs andBool validAxis(A, size(SH[head(Xs)])) andBool notBool sameExcept(SH, Xs, A)`
pub static CONCAT_SHAPE_MISMATCH: Rule = Rule::top(
    SECTION,
    "ext-concat-shape-mismatch",
    "Ext-11",
    "Ext-11",
    "rule <k> let Y:Id = concat(Xs:Ids, A:Int) in _ => knnError(\"shape mismatch\") ...</k> <shape> SH </shape> requires allInKeys(Xs, SH) andBool notBool Y in Xs andBool validAxis(A, size(SH[head(Xs)])) andBool notBool sameExcept(SH, Xs, A)",
    &[Head::LetFunc],
    |r| concat_error(r, true),
);

/// The two error rules: `mismatch` picks `ext-concat-shape-mismatch`, else
/// `ext-concat-invalid-axis`.
fn concat_error(r: &mut Rewrite<'_>, mismatch: bool) -> bool {
    let Some(redex) = concat_redex(r) else { return false };
    let fault = match shape_of_redex(&redex) {
        Err(fault) if matches!(fault, ConcatFault::ShapeMismatch(_)) == mismatch => fault,
        _ => return false,
    };
    r.cfg.replace_top_term(Term::error(fault.kind(), fault.detail().to_string(), redex.call));
    true
}

/// `rule <k> concatHelper(Xs, Y, A, K ... N, Os) => let Y[rowMajor(K, Os)] = concatSource(SH, Xs, A, rowMajor(K, Os)) in #skip ~> concatHelper(Xs, Y, A, (K +Int 1) ... N, Os) ...</k>
///       <shape> SH </shape> requires K <Int N`
pub static CONCAT_HELPER_STEP: Rule = Rule::top(
    SECTION,
    "ext-concat-helper-step",
    "Ext-11",
    "Ext-11",
    "rule <k> concatHelper(Xs, Y, A, K ... N, Os) => let Y[rowMajor(K, Os)] = concatSource(SH, Xs, A, rowMajor(K, Os)) in #skip ~> concatHelper(Xs, Y, A, (K +Int 1) ... N, Os) ...</k> <shape> SH </shape> requires K <Int N",
    &[Head::ConcatHelper],
    concat_helper_step,
);

fn concat_helper_step(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ConcatHelper { xs, y, axis, from, to, dims } = top.node() else { return false };
    if !lt(*from, *to) {
        return false;
    }
    let span = top.span();
    let (xs, y, axis, from, to, dims) = (xs.clone(), y.clone(), *axis, *from, *to, dims.clone());
    // `<shape>` still has every operand: the helper runs before the body, and `Y` is none of
    // them.
    let mut extents = Vec::with_capacity(xs.len());
    for x in &xs {
        let Some(shape) = r.cfg.shape_of(x) else { return false };
        extents.push(shape.as_slice()[axis as usize]);
    }
    let at = row_major(from, &dims);
    let (j, source_index) = concat_source(at.as_slice(), axis as usize, &extents);
    let source_index = Ints::new(&source_index).expect("an index of every axis");
    let source = r.index(Term::id(&xs[j], span), source_index, span);
    let target = r.index(Term::id(&y, span), at, span);
    let write = Term::new(Node::Let { target, value: source, body: skip(span) }, span);
    let next = Term::new(Node::ConcatHelper { xs, y, axis, from: from + 1, to, dims }, span);
    r.cfg.replace_top([KItem::Term(write), KItem::Term(next)]);
    true
}

/// `rule <k> concatHelper(_, _, _, N ... N, _) => . ...</k>`
pub static CONCAT_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-concat-helper-done",
    "Ext-11",
    "Ext-11",
    "rule <k> concatHelper(_, _, _, N ... N, _) => . ...</k>",
    &[Head::ConcatHelper],
    concat_helper_done,
);

fn concat_helper_done(r: &mut Rewrite<'_>) -> bool {
    match r.top_node() {
        Some(Node::ConcatHelper { from, to, .. }) if from == to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    }
}

pub static PATCH: Patch = Patch {
    name: "Ext-11",
    title: "concat(X1, …, Xn, A)",
    reason: "a network that joins branches or appends features concatenates tensors along an axis; CNTK's Splice and ONNX's Concat do it",
    removes: &[],
    adds: &[&LET_CONCAT, &CONCAT_INVALID_AXIS, &CONCAT_SHAPE_MISMATCH, &CONCAT_HELPER_STEP, &CONCAT_HELPER_DONE],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_adds_the_extents_along_the_axis() {
        let shape = concat_shape(&["a", "b"], &[&[2, 3], &[2, 1]], 1);
        assert_eq!(shape, Ok(vec![2, 4]));
        assert_eq!(concat_shape(&["a", "b", "c"], &[&[1, 2], &[0, 2], &[3, 2]], 0), Ok(vec![4, 2]));
        assert_eq!(concat_shape(&["a"], &[&[5]], 0), Ok(vec![5]));
        let kind = |r: Result<Vec<i64>, ConcatFault>| r.unwrap_err().kind();
        assert_eq!(kind(concat_shape(&["a", "b"], &[&[2, 3], &[2, 3]], 2)), ErrorKind::InvalidAttribute);
        assert_eq!(kind(concat_shape(&["a", "b"], &[&[2, 3], &[3, 3]], 1)), ErrorKind::ShapeMismatch);
        assert_eq!(kind(concat_shape(&["a", "b"], &[&[2, 3], &[2, 3, 1]], 1)), ErrorKind::ShapeMismatch);
        // The axis is checked first: against the first operand only.
        assert_eq!(kind(concat_shape(&["a", "b"], &[&[2], &[2, 3]], 1)), ErrorKind::InvalidAttribute);
    }

    #[test]
    fn each_element_comes_from_the_operand_whose_run_holds_it() {
        // (2, 1) and (2, 2) along axis 1: the result's column 0 is a's, columns 1 and 2 b's.
        assert_eq!(concat_source(&[1, 0], 1, &[1, 2]), (0, vec![1, 0]));
        assert_eq!(concat_source(&[1, 2], 1, &[1, 2]), (1, vec![1, 1]));
        // An operand of extent 0 holds nothing: index 1 along axis 0 is c's first row.
        assert_eq!(concat_source(&[1], 0, &[1, 0, 2]), (2, vec![0]));
    }
}
