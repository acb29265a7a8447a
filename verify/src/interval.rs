//! Interval bounds evaluated with the engine's own operations, in the engine's order, on the
//! ends of the intervals. Rounding to nearest is monotone (`a ≤ b ⇒ fl(a) ≤ fl(b)`), and so
//! are `+`, `·` by a constant of known sign, `max(·, 0.0)`, and the engine's tanh and sigmoid
//! formulas (docs/verification.md, "Interval bounds"), so the value the engine computes for any
//! input in the box lies between the values it computes on the ends: no rounding-error term
//! is needed here, and a layer such as `relu(x + 1e17) − 1e17` is bounded exactly as the
//! engine rounds it.

use super::float::Interval;
use super::operator::Layer;

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

/// The enclosure of one layer's output for inputs in `v`, or `None` when the engine may
/// compute a NaN at *some* point of the box, not only at its ends: `∞ − ∞` between a partial
/// sum and a term, `±∞·0` between a weight and an input, a NaN weight or bias. Then nothing is
/// bounded (docs/verification.md, "Interval bounds"). Inputs in `v` are never NaN: a layer
/// that may make one answers `None` itself ([`crate::operator::Operator::interval`]), and a
/// NaN end it lets through is caught here.
pub fn layer_bounds(layer: &Layer, v: &[Interval]) -> Option<Vec<Interval>> {
    let out = layer.interval(v)?;
    out.iter().all(|x| !x.lo.is_nan() && !x.hi.is_nan()).then_some(out)
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
    use knn_engine::tensor::Matrix;

    fn dense(rows: usize, cols: usize, w: &[f64], bias: &[Option<f64>]) -> Layer {
        Layer::dense(Arc::new(Matrix::new(rows, cols, w.to_vec())), bias.to_vec())
    }

    #[test]
    fn the_rounding_trap_is_bounded_as_the_engine_rounds_it() {
        // relu(x + 1e17) − 1e17 for x in [0, 4]: in binary64 x + 1e17 rounds to 1e17 (the
        // spacing there is 16), so the engine computes exactly 0; the reals would give x.
        let layers = [dense(1, 1, &[1.0], &[Some(1e17)]), Layer::relu(), dense(1, 1, &[1.0], &[Some(-1e17)])];
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
        let bias = Layer::bias(vec![Some(0.5), None, Some(-1.0)]);
        let x = [Interval::new(1.0, 2.0), Interval::new(-3.0, 3.0), Interval::new(0.0, 0.25)];
        let out = layer_bounds(&bias, &x).unwrap();
        assert_eq!(out, vec![Interval::new(1.5, 2.5), Interval::new(-3.0, 3.0), Interval::new(-1.0, -0.75)]);
    }

    #[test]
    fn relu_tanh_and_sigmoid_map_the_ends() {
        let x = [Interval::new(-1.0, 2.0)];
        assert_eq!(layer_bounds(&Layer::relu(), &x).unwrap()[0], Interval::new(0.0, 2.0));
        let t = layer_bounds(&Layer::tanh(), &x).unwrap()[0];
        assert!(t.lo < -0.76 && t.lo > -0.77 && t.hi > 0.96 && t.hi < 0.97);
        let s = layer_bounds(&Layer::sigmoid(), &x).unwrap()[0];
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

    #[test]
    fn a_nan_inside_the_box_is_no_bound_though_the_ends_are_infinite() {
        // 1e308·x0 − 1e308·x1 on [−2, 2]²: the ends are −∞ and +∞, never NaN, but at (2, 2)
        // the engine computes ∞ − ∞ = NaN (the product overflows for |x| > 1.8).
        let layers = [dense(1, 2, &[1e308, -1e308], &[None]), Layer::tanh()];
        let square = [Interval::new(-2.0, 2.0), Interval::new(-2.0, 2.0)];
        assert_eq!(network_bounds(&layers, &square), None);
        // Where neither product can overflow, the same layer is bounded.
        let small = [Interval::new(-1.0, 1.0), Interval::new(-1.0, 1.0)];
        assert!(network_bounds(&layers, &small).is_some());
        // One product overflows, the other cannot: ±∞ at worst, never NaN.
        let one = [Interval::new(-2.0, 2.0), Interval::new(-1.0, 1.0)];
        let z = layer_bounds(&layers[0], &one).unwrap()[0];
        assert_eq!((z.lo, z.hi), (f64::NEG_INFINITY, f64::INFINITY));
    }

    #[test]
    fn infinite_weights_times_zero_and_zero_weights_times_infinity_are_no_bound() {
        // ∞·x on [−1, 1] is NaN at x = 0 (an interior point); on [0.5, 1] it is ∞ everywhere.
        let infinite = dense(1, 1, &[f64::INFINITY], &[None]);
        assert_eq!(layer_bounds(&infinite, &[Interval::new(-1.0, 1.0)]), None);
        assert_eq!(layer_bounds(&infinite, &[Interval::new(0.0, 1.0)]), None);
        assert_eq!(layer_bounds(&infinite, &[Interval::new(0.5, 1.0)]).unwrap()[0], Interval::point(f64::INFINITY));
        // A zero weight (initTensor's default) times an input that may be infinite.
        let zero = dense(1, 1, &[0.0], &[None]);
        assert_eq!(layer_bounds(&zero, &[Interval::new(1.0, f64::INFINITY)]), None);
        assert_eq!(layer_bounds(&zero, &[Interval::new(-1.0, 1.0)]).unwrap()[0], Interval::point(0.0));
        // A NaN weight makes its row NaN at every point.
        let nan = dense(1, 1, &[f64::NAN], &[None]);
        assert_eq!(layer_bounds(&nan, &[Interval::new(1.0, 2.0)]), None);
    }

    #[test]
    fn an_infinite_or_nan_bias_is_no_bound_where_it_can_meet_the_other_infinity() {
        let x = [Interval::new(-f64::INFINITY, 1.0)];
        // −∞ + ∞ is NaN at the lower end's point; a finite range is safe.
        assert_eq!(layer_bounds(&Layer::bias(vec![Some(f64::INFINITY)]), &x), None);
        assert_eq!(
            layer_bounds(&Layer::bias(vec![Some(f64::INFINITY)]), &[Interval::new(-1.0, 1.0)]).unwrap()[0],
            Interval::point(f64::INFINITY)
        );
        assert_eq!(layer_bounds(&Layer::bias(vec![Some(f64::NAN)]), &[Interval::new(-1.0, 1.0)]), None);
        // Inside a product: the sum reaches +∞ and the bias is −∞.
        let layer = dense(1, 1, &[1e308], &[Some(f64::NEG_INFINITY)]);
        assert_eq!(layer_bounds(&layer, &[Interval::new(0.0, 2.0)]), None);
        assert!(layer_bounds(&layer, &[Interval::new(0.0, 1.0)]).is_some());
    }

    /// Every bound above is checked against the engine's own evaluation at many points,
    /// including the ones where overflow starts.
    #[test]
    fn the_bounds_enclose_the_engines_values_near_overflow() {
        let layers = [dense(2, 2, &[1e308, 1.5e308, -1e308, 1.0], &[Some(-1e308), None]), Layer::sigmoid()];
        for (lo, hi) in [(-1.0, 1.0), (0.5, 1.7), (1.0, 1.9), (-1.9, -1.0)] {
            let box_ = [Interval::new(lo, hi), Interval::new(0.25, 0.5)];
            let Some(bounds) = network_bounds(&layers, &box_) else { continue };
            for k in 0..=64 {
                let x0 = lo + (hi - lo) * f64::from(k) / 64.0;
                for x1 in [0.25, 0.375, 0.5] {
                    let z = layers[0].apply(&[x0, x1]);
                    let s = layers[1].apply(&z);
                    for (v, b) in z.iter().zip(&bounds[0]).chain(s.iter().zip(&bounds[1])) {
                        assert!(!v.is_nan() && b.lo <= *v && *v <= b.hi, "{v} outside {b:?} at ({x0}, {x1})");
                    }
                }
            }
        }
    }
}
