//! Ext-10's `reduceSum` and `reduceMean` of one run of a buffer (the plan's `Reduce`) read as
//! a [`Sparse`] layer with weights 1 — each group's sum from `0.0` in its order, `fl(1·x)` is
//! `x` exactly, so `acc + x` and `acc + fl(1·x)` are the same bits, as for `avgPool2d`'s window
//! sums — then, for the mean, a [`super::Divide`] by the group's count (`ext-pool-mean`).

use knn_engine::bigstep::ops::{Op, ReduceKind};

use super::{Chain, Layer, Sparse};
use crate::unsupported::{Unsupported, unsupported};

/// Reads a `Reduce` of the whole of the last vector.
pub fn read_reduce(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
    let Op::Reduce { kind, out, x, x_at, input_len, outputs, group, from, .. } = op else { unreachable!("a Reduce") };
    let what = match kind {
        ReduceKind::Sum => "reduceSum",
        ReduceKind::Mean => "reduceMean",
        ReduceKind::Max => {
            return Err(unsupported("`reduceMax` of a computed tensor (no operator bounds it yet)", None));
        }
        ReduceKind::Min => {
            return Err(unsupported("`reduceMin` of a computed tensor (no operator bounds it yet)", None));
        }
    };
    let mean = *kind == ReduceKind::Mean;
    if *x != chain.current || *x_at != 0 || *input_len != chain.len {
        return Err(unsupported(format!("`{what}` of part of a vector, or of one other than the last computed"), None));
    }
    if mean && *group == 0 {
        return Err(unsupported("`reduceMean` over an empty axis (0/0: NaN at every input)", None));
    }
    let rows = (0..*outputs).map(|g| from[g * group..(g + 1) * group].iter().map(|&j| (j, 1.0)).collect()).collect();
    chain.layers.push(Layer::sparse(Sparse::from_rows(what, *input_len, rows)));
    if mean {
        chain.layers.push(Layer::divide(vec![Some(*group as f64); *outputs]));
    }
    chain.current = *out;
    chain.len = *outputs;
    Ok(())
}
