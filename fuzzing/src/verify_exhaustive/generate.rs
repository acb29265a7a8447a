//! The generator: small networks whose weights include the values where binary64 stops being
//! arithmetic (±0, subnormals, the overflow threshold, ±∞, NaN), and a point of interest to
//! centre the region on: an ordinary point, or one where the class, a NaN or an infinity
//! starts (found by bisection on the plain evaluation, to the ulp).

use super::case::{Ask, Case, ClassClaim};
use super::choices::Choices;
use super::exact::{key, of_key};
use super::front;
use super::network::{Activation, Layer, Net};
use super::region::{property, region};

/// Weights and biases where the arithmetic is special: both zeros, subnormals (the smallest,
/// and one just below the normal range), products and sums near the overflow threshold,
/// infinities and NaN.
const EXTREMES: [f64; 19] = [
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    2.2250738585072e-308,
    -2.2250738585072e-308,
    1e308,
    -1e308,
    f64::MAX,
    f64::MIN,
    8.98846567431158e307,
    -8.98846567431158e307,
    1e154,
    -1e200,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    1e-300,
    4.0,
];

/// A short decimal in `[-span, span]` with up to two places (its binary64 value: division of
/// integers rounds correctly, so this is the literal's value).
fn ordinary(c: &mut Choices, span: i64) -> f64 {
    let scale = c.pick(&[1i64, 10, 100]);
    c.between(-span * scale, span * scale) as f64 / scale as f64
}

fn parameter(c: &mut Choices, extreme: bool, odds: usize) -> f64 {
    if extreme && c.chance(1, odds) { c.pick(&EXTREMES) } else { ordinary(c, 2) }
}

/// A network of 1–3 inputs, 0–2 hidden layers of width 1–4, and `outputs` scores.
pub fn network(c: &mut Choices, extreme: bool, outputs: usize, argmax: bool, scaled: bool) -> Net {
    let inputs = 1 + c.below(3);
    dense_network(c, extreme, inputs, outputs, argmax, scaled)
}

/// Dense layers on `inputs` values: 0–2 hidden layers of width 1–4, and `outputs` scores; with
/// `scaled`, most products multiplied by a factor before their bias (drawn last, so that the
/// cases without stay as they were).
fn dense_network(c: &mut Choices, extreme: bool, inputs: usize, outputs: usize, argmax: bool, scaled: bool) -> Net {
    let hidden = c.below(3);
    let mut layers = Vec::new();
    let mut cols = inputs;
    for k in 0..=hidden {
        let last = k == hidden;
        let rows = if last { outputs } else { 1 + c.below(4) };
        let weights = (0..rows * cols).map(|_| parameter(c, extreme, 4)).collect();
        let bias = (0..rows).map(|_| c.chance(3, 4).then(|| parameter(c, extreme, 6))).collect();
        let activation = if !last || c.chance(1, 4) {
            Some(c.pick(&[Activation::Relu, Activation::Relu, Activation::Tanh, Activation::Sigmoid]))
        } else {
            None
        };
        let after = if activation.is_some() {
            (0..rows).map(|_| c.chance(1, 6).then(|| parameter(c, extreme, 4))).collect()
        } else {
            vec![None; rows]
        };
        let scale = (0..rows).map(|_| (scaled && c.chance(2, 3)).then(|| parameter(c, extreme, 4))).collect();
        layers.push(Layer { rows, cols, weights, scale, bias, activation, after });
        cols = rows;
    }
    Net { inputs, front: None, layers, argmax, residual: None, softmax: None, middle_softmax: None }
}

/// What the plain evaluation says at a point, for the bisection: where NaNs and infinities
/// are, whether a relu met a NaN, and the class.
fn status(net: &Net, x: &[f64]) -> (bool, Vec<u8>, usize) {
    let a = net.approximate(x);
    let kinds = a.scores.iter().map(|v| u8::from(v.is_nan()) + 2 * u8::from(v.is_infinite())).collect();
    let mut class = 0;
    for i in 1..a.scores.len() {
        if a.scores[i] > a.scores[class] {
            class = i;
        }
    }
    (a.relu_of_nan, kinds, class)
}

/// A value for one input: ordinary, a zero, where a first-layer product overflows, huge, or tiny.
fn input_value(c: &mut Choices, net: &Net, element: usize) -> f64 {
    let sign = if c.chance(1, 2) { 1.0 } else { -1.0 };
    match c.below(8) {
        0..=3 => ordinary(c, 2),
        4 => 0.0 * sign,
        5 => {
            // |w·x| reaches MAX: the product overflows on one side of this point.
            let first = &net.layers[0];
            let row = c.below(first.rows);
            // Behind a front, the first dense layer reads the front's outputs: a weight of
            // the convolution is the one that meets the input.
            let w = match net.front.as_ref().and_then(|f| f.conv.as_ref()) {
                Some(conv) => conv.weights[c.below(conv.weights.len())].abs(),
                None if net.front.is_some() => 1.0,
                None => first.weights[row * first.cols + element].abs(),
            };
            if w.is_finite() && w > 0.0 { sign * (f64::MAX / w).min(f64::MAX) } else { sign * 1e308 }
        }
        6 => sign * c.pick(&[1e300, 1e307, 1.5e308, f64::MAX, 1e154]),
        _ => sign * c.pick(&[5e-324, 1e-310, 2.2250738585072014e-308, 1e-300]),
    }
}

/// A point where the status changes between two neighbouring binary64 values of one element,
/// if the walk finds one; else the last point it tried.
fn anchor(c: &mut Choices, net: &Net) -> Vec<f64> {
    let mut x: Vec<f64> = (0..net.inputs).map(|j| input_value(c, net, j)).collect();
    // An image of equal pixels: a pool's taps then tie, and a few ulps apart none of them is
    // always the maximum (the max pool's relaxation, not its exact case).
    if net.front.is_some() && c.chance(1, 2) {
        let first = x[0];
        x.iter_mut().for_each(|v| *v = first);
    }
    if c.chance(1, 3) {
        return x;
    }
    let here = status(net, &x);
    for _ in 0..8 {
        let j = c.below(net.inputs);
        let mut other = x.clone();
        other[j] = input_value(c, net, j);
        if status(net, &other) != here {
            let (mut same, mut changed) = (i128::from(key(x[j])), i128::from(key(other[j])));
            while (changed - same).abs() > 1 {
                let mid = same + (changed - same) / 2;
                let mut probe = x.clone();
                probe[j] = of_key(mid as i64);
                if status(net, &probe) == here {
                    same = mid;
                } else {
                    changed = mid;
                }
            }
            x[j] = of_key(if c.chance(1, 2) { same } else { changed } as i64);
            return x;
        }
        x = other;
    }
    x
}

/// A claim about the class, mostly about the class at the anchor (so that both answers come).
fn class_claim(c: &mut Choices, net: &Net, at: &[f64]) -> ClassClaim {
    let (_, _, class) = status(net, at);
    let outputs = net.outputs();
    let other = (class + 1 + c.below(outputs.max(2) - 1)) % outputs;
    match c.below(3) {
        0 => ClassClaim::Stable,
        1 => ClassClaim::Is(if c.chance(3, 4) { class } else { other }),
        _ => ClassClaim::IsNot(if c.chance(3, 4) { other } else { class }),
    }
}

/// A whole case.
pub fn case(c: &mut Choices) -> Case {
    case_with(c, false, false, false, false)
}

/// A whole case whose tensors meet as products or quotients (`mulTensor`, `divTensor` of each
/// layer's output by the tensor before it, where the lengths allow), and half of them with a
/// `softmax` or `logSoftmax` of the first layer's output (all drawn last).
pub fn product_case(c: &mut Choices) -> Case {
    case_shaped(c, false, false, false, false, |c, net| Net {
        residual: Some(c.pick(&["mulTensor", "mulTensor", "divTensor"])),
        middle_softmax: c.chance(1, 2).then(|| c.pick(&["softmax", "logSoftmax"])),
        ..net
    })
}

/// A whole case whose dense layers scale their products, `z[i] * a + b` (an imported `Mul` or
/// batch normalisation: the plan's `Elementwise`, the verifier's `Scale`).
pub fn scaled_case(c: &mut Choices) -> Case {
    case_with(c, false, true, false, false)
}

/// A whole case whose network starts with a window front (`front.rs`) on an image of at most
/// four inputs.
pub fn window_case(c: &mut Choices) -> Case {
    case_with(c, true, false, false, false)
}

/// A whole case whose tensors branch: each layer's output plus the tensor before it where the
/// lengths allow (a residual connection), and half the `ArgMax` cases through a `softmax` or
/// `logSoftmax` first (both drawn last).
pub fn branched_case(c: &mut Choices) -> Case {
    case_with(c, false, false, true, false)
}

/// A whole case whose activations are mostly Ext-9's `expTensor` and `logTensor` (drawn after
/// the network, before its anchor), the extremes included: `exp` overflowing, `log` of a
/// negative number (NaN), of `±0` (`−∞`).
pub fn exp_log_case(c: &mut Choices) -> Case {
    case_with(c, false, false, false, true)
}

fn case_with(c: &mut Choices, with_front: bool, scaled: bool, branched: bool, exp_log: bool) -> Case {
    case_shaped(c, with_front, scaled, branched, exp_log, |_, net| net)
}

/// A case whose network `reshape` changes once drawn (before its anchor and claim are).
fn case_shaped(
    c: &mut Choices,
    with_front: bool,
    scaled: bool,
    branched: bool,
    exp_log: bool,
    reshape: impl FnOnce(&mut Choices, Net) -> Net,
) -> Case {
    let extreme = c.chance(1, 2);
    let asks_property = c.chance(1, 4);
    let outputs = if asks_property { 1 + c.below(3) } else { c.pick(&[1, 2, 2, 3, 3]) };
    let argmax = !asks_property && c.chance(1, 2);
    let net = if with_front {
        let front = front::draw(c, |c| parameter(c, extreme, 4));
        let dense = dense_network(c, extreme, front.output_len(), outputs, argmax, scaled);
        Net { inputs: front.input_len(), front: Some(front), ..dense }
    } else {
        network(c, extreme, outputs, argmax, scaled)
    };
    let net = match branched {
        true => {
            let softmax = (argmax && c.chance(1, 2)).then(|| c.pick(&["softmax", "logSoftmax"]));
            Net { residual: Some("addTensor"), softmax, ..net }
        }
        false => net,
    };
    let mut net = net;
    if exp_log {
        for layer in net.layers.iter_mut().filter(|l| l.activation.is_some()) {
            if c.chance(2, 3) {
                layer.activation = Some(c.pick(&[Activation::Exp, Activation::Log]));
            }
        }
    }
    let net = reshape(c, net);
    let at = anchor(c, &net);
    let ask = if asks_property { Ask::Property(property(c, &net, &at)) } else { Ask::Class(class_claim(c, &net, &at)) };
    let region = region(c, &at, asks_property);
    Case { program: net.source(), outputs, region, ask }
}
