//! What back-substitution through a layer that maps each element on its own by a monotone
//! rounded operation (a division by a count, a multiplication by a constant) charges on one
//! box: each element's charge per unit of `|g|`, and the row's underflow `η·Σ U`.

use super::Pass;
use crate::float::{ETA, Interval, NonNegativeSum, add_up, mul_up, sub_down, sum_up};

pub(super) struct ElementCharges {
    charge: Vec<f64>,
    underflow: f64,
    sums: NonNegativeSum,
}

impl ElementCharges {
    /// `charge(U_i, i)` per unit of `|g_i|` for each input of the box `input` (`|x_i| ≤ U_i`),
    /// and `η·Σ U`.
    pub(super) fn new(input: &[Interval], charge: impl Fn(f64, usize) -> f64) -> ElementCharges {
        let magnitude: Vec<f64> = input.iter().map(Interval::magnitude).collect();
        let charge: Vec<f64> = magnitude.iter().enumerate().map(|(i, &u)| charge(u, i)).collect();
        let underflow = mul_up(ETA, sum_up(magnitude.iter().copied()));
        let sums = NonNegativeSum::new(charge.len());
        ElementCharges { charge, underflow, sums }
    }

    /// Carries every row of `pass` through the layer: each coefficient `g_i ≠ 0` becomes
    /// `carry(g_i, i)` and is charged `|g_i|·charge[i]`; the row's constant is lowered by the
    /// rigorous bound of the charges' sum and the underflow.
    pub(super) fn substitute(&self, pass: &mut Pass, carry: impl Fn(f64, usize) -> f64) {
        let m = self.charge.len();
        for r in 0..pass.count {
            let mut charged = 0.0;
            for (i, g) in pass.g[r * m..(r + 1) * m].iter_mut().enumerate() {
                if *g != 0.0 {
                    charged += g.abs() * self.charge[i];
                    *g = carry(*g, i);
                }
            }
            pass.acc[r] = sub_down(pass.acc[r], add_up(self.sums.bound(charged), self.underflow));
        }
    }
}
