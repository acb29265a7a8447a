//! Ext-10's `reduceSum` and `reduceMean` of one run of a buffer (the plan's `Reduce`) read as
//! a [`Sparse`] layer with weights 1 — each group's sum from `0.0` in its order, `fl(1·x)` is
//! `x` exactly, so `acc + x` and `acc + fl(1·x)` are the same bits, as for `avgPool2d`'s window
//! sums — then, for the mean, a [`super::Divide`] by the group's count (`ext-pool-mean`).
//! `reduceMax` and `reduceMin` are a [`MaxPool`] over the groups (`max` from `-Infinity`,
//! `min` from `Infinity`, in each group's order).

use knn_engine::bigstep::ops::{Op, ReduceKind};

use super::{Chain, Layer, MaxPool, Sparse};
use crate::unsupported::{Unsupported, unsupported};

/// Reads a `Reduce` of the whole of the last vector.
pub fn read_reduce(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
    let Op::Reduce { kind, out, x, x_at, input_len, outputs, group, from, span } = op else { unreachable!("a Reduce") };
    let what = match kind {
        ReduceKind::Sum => "reduceSum",
        ReduceKind::Mean => "reduceMean",
        ReduceKind::Max => "reduceMax",
        ReduceKind::Min => "reduceMin",
    };
    let mean = *kind == ReduceKind::Mean;
    if *x != chain.current || *x_at != 0 || *input_len != chain.len {
        return Err(unsupported(format!("`{what}` of part of a vector, or of one other than the last computed"), None));
    }
    if mean && *group == 0 {
        return Err(unsupported("`reduceMean` over an empty axis (0/0: NaN at every input)", None));
    }
    let groups = || (0..*outputs).map(|g| from[g * group..(g + 1) * group].to_vec());
    if matches!(kind, ReduceKind::Max | ReduceKind::Min) {
        if *group == 0 {
            return Err(unsupported(format!("`{what}` over an empty axis (±Infinity at every input)"), Some(*span)));
        }
        let min = *kind == ReduceKind::Min;
        chain.layers.push(Layer::max_pool(MaxPool::reduce(min, groups().collect(), *input_len, *span)));
        chain.current = *out;
        chain.len = *outputs;
        return Ok(());
    }
    let rows = groups().map(|g| g.into_iter().map(|j| (j, 1.0)).collect()).collect();
    chain.layers.push(Layer::sparse(Sparse::from_rows(what, *input_len, rows)));
    if mean {
        chain.layers.push(Layer::divide(vec![Some(*group as f64); *outputs]));
    }
    chain.current = *out;
    chain.len = *outputs;
    Ok(())
}

#[cfg(test)]
mod tests {
    use knn_semantics::syntax::Span;

    use std::sync::Arc;

    use knn_engine::tensor::Matrix;

    use super::*;
    use crate::float::Interval;
    use crate::operator::window_tests::{bounds_hold_everywhere, run_from};
    use crate::operator::{LowerChoice, Operator, Pass};

    #[test]
    fn maxima_keep_the_first_of_equal_ones_and_minima_take_the_later() {
        // `k_max(a, b)` is `b` only when `a < b`; `k_min(a, b)` is `b` when `a >= b`: on signed
        // zeros, from ∓∞, max(+0, −0) = +0, max(−0, +0) = −0, min(+0, −0) = −0, min(−0, +0) = +0.
        let (max, min) = (MaxPool::reduce(false, vec![vec![0, 1]], 2, Span::default()), {
            MaxPool::reduce(true, vec![vec![0, 1]], 2, Span::default())
        });
        let bits = |v: Vec<f64>| v[0].to_bits();
        assert_eq!(bits(max.apply(&[0.0, -0.0])), 0.0f64.to_bits());
        assert_eq!(bits(max.apply(&[-0.0, 0.0])), (-0.0f64).to_bits());
        assert_eq!(bits(min.apply(&[0.0, -0.0])), (-0.0f64).to_bits());
        assert_eq!(bits(min.apply(&[-0.0, 0.0])), 0.0f64.to_bits());
        assert!(min.failure(&[1.0, f64::NAN]).is_some_and(|e| e.detail == "`min` cannot compute with 1.0 and NaN"));
    }

    #[test]
    fn a_minimum_is_bounded_as_the_negated_maximum_of_the_negated_inputs() {
        // min(x0, x1) with x0 in [1, 3], x1 in [2, 5]: ranges [1, 3]; the lower bound of
        // +1·y is min lo = 1 (a constant), of −1·y is −x0 (y ≤ x0, the input of least upper
        // end), and with x0 in [1, 1.5] below x1 always, y = x0 exactly.
        let min = MaxPool::reduce(true, vec![vec![0, 1]], 2, Span::default());
        let boxes = [Interval::new(1.0, 3.0), Interval::new(2.0, 5.0)];
        assert_eq!(min.interval(&boxes).unwrap(), [Interval::new(1.0, 3.0)]);
        let prepared = min.prepare(&boxes);
        let mut pass = Pass { g: vec![1.0, -1.0], width: 1, count: 2, acc: vec![0.0, 0.0] };
        min.substitute(&prepared, &mut pass, LowerChoice::Given(&[]));
        assert_eq!((pass.g.as_slice(), pass.acc.as_slice()), (&[0.0, 0.0, -1.0, 0.0][..], &[1.0, 0.0][..]));
        let below = [Interval::new(1.0, 1.5), Interval::new(2.0, 5.0)];
        let prepared = min.prepare(&below);
        let mut pass = Pass { g: vec![1.0], width: 1, count: 1, acc: vec![0.0] };
        min.substitute(&prepared, &mut pass, LowerChoice::Given(&[]));
        assert_eq!((pass.g.as_slice(), pass.acc.as_slice()), (&[1.0, 0.0][..], &[0.0][..]));
    }

    #[test]
    fn networks_through_maxima_and_minima_are_bounded_at_every_point() {
        let dense = |rows, cols, w: Vec<f64>| Layer::dense(Arc::new(Matrix::new(rows, cols, w)), vec![None; rows]);
        for min in [false, true] {
            let extreme = || Layer::max_pool(MaxPool::reduce(min, vec![vec![0, 1, 2], vec![2, 0]], 3, Span::default()));
            // Three rows that cross inside the box (each is the extreme somewhere: no tap
            // always is), then scores that weigh the two groups against each other.
            let layers =
                [dense(3, 2, vec![1.0, 0.0, 0.0, 1.0, 0.5, 0.5]), extreme(), dense(2, 2, vec![1.0, -3.0, -2.0, 0.5])];
            bounds_hold_everywhere(&layers, &[run_from(0.5, 40), run_from(0.5, 40)]);
            // Rows far apart: one tap is always the extreme, and the bound is exact there.
            let apart = [dense(3, 2, vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0]), extreme(), dense(1, 2, vec![-1.0, 1.0])];
            bounds_hold_everywhere(&apart, &[run_from(-4.0, 30), run_from(7.0, 30)]);
        }
    }
}
