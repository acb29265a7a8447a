//! The tensor core: dense f64 matrices and the kernels of the big-step evaluator.
//!
//! **Exact mode** (the default) keeps the reference's order of operations: `linear` computes
//! `y[i] = ((0.0 + w[i][0]*x[0]) + w[i][1]*x[1]) + …`, a multiply then an add, no fused
//! multiply-add (Rust never contracts `a * b + c`). The kernels vectorise across independent
//! sums — output rows for one input, batch lanes for many — never across the terms of one sum,
//! so every element is computed with the same operations in the same order as the small-step
//! engine, and the bits agree. **Fast mode** (`--fast-math`) fuses multiply-adds; it is compared
//! with a stated tolerance.
//!
//! Wide kernels are compiled for AVX-512 and AVX2 and chosen at run time (`is_x86_feature_detected!`),
//! with a portable fallback; all variants compute the same bits.

mod aligned;
mod kernels;

use std::sync::{Arc, OnceLock};

pub use aligned::AlignedFloats;

pub use kernels::{
    Epilogue, Isa, Precision, matmul_lanes, matmul_lanes_dense_on, matmul_lanes_on, matmul_lanes_skipping_zeros_on,
    matvec, matvec_on, transpose, transpose_on,
};

/// Rows per panel of the packed layout the batched kernel reads.
pub const PANEL_ROWS: usize = 8;

/// Columns of the column-major layout are padded to a multiple of this many rows (one vector).
pub const COLUMN_ALIGN: usize = 8;

/// Batch lanes are processed in groups of this many; buffers are padded to a multiple of it.
pub const LANE_GROUP: usize = 16;

/// A dense `rows × cols` matrix of f64: its row-major elements, and the two layouts the
/// kernels read, each made the first time a kernel asks for it.
///
/// The row-major elements are shared: a matrix compiled from a tensor literal (Ext-2) is a
/// view of the literal's own array, so a network's weights are held once by the program and
/// the plan together. A product of one input reads [`Matrix::columns`], a batch
/// [`Matrix::panels`]: a command that runs one of the two builds one copy, not both.
#[derive(Clone, Debug)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    /// Row-major: `data[offset + i * cols + j]`.
    data: Arc<[f64]>,
    offset: usize,
    /// Column-major, each column padded with zeros to [`COLUMN_ALIGN`] rows:
    /// `columns[j * column_stride + i]` (one input: vectorise across rows).
    columns: OnceLock<AlignedFloats>,
    column_stride: usize,
    /// Panels of [`PANEL_ROWS`] rows, column by column: `panels[(p * cols + j) * PANEL_ROWS + r]`
    /// is `w[p * PANEL_ROWS + r][j]`, zero past the last row (a batch: vectorise across lanes).
    panels: OnceLock<AlignedFloats>,
    /// Every weight is finite, so a term whose input is ±0.0 adds a zero of either sign,
    /// which leaves every sum as it is (see [`Matrix::skips_zero_inputs`]).
    finite: bool,
}

/// Two matrices are equal when their shapes and elements are: the layouts are caches.
impl PartialEq for Matrix {
    fn eq(&self, other: &Matrix) -> bool {
        (self.rows, self.cols) == (other.rows, other.cols) && self.elements() == other.elements()
    }
}

impl Matrix {
    /// From row-major data.
    pub fn new(rows: usize, cols: usize, data: Vec<f64>) -> Matrix {
        Matrix::shared(rows, cols, data.into(), 0)
    }

    /// The `rows × cols` matrix whose row-major elements are `data[offset ..]`, without a copy.
    pub fn shared(rows: usize, cols: usize, data: Arc<[f64]>, offset: usize) -> Matrix {
        let len = rows * cols;
        assert!(offset.checked_add(len).is_some_and(|end| end <= data.len()), "a {rows}x{cols} matrix");
        let finite = data[offset..offset + len].iter().all(|w| w.is_finite());
        Matrix {
            rows,
            cols,
            data,
            offset,
            columns: OnceLock::new(),
            column_stride: rows.next_multiple_of(COLUMN_ALIGN),
            panels: OnceLock::new(),
            finite,
        }
    }

    /// The row-major elements. (The accessors are `#[inline]`: the verifier, another crate,
    /// reads weights through them in its inner loops.)
    #[inline]
    pub fn elements(&self) -> &[f64] {
        &self.data[self.offset..self.offset + self.rows * self.cols]
    }

    /// The column-major layout (see the field), made on first use.
    pub(crate) fn columns(&self) -> &AlignedFloats {
        self.columns.get_or_init(|| {
            let (rows, cols, stride) = (self.rows, self.cols, self.column_stride);
            let mut columns = AlignedFloats::zeros(stride * cols);
            for (i, row) in self.elements().chunks_exact(cols.max(1)).take(rows).enumerate() {
                for (j, &w) in row.iter().enumerate() {
                    columns[j * stride + i] = w;
                }
            }
            columns
        })
    }

    /// The panel layout when it is the only one made so far.
    pub(crate) fn panels_only(&self) -> Option<&AlignedFloats> {
        self.panels.get().filter(|_| self.columns.get().is_none())
    }

    /// The panel layout (see the field), made on first use.
    pub(crate) fn panels(&self) -> &AlignedFloats {
        self.panels.get_or_init(|| {
            let (rows, cols) = (self.rows, self.cols);
            let mut panels = AlignedFloats::zeros(rows.div_ceil(PANEL_ROWS) * cols * PANEL_ROWS);
            for (i, row) in self.elements().chunks_exact(cols.max(1)).take(rows).enumerate() {
                let (p, r) = (i / PANEL_ROWS, i % PANEL_ROWS);
                for (j, &w) in row.iter().enumerate() {
                    panels[(p * cols + j) * PANEL_ROWS + r] = w;
                }
            }
            panels
        })
    }

    #[inline]
    pub fn rows(&self) -> usize {
        self.rows
    }

    #[inline]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `i`, row-major.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.elements()[i * self.cols..(i + 1) * self.cols]
    }

    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.elements()[i * self.cols + j]
    }

    /// Whether a product may skip the terms whose input is ±0.0 and keep the reference's
    /// bits. A sum starts from 0.0 and adding two numbers gives -0.0 only when both are
    /// -0.0, so a partial sum is never -0.0; a finite weight times ±0.0 is ±0.0, and adding
    /// ±0.0 to anything but -0.0 changes nothing (NaN stays the same NaN). With an infinite
    /// or NaN weight the product would be NaN, so nothing is skipped.
    pub fn skips_zero_inputs(&self) -> bool {
        self.finite
    }
}

/// `out[k] = max(input[k], 0.0)` as the `max` rules compute it (`max-right` when the input is
/// below zero, `max-left` otherwise, so `-0.0` stays `-0.0`); NaN has no rule: the function
/// returns whether it met one (the caller reports it), writing NaN there.
pub fn relu(input: &[f64], out: &mut [f64]) -> bool {
    let mut nan = false;
    for (o, &x) in out.iter_mut().zip(input) {
        *o = if x < 0.0 { 0.0 } else { x };
        nan |= x.is_nan();
    }
    nan
}

/// `out[k] = f(input[k])`.
pub fn map(input: &[f64], out: &mut [f64], f: impl Fn(f64) -> f64) {
    for (o, &x) in out.iter_mut().zip(input) {
        *o = f(x);
    }
}

#[cfg(test)]
mod tests {
    use knn_semantics::numeric::k_max;

    use std::sync::Arc;

    use super::{Matrix, relu};

    #[test]
    fn a_shared_matrix_is_a_view_of_its_array_and_builds_each_layout_once() {
        let data: Arc<[f64]> = Arc::new([9.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 9.0]);
        let view = Matrix::shared(2, 3, Arc::clone(&data), 1);
        let owned = Matrix::new(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!((view.row(1), view.get(0, 2)), (&[4.0, 5.0, 6.0][..], 3.0));
        assert_eq!(view, owned);
        assert_eq!(Arc::strong_count(&data), 2, "the view holds the array, not a copy");
        assert!(view.columns.get().is_none() && view.panels.get().is_none(), "no layout before a kernel asks");
        // Column j's rows, then zeros to the column stride; the panel: row r of column j at j * 8 + r.
        assert_eq!(&view.columns()[..view.column_stride + 2], &[1.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 5.0]);
        assert_eq!(&view.panels()[..10], &[1.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 5.0]);
        assert!(std::ptr::eq(view.columns(), view.columns()), "made once");
        assert_ne!(view, Matrix::shared(2, 3, data, 2), "another offset, other elements");
    }

    #[test]
    fn relu_agrees_with_the_max_rules_element_by_element() {
        let input = [-0.0, 0.0, -2.0, 3.5, f64::NEG_INFINITY, f64::INFINITY, f64::NAN, -1e-310];
        let mut out = [1.0; 8];
        assert!(relu(&input, &mut out), "the NaN element is reported");
        for (x, o) in input.iter().zip(out) {
            match k_max(*x, 0.0) {
                Some(expected) => assert_eq!(o.to_bits(), expected.to_bits(), "relu({x:?})"),
                None => assert!(o.is_nan() && x.is_nan(), "only NaN has no rule"),
            }
        }
        assert!(!relu(&input[..6], &mut out[..6]), "no NaN, nothing to report");
    }
}
