//! Reading the plan's window operations onto a chain: `Conv2d` as a [`Sparse`] layer, an
//! average pool as its window sums ([`Sparse`]) then the division by each count
//! ([`super::Divide`]), a max pool as a [`MaxPool`].

use knn_engine::bigstep::ops::Op;
use knn_engine::bigstep::window_ops::{pool_count, pool_taps};
use knn_semantics::syntax::Pool;

use super::{Chain, Layer, MaxPool, Sparse};
use crate::unsupported::{Unsupported, unsupported};

/// Reads a `Conv2d` of the plan onto `chain`.
pub fn read_conv2d(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
    let Op::Conv2d { out, x, x_at, conv } = op else { unreachable!("a Conv2d") };
    if *x != chain.current || *x_at != 0 || conv.input_len() != chain.len {
        return Err(unsupported("conv2d of part of a vector, or of one other than the last computed", None));
    }
    chain.layers.push(Layer::sparse(Sparse::conv2d(conv)));
    chain.current = *out;
    chain.len = conv.output_len();
    Ok(())
}

/// Reads a `Pool2d` of the plan onto `chain`.
pub fn read_pool2d(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
    let Op::Pool2d { pool, out, x, x_at, geometry, span } = op else { unreachable!("a Pool2d") };
    let input_len = geometry.input.iter().product::<i64>() as usize;
    let outputs = geometry.output.iter().product::<i64>() as usize;
    if *x != chain.current || *x_at != 0 || input_len != chain.len {
        return Err(unsupported(
            format!("{} of part of a vector, or of one other than the last computed", pool.keyword()),
            Some(*span),
        ));
    }
    match pool {
        Pool::Max => {
            let Some(layer) = MaxPool::new(*geometry, *span) else {
                return Err(unsupported("maxPool2d with a window wholly in the padding", Some(*span)));
            };
            chain.layers.push(Layer::max_pool(layer));
        }
        Pool::Avg => {
            let counts: Vec<f64> = (0..outputs).map(|k| pool_count(geometry, k)).collect();
            if counts.contains(&0.0) {
                return Err(unsupported("avgPool2d with a window wholly in the padding (0/0)", Some(*span)));
            }
            let windows = (0..outputs).map(|k| pool_taps(geometry, k).collect());
            chain.layers.push(Layer::sparse(Sparse::window_sums(input_len, windows)));
            chain.layers.push(Layer::divide(counts.into_iter().map(Some).collect()));
        }
    }
    chain.current = *out;
    chain.len = outputs;
    Ok(())
}
