//! Sums vectorised across output rows on AVX2, for one input or for a batch one lane at a
//! time: an input's sums for up to 52 rows stay in 13 ymm registers (rows down the vector)
//! while its terms pass in order, so each term costs a broadcast, one multiply and one add per
//! 4 rows with the weights read straight from their column. One input walks a list of its
//! nonzero columns; a batch walks, lane by lane, bitmasks of its nonzero inputs
//! ([`super::sparse`]), so the zero inputs a relu leaves cost nothing. Taller matrices take
//! several passes of rows. On AVX-512 a batch's lanes keep up to 128 rows in 16 zmm registers
//! instead ([`LaneWidth`], the one-input kernel's loop of `x86/avx512.rs`).

use std::arch::x86_64::*;

use super::super::Matrix;
use super::Precision;
use super::x86::{MOST_ROW_VECTORS, Tiles, epilogue_avx2, lanes_at, rows_of_sums};

/// The most rows of one pass: 13 vectors of 4, with the broadcast input and a product, within
/// the 16 ymm registers.
const PASS_ROWS: usize = super::sparse::ONE_PASS_ROWS;

/// Lanes taken together: one cache line of each input row and of each output row, read and
/// written whole (a lane alone would touch a line per element).
const BLOCK: usize = 8;

/// Which inputs of each lane are nonzero, as bits: lane `l`'s input `64 w + b` is bit `b` of
/// `bits[l * words + w]`. Walking the set bits in order visits a lane's nonzero inputs in
/// order without a branch per input (a relu's zeros come in no predictable order).
#[derive(Debug, Default)]
pub struct LaneTerms {
    /// Byte `j`: bit `g` set when lane `first + g`'s input `j` is nonzero.
    columns: Vec<u8>,
    bits: Vec<u64>,
}

/// `out = W x` for `lanes` inputs (feature-major), each lane's sum over its nonzero inputs,
/// then the epilogue. Returns whether relu met a NaN.
///
/// Skipping the zero inputs keeps the reference's bits only when `w.skips_zero_inputs()`,
/// which the caller checks (a matter of the result, not of memory: the operands are as
/// [`Tiles::new`] checked them). Each sum is the same operations in the same order at either
/// `width`, so both give the same bits.
///
/// # Safety
/// The CPU has what `width` names (AVX2 and FMA for both).
#[target_feature(enable = "avx2,fma")]
pub unsafe fn matmul_by_lane(t: &mut Tiles, precision: Precision, terms: &mut LaneTerms, width: LaneWidth) -> bool {
    let (w, x, lanes, biases) = (t.w(), t.x(), t.lanes(), t.biases());
    let (rows, cols) = (w.rows, w.cols);
    let words = cols.div_ceil(64);
    // Past the last column, no input: a longer product before this one left its bits there.
    terms.columns.resize(words * 64, 0);
    terms.columns[cols..].fill(0);
    terms.bits.resize(lanes * words, 0);
    let zero = _mm256_setzero_pd();
    for first in (0..lanes).step_by(BLOCK) {
        for (j, nonzero) in terms.columns[..cols].iter_mut().enumerate() {
            // SAFETY: `j * lanes + first + 8 <= cols × lanes <= x.len()` ([`Tiles::new`]).
            let (low, high) = unsafe {
                let here = x.as_ptr().add(j * lanes + first);
                (_mm256_loadu_pd(here), _mm256_loadu_pd(here.add(4)))
            };
            // Not equal, or unordered: NaN is not zero.
            let low = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_NEQ_UQ>(low, zero));
            let high = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_NEQ_UQ>(high, zero));
            *nonzero = (low | high << 4) as u8;
        }
        for (word, chunk) in terms.columns.chunks_exact(64).enumerate() {
            let mut lane_words = [0u64; BLOCK];
            for (k, eight) in chunk.chunks_exact(8).enumerate() {
                let by_lane = transpose_bits(u64::from_le_bytes(eight.try_into().expect("8 bytes")));
                for (g, lane_word) in lane_words.iter_mut().enumerate() {
                    *lane_word |= (by_lane >> (8 * g) & 0xff) << (8 * k);
                }
            }
            for (g, lane_word) in lane_words.into_iter().enumerate() {
                terms.bits[(first + g) * words + word] = lane_word;
            }
        }
    }
    let mut nan = 0;
    let mut sums = [[0.0f64; WIDEST_PASS_ROWS]; BLOCK];
    for (first_row, vectors) in width.passes(rows) {
        let pass_rows = (width.vector() * vectors).min(rows - first_row);
        for first in (0..lanes).step_by(BLOCK) {
            for (g, sums) in sums.iter_mut().enumerate() {
                let bits = &terms.bits[(first + g) * words..(first + g + 1) * words];
                // The lane's inputs from its first (none when `cols` is 0).
                let input = x.get(first + g..).unwrap_or_default();
                // SAFETY: every set bit is a column `j < cols`, so `j * lanes` is inside
                // `input` (which holds `(cols - 1) * lanes + 1` or more); its column in
                // `w.columns` is padded to whole vectors of 8 rows, so `vectors` vectors from
                // `first_row` (a multiple of the vector) stay inside it; the CPU has what
                // `width` names (the caller's guarantee).
                let terms = set_bits(bits);
                unsafe {
                    match width {
                        LaneWidth::Avx2 => input_sums_of(precision, vectors, w, first_row, input, lanes, terms, sums),
                        LaneWidth::Avx512 => rows_of_sums(precision, vectors, w, first_row, input, lanes, terms, sums),
                    }
                };
            }
            // Row `i` of the block's lanes, then the epilogue, as the dense tile does it.
            for i in first_row..first_row + pass_rows {
                let at = i * lanes + first;
                // SAFETY: `at + 8 <= rows × lanes`, inside `out` and the relu output.
                let (out, relu) = t.outputs();
                nan |= unsafe {
                    let relu = relu.map(|relu| lanes_at(relu, at));
                    epilogue_avx2(block_row(&sums, i - first_row), biases.at(i), lanes_at(out, at), relu)
                };
            }
        }
    }
    nan != 0
}

/// One input on AVX2: `out = Σ W[:, j] x[j]` over `columns` (increasing, below `w.cols`).
///
/// # Safety
/// The CPU has AVX2 and FMA; `x` holds `w.cols` and `out` `w.rows` elements.
#[target_feature(enable = "avx2,fma")]
pub unsafe fn matvec_avx2(w: &Matrix, x: &[f64], columns: &[u32], out: &mut [f64], precision: Precision) {
    let mut sums = [0.0f64; PASS_ROWS];
    for (first_row, vectors) in LaneWidth::Avx2.passes(w.rows) {
        let terms = columns.iter().map(|&j| j as usize);
        // SAFETY: every column is below `w.cols`, so its input is inside `x`; its column in
        // `w.columns` is padded to whole vectors of 8 rows, so `vectors` vectors from
        // `first_row` stay inside it.
        unsafe { input_sums_of(precision, vectors, w, first_row, x, 1, terms, &mut sums) };
        let here = (4 * vectors).min(w.rows - first_row);
        out[first_row..first_row + here].copy_from_slice(&sums[..here]);
    }
}

/// The vectors a lane's sums are computed in: 4 rows in a ymm register (13 of them at most) or
/// 8 in a zmm (16 at most, of the 32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneWidth {
    Avx2,
    Avx512,
}

impl LaneWidth {
    fn vector(self) -> usize {
        match self {
            LaneWidth::Avx2 => 4,
            LaneWidth::Avx512 => 8,
        }
    }

    /// The passes over `rows` rows, as `(first row, vectors)`: as few as hold at most the
    /// registers' vectors each, of nearly equal size (64 vectors of 4 are 12, 13, 13, 13, 13;
    /// 26 are 13 + 13, not 13 + 12 + 1, where a lone vector would wait on its adds).
    fn passes(self, rows: usize) -> impl Iterator<Item = (usize, usize)> {
        let most = match self {
            LaneWidth::Avx2 => PASS_ROWS / 4,
            LaneWidth::Avx512 => MOST_ROW_VECTORS,
        };
        let vector = self.vector();
        let vectors = rows.div_ceil(vector);
        let passes = vectors.div_ceil(most);
        (0..passes).map(move |pass| {
            let first = pass * vectors / passes;
            (vector * first, (pass + 1) * vectors / passes - first)
        })
    }
}

/// The most rows of a pass at either width.
const WIDEST_PASS_ROWS: usize = 8 * MOST_ROW_VECTORS;

/// The set bits of `bits` in order: bit `b` of word `w` is `64 w + b`.
fn set_bits(bits: &[u64]) -> SetBits<'_> {
    SetBits { words: bits.get(1..).unwrap_or_default().iter(), base: 0, current: bits.first().copied().unwrap_or(0) }
}

/// The iterator of [`set_bits`]: what is left of the word being walked, the number of its
/// bit 0, and the words after it.
struct SetBits<'a> {
    words: std::slice::Iter<'a, u64>,
    base: usize,
    current: u64,
}

impl Iterator for SetBits<'_> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        while self.current == 0 {
            self.current = *self.words.next()?;
            self.base += 64;
        }
        let bit = self.current.trailing_zeros() as usize;
        self.current &= self.current - 1;
        Some(self.base + bit)
    }
}

/// Row `r` of a block's sums: lanes 0–3 and 4–7.
#[target_feature(enable = "avx2")]
fn block_row(sums: &[[f64; WIDEST_PASS_ROWS]; BLOCK], r: usize) -> [__m256d; 2] {
    let lane = |g: usize| sums[g][r];
    [_mm256_setr_pd(lane(0), lane(1), lane(2), lane(3)), _mm256_setr_pd(lane(4), lane(5), lane(6), lane(7))]
}

/// An 8 × 8 matrix of bits, byte `r` bit `c` its entry `(r, c)`, transposed: byte `c` bit `r`.
fn transpose_bits(mut m: u64) -> u64 {
    // Swap the off-diagonal 1 × 1, then 2 × 2, then 4 × 4 blocks (Hacker's Delight, 7-3).
    let t = (m ^ (m >> 7)) & 0x00aa_00aa_00aa_00aa;
    m ^= t ^ (t << 7);
    let t = (m ^ (m >> 14)) & 0x0000_cccc_0000_cccc;
    m ^= t ^ (t << 14);
    let t = (m ^ (m >> 28)) & 0x0000_0000_f0f0_f0f0;
    m ^ t ^ (t << 28)
}

/// [`input_sums`] for `vectors` (1 to 13) vectors of rows.
///
/// # Safety
/// As [`input_sums`].
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn input_sums_of(
    precision: Precision,
    vectors: usize,
    w: &Matrix,
    first_row: usize,
    x: &[f64],
    stride: usize,
    terms: impl Iterator<Item = usize>,
    sums: &mut [f64],
) {
    // SAFETY: the caller's guarantees.
    unsafe {
        by_count!(
            precision,
            vectors,
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
            input_sums(w, first_row, x, stride, terms, sums)
        )
    }
}

/// The sums of rows `first_row .. first_row + 4 V` of one input into `sums`: for each term `j`
/// in order, `W[:, j]` times the input `x[j * stride]`.
///
/// # Safety
/// The CPU has AVX2 and FMA; every term `j` is a column of `w` with `j * stride < x.len()`;
/// the rows stay inside the columns' padding.
#[target_feature(enable = "avx2,fma")]
unsafe fn input_sums<const V: usize, const FUSED: bool>(
    w: &Matrix,
    first_row: usize,
    x: &[f64],
    stride: usize,
    terms: impl Iterator<Item = usize>,
    sums: &mut [f64],
) {
    debug_assert!(sums.len() >= 4 * V, "sums of {V} vectors");
    // SAFETY: the caller's guarantees.
    unsafe {
        let mut acc = [_mm256_setzero_pd(); V];
        let columns = w.columns().as_ptr().add(first_row);
        for j in terms {
            debug_assert!(j < w.cols && j * stride < x.len(), "term {j} of {} inputs", x.len());
            let column = columns.add(j * w.column_stride);
            let xv = _mm256_broadcast_sd(x.get_unchecked(j * stride));
            for (v, a) in acc.iter_mut().enumerate() {
                let wv = _mm256_loadu_pd(column.add(4 * v));
                *a = if FUSED { _mm256_fmadd_pd(wv, xv, *a) } else { _mm256_add_pd(*a, _mm256_mul_pd(wv, xv)) };
            }
        }
        for (v, a) in acc.iter().enumerate() {
            _mm256_storeu_pd(sums.as_mut_ptr().add(4 * v), *a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::transpose_bits;

    #[test]
    fn bits_are_transposed() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = transpose_bits(state);
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!(state >> (8 * r + c) & 1, t >> (8 * c + r) & 1, "{state:#x} ({r}, {c})");
                }
            }
        }
    }
}
