//! A layer on part of the vector. When a program's tensors branch and meet again (a residual
//! connection: `addTensor` of two tensors computed from the input), the chain's vector holds
//! the tensors that are still to be read side by side (`crate::branches`), and a layer of one
//! of them is *lifted*: its output is the kept elements of its input, in order and unchanged,
//! followed by the inner layer's output on one range of its input (or a copy of that range,
//! when a tensor is read twice).
//!
//! The kept elements and a copy are exact: intervals are gathered, coefficients move back to
//! their sources. A source that is both kept and read by the inner layer (a tensor read again
//! later) receives two coefficients, whose binary64 sum `s = fl(a + b)` is off by at most
//! `u·|a + b| ≤ 2u·|s|`; over `|x| ≤ U` on the box that is charged as `2u·|s|·U`
//! (docs/verification.md, "Branches").

use std::ops::Range;
use std::sync::Arc;

use super::{ChosenLines, Layer, LowerChoice, Operator, Pass, Prepared};
use crate::float::{Interval, UNIT_ROUNDOFF, add_up, mul_up, sub_down};

#[derive(Clone, Debug)]
pub struct Lift {
    /// The layer on `input`; `None` copies it.
    inner: Option<Layer>,
    input: Range<usize>,
    /// Positions of the input kept, in increasing order: the output's first elements.
    keep: Arc<[usize]>,
}

/// What back-substitution through a lift needs on one box: the inner layer's preparation and
/// the magnitudes of the input.
struct Lifted {
    inner: Option<Prepared>,
    magnitude: Vec<f64>,
}

impl Lift {
    /// `inner` must not be an activation (those act on the whole vector).
    pub fn new(inner: Option<Layer>, input: Range<usize>, keep: Vec<usize>) -> Lift {
        debug_assert!(keep.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(inner.as_ref().is_none_or(|layer| !layer.is_activation()));
        Lift { inner, input, keep: keep.into() }
    }

    fn inner_output_len(&self) -> usize {
        self.inner.as_ref().map_or(self.input.len(), |layer| layer.output_len(self.input.len()))
    }

    /// The kept elements of `v` (`lanes` values each), then `rest`.
    fn joined(&self, v: &[f64], lanes: usize, rest: Vec<f64>) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.keep.len() * lanes + rest.len());
        for &k in self.keep.iter() {
            out.extend_from_slice(&v[k * lanes..(k + 1) * lanes]);
        }
        out.extend(rest);
        out
    }

    /// The input range of `v` (`lanes` values per element).
    fn range_of<'v, T>(&self, v: &'v [T], lanes: usize) -> &'v [T] {
        &v[self.input.start * lanes..self.input.end * lanes]
    }

    /// `g` over the output (`lanes` values per element) carried back by `through` for the inner
    /// part, summed into the input's positions.
    fn scatter(&self, g: &[f64], width: usize, lanes: usize, through: impl FnOnce(Vec<f64>) -> Vec<f64>) -> Vec<f64> {
        let kept = self.keep.len() * lanes;
        let mut back = vec![0.0; width * lanes];
        let inner = through(g[kept..].to_vec());
        back[self.input.start * lanes..self.input.end * lanes].copy_from_slice(&inner);
        for (t, &k) in self.keep.iter().enumerate() {
            for (b, g) in back[k * lanes..(k + 1) * lanes].iter_mut().zip(&g[t * lanes..(t + 1) * lanes]) {
                *b += g;
            }
        }
        back
    }
}

impl Operator for Lift {
    fn describe(&self) -> String {
        let inner = self.inner.as_ref().map_or_else(|| "copy".to_string(), |layer| layer.describe());
        format!("Lift {inner} of {:?}, {} kept", self.input, self.keep.len())
    }

    fn output_len(&self, _len: usize) -> usize {
        self.keep.len() + self.inner_output_len()
    }

    fn weights(&self) -> usize {
        self.inner.as_ref().map_or(0, |layer| layer.weights())
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        let part = self.range_of(v, 1);
        let rest = self.inner.as_ref().map_or_else(|| part.to_vec(), |layer| layer.apply(part));
        self.joined(v, 1, rest)
    }

    fn failure(&self, v: &[f64]) -> Option<crate::judge::RunError> {
        self.inner.as_ref()?.failure(self.range_of(v, 1))
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        let part = self.range_of(v, 1);
        let rest = match &self.inner {
            Some(layer) => layer.interval(part)?,
            None => part.to_vec(),
        };
        Some(self.keep.iter().map(|&k| v[k]).chain(rest).collect())
    }

    fn exact_on_box(&self) -> bool {
        self.inner.as_ref().is_none_or(|layer| layer.exact_on_box())
    }

    fn prepare(&self, input: &[Interval]) -> Prepared {
        let inner = self.inner.as_ref().map(|layer| layer.prepare(self.range_of(input, 1)));
        Box::new(Lifted { inner, magnitude: input.iter().map(Interval::magnitude).collect() })
    }

    fn substitute(&self, prepared: &Prepared, pass: &mut Pass, lower: LowerChoice<'_>) {
        let Lifted { inner, magnitude } = prepared.downcast_ref().expect("prepared by Lift::prepare");
        let (width, kept, n) = (pass.width, self.keep.len(), magnitude.len());
        let inner_width = width - kept;
        let mut inner_pass = Pass {
            g: (0..pass.count).flat_map(|r| pass.g[r * width + kept..(r + 1) * width].iter().copied()).collect(),
            width: inner_width,
            count: pass.count,
            acc: std::mem::take(&mut pass.acc),
        };
        if let (Some(layer), Some(prepared)) = (&self.inner, inner) {
            layer.substitute(prepared, &mut inner_pass, lower);
        }
        let (m, part) = (inner_pass.width, self.input.clone());
        debug_assert_eq!(m, part.len());
        let mut next = vec![0.0; pass.count * n];
        for r in 0..pass.count {
            let row = &mut next[r * n..(r + 1) * n];
            row[part.clone()].copy_from_slice(&inner_pass.g[r * m..(r + 1) * m]);
            let mut charged = 0.0;
            for (t, &k) in self.keep.iter().enumerate() {
                let g = pass.g[r * width + t];
                let meet = part.contains(&k) && row[k] != 0.0 && g != 0.0;
                row[k] += g;
                // Two coefficients met: their rounded sum is charged (the module's note). A sum
                // rounded to 0 is exact (`a + b` is then 0), and charging it could make `0·∞`.
                if meet && row[k] != 0.0 {
                    charged = add_up(charged, mul_up(mul_up(2.0 * UNIT_ROUNDOFF, row[k].abs()), magnitude[k]));
                }
            }
            inner_pass.acc[r] = sub_down(inner_pass.acc[r], charged);
        }
        pass.g = next;
        pass.width = n;
        pass.acc = inner_pass.acc;
    }

    fn backpropagate(&self, g: Vec<f64>, input: &[f64], output: &[f64]) -> Vec<f64> {
        let kept = self.keep.len();
        self.scatter(&g, input.len(), 1, |inner_g| match &self.inner {
            Some(layer) => layer.backpropagate(inner_g, self.range_of(input, 1), &output[kept..]),
            None => inner_g,
        })
    }

    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let part = self.range_of(v, lanes);
        let rest = self.inner.as_ref().map_or_else(|| part.to_vec(), |layer| layer.apply_lanes(part, lanes));
        self.joined(v, lanes, rest)
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, input: &[f64], output: &[f64], lanes: usize) -> Vec<f64> {
        let kept = self.keep.len() * lanes;
        self.scatter(&g, input.len() / lanes, lanes, |inner_g| match &self.inner {
            Some(layer) => layer.backpropagate_lanes(inner_g, self.range_of(input, lanes), &output[kept..], lanes),
            None => inner_g,
        })
    }

    fn relaxed_forward(&self, d: Vec<f64>, lines: &ChosenLines<'_>) -> Vec<f64> {
        let part = self.range_of(&d, 1).to_vec();
        let rest = match &self.inner {
            Some(layer) => layer.relaxed_forward(part, lines),
            None => part,
        };
        self.joined(&d, 1, rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of `x` beside it: `[x, x]`.
    fn fork() -> Lift {
        Lift::new(None, 0..1, vec![0])
    }

    #[test]
    fn a_copy_is_the_kept_elements_then_the_range() {
        let lift = Lift::new(None, 1..3, vec![0, 2]);
        assert_eq!(lift.apply(&[1.0, 2.0, 3.0]), [1.0, 3.0, 2.0, 3.0]);
        assert_eq!(lift.output_len(3), 4);
        // Two lanes: element j of lane l at j * 2 + l.
        assert_eq!(
            lift.apply_lanes(&[1.0, -1.0, 2.0, -2.0, 3.0, -3.0], 2),
            [1.0, -1.0, 3.0, -3.0, 2.0, -2.0, 3.0, -3.0]
        );
        let back = lift.backpropagate(vec![1.0, 10.0, 100.0, 1000.0], &[0.0; 3], &[0.0; 4]);
        assert_eq!(back, [1.0, 100.0, 1010.0], "coefficients go back to their sources and add up");
    }

    #[test]
    fn coefficients_that_meet_are_charged_their_rounding() {
        // g·[x, x] = (1 + 2^-60)·x exactly, but the coefficient carried back is fl(1 + 2^-60) = 1.
        // At x = -2^60 the true value is -2^60 - 1: the bound x·1 + acc needs acc ≤ -1.
        let u = 2f64.powi(60);
        let lift = fork();
        let prepared = lift.prepare(&[Interval::new(-u, u)]);
        let mut pass = Pass { g: vec![1.0, 2f64.powi(-60)], width: 2, count: 1, acc: vec![0.0] };
        lift.substitute(&prepared, &mut pass, LowerChoice::Given(&[]));
        assert_eq!(pass.g, [1.0]);
        assert_eq!(pass.width, 1);
        assert!(pass.acc[0] <= -1.0, "the rounding of the coefficients' sum is charged: {}", pass.acc[0]);
        // Nothing is charged where nothing meets: a coefficient on the kept element alone.
        let mut alone = Pass { g: vec![3.0, 0.0], width: 2, count: 1, acc: vec![0.5] };
        lift.substitute(&prepared, &mut alone, LowerChoice::Given(&[]));
        assert_eq!((alone.g, alone.acc), (vec![3.0], vec![0.5]));
    }
}
