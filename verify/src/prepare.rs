//! What back-substitution needs of each layer on one box, computed once: the rounding charges
//! of a dense or bias layer (effects 1 and 2 of [`super::linear`]: the engine's rounding and our
//! own), the inputs that are exactly zero, and an activation's relaxation lines.

use super::float::{ETA, Interval, NonNegativeSum, UNIT_ROUNDOFF, add_up, gamma, mul_up, sum_up};
use super::interval::Bounds;
use super::network::Layer;
use super::relax::{Line, LowerSlope, relaxation};

/// What back-substitution through one layer needs, computed once per box.
pub(super) enum Prepared {
    /// A dense layer: the weight per output of the charges in (1) and (2) above, the
    /// underflow charge of a row, and the weights restricted to the inputs that are not
    /// exactly zero on the box (`live`): a coefficient of an input that is 0 contributes
    /// exactly 0, and so does its rounding error, so it need not be computed.
    Dense { charge: Vec<f64>, underflow: f64, sums: NonNegativeSum, live: Vec<usize>, live_weights: Vec<f64> },
    /// A bias layer: the charge per element.
    Bias { charge: Vec<f64>, underflow: f64, sums: NonNegativeSum },
    /// An activation: the lower lines per element (for each [`LowerSlope`]), the upper lines,
    /// the input magnitudes, and `γ_m` and `m·η` for the error of a row's sum of intercepts.
    Activation {
        lower: [Vec<Line>; 2],
        upper: Vec<Line>,
        magnitude: Vec<f64>,
        sums: NonNegativeSum,
        gamma: f64,
        underflow: f64,
    },
}

/// Prepares a layer for back-substitution, given the bounds of its input.
pub(super) fn prepare(layer: &Layer, input: &[Interval]) -> Prepared {
    let magnitude: Vec<f64> = input.iter().map(Interval::magnitude).collect();
    match layer {
        Layer::Dense { w, bias } => {
            let (m, n) = (w.rows(), w.cols());
            let (g_engine, g_ours) = (gamma(n + 1), gamma(m));
            let row_sums = NonNegativeSum::new(n);
            let engine_underflow = mul_up((n + 1) as f64, ETA);
            let charge = (0..m)
                .map(|i| {
                    // a_i ≥ Σ_j |W_ij|·|u_j|.
                    let a = row_sums.bound(w.row(i).iter().zip(&magnitude).map(|(x, u)| x.abs() * u).sum());
                    let ab = add_up(a, bias[i].map_or(0.0, f64::abs));
                    // (1): γ_{n+1}(a + |b|) + (n+1)η; (2): γ_m(a + |b|) for G·W and G·b.
                    add_up(add_up(mul_up(g_engine, ab), engine_underflow), mul_up(g_ours, ab))
                })
                .collect();
            // (2)'s underflow: m·η per coefficient of G·W times |u_j|, and m·η for G·b.
            let underflow = mul_up(m as f64, mul_up(ETA, add_up(sum_up(magnitude.iter().copied()), 1.0)));
            let live: Vec<usize> = (0..n).filter(|&j| magnitude[j] != 0.0).collect();
            let live_weights = (0..m).flat_map(|i| live.iter().map(move |&j| w.get(i, j))).collect();
            Prepared::Dense { charge, underflow, sums: NonNegativeSum::new(m), live, live_weights }
        }
        Layer::Bias(bias) => {
            let m = bias.len();
            let g_ours = gamma(m);
            let charge = bias
                .iter()
                .zip(&magnitude)
                .map(|(b, &v)| match b {
                    // fl(v + b) = (v + b)(1 + ε), |ε| ≤ u: |δ| ≤ u·(|v| + |b|); plus γ_m|b| for G·b.
                    Some(b) => add_up(mul_up(UNIT_ROUNDOFF, add_up(v, b.abs())), mul_up(g_ours, b.abs())),
                    None => 0.0,
                })
                .collect();
            Prepared::Bias { charge, underflow: mul_up(m as f64, ETA), sums: NonNegativeSum::new(m) }
        }
        Layer::Relu | Layer::Tanh | Layer::Sigmoid => {
            let (adaptive, upper) = input.iter().map(|z| relaxation(layer, *z, LowerSlope::Adaptive)).unzip();
            let chord = input.iter().map(|z| relaxation(layer, *z, LowerSlope::Chord).0).collect();
            let lower = [adaptive, chord];
            let m = magnitude.len();
            let (sums, gamma, underflow) = (NonNegativeSum::new(m), gamma(m), mul_up(m as f64, ETA));
            Prepared::Activation { lower, upper, magnitude, sums, gamma, underflow }
        }
    }
}

/// The layers prepared on one box, each prepared when first needed from the bounds of its
/// input. Nothing needs forgetting: [`super::tighten::tighten`] tightens the layers in order and
/// back-substitutes from layer `k` only through layers `0..=k`, so a layer is prepared only
/// once the bounds of its input are final (the tightening of layer `k` changes the inputs of
/// layers after `k`, none of which is prepared yet).
pub struct PreparedLayers {
    entries: Vec<Option<Prepared>>,
}

impl PreparedLayers {
    pub fn new(layers: usize) -> PreparedLayers {
        PreparedLayers { entries: (0..layers).map(|_| None).collect() }
    }

    pub(super) fn get(&mut self, layers: &[Layer], bounds: &Bounds, k: usize) -> &Prepared {
        self.entries[k].get_or_insert_with(|| prepare(&layers[k], bounds.input_of(k)))
    }

    /// The upper lines of activation layer `k`, once prepared.
    pub(super) fn upper_lines(&self, k: usize) -> Option<&[Line]> {
        match &self.entries[k] {
            Some(Prepared::Activation { upper, .. }) => Some(upper),
            _ => None,
        }
    }

    /// The lower lines of activation layer `k` for a choice of slope, once prepared.
    pub(super) fn lower_lines(&self, k: usize, slope: LowerSlope) -> Option<&[Line]> {
        match &self.entries[k] {
            Some(Prepared::Activation { lower, .. }) => Some(&lower[slope as usize]),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use knn_engine::tensor::Matrix;

    #[test]
    fn a_dense_layers_charge_is_the_documented_bound() {
        // One output, weights (3, 0.5), bias 4, inputs bounded by |u| ≤ (2, 4): a = 3·2 + 0.5·4
        // = 8, a + |b| = 12; n = 2 inputs, m = 1 output. docs/verification.md: the engine's
        // error γ_{n+1}(a + |b|) + (n+1)η = γ_3·12 + 3η, ours γ_m(a + |b|) = γ_1·12, with
        // γ_k = k·u/(1 − k·u): 12·(3u/(1 − 3u) + u/(1 − u)) ≈ 48u, u = 2^-53.
        let layer = Layer::Dense { w: Arc::new(Matrix::new(1, 2, vec![3.0, 0.5])), bias: vec![Some(4.0)] };
        let Prepared::Dense { charge, underflow, live, .. } =
            prepare(&layer, &[Interval::new(-2.0, 1.0), Interval::new(0.0, 4.0)])
        else {
            panic!("a dense layer is prepared as one");
        };
        let u = UNIT_ROUNDOFF;
        let expected = 12.0 * (3.0 * u / (1.0 - 3.0 * u) + u / (1.0 - u));
        assert!(charge[0] >= expected && charge[0] <= expected * (1.0 + 1e-12), "{} vs {expected}", charge[0]);
        // The underflow of G·W and G·b: m·η·(Σ|u| + 1) = 7η.
        assert!((7.0 * ETA..=8.0 * ETA).contains(&underflow), "{underflow}");
        assert_eq!(live, vec![0, 1]);
    }

    #[test]
    fn a_bias_layers_charge_is_the_documented_bound() {
        // fl(v + b) with |v| ≤ 3, b = −1: u·(3 + 1) for the engine, and γ_m·|b| for G·b with
        // m = 2, the layer's width (the length of the sum G·b).
        let layer = Layer::Bias(vec![Some(-1.0), None]);
        let Prepared::Bias { charge, .. } = prepare(&layer, &[Interval::new(-3.0, 2.0), Interval::new(0.0, 1.0)])
        else {
            panic!("a bias layer is prepared as one");
        };
        let u = UNIT_ROUNDOFF;
        let expected = 4.0 * u + 2.0 * u / (1.0 - 2.0 * u);
        assert!(charge[0] >= expected && charge[0] <= expected * (1.0 + 1e-12), "{} vs {expected}", charge[0]);
        assert_eq!(charge[1], 0.0);
    }

    #[test]
    fn inputs_that_are_exactly_zero_are_left_out_of_the_product() {
        let layer = Layer::Dense { w: Arc::new(Matrix::new(2, 3, vec![1.0; 6])), bias: vec![None, None] };
        let Prepared::Dense { live, live_weights, .. } =
            prepare(&layer, &[Interval::new(0.0, 0.0), Interval::new(-1.0, 1.0), Interval::new(0.0, 0.0)])
        else {
            panic!("a dense layer is prepared as one");
        };
        assert_eq!(live, vec![1]);
        assert_eq!(live_weights, vec![1.0, 1.0]);
    }
}
