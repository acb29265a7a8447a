//! NumPy's `matmul` shapes (Ext-15), shared by both engines: the shape of the product of two
//! tensors and which elements of the operands meet in each product. Functions of the K rules
//! (`matmulShape`, `leftIndex`, `rightIndex` of `revisions/ext15_matmul.rs`), written once so
//! that the engines cannot disagree on them.
//!
//! NumPy's rule (and ONNX's `MatMul`): a 1-D left operand `(K)` is read as the row `(1, K)`, a
//! 1-D right operand as the column `(K, 1)`; the last two axes multiply as matrices `(M, K)`
//! by `(K, N)`; the axes before them are batch axes, which broadcast as Ext-8's shapes do
//! (`broadcast.rs`); the axis a 1-D operand gained is removed from the result. Two vectors give
//! NumPy a rank-0 result; K-NN's functions bind tensors with at least one axis (as Ext-10's
//! reductions over every axis), so here it is the shape `(1)`.

use crate::broadcast::{broadcast, operand_index};

/// An operand's parts: its batch axes, its matrix axis other than the inner one (`None` for a
/// vector), and its inner extent `K`.
struct Parts<'a> {
    batch: &'a [i64],
    outer: Option<i64>,
    inner: i64,
}

/// The left operand `(…, M, K)` or `(K)`.
fn left(is: &[i64]) -> Option<Parts<'_>> {
    match is {
        [] => None,
        [k] => Some(Parts { batch: &[], outer: None, inner: *k }),
        [batch @ .., m, k] => Some(Parts { batch, outer: Some(*m), inner: *k }),
    }
}

/// The right operand `(…, K, N)` or `(K)`.
fn right(js: &[i64]) -> Option<Parts<'_>> {
    match js {
        [] => None,
        [k] => Some(Parts { batch: &[], outer: None, inner: *k }),
        [batch @ .., k, n] => Some(Parts { batch, outer: Some(*n), inner: *k }),
    }
}

/// `matmulShape(Is, Js)`: the result's shape, or `None` when the inner extents differ or the
/// batch axes do not broadcast: the broadcast batch axes, then `M` unless the left operand is
/// a vector, then `N` unless the right one is; `(1)` when nothing is left.
pub fn matmul_shape(is: &[i64], js: &[i64]) -> Option<Vec<i64>> {
    let (a, b) = (left(is)?, right(js)?);
    if a.inner != b.inner {
        return None;
    }
    let mut os = broadcast(a.batch, b.batch)?;
    os.extend(a.outer);
    os.extend(b.outer);
    if os.is_empty() {
        os.push(1);
    }
    Some(os)
}

/// `K`: the inner extent both operands share (the left operand's last axis).
pub fn inner_extent(is: &[i64]) -> i64 {
    is.last().copied().unwrap_or(0)
}

/// The batch index, the row `i` and the column `j` that the index `o` of the result stands for
/// (`i` or `j` is 0 where an operand is a vector, the axis it gained).
fn split(o: &[i64], a: &Parts<'_>, b: &Parts<'_>) -> (Vec<i64>, i64, i64) {
    let matrix_axes = usize::from(a.outer.is_some()) + usize::from(b.outer.is_some());
    if matrix_axes == 0 {
        // The two vectors' `(1)`: no batch axis, one element.
        return (Vec::new(), 0, 0);
    }
    let (batch, rest) = o.split_at(o.len() - matrix_axes);
    let mut rest = rest.iter().copied();
    let i = if a.outer.is_some() { rest.next().unwrap_or(0) } else { 0 };
    let j = if b.outer.is_some() { rest.next().unwrap_or(0) } else { 0 };
    (batch.to_vec(), i, j)
}

/// `leftIndex(O, P, Is, Js)`: the element of the left operand (shape `is`) in the `p`-th
/// product of the result's element `o`: its batch index (broadcast), then `(i, p)`, or `(p)`
/// for a vector.
pub fn left_index(o: &[i64], p: i64, is: &[i64], js: &[i64]) -> Vec<i64> {
    let (Some(a), Some(b)) = (left(is), right(js)) else { return vec![p] };
    let (batch, i, _) = split(o, &a, &b);
    let mut index = operand_index(&batch, a.batch);
    if a.outer.is_some() {
        index.push(i);
    }
    index.push(p);
    index
}

/// `rightIndex(O, P, Is, Js)`: the element of the right operand (shape `js`) in the `p`-th
/// product of the result's element `o`: its batch index (broadcast), then `(p, j)`, or `(p)`
/// for a vector.
pub fn right_index(o: &[i64], p: i64, is: &[i64], js: &[i64]) -> Vec<i64> {
    let (Some(a), Some(b)) = (left(is), right(js)) else { return vec![p] };
    let (batch, _, j) = split(o, &a, &b);
    let mut index = operand_index(&batch, b.batch);
    index.push(p);
    if b.outer.is_some() {
        index.push(j);
    }
    index
}

/// The detail of the `shape-mismatch` of `matmul(y, z)`: both shapes, as both engines word it.
pub fn matmul_mismatch_detail(y: &str, z: &str, y_dims: &[i64], z_dims: &[i64]) -> String {
    format!(
        "matmul({y}, {z}) needs the last axis of {y} to equal the second-to-last axis of {z} (the only axis of a vector) and their batch axes to broadcast; {y} has shape {y_dims:?} and {z} has shape {z_dims:?}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_follow_numpy_matmul() {
        assert_eq!(matmul_shape(&[2, 3], &[3, 4]), Some(vec![2, 4]));
        assert_eq!(matmul_shape(&[3], &[3, 4]), Some(vec![4]));
        assert_eq!(matmul_shape(&[2, 3], &[3]), Some(vec![2]));
        assert_eq!(matmul_shape(&[3], &[3]), Some(vec![1]));
        assert_eq!(matmul_shape(&[5, 2, 3], &[3, 4]), Some(vec![5, 2, 4]));
        assert_eq!(matmul_shape(&[5, 1, 2, 3], &[7, 3, 4]), Some(vec![5, 7, 2, 4]));
        assert_eq!(matmul_shape(&[5, 2, 3], &[3]), Some(vec![5, 2]));
        assert_eq!(matmul_shape(&[3], &[5, 3, 4]), Some(vec![5, 4]));
        assert_eq!(matmul_shape(&[2, 0], &[0, 4]), Some(vec![2, 4]));
        assert_eq!(matmul_shape(&[2, 3], &[4, 3]), None);
        assert_eq!(matmul_shape(&[3], &[4]), None);
        assert_eq!(matmul_shape(&[2, 2, 3], &[3, 3, 4]), None);
    }

    #[test]
    fn each_product_reads_a_row_of_the_left_and_a_column_of_the_right() {
        // (2, 3) by (3, 4): element (1, 2), product 0 reads a[1, 0] and b[0, 2].
        assert_eq!(left_index(&[1, 2], 0, &[2, 3], &[3, 4]), vec![1, 0]);
        assert_eq!(right_index(&[1, 2], 0, &[2, 3], &[3, 4]), vec![0, 2]);
        // A vector on the left: element (2) of the (4) result, product 1: a[1], b[1, 2].
        assert_eq!(left_index(&[2], 1, &[3], &[3, 4]), vec![1]);
        assert_eq!(right_index(&[2], 1, &[3], &[3, 4]), vec![1, 2]);
        // A vector on the right: element (1) of the (2) result, product 2: a[1, 2], b[2].
        assert_eq!(left_index(&[1], 2, &[2, 3], &[3]), vec![1, 2]);
        assert_eq!(right_index(&[1], 2, &[2, 3], &[3]), vec![2]);
        // Two vectors: the (1) result, product 2: a[2], b[2].
        assert_eq!(left_index(&[0], 2, &[3], &[3]), vec![2]);
        assert_eq!(right_index(&[0], 2, &[3], &[3]), vec![2]);
        // Batch (5, 1) against (7): element (4, 6, 1, 3) of (5, 7, 2, 4), product 2.
        assert_eq!(left_index(&[4, 6, 1, 3], 2, &[5, 1, 2, 3], &[7, 3, 4]), vec![4, 0, 1, 2]);
        assert_eq!(right_index(&[4, 6, 1, 3], 2, &[5, 1, 2, 3], &[7, 3, 4]), vec![6, 2, 3]);
    }
}
