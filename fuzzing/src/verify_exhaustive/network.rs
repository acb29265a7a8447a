//! The generated networks: dense layers as K-NN source text (the way `knn import` writes them:
//! `initTensor`, one `let` per weight, `linear`, bias `let`s in place, a tensor activation),
//! and a plain binary64 evaluation that only steers the generator towards interesting places
//! (the oracle never uses it: it runs the small-step reference).

use std::fmt::Write;

use knn_semantics::syntax::print::float_literal;

use super::front::Front;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Relu,
    Tanh,
    Sigmoid,
    Exp,
    Log,
}

impl Activation {
    fn tensor_function(self) -> &'static str {
        match self {
            Activation::Relu => "reluTensor",
            Activation::Tanh => "tanhTensor",
            Activation::Sigmoid => "sigmoidTensor",
            Activation::Exp => "expTensor",
            Activation::Log => "logTensor",
        }
    }
}

/// One dense layer: `linear`, then biases, then an activation, then biases again (a bias
/// after the activation is how a program shifts a saturated score, as the NaN reproduction
/// does with `h1[1] + 5.0`).
#[derive(Clone, Debug)]
pub struct Layer {
    pub rows: usize,
    pub cols: usize,
    /// Row-major.
    pub weights: Vec<f64>,
    /// Per row, the factor the product is multiplied by before its bias, if any.
    pub scale: Vec<Option<f64>>,
    /// Per row, the bias added to the product, if any.
    pub bias: Vec<Option<f64>>,
    pub activation: Option<Activation>,
    /// Per row, the bias added after the activation, if any.
    pub after: Vec<Option<f64>>,
}

/// A chain of dense layers on the input `x` (or on a window front's output), with or without
/// a final `ArgMax`.
#[derive(Clone, Debug)]
pub struct Net {
    pub inputs: usize,
    /// The input as an image through `conv2d` and a pool first, if any.
    pub front: Option<Front>,
    pub layers: Vec<Layer>,
    pub argmax: bool,
    /// Each layer's output joined with the tensor before the layer where their lengths allow it
    /// (equal, or the earlier one of length 1: a broadcast) by this function of two computed
    /// tensors: `addTensor` (a residual connection), `mulTensor` or `divTensor`.
    pub residual: Option<&'static str>,
    /// `softmax` or `logSoftmax` of the scores before the `ArgMax`, if any.
    pub softmax: Option<&'static str>,
    /// `softmax` or `logSoftmax` of the first layer's output, before anything reads it.
    pub middle_softmax: Option<&'static str>,
}

/// What the plain evaluation found at a point: the scores, and whether a NaN reached a relu
/// (an error on the engine).
#[derive(Clone, Debug)]
pub struct Approximate {
    pub scores: Vec<f64>,
    pub relu_of_nan: bool,
}

impl Net {
    /// The number of scores (before any `ArgMax`).
    pub fn outputs(&self) -> usize {
        self.layers.last().map_or(self.inputs, |l| l.rows)
    }

    /// The program text.
    pub fn source(&self) -> String {
        let mut out = String::new();
        let mut current = match &self.front {
            Some(front) => front.source(&mut out).to_string(),
            None => "x".to_string(),
        };
        let (mut before, mut width) = (current.clone(), self.front.as_ref().map_or(self.inputs, Front::output_len));
        for (k, layer) in self.layers.iter().enumerate() {
            writeln!(out, "let W{k} = initTensor({}, {}) in", layer.rows, layer.cols).unwrap();
            for i in 0..layer.rows {
                for j in 0..layer.cols {
                    let w = float_literal(layer.weights[i * layer.cols + j]);
                    write!(out, "let W{k}[{i}, {j}] = {w} in ").unwrap();
                }
                out.push('\n');
            }
            writeln!(out, "let z{k} = linear(W{k}, {current}) in").unwrap();
            current = format!("z{k}");
            scaled_biases(&mut out, &current, &layer.scale, &layer.bias);
            if let Some(a) = layer.activation {
                writeln!(out, "let h{k} = {}({current}) in", a.tensor_function()).unwrap();
                current = format!("h{k}");
            }
            biases(&mut out, &current, &layer.after);
            if let (0, Some(f)) = (k, self.middle_softmax) {
                writeln!(out, "let m{k} = {f}({current}, 0) in").unwrap();
                current = format!("m{k}");
            }
            if let Some(f) = self.residual.filter(|_| width == layer.rows || width == 1) {
                writeln!(out, "let s{k} = {f}({current}, {before}) in").unwrap();
                current = format!("s{k}");
            }
            (before, width) = (current.clone(), layer.rows);
        }
        if let (true, Some(f)) = (self.argmax, self.softmax) {
            writeln!(out, "let p = {f}({current}, 0) in").unwrap();
            current = "p".to_string();
        }
        if self.argmax {
            writeln!(out, "ArgMax({current})").unwrap();
        } else {
            writeln!(out, "{current}").unwrap();
        }
        out
    }

    /// The scores in plain binary64 arithmetic, in the engine's order (multiply, then add, from
    /// `0.0`), with the standard library's `tanh`: close to the engine, not bit for bit.
    pub fn approximate(&self, x: &[f64]) -> Approximate {
        let (mut v, mut relu_of_nan) = match &self.front {
            Some(front) => front.approximate(x),
            None => (x.to_vec(), false),
        };
        for (k, layer) in self.layers.iter().enumerate() {
            let mut z: Vec<f64> = (0..layer.rows)
                .map(|i| (0..layer.cols).fold(0.0, |s, j| s + layer.weights[i * layer.cols + j] * v[j]))
                .collect();
            for (e, a) in z.iter_mut().zip(&layer.scale) {
                if let Some(a) = a {
                    *e *= a;
                }
            }
            add(&mut z, &layer.bias);
            if let Some(a) = layer.activation {
                for e in &mut z {
                    *e = match a {
                        Activation::Relu => {
                            relu_of_nan |= e.is_nan();
                            e.max(0.0)
                        }
                        Activation::Tanh => e.tanh(),
                        Activation::Sigmoid => 1.0 / (1.0 + (0.0 - *e).exp()),
                        Activation::Exp => e.exp(),
                        Activation::Log => e.ln(),
                    };
                }
            }
            add(&mut z, &layer.after);
            if let (0, Some(f)) = (k, self.middle_softmax) {
                let max = z.iter().fold(f64::NEG_INFINITY, |m, &e| m.max(e));
                let sum: f64 = z.iter().map(|e| (e - max).exp()).sum();
                z.iter_mut()
                    .for_each(|e| *e = if f == "softmax" { (*e - max).exp() / sum } else { *e - max - sum.ln() });
            }
            if let Some(f) = self.residual.filter(|_| v.len() == z.len() || v.len() == 1) {
                let join = |a: f64, b: f64| match f {
                    "mulTensor" => a * b,
                    "divTensor" => a / b,
                    _ => a + b,
                };
                z.iter_mut().enumerate().for_each(|(i, e)| *e = join(*e, v[i % v.len()]));
            }
            v = z;
        }
        Approximate { scores: v, relu_of_nan }
    }
}

fn add(z: &mut [f64], bias: &[Option<f64>]) {
    for (e, b) in z.iter_mut().zip(bias) {
        if let Some(b) = b {
            *e += b;
        }
    }
}

/// `let t[i] = t[i] * a + b in` (one element chain), `t[i] * a`, or a bias `let`; at odd
/// elements `t[i] * a - c` with `c = -b` instead of `+ b` (Ext-7's `-`: the same operation in
/// IEEE 754, so the scores are the same).
fn scaled_biases(out: &mut String, tensor: &str, scale: &[Option<f64>], bias: &[Option<f64>]) {
    for (i, (a, b)) in scale.iter().zip(bias).enumerate() {
        let element = format!("{tensor}[{i}]");
        match (a, b) {
            (Some(a), Some(b)) if i % 2 == 1 => {
                writeln!(out, "let {element} = {element} * {} - {} in", float_literal(*a), float_literal(-*b)).unwrap()
            }
            (Some(a), Some(b)) => {
                writeln!(out, "let {element} = {element} * {} + {} in", float_literal(*a), float_literal(*b)).unwrap()
            }
            (Some(a), None) => writeln!(out, "let {element} = {element} * {} in", float_literal(*a)).unwrap(),
            (None, Some(b)) => writeln!(out, "let {element} = {element} + {} in", float_literal(*b)).unwrap(),
            (None, None) => {}
        }
    }
}

fn biases(out: &mut String, tensor: &str, bias: &[Option<f64>]) {
    for (i, b) in bias.iter().enumerate() {
        if let Some(b) = b {
            writeln!(out, "let {tensor}[{i}] = {tensor}[{i}] + {} in", float_literal(*b)).unwrap();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_writes_every_weight_bias_and_activation() {
        let net = Net {
            inputs: 2,
            front: None,
            layers: vec![Layer {
                rows: 2,
                cols: 2,
                weights: vec![1e308, f64::NEG_INFINITY, f64::NAN, -0.0],
                scale: vec![None, None],
                bias: vec![None, Some(0.5)],
                activation: Some(Activation::Tanh),
                after: vec![Some(5e-324), None],
            }],
            argmax: true,
            residual: None,
            softmax: None,
            middle_softmax: None,
        };
        let text = net.source();
        for part in [
            "let W0[0, 0] = 1e308 in",
            "let W0[0, 1] = -Infinity in",
            "let W0[1, 0] = NaN in",
            "let W0[1, 1] = -0.0 in",
            "let z0 = linear(W0, x) in",
            "let z0[1] = z0[1] + 0.5 in",
            "let h0 = tanhTensor(z0) in",
            "let h0[0] = h0[0] + 5e-324 in",
            "ArgMax(h0)",
        ] {
            assert!(text.contains(part), "{part} missing from\n{text}");
        }
        assert!(!text.contains("z0[0] + "));
    }

    /// Dense layers on `inputs`, nothing else.
    fn chain(inputs: usize, layers: Vec<Layer>) -> Net {
        Net { inputs, front: None, layers, argmax: false, residual: None, softmax: None, middle_softmax: None }
    }

    /// A layer of weights 1, no bias, and `activation`.
    fn ones(rows: usize, cols: usize, activation: Option<Activation>) -> Layer {
        Layer {
            rows,
            cols,
            weights: vec![1.0; rows * cols],
            scale: vec![None; rows],
            bias: vec![None; rows],
            activation,
            after: vec![None; rows],
        }
    }

    #[test]
    fn products_and_a_middle_softmax_are_written_and_evaluated_in_order() {
        let net =
            Net { residual: Some("divTensor"), middle_softmax: Some("softmax"), ..chain(2, vec![ones(2, 2, None)]) };
        let text = net.source();
        assert!(text.contains("let m0 = softmax(z0, 0) in\nlet s0 = divTensor(m0, x) in"), "{text}");
        // At x = (1, 2): z = (3, 3), its softmax (0.5, 0.5), divided by x: (0.5, 0.25).
        assert_eq!(net.approximate(&[1.0, 2.0]).scores, [0.5, 0.25]);
    }

    #[test]
    fn the_plain_evaluation_follows_the_engine_s_order() {
        // 1e308·2 overflows to ∞ and −1e308·2 to −∞: their sum is NaN, met by the relu.
        let layer = Layer {
            rows: 1,
            cols: 2,
            weights: vec![1e308, -1e308],
            scale: vec![None],
            bias: vec![None],
            activation: Some(Activation::Relu),
            after: vec![None],
        };
        let net = chain(2, vec![layer]);
        assert!(net.approximate(&[2.0, 2.0]).relu_of_nan);
        assert_eq!(net.approximate(&[1.0, 0.5]).scores, vec![5e307]);
    }

    #[test]
    fn scaled_elements_add_their_bias_or_subtract_its_negation() {
        let layer = Layer {
            rows: 3,
            cols: 1,
            weights: vec![1.0, 2.0, 3.0],
            scale: vec![Some(2.0), Some(-0.5), Some(4.0)],
            bias: vec![Some(0.25), Some(-1.5), Some(f64::INFINITY)],
            activation: None,
            after: vec![None; 3],
        };
        let net = chain(1, vec![layer]);
        let text = net.source();
        for part in [
            "let z0[0] = z0[0] * 2.0 + 0.25 in",
            "let z0[1] = z0[1] * -0.5 - 1.5 in",
            "let z0[2] = z0[2] * 4.0 + Infinity in",
        ] {
            assert!(text.contains(part), "{part} missing from\n{text}");
        }
        // 1·2 + 0.25, 2·(−0.5) − 1.5, 3·4 + ∞.
        assert_eq!(net.approximate(&[1.0]).scores, vec![2.25, -2.5, f64::INFINITY]);
    }

    #[test]
    fn a_branched_net_adds_the_tensor_before_each_layer_and_takes_the_softmax_before_the_argmax() {
        let layer = |rows, cols| ones(rows, cols, Some(Activation::Relu));
        // Widths 2 → 2 → 3: the first layer's output adds x, the second's adds nothing (3 ≠ 2).
        let net = Net {
            inputs: 2,
            front: None,
            layers: vec![layer(2, 2), layer(3, 2)],
            argmax: true,
            residual: Some("addTensor"),
            softmax: Some("logSoftmax"),
            middle_softmax: None,
        };
        let text = net.source();
        assert!(text.contains("let s0 = addTensor(h0, x) in"), "{text}");
        assert!(text.contains("linear(W1, s0)") && !text.contains("s1"), "{text}");
        assert!(text.contains("let p = logSoftmax(h1, 0) in\nArgMax(p)"), "{text}");
        // The plain evaluation adds it too: at x = (1, 2), relu(3, 3) + (1, 2) = (4, 5), then each
        // of the three rows 4 + 5.
        assert_eq!(net.approximate(&[1.0, 2.0]).scores, [9.0, 9.0, 9.0]);
    }
}
