//! A constant padding of the vector: `pad` (Ext-13), the plan's `Pad`, `out[k] = x[j]` when
//! `from[k]` is `Some(j)`, else the constant `value`. The engine moves bits and writes a
//! constant, computing nothing, so every bound is exact: intervals are gathered (a constant
//! element is the point `value`), and back-substitution scatters each row's coefficients back
//! to the input positions they came from, the constant elements adding `g[k] · value` to the
//! row's constant, rounded down (docs/verification.md, "Pad"). A value that is not finite is
//! refused when the plan is read: `g[k] · ±∞` is not a bound (and `0 · ∞` is NaN).

use std::sync::Arc;

use knn_engine::bigstep::ops::Op;

use super::{Chain, ChosenLines, Layer, LowerChoice, Operator, Pass, Prepared};
use crate::float::{Interval, add_down, mul_down};
use crate::unsupported::{Unsupported, unsupported};

#[derive(Clone, Debug)]
pub struct Pad {
    /// Output `k` is input `j` for `from[k] = Some(j)`, the constant for `None`.
    from: Arc<[Option<usize>]>,
    /// The length of the input.
    input_len: usize,
    /// The constant, finite.
    value: f64,
}

impl Pad {
    pub fn new(from: Arc<[Option<usize>]>, input_len: usize, value: f64) -> Pad {
        debug_assert!(value.is_finite());
        debug_assert!(from.iter().flatten().all(|&j| j < input_len));
        Pad { from, input_len, value }
    }

    /// Reads a `Pad` of the plan onto `chain`: a padding of the whole last vector with a
    /// finite constant.
    pub fn read(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
        let Op::Pad { out, x, x_at, x_len, from, value } = op else { unreachable!("a Pad") };
        if *x != chain.current || *x_at != 0 || *x_len != chain.len {
            return Err(unsupported("a pad of part of a vector, or of one not computed last", None));
        }
        if !value.is_finite() {
            return Err(unsupported(format!("a pad with {value} (no finite bound holds it)"), None));
        }
        chain.layers.push(Layer::pad(Pad::new(from.clone(), *x_len, *value)));
        chain.current = *out;
        chain.len = from.len();
        Ok(())
    }

    fn gather<T: Copy>(&self, v: &[T], constant: T) -> Vec<T> {
        self.from.iter().map(|j| j.map_or(constant, |j| v[j])).collect()
    }

    /// The inverse of the copies: `g` over the output carried to the input, `out[j] = g[k]`
    /// for `from[k] = Some(j)` (each `j` is copied once), `lanes` values each.
    fn scatter(&self, g: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = vec![0.0; self.input_len * lanes];
        for (k, j) in self.from.iter().enumerate() {
            if let Some(j) = j {
                out[j * lanes..(j + 1) * lanes].copy_from_slice(&g[k * lanes..(k + 1) * lanes]);
            }
        }
        out
    }
}

impl Operator for Pad {
    fn describe(&self) -> String {
        format!("Pad {} with {:?}", self.from.len(), self.value)
    }

    fn output_len(&self, _len: usize) -> usize {
        self.from.len()
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        self.gather(v, self.value)
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        Some(self.gather(v, Interval::point(self.value)))
    }

    fn exact_on_box(&self) -> bool {
        true
    }

    fn prepare(&self, _input: &[Interval]) -> Prepared {
        Box::new(())
    }

    fn substitute(&self, _prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let (m, n) = (self.from.len(), self.input_len);
        debug_assert_eq!(pass.width, m);
        let mut next = vec![0.0; pass.count * n];
        for r in 0..pass.count {
            let gr = &pass.g[r * m..(r + 1) * m];
            next[r * n..(r + 1) * n].copy_from_slice(&self.scatter(gr, 1));
            // Σ g[k] · value over the constant elements, each product and sum rounded down:
            // the row's constant stays a lower bound of the exact one.
            for (k, j) in self.from.iter().enumerate() {
                if j.is_none() && gr[k] != 0.0 {
                    pass.acc[r] = add_down(pass.acc[r], mul_down(gr[k], self.value));
                }
            }
        }
        pass.g = next;
        pass.width = n;
    }

    fn backpropagate(&self, g: Vec<f64>, _input: &[f64], _output: &[f64]) -> Vec<f64> {
        self.scatter(&g, 1)
    }

    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.from.len() * lanes);
        for j in self.from.iter() {
            match j {
                Some(j) => out.extend_from_slice(&v[j * lanes..(j + 1) * lanes]),
                None => out.extend(std::iter::repeat_n(self.value, lanes)),
            }
        }
        out
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, _input: &[f64], _output: &[f64], lanes: usize) -> Vec<f64> {
        self.scatter(&g, lanes)
    }

    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        self.gather(&d, self.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[x0, x1]` padded to `[v, x0, x1, v]` with `v = 0.1`.
    fn pad() -> Pad {
        Pad::new(Arc::from([None, Some(0), Some(1), None]), 2, 0.1)
    }

    #[test]
    fn copies_and_constants_in_the_results_order() {
        assert_eq!(pad().apply(&[3.0, -4.0]), [0.1, 3.0, -4.0, 0.1]);
        let boxes = [Interval::new(0.0, 1.0), Interval::new(-2.0, -1.0)];
        let got = pad().interval(&boxes).unwrap();
        assert_eq!(got, [Interval::point(0.1), boxes[0], boxes[1], Interval::point(0.1)]);
        // Two lanes: element j of lane l at j * 2 + l.
        assert_eq!(pad().apply_lanes(&[1.0, -1.0, 2.0, -2.0], 2), [0.1, 0.1, 1.0, -1.0, 2.0, -2.0, 0.1, 0.1]);
        assert_eq!(pad().output_len(2), 4);
    }

    #[test]
    fn back_substitution_moves_coefficients_and_adds_the_constants_below_their_value() {
        // Row 0: 1·v + 2·x0 + 3·x1 + 4·v = 2·x0 + 3·x1 + 5·0.1; row 1: -1·v + 0·x0 - 2·x1 + 0·v.
        let mut pass =
            Pass { g: vec![1.0, 2.0, 3.0, 4.0, -1.0, 0.0, -2.0, 0.0], width: 4, count: 2, acc: vec![0.0, 1.0] };
        let p = pad();
        p.substitute(&p.prepare(&[]), &mut pass, LowerChoice::Given(&[]));
        assert_eq!((pass.g.as_slice(), pass.width), (&[2.0, 3.0, 0.0, -2.0][..], 2));
        // v = fl(0.1) = 0.1000000000000000055511151231257827…, so row 0's exact constant is
        // 5·v = 0.5000000000000000277…: 1·v and 4·v are exact, their sum rounded down is 0.5.
        assert_eq!(pass.acc[0], 0.5);
        // Row 1: 1 - v = 0.8999999999999999944488848768742172… lies between the doubles
        // 0.89999999999999991118… and fl(0.9) = 0.90000000000000002220…: rounded down, the first.
        assert_eq!(pass.acc[1], 0.9f64.next_down());
        let (x, g) = ([7.0, 8.0], [1.0, 2.0, 3.0, 4.0]);
        let out = p.apply(&x);
        let back = p.backpropagate(g.to_vec(), &x, &out);
        assert_eq!(back, [2.0, 3.0], "the gradient reaches the copied elements only");
    }
}

#[cfg(test)]
mod read_tests {
    use super::*;
    use knn_engine::bigstep::ops::Op;

    fn op(value: f64, x_at: usize) -> Op {
        Op::Pad { out: 1, x: 0, x_at, x_len: 2, from: Arc::from([None, Some(0), Some(1)]), value }
    }

    #[test]
    fn a_pad_of_the_whole_last_vector_with_a_finite_value_is_read_and_the_others_are_refused() {
        let chain = || Chain { layers: Vec::new(), current: 0, len: 2 };
        let mut read = chain();
        Pad::read(&op(-0.0, 0), &mut read).unwrap();
        assert_eq!((read.layers.len(), read.current, read.len), (1, 1, 3));
        for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let refused = Pad::read(&op(value, 0), &mut chain()).unwrap_err();
            assert!(format!("{refused:?}").contains("no finite bound holds it"), "{value}: {refused:?}");
        }
        let refused = Pad::read(&op(0.0, 1), &mut chain()).unwrap_err();
        assert!(format!("{refused:?}").contains("a pad of part of a vector"), "{refused:?}");
    }
}
