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

pub use aligned::AlignedFloats;

pub use kernels::{
    Epilogue, Isa, Precision, matmul_lanes, matmul_lanes_dense_on, matmul_lanes_on, matmul_lanes_skipping_zeros_on,
    matvec, matvec_on,
};

/// Rows per panel of the packed layout the batched kernel reads.
pub const PANEL_ROWS: usize = 8;

/// Columns of the column-major layout are padded to a multiple of this many rows (one vector).
pub const COLUMN_ALIGN: usize = 8;

/// Batch lanes are processed in groups of this many; buffers are padded to a multiple of it.
pub const LANE_GROUP: usize = 16;

/// A dense `rows × cols` matrix of f64, kept in the three layouts the kernels read.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    /// Row-major: `data[i * cols + j]`.
    data: Vec<f64>,
    /// Column-major, each column padded with zeros to [`COLUMN_ALIGN`] rows:
    /// `columns[j * column_stride + i]` (one input: vectorise across rows).
    columns: AlignedFloats,
    column_stride: usize,
    /// Panels of [`PANEL_ROWS`] rows, column by column: `panels[(p * cols + j) * PANEL_ROWS + r]`
    /// is `w[p * PANEL_ROWS + r][j]`, zero past the last row (a batch: vectorise across lanes).
    panels: AlignedFloats,
    /// Every weight is finite, so a term whose input is ±0.0 adds a zero of either sign,
    /// which leaves every sum as it is (see [`Matrix::skips_zero_inputs`]).
    finite: bool,
}

impl Matrix {
    /// From row-major data.
    pub fn new(rows: usize, cols: usize, data: Vec<f64>) -> Matrix {
        assert_eq!(data.len(), rows * cols, "a {rows}x{cols} matrix");
        let column_stride = rows.next_multiple_of(COLUMN_ALIGN);
        let mut columns = AlignedFloats::zeros(column_stride * cols);
        for i in 0..rows {
            for j in 0..cols {
                columns[j * column_stride + i] = data[i * cols + j];
            }
        }
        let blocks = rows.div_ceil(PANEL_ROWS);
        let mut panels = AlignedFloats::zeros(blocks * cols * PANEL_ROWS);
        for i in 0..rows {
            let (p, r) = (i / PANEL_ROWS, i % PANEL_ROWS);
            for j in 0..cols {
                panels[(p * cols + j) * PANEL_ROWS + r] = data[i * cols + j];
            }
        }
        let finite = data.iter().all(|w| w.is_finite());
        Matrix { rows, cols, data, columns, column_stride, panels, finite }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Row `i`, row-major.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
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

    use super::relu;

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
