//! Small CNNs over a symbolic 2×5×5 input, compiled to fused operations (`fused.rs` checks the
//! plan), on 37 rows (three lane groups, the last one short): each row, alone and in every
//! grouping, gets the small-step reference's result bit for bit, or its error with the same
//! kind, span and detail. The kernels mix weights whose sums depend on the order of the terms
//! (0.1, ±1e16, subnormals, Ints), so a tap out of order, a bias added early or a lane mixed up
//! changes bits.

use knn_engine::tensor::LANE_GROUP;

use super::fused::*;
use super::*;

/// Weights of a kernel: seeded values, with the awkward ones of `specials` written over
/// positions spread through it.
fn weights(n: usize, seed: u64, specials: &[f64]) -> Vec<f64> {
    let mut stream = Stream(seed);
    let mut w: Vec<f64> = (0..n).map(|_| stream.next()).collect();
    for (k, &v) in specials.iter().enumerate() {
        w[(k * 7 + 1) % n] = v;
    }
    w
}

/// `let NAME = initTensor(dims)[…] in` with `Int` elements written where `ints` says.
fn tensor_let(name: &str, dims: &[usize], values: &[f64], ints: &[(usize, i64)]) -> String {
    let mut text = literal(dims, values);
    // Rewrite the chosen elements as Int literals: the literal lists values in order.
    if !ints.is_empty() {
        let open = text.find('[').unwrap();
        let mut items: Vec<String> = text[open + 1..text.len() - 1].split(", ").map(str::to_string).collect();
        for &(at, n) in ints {
            items[at] = n.to_string();
        }
        text = format!("{}[{}]", &text[..open], items.join(", "));
    }
    format!("let {name} = {text} in ")
}

const AWKWARD: [f64; 7] = [0.1, 1e16, -1e16, 5e-324, -0.1, 1e-310, 3.0];
const DIMS: [usize; 3] = [2, 5, 5];

fn rows() -> Vec<Vec<f64>> {
    image_rows(50, 2 * LANE_GROUP + 5, 17)
}

/// conv2d (group 2, strides, uneven pads, a dilation, an Int weight, a bias with an Int) →
/// relu → maxPool2d (padding, strides) → flatten → linear → `tail`. Shapes: the conv is 4×3×4
/// ((5 + 2 − 2) / 2 + 1 rows, (5 + 1 − 3) + 1 columns), the pool 4×3×2, so 24 inputs to the
/// linear layer.
fn cnn_max(tail: &str) -> String {
    tensor_let("w", &[4, 1, 2, 2], &weights(16, 1, &AWKWARD), &[(4, 2), (9, -1)])
        + &tensor_let("b", &[4], &[0.1, 1e16, -3.0, 7.0], &[(3, 7)])
        + &tensor_let("W", &[3, 24], &weights(72, 2, &AWKWARD), &[])
        + "let y = conv2d(x, w, b, strides = [2, 1], pads = [1, 0, 1, 1], dilations = [1, 2], group = 2) in \
           let r = reluTensor(y) in let p = maxPool2d(r, kernel = [2, 2], pads = [1, 1, 0, 0], strides = [1, 2]) in \
           let f = flatten(p) in let z = linear(W, f) in "
        + tail
}

#[test]
fn conv_relu_max_pool_flatten_linear_on_every_grouping() {
    let rows = rows();
    let expected = Fused { conv: 1, max: 1, avg: 0, copy: 1 };
    for tail in ["ArgMax(z)", "z", "p"] {
        let reference = check_rows(&cnn_max(tail), &DIMS, &rows, expected);
        let (values, relu_errors) = tally(&reference, "invalid-operands");
        // The NaN rows (and ±Infinity meeting ∓Infinity) fail at the relu; the others run.
        assert!(values >= 30 && relu_errors >= 2, "{tail}: {values} values, {relu_errors} errors");
    }
}

/// conv2d (group 1, no bias, padding, a row dilation, a column stride) → avgPool2d (padding,
/// `countPad`) → flatten → linear → `z`. The conv is 3×4×3, the pool 3×3×3: 27 inputs.
fn cnn_avg(count_pad: u8) -> String {
    tensor_let("w", &[3, 2, 2, 2], &weights(24, 3, &AWKWARD), &[(0, -2)])
        + &tensor_let("W", &[2, 27], &weights(54, 4, &AWKWARD), &[(5, 1)])
        + &format!(
            "let y = conv2d(x, w, pads = [0, 1, 1, 0], strides = [1, 2], dilations = [2, 1]) in \
             let p = avgPool2d(y, kernel = [2, 2], pads = [1, 0, 1, 1], strides = [2, 1], countPad = {count_pad}) in \
             let f = flatten(p) in let z = linear(W, f) in z"
        )
}

#[test]
fn conv_avg_pool_flatten_linear_on_every_grouping() {
    let rows = rows();
    for count_pad in [0, 1] {
        let reference = check_rows(&cnn_avg(count_pad), &DIMS, &rows, Fused { conv: 1, avg: 1, copy: 1, max: 0 });
        // No relu and no max: NaN flows through to the result, and every row is a value.
        assert_eq!(tally(&reference, "").0, rows.len(), "countPad = {count_pad}");
        let nans = reference.iter().filter(|v| matches!(v, Verdict::Value(Observed::Tensor(t)) if t.data[0].is_nan()));
        assert!(nans.count() >= 2, "countPad = {count_pad}: the NaN rows stay NaN");
    }
}

/// Infinite and NaN weights on taps that reach the padding: `0.0 · ±Infinity` is NaN in the
/// outputs at the border only (a NaN weight everywhere it is used); the avgPool2d carries them,
/// the maxPool2d refuses them as the reference does.
#[test]
fn infinite_weights_on_padding_taps_on_every_grouping() {
    let kernel =
        tensor_let("w", &[2, 2, 1, 2], &[f64::INFINITY, 0.5, -0.25, 1.0, 1.0, f64::NEG_INFINITY, 2.0, 0.1], &[]);
    let conv = "let y = conv2d(x, w, pads = [0, 1, 0, 1]) in ";
    let rows = rows();
    let avg = format!("{kernel}{conv}let p = avgPool2d(y, kernel = [1, 2], countPad = 1) in p");
    let reference = check_rows(&avg, &DIMS, &rows, Fused { conv: 1, avg: 1, ..Fused::default() });
    assert_eq!(tally(&reference, "").0, rows.len());
    let Verdict::Value(Observed::Tensor(t)) = &reference[0] else { unreachable!() };
    // Channel 0's first column reads padding times Infinity: NaN. Elsewhere the infinities
    // of the two channels meet, NaN where their signs differ, ±Infinity where they agree.
    assert!(t.data[0].is_nan() && t.data.iter().any(|v| v.is_infinite()), "{:?}", &t.data[..5]);
    let max = format!("{kernel}{conv}let p = maxPool2d(y, kernel = [2, 2], strides = [2, 2]) in p");
    let reference = check_rows(&max, &DIMS, &rows, Fused { conv: 1, max: 1, ..Fused::default() });
    assert_eq!(tally(&reference, "invalid-operands").1, rows.len(), "every row meets a NaN");
    let nan_weight = tensor_let("w", &[1, 2, 1, 1], &[f64::NAN, 1.0], &[]);
    let reference = check_rows(
        &format!("{nan_weight}let y = conv2d(x, w) in y"),
        &DIMS,
        &rows,
        Fused { conv: 1, ..Fused::default() },
    );
    assert!(
        reference.iter().all(|v| matches!(v, Verdict::Value(Observed::Tensor(t)) if t.data.iter().all(|x| x.is_nan())))
    );
}

/// A NaN in the image reaches a max pool straight from the convolution: the rows with one fail
/// at the pool with the reference's words; the others are values.
#[test]
fn a_nan_reaching_a_fused_max_pool_fails_its_row_only() {
    let source = tensor_let("w", &[2, 2, 2, 2], &weights(16, 5, &AWKWARD), &[(2, 3)])
        + "let y = conv2d(x, w, strides = [2, 2], pads = [1, 1, 1, 1]) in \
           let p = maxPool2d(y, kernel = [2, 2], pads = [0, 0, 1, 1], dilations = [1, 2]) in \
           let f = flatten(p) in ArgMax(f)";
    let rows = rows();
    let reference = check_rows(&source, &DIMS, &rows, Fused { conv: 1, max: 1, copy: 1, avg: 0 });
    let (values, errors) = tally(&reference, "invalid-operands");
    assert!(values >= 30 && errors >= 2 && values + errors == rows.len(), "{values} values, {errors} errors");
}

/// reshape of the input and of a pool's output (`Copy`), the image read as 1×10×5.
#[test]
fn reshaped_images_on_every_grouping() {
    let source = tensor_let("w", &[2, 1, 3, 2], &weights(12, 6, &AWKWARD), &[])
        + &tensor_let("b", &[2], &[-1e16, 0.1], &[])
        + "let r = reshape(x, 1, 10, 5) in let y = conv2d(r, w, b, pads = [1, 1, 1, 1]) in \
           let a = avgPool2d(y, kernel = [3, 3], strides = [3, 3]) in let s = reshape(a, 2, 3, 2) in \
           let t = reluTensor(s) in t";
    // conv: 2×10×6, pool: 2×3×2.
    let reference = check_rows(&source, &DIMS, &rows(), Fused { conv: 1, avg: 1, copy: 2, max: 0 });
    assert!(tally(&reference, "").0 >= 30);
}

/// conv2d → `c[i] * a + b` per channel (an imported batch normalisation) → relu →
/// `h[i] * 1.5 * 0.5` (an imported `Mul`, then `Div` by 2) → transpose to channels last →
/// flatten → linear: the element writes are one `Elementwise` each, the transpose a `Permute`,
/// and every row gets the reference's bits.
#[test]
fn conv_batch_norm_scaling_and_transpose_on_every_grouping() {
    let (a, b) = ([0.1, -3.0], [2.0, 1e16]);
    let mut source = tensor_let("w", &[2, 2, 2, 2], &weights(16, 4, &AWKWARD), &[])
        + &tensor_let("W", &[2, 32], &weights(64, 5, &AWKWARD), &[])
        + "let c = conv2d(x, w) in ";
    for k in 0..32 {
        let (ch, i, j) = (k / 16, k / 4 % 4, k % 4);
        source += &format!("let c[{ch}, {i}, {j}] = c[{ch}, {i}, {j}] * {:?} + {:?} in ", a[ch], b[ch]);
    }
    source += "let h = reluTensor(c) in ";
    for k in 0..32 {
        let (ch, i, j) = (k / 16, k / 4 % 4, k % 4);
        source += &format!("let h[{ch}, {i}, {j}] = h[{ch}, {i}, {j}] * 1.5 * 0.5 in ");
    }
    source += "let t = transpose(h, 1, 2, 0) in let f = flatten(t) in let z = linear(W, f) in z";
    let program = parse_program(&source, Profile::revised().grammar).unwrap();
    let plan = plan_of(&program, &DIMS);
    let count = |f: fn(&knn_engine::bigstep::ops::Op) -> bool| plan.ops.iter().filter(|op| f(op)).count();
    assert_eq!(count(|op| matches!(op, knn_engine::bigstep::ops::Op::Elementwise { .. })), 2, "{:#?}", plan.ops);
    assert_eq!(count(|op| matches!(op, knn_engine::bigstep::ops::Op::Permute { .. })), 1, "{:#?}", plan.ops);
    let reference = check_rows(&source, &DIMS, &rows(), Fused { conv: 1, copy: 1, ..Fused::default() });
    let (values, _) = tally(&reference, "invalid-operands");
    assert!(values >= 30, "{values} values");
}
