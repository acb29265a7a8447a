//! The index arithmetic of Ext-9's softmax and Ext-10's reductions, shared by both engines: which
//! elements of `Y` form a slice along an axis or a reduction's group, in which order, and the
//! checks of the axes with the error details both engines word alike.

use crate::errors::shape_text;

/// `rowMajor(K, Is)` over plain dimensions (an empty `dims` has the one position `[]`).
pub fn row_major_of(mut k: i64, dims: &[i64]) -> Vec<i64> {
    let mut index = vec![0i64; dims.len()];
    for (slot, &d) in index.iter_mut().zip(dims).rev() {
        if d > 0 {
            *slot = k % d;
            k /= d;
        }
    }
    index
}

/// The product of `dims` (1 for none), saturated: the shapes here were allocated, so it fits.
pub fn count(dims: &[i64]) -> i64 {
    dims.iter().fold(1i64, |n, &d| n.saturating_mul(d))
}

/// Whether `axis` is one of `0 … rank - 1` (`softmax`, `logSoftmax`).
pub fn valid_axis(axis: i64, rank: usize) -> bool {
    usize::try_from(axis).is_ok_and(|a| a < rank)
}

/// `validAxes(As, N)`: every axis in `0 … rank - 1`, none twice (the reductions).
pub fn valid_axes(axes: &[i64], rank: usize) -> bool {
    axes.iter().enumerate().all(|(k, &a)| valid_axis(a, rank) && !axes[..k].contains(&a))
}

/// The dimensions other than `axis`, in order: a slice's row-major counter runs over them.
pub fn other_dims(dims: &[i64], axis: usize) -> Vec<i64> {
    dims.iter().enumerate().filter(|&(i, _)| i != axis).map(|(_, &d)| d).collect()
}

/// `slices(Is, A)`: how many slices along `axis` (the product of the other dimensions).
pub fn slice_count(dims: &[i64], axis: usize) -> i64 {
    count(&other_dims(dims, axis))
}

/// `slice(K, Is, A)`: the indices of slice `k`'s elements in order along `axis`, the other
/// indices `rowMajor(K, other_dims)`.
pub fn slice_indices(dims: &[i64], axis: usize, k: i64) -> Vec<Vec<i64>> {
    let others = row_major_of(k, &other_dims(dims, axis));
    (0..dims[axis])
        .map(|i| {
            let mut index = others.clone();
            index.insert(axis, i);
            index
        })
        .collect()
}

/// `reduceShape(Is, As)`: `Is` without the axes `As`, or `[1]` when every axis is reduced.
pub fn reduced_shape(dims: &[i64], axes: &[i64]) -> Vec<i64> {
    let kept: Vec<i64> =
        dims.iter().enumerate().filter(|&(i, _)| !axes.contains(&(i as i64))).map(|(_, &d)| d).collect();
    if kept.is_empty() { vec![1] } else { kept }
}

/// `group(K, Is, As)`: the indices of the elements output `k` of a reduction combines, in the
/// row-major order of the reduced indices (by increasing axis, whatever order `As` lists them
/// in); the kept indices are `rowMajor(K, reduceShape(Is, As))`.
pub fn group_indices(dims: &[i64], axes: &[i64], k: i64) -> Vec<Vec<i64>> {
    let reduced = |i: usize| axes.contains(&(i as i64));
    let kept_dims: Vec<i64> = dims.iter().enumerate().filter(|&(i, _)| !reduced(i)).map(|(_, &d)| d).collect();
    let reduced_dims: Vec<i64> = dims.iter().enumerate().filter(|&(i, _)| reduced(i)).map(|(_, &d)| d).collect();
    let kept = row_major_of(k, &kept_dims);
    (0..count(&reduced_dims))
        .map(|r| {
            let inner = row_major_of(r, &reduced_dims);
            let (mut kept, mut inner) = (kept.iter(), inner.iter());
            (0..dims.len())
                .map(|i| {
                    if reduced(i) {
                        *inner.next().expect("a reduced index")
                    } else {
                        *kept.next().expect("a kept index")
                    }
                })
                .collect()
        })
        .collect()
}

/// The detail of `ext-softmax-invalid-axis`.
pub fn axis_detail(keyword: &str, y: &str, shape: &[i64], axis: i64) -> String {
    format!(
        "{keyword}({y}, {axis}): {y} has shape {} and {} axes; the axis must be one of 0 … {}",
        shape_text(shape),
        shape.len(),
        shape.len() - 1
    )
}

/// The detail of `ext-reduce-invalid-axes`.
pub fn axes_detail(keyword: &str, y: &str, shape: &[i64], axes: &[i64]) -> String {
    let listed: Vec<String> = axes.iter().map(i64::to_string).collect();
    format!(
        "{keyword}({y}, {}): {y} has shape {} and {} axes; the axes must each be one of 0 … {}, none twice",
        listed.join(", "),
        shape_text(shape),
        shape.len(),
        shape.len() - 1
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_run_along_the_axis_in_row_major_order_of_the_others() {
        // A (2, 3) tensor along axis 1: rows; along axis 0: columns.
        assert_eq!(slice_count(&[2, 3], 1), 2);
        assert_eq!(slice_indices(&[2, 3], 1, 1), [[1, 0], [1, 1], [1, 2]]);
        assert_eq!(slice_count(&[2, 3], 0), 3);
        assert_eq!(slice_indices(&[2, 3], 0, 2), [[0, 2], [1, 2]]);
        // (2, 2, 2) along axis 1, slice 3: the others (1, 1).
        assert_eq!(slice_indices(&[2, 2, 2], 1, 3), [[1, 0, 1], [1, 1, 1]]);
        assert_eq!(slice_indices(&[3], 0, 0), [[0], [1], [2]]);
    }

    #[test]
    fn groups_list_the_reduced_indices_by_increasing_axis() {
        assert_eq!(reduced_shape(&[2, 3, 4], &[2, 0]), [3]);
        assert_eq!(reduced_shape(&[2, 3], &[0, 1]), [1]);
        // Output 1 of (2, 3, 2) reduced over (2, 0): kept index j = 1; then (i, k) row-major.
        assert_eq!(group_indices(&[2, 3, 2], &[2, 0], 1), [[0, 1, 0], [0, 1, 1], [1, 1, 0], [1, 1, 1]]);
        assert_eq!(group_indices(&[2, 3], &[1, 0], 0).len(), 6);
        assert!(valid_axes(&[1, 0], 2));
        assert!(!valid_axes(&[0, 0], 2), "an axis twice");
        assert!(!valid_axes(&[2], 2), "out of range");
        assert!(valid_axis(0, 1) && !valid_axis(1, 1));
    }
}
