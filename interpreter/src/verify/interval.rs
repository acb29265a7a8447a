//! Interval bounds evaluated with the engine's own operations, in the engine's order, on the
//! ends of the intervals. Rounding to nearest is monotone (`a ≤ b ⇒ fl(a) ≤ fl(b)`), and so
//! are `+`, `·` by a constant of known sign, `max(·, 0.0)`, and the engine's tanh and sigmoid
//! formulas (docs/verification.md, "Interval bounds"), so the value the engine computes for any
//! input in the box lies between the values it computes on the ends: no rounding-error term
//! is needed here, and a layer such as `relu(x + 1e17) − 1e17` is bounded exactly as the
//! engine rounds it.

use knn_semantics::numeric::{k_max, revised_tanh, sigmoid};

use super::float::Interval;
use super::network::Layer;

/// Bounds of every vector of a network on one input box.
#[derive(Clone, Debug)]
pub struct Bounds {
    pub input: Vec<Interval>,
    /// `layers[k]`: the output of layer `k`.
    pub layers: Vec<Vec<Interval>>,
}

impl Bounds {
    /// The bounds of the input of layer `k`.
    pub fn input_of(&self, k: usize) -> &[Interval] {
        if k == 0 { &self.input } else { &self.layers[k - 1] }
    }
}

/// The enclosure of one layer's output for inputs in `v`, or `None` when an end is NaN (an
/// operation the engine would report as an error, or `∞ − ∞`): no bound.
pub fn layer_bounds(layer: &Layer, v: &[Interval]) -> Option<Vec<Interval>> {
    let out: Vec<Interval> = match layer {
        Layer::Dense { w, bias } => (0..w.rows())
            .map(|i| {
                let (mut lo, mut hi) = (0.0, 0.0);
                for (wij, x) in w.row(i).iter().zip(v) {
                    // fl(w·x) is monotone in x: increasing for w ≥ 0, decreasing otherwise.
                    let (a, b) = (wij * x.lo, wij * x.hi);
                    let (tl, th) = if *wij >= 0.0 { (a, b) } else { (b, a) };
                    lo += tl;
                    hi += th;
                }
                match bias[i] {
                    Some(b) => Interval::new(lo + b, hi + b),
                    None => Interval::new(lo, hi),
                }
            })
            .collect(),
        Layer::Bias(bias) => {
            v.iter().zip(bias).map(|(x, b)| b.map_or(*x, |b| Interval::new(x.lo + b, x.hi + b))).collect()
        }
        Layer::Relu => v.iter().map(|x| Interval::new(relu(x.lo), relu(x.hi))).collect(),
        Layer::Tanh => v.iter().map(|x| Interval::new(revised_tanh(x.lo), revised_tanh(x.hi))).collect(),
        Layer::Sigmoid => v.iter().map(|x| Interval::new(sigmoid(x.lo), sigmoid(x.hi))).collect(),
    };
    out.iter().all(|x| !x.lo.is_nan() && !x.hi.is_nan()).then_some(out)
}

/// `max(x, 0.0)` by the `max` rules; NaN for NaN (no bound).
fn relu(x: f64) -> f64 {
    k_max(x, 0.0).unwrap_or(f64::NAN)
}

/// The enclosures of every layer's output, from the first layer to the last, for inputs in
/// `input`; `None` when some bound is NaN.
pub fn network_bounds(layers: &[Layer], input: &[Interval]) -> Option<Vec<Vec<Interval>>> {
    let mut bounds: Vec<Vec<Interval>> = Vec::with_capacity(layers.len());
    for layer in layers {
        let v = bounds.last().map_or(input, Vec::as_slice);
        bounds.push(layer_bounds(layer, v)?);
    }
    Some(bounds)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::tensor::Matrix;

    fn dense(rows: usize, cols: usize, w: &[f64], bias: &[Option<f64>]) -> Layer {
        Layer::Dense { w: Arc::new(Matrix::new(rows, cols, w.to_vec())), bias: bias.to_vec() }
    }

    #[test]
    fn the_rounding_trap_is_bounded_as_the_engine_rounds_it() {
        // relu(x + 1e17) − 1e17 for x in [0, 4]: in binary64 x + 1e17 rounds to 1e17 (the
        // spacing there is 16), so the engine computes exactly 0; the reals would give x.
        let layers = [dense(1, 1, &[1.0], &[Some(1e17)]), Layer::Relu, dense(1, 1, &[1.0], &[Some(-1e17)])];
        let bounds = network_bounds(&layers, &[Interval::new(0.0, 4.0)]).unwrap();
        assert_eq!(bounds[2][0], Interval::new(0.0, 0.0));
    }

    #[test]
    fn a_negative_weight_swaps_the_ends_and_the_bias_is_added_after_the_sum() {
        let layers = [dense(1, 2, &[-2.0, 1.0], &[Some(0.5)])];
        let bounds = network_bounds(&layers, &[Interval::new(1.0, 3.0), Interval::new(-1.0, 1.0)]).unwrap();
        // −2·[1, 3] + [−1, 1] + 0.5 = [−6.5, −0.5].
        assert_eq!(bounds[0][0], Interval::new(-6.5, -0.5));
    }

    #[test]
    fn a_bias_layer_shifts_both_ends_where_a_bias_is_given() {
        let bias = Layer::Bias(vec![Some(0.5), None, Some(-1.0)]);
        let x = [Interval::new(1.0, 2.0), Interval::new(-3.0, 3.0), Interval::new(0.0, 0.25)];
        let out = layer_bounds(&bias, &x).unwrap();
        assert_eq!(out, vec![Interval::new(1.5, 2.5), Interval::new(-3.0, 3.0), Interval::new(-1.0, -0.75)]);
    }

    #[test]
    fn relu_tanh_and_sigmoid_map_the_ends() {
        let x = [Interval::new(-1.0, 2.0)];
        assert_eq!(layer_bounds(&Layer::Relu, &x).unwrap()[0], Interval::new(0.0, 2.0));
        let t = layer_bounds(&Layer::Tanh, &x).unwrap()[0];
        assert!(t.lo < -0.76 && t.lo > -0.77 && t.hi > 0.96 && t.hi < 0.97);
        let s = layer_bounds(&Layer::Sigmoid, &x).unwrap()[0];
        assert!(s.lo > 0.26 && s.lo < 0.27 && s.hi > 0.88 && s.hi < 0.89);
    }

    #[test]
    fn a_nan_at_one_end_only_is_no_bound_either() {
        // lo = 1·0 + (−1)·∞ = −∞ is a bound; hi = 1·∞ + (−1)·∞ is NaN.
        let layers = [dense(1, 2, &[1.0, -1.0], &[None])];
        let input = [Interval::new(0.0, f64::INFINITY), Interval::new(f64::INFINITY, f64::INFINITY)];
        assert_eq!(network_bounds(&layers, &input), None);
    }

    #[test]
    fn an_infinite_minus_infinite_bound_is_no_bound() {
        // ∞·1 + ∞·(−1): the engine would compute NaN there.
        let layers = [dense(1, 2, &[1.0, -1.0], &[None])];
        let input = [Interval::new(f64::INFINITY, f64::INFINITY), Interval::new(f64::INFINITY, f64::INFINITY)];
        assert_eq!(network_bounds(&layers, &input), None);
    }
}
