//! The rows of docs/semantics.md's deviations table for the extensions, which add constructs
//! K's grammar does not have: a parse error under the published profile, the construct's
//! value under the revised one.

use super::*;

/// Ext-1 (docs/semantics.md, "Deviations"): the published grammar has no `addTensor`, so the
/// program is a parse error there; under the revised rules `z = h + b = [0.0, 0.5]`.
#[test]
fn ext1_add_tensor() {
    let source =
        "let h = initTensor(2) in let b = initTensor(2) in let b[1] = 0.5 in (let z = addTensor(h, b) in z[1])";
    let err = parse_program(source, Profile::published().grammar).expect_err("K has no addTensor");
    assert!(err.message.contains("unexpected `(`"), "{err}");
    assert_eq!(outcome(Profile::revised(), source), Float(0.5));
    let mismatch = "let h = initTensor(2) in let b = initTensor(3) in (let z = addTensor(h, b) in z[1])";
    assert_eq!(outcome(Profile::revised(), mismatch), Error(ErrorKind::ShapeMismatch));
    // Since Ext-8, `(2)` and `(1, 2)` broadcast to `(1, 2)`: `z[0, 1]` is `0.0 + 0.5`.
    let broadcast = "let h = initTensor(2) in let b = initTensor(1, 2) in let b[0, 1] = 0.5 in (let z = addTensor(h, b) in z[0, 1])";
    assert_eq!(outcome(Profile::revised(), broadcast), Float(0.5));
}

/// Ext-3 (docs/semantics.md, "Deviations"): the published grammar has no `conv2d` (nor tensor
/// literals); under the revised rules the one output of a 2×2 input and a 2×2 kernel of ones is
/// `0.0 + 1.0 + 2.0 + 3.0 + 4.0 = 10.0`.
#[test]
fn ext3_conv2d() {
    let source = "let x = initTensor(1, 2, 2)[1.0, 2.0, 3.0, 4.0] in let w = initTensor(1, 1, 2, 2)[1.0, 1.0, 1.0, 1.0] in \
                  (let y = conv2d(x, w) in y[0, 0, 0])";
    assert!(parse_program(source, Profile::published().grammar).is_err(), "K has no conv2d");
    assert_eq!(outcome(Profile::revised(), source), Float(10.0));
    let mismatch = "let x = initTensor(2, 2, 2) in let w = initTensor(1, 1, 2, 2) in (let y = conv2d(x, w) in y)";
    assert_eq!(outcome(Profile::revised(), mismatch), Error(ErrorKind::ShapeMismatch));
    let invalid = "let x = initTensor(1, 2, 2) in let w = initTensor(1, 1, 2, 2) in (let y = conv2d(x, w, strides = [1, 0]) in y)";
    assert_eq!(outcome(Profile::revised(), invalid), Error(ErrorKind::InvalidAttribute));
}

/// Ext-4 (docs/semantics.md, "Deviations"): no pools in K; the 2×2 window of `[[1, 2], [3, 4]]`
/// averages to `(0.0 + 1 + 2 + 3 + 4) / 4 = 2.5`, its max is `4.0`.
#[test]
fn ext4_pool2d() {
    let x = "let x = initTensor(1, 2, 2)[1.0, 2.0, 3.0, 4.0] in ";
    let avg = format!("{x}(let y = avgPool2d(x, kernel = [2, 2]) in y[0, 0, 0])");
    assert!(parse_program(&avg, Profile::published().grammar).is_err(), "K has no avgPool2d");
    assert_eq!(outcome(Profile::revised(), &avg), Float(2.5));
    let run = |f: &str| outcome(Profile::revised(), &format!("{x}(let y = {f} in y[0, 0, 0])"));
    assert_eq!(run("maxPool2d(x, kernel = [2, 2])"), Float(4.0));
    assert_eq!(run("maxPool2d(x, kernel = [3, 1])"), Error(ErrorKind::ShapeMismatch));
    assert_eq!(run("avgPool2d(x, kernel = [2, 2], strides = [0, 1])"), Error(ErrorKind::InvalidAttribute));
}

/// Ext-5 (docs/semantics.md, "Deviations"): no `flatten` in K; `flatten` of `[[1, 2], [3, 4]]`
/// is `[1, 2, 3, 4]`; `reshape` to another element count is `shape-mismatch`.
#[test]
fn ext5_reshape() {
    let x = "let x = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in ";
    let flat = format!("{x}(let y = flatten(x) in y[2])");
    assert!(parse_program(&flat, Profile::published().grammar).is_err(), "K has no flatten");
    assert_eq!(outcome(Profile::revised(), &flat), Float(3.0));
    let run = |f: &str| outcome(Profile::revised(), &format!("{x}(let y = {f} in y[0, 3])"));
    assert_eq!(run("reshape(x, 1, 4)"), Float(4.0));
    assert_eq!(run("reshape(x, 3)"), Error(ErrorKind::ShapeMismatch));
}

/// Ext-6 (docs/semantics.md, "Deviations"): no `transpose` in K; the transpose of `[[1, 2, 3],
/// [4, 5, 6]]` is `[[1, 4], [2, 5], [3, 6]]`; axes that are not a permutation are
/// `invalid-attribute`.
#[test]
fn ext6_transpose() {
    let x = "let x = initTensor(2, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0] in ";
    let source = format!("{x}(let y = transpose(x, 1, 0) in y[2, 0])");
    assert!(parse_program(&source, Profile::published().grammar).is_err(), "K has no transpose");
    assert_eq!(outcome(Profile::revised(), &source), Float(3.0));
    let run = |f: &str| outcome(Profile::revised(), &format!("{x}(let y = {f} in y[0, 1])"));
    assert_eq!(run("transpose(x, 1, 0)"), Float(4.0));
    assert_eq!(run("transpose(x, 0, 1)"), Float(2.0));
    assert_eq!(run("transpose(x, 1)"), Error(ErrorKind::InvalidAttribute));
    assert_eq!(run("transpose(x, 0, 2)"), Error(ErrorKind::InvalidAttribute));
}

/// Ext-7 (docs/semantics.md, "Deviations"): K has neither `-` nor `/` (its scanner reads `-`
/// only as a Float's sign, `/` not at all); the revised grammar subtracts and divides: Floats
/// in IEEE binary64, Ints in 64 bits truncating toward zero.
#[test]
fn ext7_sub_div() {
    for source in ["3.0 - 1.0", "3.0 / 2.0", "x-1.0"] {
        assert!(parse_program(source, Profile::published().grammar).is_err(), "K has no `-`, `/`: {source}");
    }
    let run = |source: &str| outcome(Profile::revised(), source);
    assert_eq!(run("3.0 - 1.0"), Float(2.0));
    assert_eq!(run("2.0-1.0"), Float(1.0));
    assert_eq!(run("let x = 3.0 in x-1.0"), Float(2.0));
    assert_eq!(run("let x = 3.0 in x - -1.0"), Float(4.0));
    assert_eq!(run("1.0 - 2.0 - 3.0"), Float(-4.0), "left associative: (1 - 2) - 3");
    assert_eq!(run("8.0 / 4.0 / 2.0"), Float(1.0), "left associative: (8 / 4) / 2");
    assert_eq!(run("1.0 + 6.0 / 2.0 - 1.0"), Float(3.0), "`/` binds tighter than `+`, `-`");
    assert_eq!(run("3.0 / 2.0"), Float(1.5));
    assert_eq!(run("7 - 9"), Int(-2));
    assert_eq!(run("7 / 2"), Int(3));
    assert_eq!(run("(0 - 7) / 2"), Int(-3), "toward zero");
    assert_eq!(run("1 / 0"), Error(ErrorKind::DivisionByZero));
    assert_eq!(run("1.0 / 0"), Float(f64::INFINITY), "mixed: a Float division");
    assert_eq!(run("(0 - 4611686018427387903 - 4611686018427387903 - 2) / (0 - 1)"), Error(ErrorKind::IntegerOverflow));
    assert_eq!(run("0 - 4611686018427387903 - 4611686018427387903 - 3"), Error(ErrorKind::IntegerOverflow));
    assert_eq!(run("let t = initTensor(1) in t / 2.0"), Error(ErrorKind::InvalidOperands));
}

/// Ext-8 (docs/semantics.md, "Deviations"): K has no element-wise tensor arithmetic; the
/// revised rules broadcast as NumPy does. `h = [[1], [2]]` (2, 1) and `b = [0.5, 2, -1]` (3):
/// `subTensor(h, b)` is `[[0.5, -1, 2], [1.5, 0, 3]]`, `mulTensor` `[[0.5, 2, -1], [1, 4, -2]]`,
/// `divTensor` `[[2, 0.5, -1], [4, 1, -2]]` (`1 / 2` of Ints is `0`, toward zero).
#[test]
fn ext8_broadcast() {
    let h = "let h = initTensor(2, 1)[1, 2] in let b = initTensor(3)[0.5, 2, -1.0] in ";
    let source = format!("{h}(let z = subTensor(h, b) in z[1, 0])");
    assert!(parse_program(&source, Profile::published().grammar).is_err(), "K has no subTensor");
    let run = |f: &str, at: &str| outcome(Profile::revised(), &format!("{h}(let z = {f} in z[{at}])"));
    assert_eq!(run("subTensor(h, b)", "1, 0"), Float(1.5));
    assert_eq!(run("subTensor(h, b)", "0, 2"), Float(2.0));
    assert_eq!(run("mulTensor(h, b)", "1, 1"), Int(4));
    assert_eq!(run("divTensor(h, b)", "0, 1"), Int(0));
    assert_eq!(run("divTensor(h, b)", "1, 2"), Float(-2.0));
    assert_eq!(run("addTensor(h, b)", "1, 2"), Float(1.0));
    assert_eq!(run("divTensor(b, h)", "1, 0"), Float(0.25));
    let zero = "let h = initTensor(1)[3] in let b = initTensor(2)[1, 0] in (let z = divTensor(h, b) in z[0])";
    assert_eq!(outcome(Profile::revised(), zero), Error(ErrorKind::DivisionByZero));
    let mismatch = format!("{h}let c = initTensor(2) in (let z = mulTensor(b, c) in z[0])");
    assert_eq!(outcome(Profile::revised(), &mismatch), Error(ErrorKind::ShapeMismatch));
}

/// Ext-9 (docs/semantics.md, "Deviations"): no `softmax` in K; the softmax of `[0, 0]` is
/// `[0.5, 0.5]`, its log `-log 2`; a slice of `-Infinity`, or with a `+Infinity`, is NaN (IEEE:
/// `∞ − ∞`); a NaN or an Int element is `invalid-operands` (the slice's `max`); an axis not
/// below the rank is `invalid-attribute`.
#[test]
fn ext9_softmax() {
    let source = "let y = initTensor(2)[0.0, 0.0] in (let x = softmax(y, 0) in x[1])";
    assert!(parse_program(source, Profile::published().grammar).is_err(), "K has no softmax");
    assert_eq!(outcome(Profile::revised(), source), Float(0.5));
    let run = |y: &str, f: &str| outcome(Profile::revised(), &format!("let y = {y} in (let x = {f} in x[1])"));
    let zeros = "initTensor(2)[0.0, 0.0]";
    assert_eq!(run(zeros, "logSoftmax(y, 0)"), Float(-std::f64::consts::LN_2));
    assert_eq!(run(zeros, "expTensor(y)"), Float(1.0));
    assert_eq!(run(zeros, "logTensor(y)"), Float(f64::NEG_INFINITY));
    assert_eq!(run(zeros, "softmax(y, 1)"), Error(ErrorKind::InvalidAttribute));
    for y in ["initTensor(2)[-Infinity, -Infinity]", "initTensor(2)[Infinity, 0.0]"] {
        assert!(matches!(run(y, "softmax(y, 0)"), Float(v) if v.is_nan()), "{y}");
        assert!(matches!(run(y, "logSoftmax(y, 0)"), Float(v) if v.is_nan()), "{y}");
    }
    assert_eq!(run("initTensor(2)[0.0, NaN]", "softmax(y, 0)"), Error(ErrorKind::InvalidOperands));
    assert_eq!(run("initTensor(2)[1, 2]", "softmax(y, 0)"), Error(ErrorKind::InvalidOperands));
    assert_eq!(run("initTensor(2)[1, 2]", "expTensor(y)"), Error(ErrorKind::InvalidOperands));
}

/// Ext-10 (docs/semantics.md, "Deviations"): no reductions in K; `[[1, 2], [3, 4]]` summed over
/// axis 0 is `[4, 6]`, its mean over both axes `[2.5]`, its max over axis 1 `[2, 4]`, its min
/// over axis 0 `[1, 2]`; Int elements sum to a Float, but have no `max`; an axis twice is
/// `invalid-attribute`.
#[test]
fn ext10_reduce() {
    let y = "let y = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in ";
    let source = format!("{y}(let x = reduceSum(y, 0) in x[1])");
    assert!(parse_program(&source, Profile::published().grammar).is_err(), "K has no reductions");
    assert_eq!(outcome(Profile::revised(), &source), Float(6.0));
    let run = |f: &str, at: &str| outcome(Profile::revised(), &format!("{y}(let x = {f} in x[{at}])"));
    assert_eq!(run("reduceMean(y, 0, 1)", "0"), Float(2.5));
    assert_eq!(run("reduceMax(y, 1)", "0"), Float(2.0));
    assert_eq!(run("reduceMin(y, 0)", "1"), Float(2.0));
    assert_eq!(run("reduceSum(y, 1, 1)", "0"), Error(ErrorKind::InvalidAttribute));
    let ints = |f: &str| outcome(Profile::revised(), &format!("let y = initTensor(2)[1, 2] in (let x = {f} in x[0])"));
    assert_eq!(ints("reduceSum(y, 0)"), Float(3.0));
    assert_eq!(ints("reduceMax(y, 0)"), Error(ErrorKind::InvalidOperands));
}

/// Ext-11 (docs/semantics.md, "Deviations"): no `concat` in K; `[[1, 2], [3, 4]]` and `[[5],
/// [6]]` joined along axis 1 are `[[1, 2, 5], [3, 4, 6]]`; along axis 0 the extents of axis 1
/// differ (`shape-mismatch`); axis 2 of a matrix is `invalid-attribute`.
#[test]
fn ext11_concat() {
    let x = "let x = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in let c = initTensor(2, 1)[5.0, 6.0] in ";
    let source = format!("{x}(let y = concat(x, c, 1) in y[1, 2])");
    assert!(parse_program(&source, Profile::published().grammar).is_err(), "K has no concat");
    assert_eq!(outcome(Profile::revised(), &source), Float(6.0));
    let run = |f: &str, at: &str| outcome(Profile::revised(), &format!("{x}(let y = {f} in y[{at}])"));
    assert_eq!(run("concat(x, c, 1)", "0, 2"), Float(5.0));
    assert_eq!(run("concat(x, x, 0)", "2, 1"), Float(2.0));
    assert_eq!(run("concat(x, c, 0)", "0, 0"), Error(ErrorKind::ShapeMismatch));
    assert_eq!(run("concat(x, c, 2)", "0, 0"), Error(ErrorKind::InvalidAttribute));
}

/// Ext-12 (docs/semantics.md, "Deviations"): no `slice` in K; columns 1 … 3 of `[[0, 1, 2, 3],
/// [4, 5, 6, 7]]` with step 2 are `[[1, 3], [5, 7]]`; an end past the extent, a step of 0 or an
/// axis out of range are `invalid-attribute` (no clamping).
#[test]
fn ext12_slice() {
    let x = "let x = initTensor(2, 4)[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0] in ";
    let source = format!("{x}(let y = slice(x, 1, 1, 4, 2) in y[1, 1])");
    assert!(parse_program(&source, Profile::published().grammar).is_err(), "K has no slice");
    assert_eq!(outcome(Profile::revised(), &source), Float(7.0));
    let run = |f: &str, at: &str| outcome(Profile::revised(), &format!("{x}(let y = {f} in y[{at}])"));
    assert_eq!(run("slice(x, 0, 1, 2)", "0, 3"), Float(7.0));
    assert_eq!(run("slice(x, 1, 2, 4)", "0, 0"), Float(2.0));
    assert_eq!(run("slice(x, 1, 0, 5)", "0, 0"), Error(ErrorKind::InvalidAttribute));
    assert_eq!(run("slice(x, 1, 0, 4, 0)", "0, 0"), Error(ErrorKind::InvalidAttribute));
    assert_eq!(run("slice(x, 2, 0, 1)", "0, 0"), Error(ErrorKind::InvalidAttribute));
}

/// Ext-13 (docs/semantics.md, "Deviations"): no `pad` in K; `[[1, 2], [3, 4]]` padded with
/// `0.5` by one row above and one column on the right is `[[0.5, 0.5, 0.5], [1, 2, 0.5], [3, 4,
/// 0.5]]`; a pad count other than twice the rank is `invalid-attribute`; the elements are copied
/// as they are (an Int stays an Int).
#[test]
fn ext13_pad() {
    let x = "let x = initTensor(2, 2)[1.0, 2.0, 3, 4.0] in ";
    let source = format!("{x}(let y = pad(x, 0.5, 1, 0, 0, 1) in y[1, 1])");
    assert!(parse_program(&source, Profile::published().grammar).is_err(), "K has no pad");
    assert_eq!(outcome(Profile::revised(), &source), Float(2.0));
    let run = |f: &str, at: &str| outcome(Profile::revised(), &format!("{x}(let y = {f} in y[{at}])"));
    assert_eq!(run("pad(x, 0.5, 1, 0, 0, 1)", "0, 2"), Float(0.5));
    assert_eq!(run("pad(x, 0.5, 1, 0, 0, 1)", "1, 2"), Float(0.5));
    assert_eq!(run("pad(x, 0.5, 1, 0, 0, 1)", "2, 0"), Int(3));
    assert_eq!(run("pad(x, 0.5, 1, 0, 0, 1)", "3, 0"), Error(ErrorKind::IndexOutOfBounds));
    assert_eq!(run("pad(x, 0.5, 1, 0)", "0, 0"), Error(ErrorKind::InvalidAttribute));
}

/// Ext-15 (docs/semantics.md, "Deviations"): no matrix product of two tensors in K.
/// `[[1, 2], [3, 4]]` by `[[5, 6], [7, 8]]` is `[[19, 22], [43, 50]]` (`1·5 + 2·7 = 19`,
/// `3·6 + 4·8 = 50`), Floats since each element starts at `0.0`; a row `(2)` by the matrix is
/// `[1·5 + 2·7, 1·6 + 2·8] = [19, 22]`. The products are summed in increasing order from `0.0`:
/// `[1, 1e16, -1e16]·[1, 1, 1]` is `((0 + 1) + 1e16) - 1e16 = 0.0` (the 1 is lost when 1e16 is
/// added; a sum from the other end would give 1.0). An inner extent that differs is
/// `shape-mismatch`; an Int product beyond 64 bits `integer-overflow`.
#[test]
fn ext15_matmul() {
    let ab = "let a = initTensor(2, 2)[1, 2, 3, 4] in let b = initTensor(2, 2)[5.0, 6.0, 7.0, 8.0] in ";
    let source = format!("{ab}(let c = matmul(a, b) in c[1, 1])");
    assert!(parse_program(&source, Profile::published().grammar).is_err(), "K has no matmul");
    assert_eq!(outcome(Profile::revised(), &source), Float(50.0));
    let run = |f: &str, at: &str| outcome(Profile::revised(), &format!("{ab}(let c = {f} in c[{at}])"));
    assert_eq!(run("matmul(a, b)", "0, 0"), Float(19.0));
    assert_eq!(run("matmul(a, a)", "0, 1"), Float(10.0));
    let row = "let r = initTensor(2)[1.0, 2.0] in let b = initTensor(2, 2)[5.0, 6.0, 7.0, 8.0] in ";
    assert_eq!(outcome(Profile::revised(), &format!("{row}(let c = matmul(r, b) in c[1])")), Float(22.0));
    let order = "let a = initTensor(3)[1.0, 10000000000000000.0, -10000000000000000.0] in \
                 let b = initTensor(3)[1.0, 1.0, 1.0] in (let c = matmul(a, b) in c[0])";
    assert_eq!(outcome(Profile::revised(), order), Float(0.0));
    let mismatch = "let a = initTensor(2, 3) in let b = initTensor(2, 3) in (let c = matmul(a, b) in c)";
    assert_eq!(outcome(Profile::revised(), mismatch), Error(ErrorKind::ShapeMismatch));
    let overflow =
        "let a = initTensor(1)[4611686018427387903] in let b = initTensor(1)[3] in (let c = matmul(a, b) in c)";
    assert_eq!(outcome(Profile::revised(), overflow), Error(ErrorKind::IntegerOverflow));
}

/// Ext-14 (docs/semantics.md, "Deviations"): no `batchNorm` in K. `x = [[3, 5], [1, 0]]` (two
/// channels of two elements), scale `[2, 1]`, bias `[0.5, 0]`, mean `[1, 1]`, variance
/// `[3, 0]`, epsilon `1`: channel 0 is `((xi - 1) / sqrt(3 + 1)) * 2 + 0.5`, so `x[0, 1] = 5`
/// gives `(4 / 2) * 2 + 0.5 = 4.5`; channel 1 `((xi - 1) / 1) * 1 + 0`, so `x[1, 1] = 0` gives
/// `-1.0`. A variance below `-epsilon` is a NaN (IEEE's square root), no error; Int elements
/// meet the Float divisor and are widened (`3 - 1` is the Int `2`, `2 / 2.0 = 1.0`); the default
/// epsilon is ONNX's `1e-05` (`1 / sqrt(1e-05) = 316.2277660168379` by Python's `math.sqrt`); a
/// parameter of another shape than `(C)` is `shape-mismatch`.
#[test]
fn ext14_batch_norm() {
    let params = "let s = initTensor(2)[2.0, 1.0] in let b = initTensor(2)[0.5, 0.0] in \
                  let m = initTensor(2)[1.0, 1.0] in let v = initTensor(2)[3.0, 0.0] in ";
    let x = "let x = initTensor(2, 2)[3.0, 5.0, 1.0, 0.0] in ";
    let at = |at: &str| format!("{x}{params}(let y = batchNorm(x, s, b, m, v, epsilon = 1.0) in y[{at}])");
    assert!(parse_program(&at("0, 1"), Profile::published().grammar).is_err(), "K has no batchNorm");
    assert_eq!(outcome(Profile::revised(), &at("0, 1")), Float(4.5));
    assert_eq!(outcome(Profile::revised(), &at("0, 0")), Float(2.5));
    assert_eq!(outcome(Profile::revised(), &at("1, 0")), Float(0.0));
    assert_eq!(outcome(Profile::revised(), &at("1, 1")), Float(-1.0));
    let one = |x: &str, p: &str, call: &str| {
        let source = format!("let x = initTensor(1)[{x}] in let p = initTensor(1)[{p}] in (let y = {call} in y[0])");
        outcome(Profile::revised(), &source)
    };
    assert!(matches!(one("3.0", "-2.0", "batchNorm(x, p, p, p, p, epsilon = 1.0)"), Float(r) if r.is_nan()));
    // x = 3, every parameter 1, all Ints, epsilon 3.0: ((3 - 1) / sqrt(1 + 3.0)) * 1 + 1 =
    // (2 / 2.0) * 1 + 1 = 2.0.
    assert_eq!(one("3", "1", "batchNorm(x, p, p, p, p, epsilon = 3.0)"), Float(2.0));
    let default = "let x = initTensor(1)[1.0] in let s = initTensor(1)[1.0] in let z = initTensor(1)[0.0] in \
                   (let y = batchNorm(x, s, z, z, z) in y[0])";
    assert_eq!(outcome(Profile::revised(), default), Float(316.2277660168379));
    let mismatch = format!("{x}{params}let w = initTensor(3) in (let y = batchNorm(x, s, b, w, v) in y)");
    assert_eq!(outcome(Profile::revised(), &mismatch), Error(ErrorKind::ShapeMismatch));
    // -2^63 - 1 does not fit in an Int: the mean is subtracted before the division widens.
    let overflow = "let x = initTensor(1)[0] in let x[0] = (0 - 4611686018427387903) * 2 - 2 in \
                    let p = initTensor(1)[1] in (let y = batchNorm(x, p, p, p, p) in y[0])";
    assert_eq!(outcome(Profile::revised(), overflow), Error(ErrorKind::IntegerOverflow));
}
