//! `matmul` (Ext-15) of a run of a buffer and a constant on the tensor core's kernels, where
//! the rules' order is theirs:
//!
//! - `matmul(X, W)`, `W` a constant of rank 2 or more (an imported model's `x·W`): element `n`
//!   of a row of the result (its last axis) is `(0.0 + X[…, m, 0]·W[0, n]) + …`
//!   (`ext-matmul-helper-step`), which is `linear`'s sum `(0.0 + w[n][0]·x[0]) + …` with `w` =
//!   `W`ᵀ and `x` = `X`'s row `m`: the same products (IEEE multiplication is commutative, NaN as
//!   NaN) summed from `0.0` in increasing `p`, no fused multiply-add;
//! - `matmul(W, X)`, `W` a constant of rank 2 or more and `X` a vector or a column (`K`, or
//!   `… × K × 1`): each element is `((0.0 + W[…, m, 0]·X[0]) + W[…, m, 1]·X[1]) + …`, `linear`'s
//!   sum itself with `w` = `W`'s matrix and `x` = `X`'s run of `K` elements.
//!
//! The kernels of `MatVec` in exact mode compute exactly these sums (`crate::tensor`), so each
//! row of the result is one `MatVec` of a matrix of the constant (the one of its batch slice)
//! by a run of `K` elements of the buffer, vectorised across rows or lanes as `linear`'s are.

use crate::tensor::{Epilogue, Matrix, Precision, matmul_lanes, matvec};

/// The rows of a `MatMul` of a buffer and a constant, as `MatVec`s.
#[derive(Clone, Debug, PartialEq)]
pub struct MatmulRows {
    /// The constant's matrices (its last two axes, in row-major order of the others): for
    /// `X·W` each `K × N` matrix transposed (row `n` is `W`'s column `n`), for `W·X` each
    /// `M × K` matrix as it is.
    pub matrices: Vec<Matrix>,
    /// For each row of the result, in row-major order: where its `K` elements of `X` start
    /// (element positions in the buffer operand), and which of `matrices` it is multiplied by.
    pub rows: Vec<(usize, usize)>,
}

impl MatmulRows {
    /// `X·W`: for the result whose element `e` starts its products at `bases[e]` (left, right
    /// positions: [`super::matmul_op::MatmulGeometry`]), `W` the constant `right` of shape `js`
    /// (rank 2 or more). `None` when a dimension is 0: nothing worth a kernel.
    pub fn buffer_by_constant(bases: &[(usize, usize)], right: &[f64], js: &[i64]) -> Option<MatmulRows> {
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

    /// `W·X`: `W` the constant `left` of shape `is` (rank 2 or more), `X` of shape `js` a vector
    /// or a stack of columns (its elements along `P` consecutive). `None` otherwise, or when a
    /// dimension is 0.
    pub fn constant_by_buffer(bases: &[(usize, usize)], left: &[f64], is: &[i64], js: &[i64]) -> Option<MatmulRows> {
        let &[.., m, k] = is else { return None };
        let (m, k) = (m as usize, k as usize);
        let column = js.len() == 1 || js.last() == Some(&1);
        if !column || m == 0 || k == 0 || bases.is_empty() {
            return None;
        }
        let matrices = left.chunks_exact(m * k).map(|w| Matrix::new(m, k, w.to_vec())).collect();
        // A row of the result is `m` consecutive elements (the last axis, or the one before an
        // axis of extent 1): one matrix of `W`, the same run of `X`.
        let rows = bases.chunks_exact(m).map(|row| (row[0].1, row[0].0 / (m * k))).collect();
        Some(MatmulRows { matrices, rows })
    }

    /// The result (elements × lanes) from the buffer operand's elements × lanes.
    pub(super) fn apply(&self, buffer: &[f64], out: &mut [f64], lanes: usize) {
        for (r, &(at, m)) in self.rows.iter().enumerate() {
            let w = &self.matrices[m];
            let x = &buffer[at * lanes..(at + w.cols()) * lanes];
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
    fn each_row_is_a_run_of_the_buffer_by_a_matrix_of_the_constant() {
        // x (2, 1, 2) by W (2, 2, 3): W's slices [[1, 2, 3], [4, 5, 6]] and [[7, 8, 9],
        // [10, 11, 12]], transposed to 3×2; result row b is x[b, 0, :] (at 2b) by slice b.
        let w: Vec<f64> = (1..=12).map(f64::from).collect();
        let g = MatmulGeometry::new(&[2, 1, 2], &[2, 2, 3], &[2, 1, 3]);
        let rows = MatmulRows::buffer_by_constant(&g.bases, &w, &[2, 2, 3]).expect("a kernel");
        assert_eq!(rows.matrices[0].elements(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        assert_eq!(rows.matrices[1].elements(), [7.0, 10.0, 8.0, 11.0, 9.0, 12.0]);
        assert_eq!(rows.rows, [(0, 0), (2, 1)]);
        // One lane, x = [[1, 1]], [[2, -1]]: [1 + 4, 2 + 5, 3 + 6], [14 - 10, 16 - 11, 18 - 12].
        let mut out = [f64::NAN; 6];
        rows.apply(&[1.0, 1.0, 2.0, -1.0], &mut out, 1);
        assert_eq!(out, [5.0, 7.0, 9.0, 4.0, 5.0, 6.0]);
        // W (2, 3) by a column x (3, 1): W's matrix as it is, one row of the result (2, 1).
        let g = MatmulGeometry::new(&[2, 3], &[3, 1], &[2, 1]);
        let rows = MatmulRows::constant_by_buffer(&g.bases, &w[..6], &[2, 3], &[3, 1]).expect("a kernel");
        assert_eq!((rows.matrices[0].elements(), &rows.rows[..]), (&w[..6], &[(0, 0)][..]));
        let mut out = [f64::NAN; 2];
        rows.apply(&[1.0, 0.5, -1.0], &mut out, 1);
        assert_eq!(out, [1.0 + 1.0 - 3.0, 4.0 + 2.5 - 6.0]);
        // Not a column: (2, 3) by (3, 2) is the loop's.
        let g = MatmulGeometry::new(&[2, 3], &[3, 2], &[2, 2]);
        assert_eq!(MatmulRows::constant_by_buffer(&g.bases, &w[..6], &[2, 3], &[3, 2]), None);
        // An inner extent of 0: no kernel.
        let empty = MatmulGeometry::new(&[2, 0], &[0, 3], &[2, 3]);
        assert_eq!(MatmulRows::buffer_by_constant(&empty.bases, &[], &[0, 3]), None);
    }
}
