//! Ext-4's `maxPool2d` and `avgPool2d` on every engine, their input a literal (constants) and
//! copied from an input (symbolic in the staged engine): values worked out by hand from
//! `ext-max-pool2d-helper-step` (`max` from `-Infinity` over the taps inside the input, in
//! row-major window order) and `ext-avg-pool2d-helper-step` (`+` from `0.0`, then `/Float` by
//! the count, `ext-pool-mean`), and each error kind.

use super::images::{both_ways as both, *};
use super::*;

fn float(source: &str) -> f64 {
    match agree(source, &[]) {
        Verdict::Value(Observed::Float(v)) => v,
        other => panic!("{source}: {other}"),
    }
}

#[test]
fn max_pool2d_agrees_on_hand_worked_values() {
    // 2×2 windows at stride 1: max(1, 2, 4, 5) = 5, then 6, 8, 9.
    assert_eq!(both("let y = maxPool2d(x, kernel = [2, 2]) in y"), (vec![1, 2, 2], vec![5.0, 6.0, 8.0, 9.0]));
    // Stride 2, one row and column of padding all round: (3 + 2 − 2) / 2 + 1 = 2 per axis;
    // y[0, 0] sees x[0, 0] only, y[0, 1] x[0, 1..3], y[1, 0] x[1..3, 0], y[1, 1] four taps.
    let padded = "let y = maxPool2d(x, kernel = [2, 2], strides = [2, 2], pads = [1, 1, 1, 1]) in y";
    assert_eq!(both(padded), (vec![1, 2, 2], vec![1.0, 3.0, 7.0, 9.0]));
    // Dilation 2: one window, the taps x[0, 0], x[0, 2], x[2, 0], x[2, 2].
    let dilated = "let y = maxPool2d(x, kernel = [2, 2], dilations = [2, 2]) in y";
    assert_eq!(both(dilated), (vec![1, 1, 1], vec![9.0]));
    // A window wholly in padding is -Infinity (the start), the next one 5.
    let empty = "let v = initTensor(1, 1, 1)[5.0] in let y = maxPool2d(v, kernel = [1, 1], pads = [1, 0, 0, 0]) in y";
    assert_eq!(tensor(empty, &[]), (vec![1, 2, 1], vec![f64::NEG_INFINITY, 5.0]));
    // Ties keep the earlier element: max(-inf, -0.0) = -0.0, max(-0.0, 0.0) = -0.0 (`max-left`).
    let zeros = "let v = initTensor(1, 1, 2)[-0.0, 0.0] in let y = maxPool2d(v, kernel = [1, 2]) in y[0, 0, 0]";
    assert_eq!(float(zeros).to_bits(), (-0.0f64).to_bits());
    let infinity = "let v = initTensor(1, 1, 2)[Infinity, 1.0] in let y = maxPool2d(v, kernel = [1, 2]) in y[0, 0, 0]";
    assert_eq!(float(infinity), f64::INFINITY);
    // Two channels are pooled apart.
    let channels = "let v = initTensor(2, 1, 2)[1.0, 3.0, -2.0, -5.0] in let y = maxPool2d(v, kernel = [1, 2]) in y";
    assert_eq!(tensor(channels, &[]), (vec![2, 1, 1], vec![3.0, -2.0]));
}

#[test]
fn avg_pool2d_agrees_on_hand_worked_values() {
    // (1 + 2 + 4 + 5) / 4 = 3, then 16 / 4, 24 / 4, 28 / 4.
    assert_eq!(both("let y = avgPool2d(x, kernel = [2, 2]) in y"), (vec![1, 2, 2], vec![3.0, 4.0, 6.0, 7.0]));
    // The windows of the padded max pool above: 1 / 1, (2 + 3) / 2, (4 + 7) / 2, 28 / 4 ...
    let padded = "let y = avgPool2d(x, kernel = [2, 2], strides = [2, 2], pads = [1, 1, 1, 1]) in y";
    assert_eq!(both(padded), (vec![1, 2, 2], vec![1.0, 2.5, 5.5, 7.0]));
    // ... and with countPad = 1 every sum over 4: 1 / 4, 5 / 4, 11 / 4, 28 / 4.
    let counted = "let y = avgPool2d(x, kernel = [2, 2], strides = [2, 2], pads = [1, 1, 1, 1], countPad = 1) in y";
    assert_eq!(both(counted), (vec![1, 2, 2], vec![0.25, 1.25, 2.75, 7.0]));
    // IEEE division, not a product by 1/3: (1 + 2 + 4) / 3.
    let third = "let v = initTensor(1, 1, 3)[1.0, 2.0, 4.0] in let y = avgPool2d(v, kernel = [1, 3]) in y[0, 0, 0]";
    assert_eq!(float(third).to_bits(), (7.0f64 / 3.0).to_bits());
    assert_ne!((7.0f64 / 3.0).to_bits(), (7.0f64 * (1.0 / 3.0)).to_bits());
    // Ints: the sum starts from the Float 0.0, so (0.0 + 2 + 3) / 2 is the Float 2.5.
    let ints = "let v = initTensor(1, 1, 2)[2, 3] in let y = avgPool2d(v, kernel = [1, 2]) in y[0, 0, 0]";
    assert_eq!(float(ints), 2.5);
    // No tap inside the input: 0.0 / 0 is NaN with countPad = 0, 0.0 / 1 with countPad = 1.
    let empty = "let v = initTensor(1, 1, 1)[5.0] in let y = avgPool2d(v, kernel = [1, 1], pads = [1, 0, 0, 0]";
    assert!(float(&format!("{empty}) in y[0, 0, 0]")).is_nan());
    assert_eq!(float(&format!("{empty}, countPad = 1) in y[0, 0, 0]")).to_bits(), 0f64.to_bits());
    // A NaN element makes the mean NaN (`+` has a rule for it, unlike `max`); -0.0 survives no sum.
    let nan = "let v = initTensor(1, 1, 2)[NaN, 1.0] in let y = avgPool2d(v, kernel = [1, 2]) in y[0, 0, 0]";
    assert!(float(nan).is_nan());
    let zero = "let v = initTensor(1, 1, 1)[-0.0] in let y = avgPool2d(v, kernel = [1, 1]) in y[0, 0, 0]";
    assert_eq!(float(zero).to_bits(), 0f64.to_bits());
}

#[test]
fn pools_agree_on_every_error_kind() {
    for (program, kind) in [
        ("let y = maxPool2d(x, kernel = [4, 1]) in y", "shape-mismatch"),
        ("let y = avgPool2d(x, kernel = [1, 2], pads = [0, 0, 0, 0], strides = [1, 5]) in y[0, 0, 0]", "value"),
        ("let k = initTensor(3, 3) in let y = avgPool2d(k, kernel = [1, 1]) in y", "shape-mismatch"),
        ("let y = maxPool2d(x, kernel = [0, 1]) in y", "invalid-attribute"),
        ("let y = maxPool2d(x, kernel = [1, 1], strides = [1, 0]) in y", "invalid-attribute"),
        ("let y = maxPool2d(x, kernel = [1, 1], dilations = [0, 1]) in y", "invalid-attribute"),
        ("let y = avgPool2d(x, kernel = [1, 1], countPad = 2) in y", "invalid-attribute"),
        // The attributes are checked before the shapes.
        ("let y = maxPool2d(x, kernel = [9, 0]) in y", "invalid-attribute"),
        ("let y = avgPool2d(1.0, kernel = [1, 1]) in y", "unknown-tensor"),
        ("let s = 1.0 in let y = maxPool2d(s, kernel = [1, 1]) in y", "unknown-tensor"),
        ("let y = maxPool2d(z, kernel = [1, 1]) in y", "unbound-identifier"),
        ("let x = avgPool2d(x, kernel = [1, 1]) in x", "aliased-output"),
        (
            "let u = initTensor(1) in let x[0, 1, 1] = u in let y = maxPool2d(x, kernel = [2, 2]) in y",
            "invalid-operands",
        ),
        (
            "let u = initTensor(1) in let x[0, 1, 1] = u in let y = avgPool2d(x, kernel = [2, 2]) in y",
            "invalid-operands",
        ),
        // No rule computes `max` with an Int.
        ("let x[0, 0, 0] = 1 in let y = maxPool2d(x, kernel = [1, 1]) in y", "invalid-operands"),
        ("let x[0] = 1.0 in let y = avgPool2d(x, kernel = [1, 1]) in y", "too-many-indices"),
    ] {
        let source = format!("{}{program}", x_from_input());
        match agree(&source, &[input_3x3()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            Verdict::Value(_) => assert_eq!(kind, "value", "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
    // A NaN element is invalid for `max` (`rev-arith-invalid`).
    let nan = "let v = initTensor(1, 1, 2)[1.0, NaN] in let y = maxPool2d(v, kernel = [1, 2]) in y";
    assert!(matches!(agree(nan, &[]), Verdict::Error { kind, .. } if kind.id() == "invalid-operands"), "{nan}");
}
