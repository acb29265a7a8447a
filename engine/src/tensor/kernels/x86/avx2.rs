//! The AVX2 batch kernel: tiles of up to 6 rows × 8 lanes. (One input on AVX2 is summed by
//! `x86_lanes.rs`.)

use std::arch::x86_64::*;
use std::ops::Range;

use super::super::super::PANEL_ROWS;
use super::super::Precision;
use super::{Part, TileShape, Tiles, blocked, epilogue_avx2, lanes_at};

/// A batch on AVX2: tiles of up to `AVX2_ROWS` rows × `4 V` lanes, the epilogue applied in
/// registers after a sum's last column block. Returns whether relu met a NaN.
#[target_feature(enable = "avx2,fma")]
pub fn matmul_avx2(tiles: &mut Tiles, precision: Precision) -> bool {
    // SAFETY: the CPU has the tile's instruction set (this function's); `Tiles::new` checked
    // the operands.
    unsafe { blocked::<Avx2Tile>(tiles, precision) }
}

/// The most rows of an AVX2 tile.
const AVX2_ROWS: usize = 6;

/// Up to 6 rows × 8 lanes: 12 ymm accumulators, 2 of inputs, a broadcast weight and a product
/// within the 16 registers. (Measured on Zen 3, one core, inputs in L1: 6 or 5 rows × 8 lanes
/// reach 19–22 G multiply-adds/s, 85–94% of the exact peak; 4 × 8 and 8 × 4 reach 13–19.)
struct Avx2Tile;

impl TileShape for Avx2Tile {
    const ROWS: usize = AVX2_ROWS;
    const LANES: usize = 8;
    const SPANS_PANELS: bool = true;

    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile(tiles: &mut Tiles, precision: Precision, rows: Range<usize>, b0: usize, part: Part) -> u8 {
        let first_row = rows.start;
        // SAFETY: the caller's guarantees.
        unsafe { by_count!(precision, rows.len(), [1, 2, 3, 4, 5, 6], avx2_tile(tiles, first_row, b0, part)) }
    }
}

/// Rows `first_row .. first_row + R` (in one panel or two) × lanes `b0 .. b0 + 8`.
#[target_feature(enable = "avx2,fma")]
unsafe fn avx2_tile<const R: usize, const FUSED: bool>(t: &mut Tiles, first_row: usize, b0: usize, part: Part) -> u8 {
    let (cols, lanes) = (t.w().cols, t.lanes());
    let mut nan = 0;
    // SAFETY: `x` holds `cols × lanes` and `out` (and `relu`) `rows × lanes` elements
    // ([`Tiles::new`] checked them); row `i`'s weight of column `j` is at
    // `weights[i] + j * PANEL_ROWS`, inside its panel; `b0 + 8 <= lanes` (lanes are a
    // multiple of 16), so every vector of lanes `b0 .. b0 + 8` of a row `< rows` or a column
    // `< cols` is inside its operand.
    unsafe {
        // Row `i` of the tile reads its panel at its place in the panel.
        let mut weights = [t.w().panels().as_ptr(); R];
        for (r, row) in weights.iter_mut().enumerate() {
            let i = first_row + r;
            *row = row.add((i / PANEL_ROWS) * cols * PANEL_ROWS + i % PANEL_ROWS);
        }
        let mut acc = [[_mm256_setzero_pd(); 2]; R];
        if !part.first {
            let out = t.outputs().0.as_ptr();
            for (r, a) in acc.iter_mut().enumerate() {
                let at = out.add((first_row + r) * lanes + b0);
                *a = [_mm256_loadu_pd(at), _mm256_loadu_pd(at.add(4))];
            }
        }
        let x = t.x().as_ptr();
        for j in part.columns.0..part.columns.1 {
            let column = x.add(j * lanes + b0);
            let (x0, x1) = (_mm256_loadu_pd(column), _mm256_loadu_pd(column.add(4)));
            for (a, row) in acc.iter_mut().zip(weights) {
                let wv = _mm256_broadcast_sd(&*row.add(j * PANEL_ROWS));
                if FUSED {
                    a[0] = _mm256_fmadd_pd(wv, x0, a[0]);
                    a[1] = _mm256_fmadd_pd(wv, x1, a[1]);
                } else {
                    a[0] = _mm256_add_pd(a[0], _mm256_mul_pd(wv, x0));
                    a[1] = _mm256_add_pd(a[1], _mm256_mul_pd(wv, x1));
                }
            }
        }
        for (r, a) in acc.iter().enumerate() {
            let at = (first_row + r) * lanes + b0;
            let bias = t.biases().of(first_row + r, part);
            let (out, relu) = t.outputs();
            let relu = match relu {
                Some(relu) if part.last => Some(lanes_at(relu, at)),
                _ => None,
            };
            nan |= epilogue_avx2(*a, bias, lanes_at(out, at), relu);
        }
    }
    u8::from(nan != 0)
}
