//! A permutation of the vector's elements: `transpose` (Ext-6), the plan's `Permute`,
//! `out[k] = x[from[k]]`. The engine moves bits and computes nothing, so every bound is exact:
//! intervals are gathered, and back-substitution scatters each row's coefficients back to the
//! input positions they came from, with no rounding to charge (docs/verification.md,
//! "Permute").

use std::sync::Arc;

use knn_engine::bigstep::ops::Op;

use super::gather::{gather_rows, scatter_rows};
use super::{Chain, ChosenLines, Layer, LowerChoice, Operator, Pass, Prepared};
use crate::float::Interval;
use crate::unsupported::{Unsupported, unsupported};

#[derive(Clone, Debug)]
pub struct Permute {
    /// A permutation of `0 .. from.len()`: output `k` is input `from[k]`.
    from: Arc<[usize]>,
}

impl Permute {
    pub fn new(from: Arc<[usize]>) -> Permute {
        debug_assert!({
            let mut seen = vec![false; from.len()];
            from.iter().all(|&j| j < seen.len() && !std::mem::replace(&mut seen[j], true))
        });
        Permute { from }
    }

    /// Reads a `Permute` of the plan onto `chain`: a permutation of the whole last vector.
    pub fn read(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
        let Op::Permute { out, x, x_at, from } = op else { unreachable!("a Permute") };
        if *x != chain.current || *x_at != 0 || from.len() != chain.len {
            return Err(unsupported("a transpose of part of a vector, or of one not computed last", None));
        }
        chain.layers.push(Layer::permute(Permute::new(from.clone())));
        chain.current = *out;
        Ok(())
    }

    fn gather<T: Copy>(&self, v: &[T]) -> Vec<T> {
        gather_rows(&self.from, v, 1)
    }

    /// The inverse: `g` over the output carried to the input, `out[from[k]] = g[k]`.
    fn scatter(&self, g: &[f64], lanes: usize) -> Vec<f64> {
        scatter_rows(&self.from, g, self.from.len(), lanes)
    }
}

impl Operator for Permute {
    fn keeps_non_negative(&self) -> bool {
        true
    }

    fn describe(&self) -> String {
        format!("Permute {:?}", self.from)
    }

    fn apply(&self, v: &[f64]) -> Vec<f64> {
        self.gather(v)
    }

    fn interval(&self, v: &[Interval]) -> Option<Vec<Interval>> {
        Some(self.gather(v))
    }

    fn exact_on_box(&self) -> bool {
        true
    }

    fn prepare(&self, _input: &[Interval]) -> Prepared {
        Box::new(())
    }

    fn substitute(&self, _prepared: &Prepared, pass: &mut Pass, _lower: LowerChoice<'_>) {
        let m = self.from.len();
        debug_assert_eq!(pass.width, m);
        for r in 0..pass.count {
            let row = self.scatter(&pass.g[r * m..(r + 1) * m], 1);
            pass.g[r * m..(r + 1) * m].copy_from_slice(&row);
        }
    }

    fn backpropagate(&self, g: Vec<f64>, _input: &[f64], _output: &[f64]) -> Vec<f64> {
        self.scatter(&g, 1)
    }

    fn apply_lanes(&self, v: &[f64], lanes: usize) -> Vec<f64> {
        gather_rows(&self.from, v, lanes)
    }

    fn backpropagate_lanes(&self, g: Vec<f64>, _input: &[f64], _output: &[f64], lanes: usize) -> Vec<f64> {
        self.scatter(&g, lanes)
    }

    fn relaxed_forward(&self, d: Vec<f64>, _lines: &ChosenLines<'_>) -> Vec<f64> {
        self.gather(&d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::float::Interval;

    fn permute() -> Permute {
        Permute::new(Arc::from([2usize, 0, 1]))
    }

    #[test]
    fn output_k_is_input_from_k() {
        assert_eq!(permute().apply(&[10.0, 20.0, 30.0]), [30.0, 10.0, 20.0]);
        let boxes = [Interval::new(0.0, 1.0), Interval::new(2.0, 3.0), Interval::new(-1.0, 0.0)];
        assert_eq!(permute().interval(&boxes).unwrap(), [boxes[2], boxes[0], boxes[1]]);
        // Two lanes: element j of lane l at j * 2 + l.
        assert_eq!(permute().apply_lanes(&[1.0, -1.0, 2.0, -2.0, 3.0, -3.0], 2), [3.0, -3.0, 1.0, -1.0, 2.0, -2.0]);
    }

    #[test]
    fn back_substitution_moves_each_coefficient_to_its_source() {
        // g·out = g0·x2 + g1·x0 + g2·x1: over the input, (g1, g2, g0), for each row.
        let mut pass = Pass { g: vec![1.0, 2.0, 3.0, -4.0, 5.0, -6.0], width: 3, count: 2, acc: vec![0.5, -0.5] };
        let p = permute();
        p.substitute(&p.prepare(&[]), &mut pass, LowerChoice::Given(&[]));
        assert_eq!(pass.g, [2.0, 3.0, 1.0, 5.0, -6.0, -4.0]);
        assert_eq!(pass.acc, [0.5, -0.5], "nothing is rounded, nothing is charged");
        let (x, g) = ([7.0, 8.0, 9.0], [1.0, 2.0, 3.0]);
        let out = p.apply(&x);
        let back = p.backpropagate(g.to_vec(), &x, &out);
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
        assert_eq!(dot(&g, &out), dot(&back, &x), "the gradient is the transpose");
    }
}
