//! The fused window operations of the plan (`Op::Conv2d`, `Op::Pool2d`, `Op::Copy`) on a
//! symbolic rank-3 input: hand-worked values where the order of the sums decides the bits
//! (`ext-conv2d-helper-step`: from `0.0`, the taps over channels, kernel rows, kernel columns,
//! then the bias; `ext-avg-pool2d-helper-step` then `ext-pool-mean`), padding taps times
//! infinite and NaN weights, and `max` of a NaN (`ext-max-pool2d-helper-step`,
//! `rev-arith-invalid`) as the reference reports it; then small CNNs (conv2d → relu → pool →
//! flatten → linear → ArgMax) on rows of several lane groups (`fused.rs`).

use super::fused::*;
use super::*;

/// `source` over the rank-3 input `x` of shape `dims` holding `data`: its plan holds the fused
/// operations `expected` and nothing element by element, and every engine gives the reference's
/// verdict (span and detail of an error included); returns it.
fn fused(source: &str, dims: &[usize], data: &[f64], expected: Fused) -> Verdict {
    let program = parse_program(source, Profile::revised().grammar).unwrap_or_else(|e| panic!("{source}: {e}"));
    let (got, scalar) = fused_ops(&plan_of(&program, dims));
    assert_eq!(got, expected, "{source}");
    assert!(!scalar, "{source}: element-by-element work left in the plan");
    let input = TensorInput { name: "x".into(), shape: dims.to_vec(), data: data.to_vec() };
    let reference = observe(source, std::slice::from_ref(&input)).verdict;
    for staging in [Staging::Direct, Staging::Staged] {
        let got =
            BigStep { staging, precision: Precision::Exact }.evaluate(&program, std::slice::from_ref(&input)).unwrap();
        assert!(same(&got, &reference), "{source} ({staging:?}): {got:?}, reference {reference:?}");
    }
    reference
}

fn floats(verdict: Verdict) -> Vec<f64> {
    match verdict {
        Verdict::Value(Observed::Tensor(t)) => t.data,
        Verdict::Value(Observed::Float(v)) => vec![v],
        other => panic!("not a Float or a tensor: {other}"),
    }
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

const CONV: Fused = Fused { conv: 1, max: 0, avg: 0, copy: 0 };

#[test]
fn a_fused_conv2d_sums_in_the_rules_order() {
    let ones = [1.0, 1.0, 1.0];
    // ((0.0 + 1·1) + 1·1e16) + 1·(-1e16): 1 + 1e16 rounds to 1e16 (a tie, to even), so 0.0;
    // from the other end it would be 1.0.
    let cancel = "let w = initTensor(1, 1, 1, 3)[1.0, 1e16, -1e16] in let y = conv2d(x, w) in y";
    assert_eq!(bits(&floats(fused(cancel, &[1, 1, 3], &ones, CONV))), bits(&[0.0]));
    // The bias comes last: ((0.0 + 0.1) + 0.1) + 0.1 = 0.30000000000000004, + 0.2 = 0.5.
    let tenths = "let w = initTensor(1, 1, 1, 3)[0.1, 0.1, 0.1] in let b = initTensor(1)[0.2] in \
                  let y = conv2d(x, w, b) in y";
    assert_eq!(bits(&floats(fused(tenths, &[1, 1, 3], &ones, CONV))), bits(&[0.5]));
    // Int weights and an Int bias are widened (Rev-10): 0.0 + 2·1.5 + (-1)·0.25 = 2.75, + 3.
    let ints = "let w = initTensor(1, 1, 1, 2)[2, -1] in let b = initTensor(1)[3] in let y = conv2d(x, w, b) in y";
    assert_eq!(floats(fused(ints, &[1, 1, 2], &[1.5, 0.25], CONV)), [5.75]);
    // Two groups of two channels each: output o reads the channels 2·(o / 2) and 2·(o / 2) + 1
    // only. y[0] = 1·1 + 2·10 = 21, y[1] = 1·(-1) + 2·0.5 = 0, y[2] = 100·1 + 1000·1 = 1100,
    // y[3] = 100·0.25 + 1000·(-0.125) = -100.
    let groups = "let w = initTensor(4, 2, 1, 1)[1.0, 10.0, -1.0, 0.5, 1, 1, 0.25, -0.125] in \
                  let y = conv2d(x, w, group = 2) in y";
    assert_eq!(floats(fused(groups, &[4, 1, 1], &[1.0, 2.0, 100.0, 1000.0], CONV)), [21.0, 0.0, 1100.0, -100.0]);
    // Subnormals: 5e-324 · 0.5 rounds to 0.0 (a tie, to even), 5e-324 · 1.5 to 1e-323.
    let tiny = "let w = initTensor(2, 1, 1, 1)[0.5, 1.5] in let y = conv2d(x, w) in y";
    assert_eq!(bits(&floats(fused(tiny, &[1, 1, 1], &[5e-324], CONV))), bits(&[0.0, 1e-323]));
}

#[test]
fn a_fused_conv2d_multiplies_padding_by_its_weights() {
    // x = [2, 3], one column of padding on the left, a 1×2 kernel [w0, 1]: y[0] = (0.0 + 0.0·w0)
    // + 2·1 and y[1] = (0.0 + 2·w0) + 3·1. 0·∞ is NaN, which no sum forgets.
    let program = |w0: &str| {
        format!("let w = initTensor(1, 1, 1, 2)[{w0}, 1.0] in let y = conv2d(x, w, pads = [0, 1, 0, 0]) in y")
    };
    let y = floats(fused(&program("Infinity"), &[1, 1, 2], &[2.0, 3.0], CONV));
    assert!(y[0].is_nan() && y[1] == f64::INFINITY, "{y:?}");
    let y = floats(fused(&program("-Infinity"), &[1, 1, 2], &[2.0, 3.0], CONV));
    assert!(y[0].is_nan() && y[1] == f64::NEG_INFINITY, "{y:?}");
    let y = floats(fused(&program("NaN"), &[1, 1, 2], &[2.0, 3.0], CONV));
    assert!(y.iter().all(|v| v.is_nan()), "{y:?}");
    // A finite weight on padding adds 0.0 · w = ±0.0, which changes nothing (and -0.0 is never
    // a sum: 0.0 + -0.0 is 0.0): y = [0.0 + -0.0 + 2, 0.0 + -2·1 + 3].
    let y = floats(fused(&program("-1.0"), &[1, 1, 2], &[2.0, 3.0], CONV));
    assert_eq!(bits(&y), bits(&[2.0, 1.0]));
    // Strides and dilations pick the taps: a 1×5 image, kernel 1×2 dilated by 2, stride 2, a
    // column of padding each side: positions (-1, 1), (1, 3), (3, 5): y = [0·10 + x1, x1·10 + x3,
    // x3·10 + 0·1] = [2, 24, 40].
    let strided = "let w = initTensor(1, 1, 1, 2)[10.0, 1.0] in \
                   let y = conv2d(x, w, strides = [1, 2], dilations = [1, 2], pads = [0, 1, 0, 1]) in y";
    assert_eq!(floats(fused(strided, &[1, 1, 5], &[1.0, 2.0, 3.0, 4.0, 5.0], CONV)), [2.0, 24.0, 40.0]);
}

#[test]
fn fused_pools_keep_the_rules_order_and_their_errors() {
    let max = Fused { max: 1, ..Fused::default() };
    let avg = Fused { avg: 1, ..Fused::default() };
    let big = [1e16, 1.0, 1.0];
    // ((0.0 + 1e16) + 1) + 1 = 1e16 (each 1 rounds away), / 3; from the other end 1e16 + 2.
    let mean = "let y = avgPool2d(x, kernel = [1, 3]) in y";
    assert_eq!(floats(fused(mean, &[1, 1, 3], &big, avg)), [3333333333333333.5]);
    // A column of padding: countPad = 0 divides by the 3 taps inside, countPad = 1 by 4.
    let padded = "let y = avgPool2d(x, kernel = [1, 4], pads = [0, 1, 0, 0]";
    assert_eq!(floats(fused(&format!("{padded}) in y"), &[1, 1, 3], &big, avg)), [3333333333333333.5]);
    assert_eq!(floats(fused(&format!("{padded}, countPad = 1) in y"), &[1, 1, 3], &big, avg)), [2.5e15]);
    // max from -Infinity; ties keep the earlier: max(-0.0, 0.0) is -0.0 (`max-left`). A window
    // wholly in padding stays -Infinity.
    let zeros = "let y = maxPool2d(x, kernel = [1, 2], pads = [0, 2, 0, 0]) in y";
    let y = floats(fused(zeros, &[1, 1, 2], &[-0.0, 0.0], max));
    assert_eq!(bits(&y), bits(&[f64::NEG_INFINITY, -0.0, -0.0]));
    // A NaN reaching `max` is the reference's `invalid-operands`, at the pool, with its words.
    let nan = "let y = maxPool2d(x, kernel = [2, 2], strides = [1, 2]) in y";
    let error = fused(nan, &[2, 2, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, f64::NAN, 6.0, 7.0], max);
    match &error {
        Verdict::Error { kind, detail, .. } => {
            assert_eq!(kind.id(), "invalid-operands");
            assert!(detail.contains("NaN"), "{detail}");
        }
        other => panic!("{other}"),
    }
    // NaN is no error for the mean (`+` has a rule for it): the second channel's mean is NaN.
    let y = floats(fused(
        "let y = avgPool2d(x, kernel = [2, 1]) in y",
        &[2, 2, 1],
        &[1.0, 2.0, f64::NAN, 3.0],
        Fused { avg: 1, ..Fused::default() },
    ));
    assert!(y[0] == 1.5 && y[1].is_nan(), "{y:?}");
    // A padding tap times an infinite weight makes a NaN, which the max pool after it refuses.
    let conv_max = "let w = initTensor(1, 1, 1, 2)[Infinity, 1.0] in let y = conv2d(x, w, pads = [0, 1, 0, 0]) in \
                    let p = maxPool2d(y, kernel = [1, 2]) in p";
    let error = fused(conv_max, &[1, 1, 2], &[2.0, 3.0], Fused { conv: 1, max: 1, ..Fused::default() });
    assert!(matches!(&error, Verdict::Error { kind, .. } if kind.id() == "invalid-operands"), "{error}");
}

/// `reshape` and `flatten` of a buffer are one `Copy`: element `k` of the result is element `k`
/// of the input in row-major order (`ext-reshape-helper-step`), whatever its bits.
#[test]
fn fused_copies_reshape_and_flatten() {
    // reshape then conv2d: the 1×2×3 input read as 1×3×2, a 2×1 kernel [1, 10]:
    // y = [x0 + 10·x2, x1 + 10·x3, x2 + 10·x4, x3 + 10·x5].
    let source = "let r = reshape(x, 1, 3, 2) in let w = initTensor(1, 1, 2, 1)[1.0, 10.0] in \
                  let y = conv2d(r, w) in let f = flatten(y) in f";
    let y = floats(fused(
        source,
        &[1, 2, 3],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        Fused { conv: 1, copy: 2, ..Fused::default() },
    ));
    assert_eq!(y, [31.0, 42.0, 53.0, 64.0]);
    // A copy keeps -0.0 and NaN as they are.
    let y =
        floats(fused("let f = flatten(x) in f", &[1, 1, 2], &[-0.0, f64::NAN], Fused { copy: 1, ..Fused::default() }));
    assert!(y[0].to_bits() == (-0.0f64).to_bits() && y[1].is_nan(), "{y:?}");
}
