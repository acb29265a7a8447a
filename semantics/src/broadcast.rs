//! NumPy's broadcasting (Ext-8), shared by both engines: the shape two operands broadcast to,
//! and which element of an operand stands at an index of the result. A function of the K
//! rules (`broadcast`, `broadcastable`, `operandIndex` of `revisions/ext8_broadcast.rs`),
//! written once so that the engines cannot disagree on it.

/// `broadcast(Is, Js)`: the shape of the result, or `None` when the shapes do not broadcast.
/// The shapes are aligned at their last dimensions; each aligned pair must be equal or hold a
/// 1, which repeats; the result has the larger rank and, in each dimension, the extent that is
/// not 1 (a 0 against a 1 is 0: no element).
pub fn broadcast(is: &[i64], js: &[i64]) -> Option<Vec<i64>> {
    let rank = is.len().max(js.len());
    let at = |dims: &[i64], k: usize| if k + dims.len() >= rank { dims[k + dims.len() - rank] } else { 1 };
    (0..rank)
        .map(|k| match (at(is, k), at(js, k)) {
            (a, b) if a == b => Some(a),
            (1, b) => Some(b),
            (a, 1) => Some(a),
            _ => None,
        })
        .collect()
}

/// `operandIndex(I, Is)`: the index of the element of an operand of shape `Is` that stands at
/// the index `I` of the result (`I` has the result's rank, at least `Is`'s): `I`'s last
/// `|Is|` indices, 0 where `Is` has a 1.
pub fn operand_index(index: &[i64], dims: &[i64]) -> Vec<i64> {
    let skip = index.len() - dims.len();
    index[skip..].iter().zip(dims).map(|(&i, &d)| if d == 1 { 0 } else { i }).collect()
}

/// The detail of the `shape-mismatch` of `f(y, z)` whose shapes do not broadcast: both shapes,
/// as both engines word it.
pub fn mismatch_detail(keyword: &str, y: &str, z: &str, y_dims: &[i64], z_dims: &[i64]) -> String {
    format!(
        "{keyword}({y}, {z}) needs two tensors whose shapes broadcast; {y} has shape {y_dims:?} and {z} has shape {z_dims:?}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_broadcast_as_numpy_says() {
        assert_eq!(broadcast(&[2, 3], &[2, 3]), Some(vec![2, 3]));
        assert_eq!(broadcast(&[2, 3], &[3]), Some(vec![2, 3]));
        assert_eq!(broadcast(&[3], &[2, 3]), Some(vec![2, 3]));
        assert_eq!(broadcast(&[2, 1], &[1, 3]), Some(vec![2, 3]));
        assert_eq!(broadcast(&[4, 1, 3], &[2, 1]), Some(vec![4, 2, 3]));
        assert_eq!(broadcast(&[1], &[5]), Some(vec![5]));
        assert_eq!(broadcast(&[0], &[1]), Some(vec![0]));
        assert_eq!(broadcast(&[2], &[3]), None);
        assert_eq!(broadcast(&[2, 3], &[6]), None);
        assert_eq!(broadcast(&[0], &[3]), None);
    }

    #[test]
    fn an_operand_is_read_at_its_trailing_indices_with_ones_repeated() {
        assert_eq!(operand_index(&[1, 2], &[3]), vec![2]);
        assert_eq!(operand_index(&[1, 2], &[2, 1]), vec![1, 0]);
        assert_eq!(operand_index(&[3, 1, 2], &[2, 1]), vec![1, 0]);
        assert_eq!(operand_index(&[1, 2], &[2, 3]), vec![1, 2]);
    }
}
