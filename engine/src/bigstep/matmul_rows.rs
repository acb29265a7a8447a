//! `matmul(X, W)` (Ext-15) with `X` a run of a buffer and `W` a constant of rank 2 or more on
//! the tensor core's kernels: an imported model's `x·W`. Each element of a row of the result
//! (its last axis) is `((0.0 + X[…, m, 0]·W[0, n]) + X[…, m, 1]·W[1, n]) + …`
//! (`ext-matmul-helper-step`), which is `linear`'s sum `((0.0 + w[n][0]·x[0]) + w[n][1]·x[1]) + …`
//! with `w` = `W`ᵀ and `x` = `X`'s row `m`: the same products (IEEE multiplication is
//! commutative, NaN as NaN) summed from `0.0` in increasing `p`, no fused multiply-add. The
//! kernels of `MatVec` in exact mode compute exactly that (`crate::tensor`), so each row of the
//! result is one `MatVec` of `W`'s matrix transposed (the one of its batch slice) by a run of
//! `K` elements of the buffer, vectorised across rows or lanes as `linear`'s are.

use crate::tensor::{Epilogue, Matrix, Precision, matmul_lanes, matvec};

/// The rows of a `MatMul` of a buffer by a constant, as `MatVec`s.
#[derive(Clone, Debug, PartialEq)]
pub struct MatmulRows {
    /// Each `K × N` matrix of `W` (its last two axes, in row-major order of the others),
    /// transposed: row `n` is `W`'s column `n`.
    pub matrices: Vec<Matrix>,
    /// For each row of the result, in row-major order: where its `K` elements of `X` start
    /// (element positions in the left operand), and which of `matrices` it is multiplied by.
    pub rows: Vec<(usize, usize)>,
}

impl MatmulRows {
    /// For the result whose element `e` starts its products at `bases[e]` (left, right
    /// positions: [`super::matmul_op::MatmulGeometry`]), `W` the constant `right` of shape `js`
    /// (rank 2 or more). `None` when a dimension is 0: nothing worth a kernel.
    pub fn new(bases: &[(usize, usize)], right: &[f64], js: &[i64]) -> Option<MatmulRows> {
        let &[.., k, n] = js else { return None };
        let (k, n) = (k as usize, n as usize);
        if k == 0 || n == 0 || bases.is_empty() {
            return None;
        }
        let matrices = right
            .chunks_exact(k * n)
            .map(|w| Matrix::new(n, k, (0..n * k).map(|at| w[(at % k) * n + at / k]).collect()))
            .collect();
        // A row of the result is `n` consecutive elements: the same left run, `W`'s columns
        // `0 .. n` of one batch slice (whose first element is the row's first right position).
        let rows = bases.chunks_exact(n).map(|row| (row[0].0, row[0].1 / (k * n))).collect();
        Some(MatmulRows { matrices, rows })
    }

    /// The result (elements × lanes) from the left operand's elements × lanes.
    pub(super) fn apply(&self, left: &[f64], out: &mut [f64], lanes: usize) {
        for (r, &(at, m)) in self.rows.iter().enumerate() {
            let w = &self.matrices[m];
            let x = &left[at * lanes..(at + w.cols()) * lanes];
            let y = &mut out[r * w.rows() * lanes..(r + 1) * w.rows() * lanes];
            if lanes == 1 {
                matvec(w, x, y, Precision::Exact, Epilogue::default());
            } else {
                matmul_lanes(w, x, y, lanes, Precision::Exact, Epilogue::default());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::matmul_op::MatmulGeometry;
    use super::*;

    #[test]
    fn each_row_is_a_run_of_the_left_operand_by_its_slice_transposed() {
        // x (2, 1, 2) by W (2, 2, 3): W's slices [[1, 2, 3], [4, 5, 6]] and [[7, 8, 9],
        // [10, 11, 12]], transposed to 3×2; result row b is x[b, 0, :] (at 2b) by slice b.
        let w: Vec<f64> = (1..=12).map(f64::from).collect();
        let g = MatmulGeometry::new(&[2, 1, 2], &[2, 2, 3], &[2, 1, 3]);
        let rows = MatmulRows::new(&g.bases, &w, &[2, 2, 3]).expect("a kernel");
        assert_eq!(rows.matrices[0].elements(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        assert_eq!(rows.matrices[1].elements(), [7.0, 10.0, 8.0, 11.0, 9.0, 12.0]);
        assert_eq!(rows.rows, [(0, 0), (2, 1)]);
        // One lane, x = [[1, 1]], [[2, -1]]: [1 + 4, 2 + 5, 3 + 6], [14 - 10, 16 - 11, 18 - 12].
        let mut out = [f64::NAN; 6];
        rows.apply(&[1.0, 1.0, 2.0, -1.0], &mut out, 1);
        assert_eq!(out, [5.0, 7.0, 9.0, 4.0, 5.0, 6.0]);
        // An inner extent of 0: no kernel.
        let empty = MatmulGeometry::new(&[2, 0], &[0, 3], &[2, 3]);
        assert_eq!(MatmulRows::new(&empty.bases, &[], &[0, 3]), None);
    }
}
