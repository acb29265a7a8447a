//! Ext-3's `conv2d` on every engine, its input a literal (constants) and copied from an input
//! (symbolic in the staged engine): values worked out by hand from the order of summation of
//! `ext-conv2d-helper-step` (from `0.0`, the taps over channels, kernel rows, kernel columns,
//! then the bias), and each error kind.

use super::images::*;
use super::*;

/// `w` = [[1, 0.5], [-1, 2]].
const W: &str = "let w = initTensor(1, 1, 2, 2)[1.0, 0.5, -1.0, 2.0] in ";

/// `program` after `x` (both ways) and `w`.
fn both(program: &str) -> (Vec<usize>, Vec<f64>) {
    both_ways(&format!("{W}{program}"))
}

#[test]
fn conv2d_agrees_on_hand_worked_values() {
    // y[0, 0] = 1·1 + 2·0.5 + 4·(-1) + 5·2 = 8, then 10.5, 15.5, 18.
    assert_eq!(both("let y = conv2d(x, w) in y"), (vec![1, 2, 2], vec![8.0, 10.5, 15.5, 18.0]));
    // Stride 2 and a row and column of padding all round: (3 + 2 − 2) / 2 + 1 = 2 positions per
    // axis; y[0, 0] reads only x[0, 0] (by w[1, 1] = 2), y[0, 1] x[0, 1]·(-1) + x[0, 2]·2 = 4,
    // y[1, 0] x[1, 0]·0.5 + x[2, 0]·2 = 16, y[1, 1] 5 + 3 − 8 + 18 = 18.
    let padded = "let y = conv2d(x, w, strides = [2, 2], pads = [1, 1, 1, 1]) in y";
    assert_eq!(both(padded), (vec![1, 2, 2], vec![2.0, 4.0, 16.0, 18.0]));
    // Dilation 2: the taps x[0, 0], x[0, 2], x[2, 0], x[2, 2]: 1 + 1.5 − 7 + 18.
    assert_eq!(both("let y = conv2d(x, w, dilations = [2, 2]) in y"), (vec![1, 1, 1], vec![13.5]));
    // A bias, the Int 1: 8 + 1 … (Float + Int is a Float, Rev-10).
    let bias = "let b = initTensor(1)[1] in let y = conv2d(x, w, b) in y";
    assert_eq!(both(bias), (vec![1, 2, 2], vec![9.0, 11.5, 16.5, 19.0]));
    // Two groups of one channel: y[0] = 2·x[0] + 0.5, y[1] = -1·x[1] + 1.
    let groups = "let v = initTensor(2, 2, 2)[1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0] in \
                  let k = initTensor(2, 1, 1, 1)[2.0, -1.0] in let c = initTensor(2)[0.5, 1.0] in \
                  let y = conv2d(v, k, c, group = 2) in y";
    assert_eq!(tensor(groups, &[]), (vec![2, 2, 2], vec![2.5, 4.5, 6.5, 8.5, -9.0, -19.0, -29.0, -39.0]));
    // Int elements: the sum starts from the Float 0.0, so 0.0 + 2·4 + 3·5 is the Float 23.0.
    let ints = "let v = initTensor(1, 1, 2)[2, 3] in let k = initTensor(1, 1, 1, 2)[4, 5] in \
                let y = conv2d(v, k) in y[0, 0, 0]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Float(v)) if v == 23.0));
    // Padding is 0.0 times the weight: 0.0 · Infinity is NaN, and NaN + 5 stays NaN.
    let nan = "let v = initTensor(1, 1, 1)[5.0] in let k = initTensor(1, 1, 1, 2)[Infinity, 1.0] in \
               let y = conv2d(v, k, pads = [0, 1, 0, 0]) in y[0, 0, 0]";
    assert!(matches!(agree(nan, &[]), Verdict::Value(Observed::Float(v)) if v.is_nan()));
    // -0.0 survives no sum: 0.0 + (-0.0 · 1.0) is 0.0.
    let zero = "let v = initTensor(1, 1, 1)[-0.0] in let k = initTensor(1, 1, 1, 1)[1.0] in \
                let y = conv2d(v, k) in y[0, 0, 0]";
    assert!(matches!(agree(zero, &[]), Verdict::Value(Observed::Float(v)) if v.to_bits() == 0f64.to_bits()));
}

#[test]
fn conv2d_agrees_on_every_error_kind() {
    for (program, kind) in [
        ("let k = initTensor(1, 2, 2, 2) in let y = conv2d(x, k) in y", "shape-mismatch"),
        ("let k = initTensor(2, 2) in let y = conv2d(x, k) in y", "shape-mismatch"),
        ("let b = initTensor(2) in let y = conv2d(x, w, b) in y", "shape-mismatch"),
        ("let k = initTensor(1, 1, 4, 1) in let y = conv2d(x, k) in y", "shape-mismatch"),
        ("let k = initTensor(3, 1, 1, 1) in let y = conv2d(x, k, group = 2) in y", "shape-mismatch"),
        ("let y = conv2d(x, w, strides = [0, 1]) in y", "invalid-attribute"),
        ("let y = conv2d(x, w, group = 0) in y", "invalid-attribute"),
        ("let y = conv2d(x, 1.0) in y", "unknown-tensor"),
        ("let s = 1.0 in let y = conv2d(x, w, s) in y", "unknown-tensor"),
        ("let y = conv2d(x, k) in y", "unbound-identifier"),
        ("let w = conv2d(x, w) in w", "aliased-output"),
        ("let u = initTensor(1) in let x[0, 1, 1] = u in let y = conv2d(x, w) in y", "invalid-operands"),
        ("let x[0] = 1.0 in let y = conv2d(x, w) in y", "too-many-indices"),
    ] {
        let source = format!("{}{W}{program}", x_from_input());
        match agree(&source, &[input_3x3()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
}
