//! A selection of the vector's elements, each at most once: `slice` (Ext-12), and `concat`
//! (Ext-11) of the vector alone, the plan's `Gather` whose sources are all the last vector,
//! `out[k] = x[from[k]]` with no `from[k]` twice. The engine moves bits and computes nothing,
//! so every bound is exact: intervals are gathered, and back-substitution scatters each row's
//! coefficients back to the input positions they came from (the others get 0), with no
//! rounding to charge: no two coefficients meet at one input, so none is summed
//! (docs/verification.md, "Gather"). A gather that reads an element twice (`concat(h, h)`)
//! would sum coefficients, a rounding to charge: it is refused by name.

use std::sync::Arc;

use knn_engine::bigstep::ops::Op;

use super::{Chain, ChosenLines, Layer, LowerChoice, Operator, Pass, Prepared};
use crate::float::Interval;
use crate::unsupported::{Unsupported, unsupported};

#[derive(Clone, Debug)]
pub struct Gather {
    /// Output `k` is input `from[k]`; no input twice.
    from: Arc<[usize]>,
    /// The length of the input vector.
    input_len: usize,
}

impl Gather {
    pub fn new(from: Arc<[usize]>, input_len: usize) -> Gather {
        debug_assert!({
            let mut seen = vec![false; input_len];
            from.iter().all(|&j| j < input_len && !std::mem::replace(&mut seen[j], true))
        });
        Gather { from, input_len }
    }

    /// Reads a `Gather` of the plan onto `chain`: elements of the last vector, each at most
    /// once; anything else (two vectors, an element twice) is refused by name.
    pub fn read(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
        let Op::Gather { out, from } = op else { unreachable!("a Gather") };
        if from.is_empty() {
            // Nothing of the input would reach the result: not a network to bound.
            return Err(unsupported("an empty `slice` of a vector computed from the input", None));
        }
        let mut seen = vec![false; chain.len];
        let mut positions = Vec::with_capacity(from.len());
        for &(buf, at) in from.iter() {
            if buf != chain.current || at >= chain.len {
                return Err(unsupported(
                    "`concat` of tensors computed from the input other than the last vector alone (two branches joined: the verifier bounds a chain of layers on one vector)",
                    None,
                ));
            }
            if std::mem::replace(&mut seen[at], true) {
                return Err(unsupported(
                    "`concat` of a computed vector with itself (an element read twice: no operator bounds it yet)",
                    None,
                ));
            }
            positions.push(at);
        }
        chain.layers.push(Layer::gather(Gather::new(Arc::from(positions), chain.len)));
        chain.current = *out;
        chain.len = from.len();
        Ok(())
    }

    fn gather<T: Copy>(&self, v: &[T]) -> Vec<T> {
        gather_rows(&self.from, v, 1)
    }

    fn scatter(&self, g: &[f64], lanes: usize) -> Vec<f64> {
        scatter_rows(&self.from, g, self.input_len, lanes)
    }
}

/// Row `from[k]` of `v` as row `k` (`lanes` values a row): a gather, and `Permute`'s too.
pub(super) fn gather_rows<T: Copy>(from: &[usize], v: &[T], lanes: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(from.len() * lanes);
    for &j in from {
        out.extend_from_slice(&v[j * lanes..(j + 1) * lanes]);
    }
    out
}

/// The transpose of [`gather_rows`] when no row is gathered twice: `g`'s row `k` back to row
/// `from[k]` of `input_len` rows, 0 at the rows not gathered (nothing is summed, so nothing
/// rounds).
pub(super) fn scatter_rows(from: &[usize], g: &[f64], input_len: usize, lanes: usize) -> Vec<f64> {
    let mut out = vec![0.0; input_len * lanes];
    for (k, &j) in from.iter().enumerate() {
        out[j * lanes..(j + 1) * lanes].copy_from_slice(&g[k * lanes..(k + 1) * lanes]);
    }
    out
}

impl Operator for Gather {
    fn describe(&self) -> String {
        format!("Gather {:?} of {}", self.from, self.input_len)
    }

    fn output_len(&self, _len: usize) -> usize {
        self.from.len()
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
        let (m, n) = (self.from.len(), self.input_len);
        debug_assert_eq!(pass.width, m);
        let mut next = Vec::with_capacity(pass.count * n);
        for r in 0..pass.count {
            next.extend(self.scatter(&pass.g[r * m..(r + 1) * m], 1));
        }
        pass.g = next;
        pass.width = n;
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

    /// Elements 3 and 1 of 4 (a slice with a step, then reordered: any injective selection).
    fn gather() -> Gather {
        Gather::new(Arc::from([3usize, 1]), 4)
    }

    #[test]
    fn output_k_is_input_from_k() {
        assert_eq!(gather().apply(&[10.0, 20.0, 30.0, 40.0]), [40.0, 20.0]);
        assert_eq!(gather().output_len(4), 2);
        let boxes =
            [Interval::new(0.0, 1.0), Interval::new(2.0, 3.0), Interval::new(-1.0, 0.0), Interval::new(5.0, 6.0)];
        assert_eq!(gather().interval(&boxes).unwrap(), [boxes[3], boxes[1]]);
        // Two lanes: element j of lane l at j * 2 + l.
        assert_eq!(gather().apply_lanes(&[1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0], 2), [4.0, -4.0, 2.0, -2.0]);
    }

    #[test]
    fn back_substitution_moves_each_coefficient_to_its_source_and_zeroes_the_rest() {
        // g·out = g0·x3 + g1·x1: over the input, (0, g1, 0, g0), for each row.
        let mut pass = Pass { g: vec![1.0, 2.0, -3.0, 4.0], width: 2, count: 2, acc: vec![0.5, -0.5] };
        let p = gather();
        p.substitute(&p.prepare(&[]), &mut pass, LowerChoice::Given(&[]));
        assert_eq!(pass.width, 4);
        assert_eq!(pass.g, [0.0, 2.0, 0.0, 1.0, 0.0, 4.0, 0.0, -3.0]);
        assert_eq!(pass.acc, [0.5, -0.5], "nothing is rounded, nothing is charged");
        let (x, g) = ([7.0, 8.0, 9.0, 10.0], [1.0, 2.0]);
        let out = p.apply(&x);
        let back = p.backpropagate(g.to_vec(), &x, &out);
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
        assert_eq!(dot(&g, &out), dot(&back, &x), "the gradient is the transpose");
    }
}
