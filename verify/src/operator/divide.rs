//! Division of each element by a positive constant: `avgPool2d`'s `poolMean`, the window's sum
//! `/Float` its count (`ext-pool-mean`), after the sums ([`super::Sparse`]).
//!
//! `fl(x/d)` is monotone in `x` for `d > 0`, so interval ends map to ends. For
//! back-substitution, `fl(x/d) = x/d + δ` with `|δ| ≤ u·|x|/d + η` (relative error `u`, or an
//! absolute one below `η` where the quotient is subnormal; `d ≥ 1`, so nothing overflows), and
//! the coefficient carried back is `h = fl(g/d)` with `|h − g/d| ≤ u·|g|/d + η`. Then
//! `g·fl(x/d) = h·x + (g/d − h)·x + g·δ ≥ h·x − |g|·(2u·U/d + η) − η·U` with `|x| ≤ U` on the
//! box: the charge of an element is `2u·U/d + η` per unit of `|g|`, plus `η·ΣU` per row.

use super::per_element::ElementCharges;
use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared};
use crate::float::{ETA, Interval, UNIT_ROUNDOFF, add_up, div_up, mul_up};

#[derive(Clone, Debug)]
pub struct Divide {
    divisor: Vec<f64>,
}

impl Divide {
    /// `out[i] = x[i] / divisor[i]`; every divisor a positive integer (a window's count).
    pub fn new(divisor: Vec<f64>) -> Divide {
        debug_assert!(divisor.iter().all(|d| *d >= 1.0 && d.fract() == 0.0));
        Divide { divisor }
    }
}

impl Operator for Divide {
    fn describe(&self) -> String {
        format!("Divide by {:?}", self.divisor)
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        v.iter().zip(&self.divisor).map(|(x, d)| x / d).collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        Some(v.iter().zip(&self.divisor).map(|(x, d)| Interval::new(x.lo / d, x.hi / d)).collect())
    }

    fn exact_on_box(&self) -> bool {
        true
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        Box::new(ElementCharges::new(input, |u, i| {
            add_up(div_up(mul_up(2.0 * UNIT_ROUNDOFF, u), self.divisor[i]), ETA)
        }))
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let charges: &ElementCharges = prepared.downcast_ref().expect("prepared by Divide::prepare");
        charges.substitute(pass, |g, i| g / self.divisor[i]);
    }

    fn backpropagate(&self, g: Vec<f64>, _input: &[f64], _output: &[f64]) -> Vec<f64> {
        g.iter().zip(&self.divisor).map(|(g, d)| g / d).collect()
    }

    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = v.to_vec();
        for (row, d) in out.chunks_exact_mut(lanes).zip(&self.divisor) {
            row.iter_mut().for_each(|x| *x /= d);
        }
        out
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, _input: &[f64], _output: &[f64], lanes: usize) -> Vec<f64> {
        self.apply_lanes(&g, lanes)
    }

    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        self.apply(&d)
    }
}
