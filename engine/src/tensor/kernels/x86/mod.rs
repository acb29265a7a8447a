//! Register-tiled kernels with explicit vector instructions: for one input, vectors of output
//! rows; for a batch, a tile of output rows × lanes, staying in registers while `j` runs over
//! the columns in order. Exact mode multiplies then adds (`acc + w * x`, the reference's
//! operation); fast mode fuses them. The kernels of each instruction set have a file
//! ([`avx512`], [`avx2`]); this one holds what their batch tiles share: the operands
//! ([`Tiles`]), the blocking of a product into tiles ([`blocked`]) and the AVX2 epilogue, which
//! `x86_lanes.rs` uses too.
//!
//! Callers guarantee the CPU features each function is compiled for. The operands travel as
//! slices: one input's sizes are asserted by `kernels::matvec_on`, a batch's by [`Tiles::new`],
//! once per product; inside a tile the loops address them by pointer arithmetic, each
//! `unsafe` block saying why it stays in bounds.

mod avx2;
mod avx512;

use std::arch::x86_64::*;
use std::ops::Range;

pub use avx2::matmul_avx2;
pub use avx512::{MOST_ROW_VECTORS, matmul_avx512, matvec_avx512, rows_of_sums};

use super::super::{LANE_GROUP, Matrix};
use super::{Epilogue, Precision};

/// Columns per block: a block of one tile's inputs (`J_BLOCK` columns × the tile's lanes)
/// stays in L1 while the panels of a row block pass over it. A sum runs over its blocks in
/// order, the partial sum stored and reloaded between them (exactly, as an f64).
const J_BLOCK: usize = 128;

/// The bytes of weights a row block holds: it stays in L2 while every lane group passes
/// through it, so the weights come from farther away once per group of rows, not per lane group.
pub(super) const WEIGHT_BLOCK: usize = 128 * 1024;

/// The columns `columns.0 .. columns.1` of a sum; the first part starts from 0.0, the last
/// applies the epilogue.
#[derive(Clone, Copy)]
pub(super) struct Part {
    pub columns: (usize, usize),
    pub first: bool,
    pub last: bool,
}

/// The operands of one batched product, their sizes checked once by [`Tiles::new`]: the tile
/// loops rely on them. The fields are private so that nothing changes them afterwards.
pub(super) struct Tiles<'a> {
    w: &'a Matrix,
    /// The inputs, feature-major: at least `w.cols × lanes`.
    x: &'a [f64],
    /// The products (then the biased values): at least `w.rows × lanes`.
    out: &'a mut [f64],
    /// A multiple of [`LANE_GROUP`] (so of the tiles' 16 and 8 lanes).
    lanes: usize,
    biases: Biases<'a>,
    /// At least `w.rows × lanes`.
    relu: Option<&'a mut [f64]>,
}

impl<'a> Tiles<'a> {
    /// # Panics
    /// Unless the operands have the sizes the fields say.
    pub fn new(w: &'a Matrix, x: &'a [f64], out: &'a mut [f64], lanes: usize, epilogue: Epilogue<'a>) -> Tiles<'a> {
        assert!(lanes.is_multiple_of(LANE_GROUP), "lanes are padded to a multiple of {LANE_GROUP}");
        assert!(x.len() >= w.cols * lanes && out.len() >= w.rows * lanes, "matmul operands");
        assert!(epilogue.bias.is_none_or(|b| b.len() == w.rows), "one bias entry per row");
        assert!(epilogue.relu.as_ref().is_none_or(|r| r.len() >= w.rows * lanes), "a relu output per element");
        Tiles { w, x, out, lanes, biases: Biases(epilogue.bias), relu: epilogue.relu }
    }

    pub fn w(&self) -> &'a Matrix {
        self.w
    }

    pub fn lanes(&self) -> usize {
        self.lanes
    }

    /// The inputs: element `j` of lane `l` is `x[j * lanes + l]`.
    pub fn x(&self) -> &'a [f64] {
        self.x
    }

    pub fn biases(&self) -> Biases<'a> {
        self.biases
    }

    /// The products and the relu outputs (when there are): row `i` of lane `l` is
    /// `[i * lanes + l]` in each.
    pub fn outputs(&mut self) -> (&mut [f64], Option<&mut [f64]>) {
        (self.out, self.relu.as_deref_mut())
    }
}

/// The biases of a product's rows (`w.rows` entries), where given.
#[derive(Clone, Copy)]
pub(super) struct Biases<'a>(Option<&'a [Option<f64>]>);

impl Biases<'_> {
    /// The bias of `row` when `part` is a sum's last.
    pub fn of(self, row: usize, part: Part) -> Option<f64> {
        if part.last { self.at(row) } else { None }
    }

    /// The bias of `row`, where one is given.
    pub fn at(self, row: usize) -> Option<f64> {
        self.0.and_then(|bias| bias[row])
    }
}

/// A register tile of the batched product on one instruction set: up to `ROWS` output rows ×
/// `LANES` batch lanes.
trait TileShape {
    const ROWS: usize;
    const LANES: usize;
    /// Whether a tile may span two panels. If not, tiles are whole panels (`ROWS` is
    /// [`PANEL_ROWS`](super::super::PANEL_ROWS)); if so, the rows are split into tiles of
    /// nearly equal size (50 rows in tiles of 6: five of 6 and four of 5, not eight of 6 and one
    /// of 2, which would wait on its adds).
    const SPANS_PANELS: bool;

    /// The tile of rows `rows` and lanes `b0 .. b0 + LANES` over one part of the columns: a
    /// mask of the lanes where relu met a NaN (any bit set: at least one).
    ///
    /// # Safety
    /// The CPU has the instruction set; the operands hold what [`Tiles`] says.
    unsafe fn tile(tiles: &mut Tiles, precision: Precision, rows: Range<usize>, b0: usize, part: Part) -> u8;
}

/// The batched product in blocks: weights by row blocks of [`WEIGHT_BLOCK`] bytes, inputs by
/// column blocks of [`J_BLOCK`], every tile of a row block over one lane group's column block
/// while it is in L1. Returns whether relu met a NaN.
///
/// # Safety
/// As [`TileShape::tile`]; inlined into callers compiled for the tile's instruction set.
#[inline(always)]
unsafe fn blocked<T: TileShape>(tiles: &mut Tiles, precision: Precision) -> bool {
    let w = tiles.w();
    let units = w.rows.div_ceil(T::ROWS);
    let unit_rows = |unit: usize| {
        if T::SPANS_PANELS {
            unit * w.rows / units..(unit + 1) * w.rows / units
        } else {
            unit * T::ROWS..((unit + 1) * T::ROWS).min(w.rows)
        }
    };
    let units_per_block = (WEIGHT_BLOCK / (w.cols.max(1) * T::ROWS * size_of::<f64>())).max(1);
    // Empty rows (`cols == 0`) still get their 0.0 and epilogue: one empty column block.
    let column_blocks: Vec<(usize, usize)> = if w.cols == 0 {
        vec![(0, 0)]
    } else {
        (0..w.cols).step_by(J_BLOCK).map(|j| (j, (j + J_BLOCK).min(w.cols))).collect()
    };
    let mut nan = 0;
    for first_unit in (0..units).step_by(units_per_block) {
        for (k, &columns) in column_blocks.iter().enumerate() {
            let part = Part { columns, first: k == 0, last: k + 1 == column_blocks.len() };
            for b0 in (0..tiles.lanes()).step_by(T::LANES) {
                for unit in first_unit..units.min(first_unit + units_per_block) {
                    // SAFETY: the caller's guarantees; a tile stays inside the operands.
                    nan |= unsafe { T::tile(tiles, precision, unit_rows(unit), b0, part) };
                }
            }
        }
    }
    nan != 0
}

/// Elements `at .. at + 4 H` of an output (one row's lanes), as the epilogue takes them.
///
/// # Safety
/// `at + 4 H <= operand.len()`.
#[inline(always)]
pub(super) unsafe fn lanes_at<const H: usize>(operand: &mut [f64], at: usize) -> &mut [[f64; 4]; H] {
    debug_assert!(at + 4 * H <= operand.len(), "lanes {at} + {} of {}", 4 * H, operand.len());
    // SAFETY: the caller's guarantee; `[[f64; 4]; H]` is `4 H` f64s with the alignment of f64.
    unsafe { &mut *operand.as_mut_ptr().add(at).cast::<[[f64; 4]; H]>() }
}

/// One output row's vectors of lanes (`values[h]` for lanes `4 h .. 4 h + 4` of `out`): adds
/// the bias where given, stores them, and when `relu` is given stores `max(x, 0.0)` there as
/// the `max` rules compute it: 0.0 where `x < 0.0`, `x` otherwise (so -0.0 and NaN stay).
/// Returns a mask of the lanes holding NaN when relu is applied (any bit set: at least one).
#[target_feature(enable = "avx2")]
pub(super) fn epilogue_avx2<const H: usize>(
    values: [__m256d; H],
    bias: Option<f64>,
    out: &mut [[f64; 4]; H],
    mut relu: Option<&mut [[f64; 4]; H]>,
) -> i32 {
    let zero = _mm256_setzero_pd();
    let mut nan = 0;
    for (h, v) in values.into_iter().enumerate() {
        let v = match bias {
            Some(b) => _mm256_add_pd(v, _mm256_set1_pd(b)),
            None => v,
        };
        // SAFETY: `out[h]` and `relu[h]` are 4 elements each (the types say so).
        unsafe {
            _mm256_storeu_pd(out[h].as_mut_ptr(), v);
            if let Some(relu) = relu.as_deref_mut() {
                let below = _mm256_cmp_pd::<_CMP_LT_OQ>(v, zero);
                nan |= _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_UNORD_Q>(v, v));
                _mm256_storeu_pd(relu[h].as_mut_ptr(), _mm256_blendv_pd(v, zero, below));
            }
        }
    }
    nan
}
