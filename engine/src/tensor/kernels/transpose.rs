//! Transposing a strided block of `f64`: the verifier's batched back-substitution turns its
//! rows of coefficients into the batched kernel's lanes and its products back into rows, twice
//! per dense layer (a twelfth of mnist_fc's relu-split search, element by element). A
//! transpose only moves values, so every variant gives the same bits.

use std::ops::Range;

use super::Isa;

/// Square blocks of this many rows and columns are moved together, so that the lines both
/// sides touch stay in the L1 cache.
const TILE: usize = 16;

/// `dst[c·dst_stride + r] = src[r·src_stride + c]` for `r < rows`, `c < cols`; nothing else of
/// `dst` is written.
///
/// # Panics
/// When a slice is too short for its stride: `src` needs `(rows − 1)·src_stride + cols`
/// elements, `dst` `(cols − 1)·dst_stride + rows`.
pub fn transpose(src: &[f64], src_stride: usize, dst: &mut [f64], dst_stride: usize, rows: usize, cols: usize) {
    transpose_on(Isa::detect(), src, src_stride, dst, dst_stride, rows, cols)
}

/// [`transpose`] compiled for `isa`, which the CPU must have ([`Isa::available`]).
pub fn transpose_on(
    isa: Isa,
    src: &[f64],
    src_stride: usize,
    dst: &mut [f64],
    dst_stride: usize,
    rows: usize,
    cols: usize,
) {
    if rows == 0 || cols == 0 {
        return;
    }
    assert!(src_stride >= cols && src.len() >= (rows - 1) * src_stride + cols, "transpose: source too short");
    assert!(dst_stride >= rows && dst.len() >= (cols - 1) * dst_stride + rows, "transpose: destination too short");
    assert!(isa <= Isa::detect(), "{isa:?} is not available on this CPU");
    let mut tile = Tile { src, src_stride, dst, dst_stride, rows: 0..0, cols: 0..0 };
    for r0 in (0..rows).step_by(TILE) {
        for c0 in (0..cols).step_by(TILE) {
            (tile.rows, tile.cols) = (r0..(r0 + TILE).min(rows), c0..(c0 + TILE).min(cols));
            match isa {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: the CPU has AVX2 (asserted above); the tile lies inside both slices,
                // whose lengths were checked for every `r < rows`, `c < cols` above.
                Isa::Avx2 | Isa::Avx512 => unsafe { tile_avx2(&mut tile) },
                _ => tile_portable(&mut tile),
            }
        }
    }
}

/// One tile of a transpose: the source's `rows` and `cols`, moved to the destination.
struct Tile<'a> {
    src: &'a [f64],
    src_stride: usize,
    dst: &'a mut [f64],
    dst_stride: usize,
    rows: Range<usize>,
    cols: Range<usize>,
}

/// One tile, element by element.
fn tile_portable(t: &mut Tile<'_>) {
    for r in t.rows.clone() {
        for c in t.cols.clone() {
            t.dst[c * t.dst_stride + r] = t.src[r * t.src_stride + c];
        }
    }
}

/// One tile, in blocks of 4 × 4 (four loads, eight shuffles, four stores); the rows and
/// columns past the last whole block element by element.
///
/// # Safety
/// The CPU has AVX2; the tile's rows and columns lie inside the extents a [`transpose_on`]
/// checked its slices for.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn tile_avx2(t: &mut Tile<'_>) {
    use std::arch::x86_64::*;
    let (rows, cols) = (t.rows.clone(), t.cols.clone());
    let whole_rows = rows.start + rows.len() / 4 * 4;
    let whole_cols = cols.start + cols.len() / 4 * 4;
    let (s, d) = (t.src.as_ptr(), t.dst.as_mut_ptr());
    let (ss, ds) = (t.src_stride, t.dst_stride);
    for r in (rows.start..whole_rows).step_by(4) {
        for c in (cols.start..whole_cols).step_by(4) {
            // SAFETY: rows r..r+4 and columns c..c+4 are inside the checked extents.
            unsafe {
                let a = _mm256_loadu_pd(s.add(r * ss + c));
                let b = _mm256_loadu_pd(s.add((r + 1) * ss + c));
                let e = _mm256_loadu_pd(s.add((r + 2) * ss + c));
                let f = _mm256_loadu_pd(s.add((r + 3) * ss + c));
                // a0 b0 a2 b2, a1 b1 a3 b3, e0 f0 e2 f2, e1 f1 e3 f3
                let (ab_even, ab_odd) = (_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));
                let (ef_even, ef_odd) = (_mm256_unpacklo_pd(e, f), _mm256_unpackhi_pd(e, f));
                _mm256_storeu_pd(d.add(c * ds + r), _mm256_permute2f128_pd::<0x20>(ab_even, ef_even));
                _mm256_storeu_pd(d.add((c + 1) * ds + r), _mm256_permute2f128_pd::<0x20>(ab_odd, ef_odd));
                _mm256_storeu_pd(d.add((c + 2) * ds + r), _mm256_permute2f128_pd::<0x31>(ab_even, ef_even));
                _mm256_storeu_pd(d.add((c + 3) * ds + r), _mm256_permute2f128_pd::<0x31>(ab_odd, ef_odd));
            }
        }
    }
    // The edges: the columns past the whole blocks of every row, the rows past them.
    (t.rows, t.cols) = (rows.start..whole_rows, whole_cols..cols.end);
    tile_portable(t);
    (t.rows, t.cols) = (whole_rows..rows.end, cols);
    tile_portable(t);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape and stride, edges of every size, each ISA: the element at `(r, c)` lands at
    /// `(c, r)`, and nothing outside the block is written.
    #[test]
    fn every_element_lands_at_its_mirror_and_nothing_else_is_written() {
        for isa in Isa::available() {
            for (rows, cols) in [(1, 1), (3, 5), (4, 4), (16, 16), (17, 33), (64, 256), (37, 10), (520, 256)] {
                for (extra_src, extra_dst) in [(0, 0), (3, 7)] {
                    let (src_stride, dst_stride) = (cols + extra_src, rows + extra_dst);
                    let src: Vec<f64> = (0..rows * src_stride).map(|i| i as f64 + 0.5).collect();
                    let mut dst = vec![f64::NAN; cols * dst_stride];
                    transpose_on(isa, &src, src_stride, &mut dst, dst_stride, rows, cols);
                    for c in 0..cols {
                        for r in 0..dst_stride {
                            let got = dst[c * dst_stride + r];
                            if r < rows {
                                assert_eq!(got.to_bits(), src[r * src_stride + c].to_bits(), "{isa:?} {rows}×{cols}");
                            } else {
                                assert!(got.is_nan(), "{isa:?}: ({c}, {r}) is outside the block");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_short_destination_is_refused() {
        let src = vec![0.0; 12];
        let mut dst = vec![0.0; 11];
        let refused = std::panic::catch_unwind(move || transpose(&src, 4, &mut dst, 3, 3, 4));
        assert!(refused.is_err());
    }
}
