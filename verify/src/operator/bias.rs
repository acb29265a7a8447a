//! A bias layer: an `AddBias` of the plan, bias `let`s on their own (after an activation, or
//! on part of a vector): `out[i] = x[i] + bias[i]` where a bias is given, `x[i]` elsewhere
//! (docs/verification.md, "Bias").

use knn_engine::bigstep::ops::Op;

use super::{Chain, ChosenLines, Layer, LowerChoice, Operator, Pass, Prepared};
use crate::float::{
    ETA, Interval, NonNegativeSum, UNIT_ROUNDOFF, add_down, add_up, engine_sum, gamma, mul_up, sub_down,
};
use crate::unsupported::{Unsupported, unsupported};

#[derive(Clone, Debug)]
pub struct Bias {
    bias: Vec<Option<f64>>,
}

impl Bias {
    pub fn new(bias: Vec<Option<f64>>) -> Bias {
        Bias { bias }
    }

    /// Reads an `AddBias` of the plan onto `chain`: a bias layer on the last vector, the
    /// values at their offset and none elsewhere.
    pub fn read(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
        let Op::AddBias { buf, at, values } = op else { unreachable!("an AddBias") };
        if *buf != chain.current || at + values.len() > chain.len {
            return Err(unsupported("an addition to a tensor other than the last one computed", None));
        }
        let mut bias = vec![None; chain.len];
        bias[*at..*at + values.len()].clone_from_slice(values);
        chain.layers.push(Layer::bias(bias));
        Ok(())
    }
}

/// What back-substitution through a bias layer needs on one box: the charge per element, the
/// underflow of `G·b`, and the bound of a row's sum of non-negative terms.
struct Charges {
    charge: Vec<f64>,
    underflow: f64,
    sums: NonNegativeSum,
}

impl Operator for Bias {
    fn describe(&self) -> String {
        format!("Bias {:?}", self.bias)
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        v.iter().zip(&self.bias).map(|(x, b)| b.map_or(*x, |b| x + b)).collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        v.iter().zip(&self.bias).map(|(x, b)| b.map_or(Some(*x), |b| engine_sum(*x, Interval::point(b)))).collect()
    }

    fn exact_on_box(&self) -> bool {
        true
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        let m = self.bias.len();
        let g_ours = gamma(m);
        let charge = self
            .bias
            .iter()
            .zip(input)
            .map(|(b, v)| match b {
                // fl(v + b) = (v + b)(1 + ε), |ε| ≤ u: |δ| ≤ u·(|v| + |b|); plus γ_m|b| for G·b.
                Some(b) => add_up(mul_up(UNIT_ROUNDOFF, add_up(v.magnitude(), b.abs())), mul_up(g_ours, b.abs())),
                None => 0.0,
            })
            .collect();
        Box::new(Charges { charge, underflow: mul_up(m as f64, ETA), sums: NonNegativeSum::new(m) })
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let Charges { charge, underflow, sums } = prepared.downcast_ref().expect("prepared by Bias::prepare");
        let m = self.bias.len();
        for r in 0..pass.count {
            let gr = &pass.g[r * m..(r + 1) * m];
            let (mut through_bias, mut charged) = (0.0, 0.0);
            for ((gi, b), c) in gr.iter().zip(&self.bias).zip(charge) {
                if let Some(b) = b {
                    through_bias += gi * b;
                    charged += gi.abs() * c;
                }
            }
            let charged = add_up(sums.bound(charged), *underflow);
            pass.acc[r] = sub_down(add_down(pass.acc[r], through_bias), charged);
        }
    }

    fn backpropagate(&self, g: Vec<f64>, _input: &[f64], _output: &[f64]) -> Vec<f64> {
        g
    }

    /// Row `i` of the lanes is element `i` of every vector: `bias[i]` added to each.
    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = v.to_vec();
        for (row, b) in out.chunks_exact_mut(lanes).zip(&self.bias) {
            if let Some(b) = b {
                row.iter_mut().for_each(|x| *x += b);
            }
        }
        out
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, _input: &[f64], _output: &[f64], _lanes: usize) -> Vec<f64> {
        g
    }

    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        d.iter().zip(&self.bias).map(|(di, b)| di + b.unwrap_or(0.0)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bias_layers_charge_is_the_documented_bound() {
        // fl(v + b) with |v| ≤ 3, b = −1: u·(3 + 1) for the engine, and γ_m·|b| for G·b with
        // m = 2, the layer's width (the length of the sum G·b).
        let layer = Bias::new(vec![Some(-1.0), None]);
        let prepared = layer.prepare(&[Interval::new(-3.0, 2.0), Interval::new(0.0, 1.0)]);
        let Charges { charge, .. } = prepared.downcast_ref().expect("a bias layer is prepared as one");
        let u = UNIT_ROUNDOFF;
        let expected = 4.0 * u + 2.0 * u / (1.0 - 2.0 * u);
        assert!(charge[0] >= expected && charge[0] <= expected * (1.0 + 1e-12), "{} vs {expected}", charge[0]);
        assert_eq!(charge[1], 0.0);
    }
}
