//! Division of elements by constants: `avgPool2d`'s `poolMean` (the window's sum `/Float` its
//! count, `ext-pool-mean`, after the sums of [`super::Sparse`]), Ext-7's `x / c` and Ext-8's
//! `divTensor` of a computed tensor by constants (the plan's `Elementwise` and `Combine`).
//!
//! `fl(x/d)` is monotone in `x` for a finite `d ≠ 0` (increasing for `d > 0`, decreasing for
//! `d < 0`), and never NaN for such `d` (`±∞/d` is `±∞`): interval ends map to ends. For
//! back-substitution, `fl(x/d) = x/d + δ` with `|δ| ≤ u·|x|/|d| + η` while the quotient does
//! not overflow, and the coefficient carried back is `h = fl(g/d)` with `|h − g/d| ≤ u·|g|/|d| + η`.
//! Then `g·fl(x/d) = h·x + (g/d − h)·x + g·δ ≥ h·x − |g|·(2u·U/|d| + η) − η·U` with `|x| ≤ U` on
//! the box: the charge of an element is `2u·U/|d| + η` per unit of `|g|`, plus `η·ΣU` per row.
//! Where `U/|d|` may reach the overflow threshold (a tiny `d`), `δ` is unbounded: the charge is
//! `∞` and the row bounds nothing (docs/verification.md, "Division by constants").

use super::per_element::ElementCharges;
use super::{ChosenLines, LowerChoice, Operator, Pass, Prepared};
use crate::float::{ETA, Interval, UNIT_ROUNDOFF, add_up, div_up, mul_up};

#[derive(Clone, Debug)]
pub struct Divide {
    /// `out[i] = x[i] / d` where `divisor[i]` is `Some(d)`, `x[i]` elsewhere.
    divisor: Vec<Option<f64>>,
}

impl Divide {
    /// Every divisor finite and not zero: a division by `0`, `±∞` or NaN is not read (the
    /// callers refuse it by name).
    pub fn new(divisor: Vec<Option<f64>>) -> Divide {
        assert!(divisor.iter().flatten().all(|&d| Divide::reads(d)), "a divisor that is finite and not 0");
        Divide { divisor }
    }

    /// Whether a division by `d` is one this layer bounds.
    pub fn reads(d: f64) -> bool {
        d.is_finite() && d != 0.0
    }

    fn quotient(&self, x: f64, i: usize) -> f64 {
        self.divisor[i].map_or(x, |d| x / d)
    }
}

impl Operator for Divide {
    fn describe(&self) -> String {
        format!("Divide by {:?}", self.divisor)
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        v.iter().enumerate().map(|(i, &x)| self.quotient(x, i)).collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        let bound = |(x, d): (&Interval, &Option<f64>)| match d {
            None => *x,
            Some(d) if *d > 0.0 => Interval::new(x.lo / d, x.hi / d),
            Some(d) => Interval::new(x.hi / d, x.lo / d),
        };
        Some(v.iter().zip(&self.divisor).map(bound).collect())
    }

    fn exact_on_box(&self) -> bool {
        true
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        // The identity rounds nothing: no charge.
        Box::new(ElementCharges::new(input, |u, i| match self.divisor[i] {
            None => 0.0,
            Some(d) if div_up(u, d.abs()) > f64::MAX => f64::INFINITY,
            Some(d) => add_up(div_up(mul_up(2.0 * UNIT_ROUNDOFF, u), d.abs()), ETA),
        }))
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let charges: &ElementCharges = prepared.downcast_ref().expect("prepared by Divide::prepare");
        charges.substitute(pass, |g, i| self.quotient(g, i));
    }

    fn backpropagate(&self, g: Vec<f64>, _input: &[f64], _output: &[f64]) -> Vec<f64> {
        self.apply(&g)
    }

    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = v.to_vec();
        for (row, d) in out.chunks_exact_mut(lanes).zip(&self.divisor) {
            if let Some(d) = d {
                row.iter_mut().for_each(|x| *x /= d);
            }
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
