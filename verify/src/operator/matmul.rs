//! Ext-15's `matmul` with one constant operand (the plan's `MatMul`) read as a
//! [`Sparse`] layer: element `e` of the result is `fl(…fl(0.0 + fl(a·b))…)` over its `inner`
//! products in increasing `P` (`ext-matmul-helper-step`, `linear-mac`'s order), each a product
//! of one element of the computed operand and one constant, which is what a sparse layer's
//! row computes (`fl(w·x)` is `fl(x·w)`: IEEE multiplication commutes). A product of two
//! computed tensors is bilinear and refused by name where the plan is read.

use knn_engine::bigstep::ops::{MatmulOperand, Op};

use super::{Chain, Layer, Sparse};
use crate::unsupported::{Unsupported, unsupported};

/// Reads a `MatMul` whose one computed operand is the whole of the last vector.
pub fn read_matmul(op: &Op, chain: &mut Chain) -> Result<(), Unsupported> {
    let Op::MatMul { out, a, b, geometry, span } = op else { unreachable!("a MatMul") };
    let (computed_left, at, constant) = match (a, b) {
        (MatmulOperand::Buffer { at, .. }, MatmulOperand::Const(c)) => (true, *at, c),
        (MatmulOperand::Const(c), MatmulOperand::Buffer { at, .. }) => (false, *at, c),
        _ => unreachable!("one computed operand and one constant"),
    };
    let input_len = if computed_left { geometry.left_len } else { geometry.right_len };
    if at != 0 || input_len != chain.len {
        return Err(unsupported("`matmul` of part of a vector, or of one other than the last computed", Some(*span)));
    }
    let rows = geometry
        .bases
        .iter()
        .map(|&(left, right)| {
            (0..geometry.inner)
                .map(|p| {
                    let (l, r) = (left + p, right + p * geometry.right_step);
                    if computed_left { (l, constant[r]) } else { (r, constant[l]) }
                })
                .collect()
        })
        .collect();
    chain.layers.push(Layer::sparse(Sparse::from_rows("MatMul", input_len, rows)));
    chain.current = *out;
    chain.len = geometry.bases.len();
    Ok(())
}
