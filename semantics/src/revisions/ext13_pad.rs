//! Ext-13: `pad(X, V, b0, …, bn-1, a0, …, an-1)`, a fresh tensor of shape `(d0 + b0 + a0, …)`
//! holding `X` with `bi` elements of the Float `V` before it and `ai` after it along each axis
//! `i`: ONNX's `Pad` in its `constant` mode (the pads in ONNX's order, every begin then every
//! end), NumPy's `np.pad(x, …, constant_values=v)`. What an imported network needs where a
//! padding is not a convolution's or a pool's own zero padding (Ext-3, Ext-4 pad inside their
//! windows), or pads with another value than 0.
//!
//! ```k
//! syntax Func  ::= "pad" "(" Exp "," Float "," Ints ")"
//! syntax KItem ::= padHelper(Id, Id, Float, Int, Int, Ints)   // printed `V, K ... N, Ps`
//! syntax Ints  ::= padded(Ints, Ints) [function]    // Os[i] = Is[i] + Ps[i] + Ps[n + i]
//! syntax Ints  ::= unpad(Ints, Ints) [function]     // J[i] = I[i] - Ps[i]
//! syntax Bool  ::= validPads(Ints, Ints) [function] // #Ps = 2 #Is, each padded extent an Int
//! syntax Bool  ::= inside(Ints, Ints, Ints) [function] // Ps[i] <= I[i] < Ps[i] + Is[i], every i
//! ```
//!
//! The choices:
//!
//! * **A function bound by `let`, its operand a name** diagnosed by `rev-let-func-error`
//!   (`unknown-tensor`, `unbound-identifier`, `aliased-output`); the value a Float literal
//!   (`0.0`, `-1.5`, `-Infinity`, `NaN`), the pads Int literals as `initTensor`'s dimensions.
//! * **Exactly two pads per axis**, else `invalid-attribute` (`ext-pad-invalid-pads`); so is a
//!   padded extent beyond 64 bits. **No negative pads**: ONNX crops with them, K-NN's Int
//!   lists are unsigned literals (`-1` is the Float `-1.0`), so a negative pad cannot be
//!   written (a parse error, as a negative dimension is); the importer refuses a cropping `Pad`.
//! * **A copy in the result's row-major order**: the result is allocated by `defineTensor` as
//!   every function result; element `K` of it, at `I = rowMajor(K, Os)`, is written by an
//!   element `let`: `X[I - Bs]` when `I` is inside (`ext-pad-helper-copy`, read through the
//!   indexing rules, Rev-5, as `transpose`'s copies are), else `V` (`ext-pad-helper-fill`).
//!   No arithmetic: the copies are bit for bit.
//! * **The revised profile only**: `pad` is an identifier under the K grammar.

use super::Patch;
use super::ext1_add_tensor::row_major;
use super::ext5_reshape::size;
use super::rev01_unit_marker::skip;
use super::rev07_shapes::scope_of;
use crate::config::{KItem, MapKey};
use crate::errors::{ErrorKind, shape_text};
use crate::rules::{Head, Rewrite, Rule, Section, lt};
use crate::syntax::Span;
use crate::term::{FuncTerm, Ints, Node, PadHelper, Sym, Term};

const SECTION: Section = Section::Extensions;

/// `padded(Is, Ps)` when `validPads(Is, Ps)`: `Os[i] = Is[i] + Ps[i] + Ps[n + i]`; `None` when
/// the count is not `2n` or an extent does not fit in 64 bits.
pub fn padded(dims: &[i64], pads: &[i64]) -> Option<Vec<i64>> {
    if pads.len() != 2 * dims.len() {
        return None;
    }
    let (begins, ends) = pads.split_at(dims.len());
    dims.iter().zip(begins).zip(ends).map(|((&d, &b), &a)| d.checked_add(b)?.checked_add(a)).collect()
}

/// `inside(I, Bs, Is)`: whether the result's index `at` holds an element of `X` (of shape
/// `dims`), and then `unpad(I, Bs)`, its index in `X`.
pub fn source_index(at: &[i64], begins: &[i64], dims: &[i64]) -> Option<Vec<i64>> {
    at.iter().zip(begins).zip(dims).map(|((&i, &b), &d)| (b <= i && i - b < d).then_some(i - b)).collect()
}

/// The left-hand side `let Y:Id = pad(X:Id, V, Ps) in E`, `X` a name with a shape, not `Y`.
struct Redex {
    y: Sym,
    x: Sym,
    value_bits: u64,
    pads: Ints,
    shape: Ints,
    body: Term,
    call: Span,
}

fn pad_redex(r: &Rewrite<'_>) -> Option<Redex> {
    let top = r.top()?;
    let Node::LetFunc { target, func: FuncTerm::Pad { x, value_bits, pads }, body, func_span } = top.node() else {
        return None;
    };
    let (y, x) = (target.as_id()?, x.as_id()?);
    if y == x {
        return None;
    }
    let shape = r.cfg.shape_of(x)?.clone();
    let (value_bits, pads, body, call) = (*value_bits, pads.clone(), body.clone(), *func_span);
    Some(Redex { y: y.clone(), x: x.clone(), value_bits, pads, shape, body, call })
}

/// `rule <k> let Y:Id = pad(X:Id, V:Float, Ps) in E => defineTensor(Y, padded(SH[X], Ps)) ~> padHelper(X, Y, V, 0 ... size(padded(SH[X], Ps)), Ps) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[Y <- padded(SH[X], Ps)] </shape>
///       requires X in_keys(SH) andBool X =/=K Y andBool validPads(SH[X], Ps)`
pub static LET_PAD: Rule = Rule::top(
    SECTION,
    "ext-let-pad",
    "Ext-13",
    "Ext-13",
    "rule <k> let Y:Id = pad(X:Id, V:Float, Ps) in E => defineTensor(Y, padded(SH[X], Ps)) ~> padHelper(X, Y, V, 0 ... size(padded(SH[X], Ps)), Ps) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- padded(SH[X], Ps)] </shape> requires X in_keys(SH) andBool X =/=K Y andBool validPads(SH[X], Ps)",
    &[Head::LetFunc],
    let_pad,
);

fn let_pad(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = pad_redex(r) else { return false };
    let Some(os) = padded(redex.shape.as_slice(), redex.pads.as_slice()) else { return false };
    let Redex { y, x, value_bits, pads, body, .. } = redex;
    let span = r.top().map(Term::span).unwrap_or_default();
    let os = Ints::new(&os).expect("a tensor's shape has an axis");
    // A product beyond 64 bits cannot be allocated: `defineTensor` fails on it first.
    let to = i64::try_from(size(os.as_slice())).unwrap_or(i64::MAX);
    let define = Term::new(Node::DefineTensor { x: Term::id(&y, span), ints: os.clone() }, span);
    let helper = PadHelper { x, y: y.clone(), value_bits, from: 0, to, pads };
    let helper = Term::new(Node::PadHelper(Box::new(helper)), span);
    let scope = scope_of(r);
    r.cfg.shape.insert(MapKey::id(&y), os);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(body), scope]);
    true
}

/// `rule <k> let Y:Id = pad(X:Id, _, Ps) in _ => knnError("invalid attribute") ...</k> <shape> SH </shape>
///       requires X in_keys(SH) andBool X =/=K Y andBool notBool validPads(SH[X], Ps)`
pub static PAD_INVALID_PADS: Rule = Rule::top(
    SECTION,
    "ext-pad-invalid-pads",
    "Ext-13",
    "Ext-13",
    "rule <k> let Y:Id = pad(X:Id, _, Ps) in _ => knnError(\"invalid attribute\") ...</k> <shape> SH </shape> requires X in_keys(SH) andBool X =/=K Y andBool notBool validPads(SH[X], Ps)",
    &[Head::LetFunc],
    pad_invalid_pads,
);

fn pad_invalid_pads(r: &mut Rewrite<'_>) -> bool {
    let Some(redex) = pad_redex(r) else { return false };
    if padded(redex.shape.as_slice(), redex.pads.as_slice()).is_some() {
        return false;
    }
    let detail = pads_detail(redex.x.as_str(), redex.shape.as_slice(), redex.pads.as_slice());
    r.cfg.replace_top_term(Term::error(ErrorKind::InvalidAttribute, detail, redex.call));
    true
}

/// The detail of `ext-pad-invalid-pads`, shared with the big-step engine.
pub fn pads_detail(x: &str, shape: &[i64], pads: &[i64]) -> String {
    let listed: Vec<String> = pads.iter().map(i64::to_string).collect();
    let call = format!("pad({x}, …, {})", listed.join(", "));
    if pads.len() == 2 * shape.len() {
        format!("{call}: {x} has shape {}; a padded extent exceeds 2^63 - 1", shape_text(shape))
    } else {
        format!(
            "{call}: {x} has shape {} and {} axes, so it takes {} pads (every begin, then every end), not {}",
            shape_text(shape),
            shape.len(),
            2 * shape.len(),
            pads.len()
        )
    }
}

/// The step's element: `Y[I]` for `I = rowMajor(K, padded(SH[X], Ps))`, and `X[unpad(I, Ps)]`
/// when `inside(I, Ps, SH[X])` (`Ok`), else the position (`Err`).
fn step_target(r: &Rewrite<'_>, h: &PadHelper) -> Option<(Ints, Result<Ints, ()>)> {
    // `<shape>` still has `X`: the helper runs before the body, and `Y` is not `X`.
    let xs = r.cfg.shape_of(&h.x)?;
    let os = Ints::new(&padded(xs.as_slice(), h.pads.as_slice())?)?;
    let at = row_major(h.from, &os);
    let (begins, _) = h.pads.as_slice().split_at(xs.len());
    let source = source_index(at.as_slice(), begins, xs.as_slice()).and_then(|j| Ints::new(&j)).ok_or(());
    Some((at, source))
}

/// `padHelper(X, Y, V, K ... N, Ps)` with `K <Int N` on top of `<k>`, and its element.
fn helper_step(r: &Rewrite<'_>) -> Option<(PadHelper, Span, Ints, Result<Ints, ()>)> {
    let top = r.top()?;
    let Node::PadHelper(h) = top.node() else { return None };
    if !lt(h.from, h.to) {
        return None;
    }
    let (at, source) = step_target(r, h)?;
    Some(((**h).clone(), top.span(), at, source))
}

/// Writes `let Y[at] = value in #skip ~> padHelper(…, (K +Int 1) ... N, Ps)` on `<k>`.
fn write_then_next(r: &mut Rewrite<'_>, h: PadHelper, span: Span, at: Ints, value: Term) {
    let target = r.index(Term::id(&h.y, span), at, span);
    let write = Term::new(Node::Let { target, value, body: skip(span) }, span);
    let next = Term::new(Node::PadHelper(Box::new(PadHelper { from: h.from + 1, ..h })), span);
    r.cfg.replace_top([KItem::Term(write), KItem::Term(next)]);
}

/// `rule <k> padHelper(X, Y, V, K ... N, Ps) => let Y[rowMajor(K, padded(SH[X], Ps))] = X[unpad(rowMajor(K, padded(SH[X], Ps)), Ps)] in #skip ~> padHelper(X, Y, V, (K +Int 1) ... N, Ps) ...</k>
///       <shape> SH </shape> requires K <Int N andBool inside(rowMajor(K, padded(SH[X], Ps)), Ps, SH[X])`
pub static PAD_HELPER_COPY: Rule = Rule::top(
    SECTION,
    "ext-pad-helper-copy",
    "Ext-13",
    "Ext-13",
    "rule <k> padHelper(X, Y, V, K ... N, Ps) => let Y[rowMajor(K, padded(SH[X], Ps))] = X[unpad(rowMajor(K, padded(SH[X], Ps)), Ps)] in #skip ~> padHelper(X, Y, V, (K +Int 1) ... N, Ps) ...</k> <shape> SH </shape> requires K <Int N andBool inside(rowMajor(K, padded(SH[X], Ps)), Ps, SH[X])",
    &[Head::PadHelper],
    pad_helper_copy,
);

fn pad_helper_copy(r: &mut Rewrite<'_>) -> bool {
    let Some((h, span, at, Ok(source))) = helper_step(r) else { return false };
    let value = r.index(Term::id(&h.x, span), source, span);
    write_then_next(r, h, span, at, value);
    true
}

/// `rule <k> padHelper(X, Y, V, K ... N, Ps) => let Y[rowMajor(K, padded(SH[X], Ps))] = V in #skip ~> padHelper(X, Y, V, (K +Int 1) ... N, Ps) ...</k>
///       <shape> SH </shape> requires K <Int N andBool notBool inside(rowMajor(K, padded(SH[X], Ps)), Ps, SH[X])`
pub static PAD_HELPER_FILL: Rule = Rule::top(
    SECTION,
    "ext-pad-helper-fill",
    "Ext-13",
    "Ext-13",
    "rule <k> padHelper(X, Y, V, K ... N, Ps) => let Y[rowMajor(K, padded(SH[X], Ps))] = V in #skip ~> padHelper(X, Y, V, (K +Int 1) ... N, Ps) ...</k> <shape> SH </shape> requires K <Int N andBool notBool inside(rowMajor(K, padded(SH[X], Ps)), Ps, SH[X])",
    &[Head::PadHelper],
    pad_helper_fill,
);

fn pad_helper_fill(r: &mut Rewrite<'_>) -> bool {
    let Some((h, span, at, Err(()))) = helper_step(r) else { return false };
    let value = Term::float(f64::from_bits(h.value_bits), span);
    write_then_next(r, h, span, at, value);
    true
}

/// `rule <k> padHelper(_, _, _, N ... N, _) => . ...</k>`
pub static PAD_HELPER_DONE: Rule = Rule::top(
    SECTION,
    "ext-pad-helper-done",
    "Ext-13",
    "Ext-13",
    "rule <k> padHelper(_, _, _, N ... N, _) => . ...</k>",
    &[Head::PadHelper],
    pad_helper_done,
);

fn pad_helper_done(r: &mut Rewrite<'_>) -> bool {
    match r.top_node() {
        Some(Node::PadHelper(h)) if h.from == h.to => {
            r.cfg.pop_top();
            true
        }
        _ => false,
    }
}

pub static PATCH: Patch = Patch {
    name: "Ext-13",
    title: "pad(X, V, b0, …, bn-1, a0, …, an-1)",
    reason: "an imported network pads tensors outside a convolution's window, or with another value than 0; ONNX's Pad (constant mode) and NumPy's pad do it",
    removes: &[],
    adds: &[&LET_PAD, &PAD_INVALID_PADS, &PAD_HELPER_COPY, &PAD_HELPER_FILL, &PAD_HELPER_DONE],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_axis_grows_by_its_begin_and_its_end() {
        // (2, 3) with begins (1, 0) and ends (2, 1): (2 + 1 + 2, 3 + 0 + 1) = (5, 4).
        assert_eq!(padded(&[2, 3], &[1, 0, 2, 1]), Some(vec![5, 4]));
        assert_eq!(padded(&[0], &[1, 1]), Some(vec![2]), "an empty axis is all border");
        assert_eq!(padded(&[2, 3], &[1, 0, 2]), None, "three pads for two axes");
        assert_eq!(padded(&[2], &[1, 1, 1, 1]), None, "four pads for one axis");
        assert_eq!(padded(&[2], &[i64::MAX, 0]), None, "2 + 2^63 - 1 is not an Int");
    }

    #[test]
    fn inside_positions_map_back_by_the_begins() {
        // X of shape (2, 3) padded by begins (1, 2): result (1, 2) is X's (0, 0), (2, 4) is
        // X's (1, 2), (0, 3) is in the top border, (1, 1) in the left one, (1, 5) to the right.
        assert_eq!(source_index(&[1, 2], &[1, 2], &[2, 3]), Some(vec![0, 0]));
        assert_eq!(source_index(&[2, 4], &[1, 2], &[2, 3]), Some(vec![1, 2]));
        assert_eq!(source_index(&[0, 3], &[1, 2], &[2, 3]), None);
        assert_eq!(source_index(&[1, 1], &[1, 2], &[2, 3]), None);
        assert_eq!(source_index(&[1, 5], &[1, 2], &[2, 3]), None);
    }
}
