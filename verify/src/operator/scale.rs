//! Multiplication of each element by a constant: the multiplications of the plan's
//! `Elementwise` (`let z[i] = z[i] * a`, an imported `Mul`, `Div` by a power of two, batch
//! normalisation's `v · a`; its additions, such as the `+ b` after it, are [`super::Bias`]
//! layers).
//!
//! `fl(a·x)` is monotone in `x` (increasing for `a > 0`, decreasing for `a < 0`, `±0` for
//! `a = ±0`) wherever it is not NaN: `∞·0` is, so an infinite factor on a range holding 0, or a
//! zero factor on a range reaching `±∞`, bounds nothing (a NaN factor neither). For
//! back-substitution, `fl(a·x) = a·x + δ` with `|δ| ≤ u·|a|·|x| + η`, and the coefficient
//! carried back is `h = fl(g·a)` with `|h − g·a| ≤ u·|g·a| + η`. Then
//! `g·fl(a·x) = h·x + (g·a − h)·x + g·δ ≥ h·x − |g|·(2u·|a|·U + η) − η·U` with `|x| ≤ U` on the
//! box: the charge of an element is `2u·|a|·U + η` per unit of `|g|`, plus `η·ΣU` per row
//! (docs/verification.md, "Scale"). An overflowing `|a|·U` makes the charge `∞`: the row bounds
//! nothing, soundly.

use knn_engine::bigstep::ops::{ElementStep, Op};

use super::dense::product;
use super::per_element::ElementCharges;
use super::{Chain, ChosenLines, Divide, Layer, LowerChoice, Operator, Pass, Prepared};
use crate::float::{ETA, Interval, UNIT_ROUNDOFF, add_up, mul_up};
use crate::unsupported::{Unsupported, unsupported};

#[derive(Clone, Debug)]
pub struct Scale {
    /// `out[i] = x[i] * factor[i]` where given, `x[i]` elsewhere.
    factor: Vec<Option<f64>>,
}

impl Scale {
    pub fn new(factor: Vec<Option<f64>>) -> Scale {
        Scale { factor }
    }

    /// Reads an `Elementwise` of the plan onto `chain`: for each step index `j`, a scale layer
    /// of the elements whose `j`-th step multiplies, then a bias layer of those whose `j`-th
    /// step adds (different elements: their order does not matter; each element's steps stay
    /// in order).
    pub fn read(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
        let Op::Elementwise { buf, at, steps } = op else { unreachable!("an Elementwise") };
        if *buf != chain.current || at + steps.len() > chain.len {
            return Err(unsupported("a scaling of a tensor other than the last one computed", None));
        }
        let longest = steps.iter().map(Vec::len).max().unwrap_or(0);
        for j in 0..longest {
            let (mut factors, mut divisors, mut adds) =
                (vec![None; chain.len], vec![None; chain.len], vec![None; chain.len]);
            for (k, element) in steps.iter().enumerate() {
                match element.get(j) {
                    Some(ElementStep::Mul(c)) => factors[at + k] = Some(*c),
                    Some(ElementStep::Add(c)) => adds[at + k] = Some(*c),
                    // Ext-7's `x - c` is `x + (-c)`: IEEE 754 defines subtraction as the addition
                    // of the negation (signed zeros, infinities and NaN included), and `-c` is
                    // exact, so a bias layer computes the same bits.
                    Some(ElementStep::Sub(c)) => adds[at + k] = Some(-*c),
                    // Ext-7's `x / c`: a Divide layer computes the same IEEE division.
                    Some(ElementStep::Div(c)) if Divide::reads(*c) => divisors[at + k] = Some(*c),
                    Some(ElementStep::Div(c)) => {
                        return Err(unsupported(
                            format!("a division by {c} (`/ c` with c 0, ±∞ or NaN) of elements of a computed tensor"),
                            None,
                        ));
                    }
                    None => {}
                }
            }
            if factors.iter().any(Option::is_some) {
                chain.layers.push(Layer::scale(Scale::new(factors)));
            }
            if divisors.iter().any(Option::is_some) {
                chain.layers.push(Layer::divide(divisors));
            }
            if adds.iter().any(Option::is_some) {
                chain.layers.push(Layer::bias(adds));
            }
        }
        Ok(())
    }

    fn factor(&self, i: usize) -> f64 {
        self.factor[i].unwrap_or(1.0)
    }
}

impl Operator for Scale {
    fn describe(&self) -> String {
        format!("Scale by {:?}", self.factor)
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        v.iter().zip(&self.factor).map(|(x, a)| a.map_or(*x, |a| x * a)).collect()
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        // A dense layer's product of one weight and one input, as the engine rounds it.
        v.iter().zip(&self.factor).map(|(x, a)| a.map_or(Some(*x), |a| product(a, *x))).collect()
    }

    fn exact_on_box(&self) -> bool {
        true
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        // The identity rounds nothing: no charge.
        Box::new(ElementCharges::new(input, |u, i| {
            self.factor[i].map_or(0.0, |a| add_up(mul_up(2.0 * UNIT_ROUNDOFF, mul_up(a.abs(), u)), ETA))
        }))
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let charges: &ElementCharges = prepared.downcast_ref().expect("prepared by Scale::prepare");
        // An element without a factor is the identity: its charge is 0 and `g` stays.
        charges.substitute(pass, |g, i| g * self.factor(i));
    }

    fn backpropagate(&self, g: Vec<f64>, _input: &[f64], _output: &[f64]) -> Vec<f64> {
        self.apply(&g)
    }

    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = v.to_vec();
        for (i, row) in out.chunks_exact_mut(lanes).enumerate() {
            if let Some(a) = self.factor[i] {
                row.iter_mut().for_each(|x| *x *= a);
            }
        }
        out
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, _input: &[f64], _output: &[f64], lanes: usize) -> Vec<f64> {
        self.apply_lanes(&g, lanes)
    }

    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        (0..d.len()).map(|i| d[i] * self.factor(i)).collect()
    }
}
