//! The products of a layer: one input (vectorised across output rows) and a batch of inputs
//! (vectorised across batch lanes), exact or fused, for AVX-512, AVX2 and portable targets,
//! followed by the layer's [`Epilogue`] (bias, relu).
//!
//! Every variant computes the same bits in exact mode: each output element is one sum
//! `((0.0 + w[i][0]*x[0]) + w[i][1]*x[1]) + …` accumulated in order; the vector lanes hold
//! independent sums.

#[cfg(test)]
mod tests;
#[cfg(target_arch = "x86_64")]
mod x86;

use super::{LANE_GROUP, Matrix, PANEL_ROWS};

/// Exact: the reference's operations in its order. Fast: fused multiply-adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    #[default]
    Exact,
    Fast,
}

/// The instruction sets a kernel can be compiled for. `a <= b` when a CPU that runs `b` also
/// runs `a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    Portable,
    Avx2,
    Avx512,
}

impl Isa {
    /// The best one this CPU has (detected once per call; the check is a cached load).
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("fma") {
                return Isa::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                return Isa::Avx2;
            }
        }
        Isa::Portable
    }

    /// Every variant this CPU can run (the tests compare them).
    pub fn available() -> Vec<Isa> {
        [Isa::Avx512, Isa::Avx2, Isa::Portable].into_iter().filter(|isa| *isa <= Isa::detect()).collect()
    }
}

/// What a layer does to its products, fused into the kernel: `out[i] = out[i] + bias[i]` where
/// `bias[i]` is given (the bias `let`s: an absent bias adds nothing, not `0.0`, which would turn
/// `-0.0` into `0.0`), then, when `relu` is given, `relu[i] = max(out[i], 0.0)` as the `max`
/// rules compute it, `out` keeping the pre-activation values.
#[derive(Debug, Default)]
pub struct Epilogue<'a> {
    pub bias: Option<&'a [Option<f64>]>,
    pub relu: Option<&'a mut [f64]>,
}

/// `out = W x` for one input, then the epilogue. Returns whether relu met a NaN (no `max`
/// rule applies; the caller reports it).
pub fn matvec(w: &Matrix, x: &[f64], out: &mut [f64], precision: Precision, epilogue: Epilogue) -> bool {
    matvec_on(Isa::detect(), w, x, out, precision, epilogue)
}

/// [`matvec`] compiled for `isa`, which the CPU must have ([`Isa::available`]).
pub fn matvec_on(isa: Isa, w: &Matrix, x: &[f64], out: &mut [f64], precision: Precision, epilogue: Epilogue) -> bool {
    assert!(x.len() >= w.cols && out.len() >= w.rows, "matvec operands");
    assert!(isa <= Isa::detect(), "{isa:?} is not available on this CPU");
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has the features (asserted above); the operand sizes were checked.
        Isa::Avx512 => unsafe { x86::matvec_avx512(w, x, out, precision) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 => unsafe { x86::matvec_avx2(w, x, out, precision) },
        _ => matvec_portable(w, x, out, precision),
    }
    apply_epilogue(&mut out[..w.rows], 1, epilogue)
}

/// `out = W x` for `lanes` inputs at once, feature-major (element `j` of lane `l` is
/// `x[j * lanes + l]`, output `out[i * lanes + l]`), then the epilogue. `lanes` is a multiple
/// of [`LANE_GROUP`]. Returns whether relu met a NaN.
pub fn matmul_lanes(
    w: &Matrix,
    x: &[f64],
    out: &mut [f64],
    lanes: usize,
    precision: Precision,
    epilogue: Epilogue,
) -> bool {
    matmul_lanes_on(Isa::detect(), w, x, out, lanes, precision, epilogue)
}

/// [`matmul_lanes`] compiled for `isa`, which the CPU must have ([`Isa::available`]).
pub fn matmul_lanes_on(
    isa: Isa,
    w: &Matrix,
    x: &[f64],
    out: &mut [f64],
    lanes: usize,
    precision: Precision,
    epilogue: Epilogue,
) -> bool {
    assert!(lanes.is_multiple_of(LANE_GROUP), "lanes are padded to a multiple of {LANE_GROUP}");
    assert!(x.len() >= w.cols * lanes && out.len() >= w.rows * lanes, "matmul operands");
    assert!(epilogue.bias.is_none_or(|b| b.len() == w.rows), "one bias entry per row");
    assert!(epilogue.relu.as_ref().is_none_or(|r| r.len() >= w.rows * lanes), "a relu output per element");
    assert!(isa <= Isa::detect(), "{isa:?} is not available on this CPU");
    let out = &mut out[..w.rows * lanes];
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has the features and the operand sizes were checked (asserted above).
        Isa::Avx512 => unsafe { x86::matmul_avx512(w, x, out, lanes, precision, epilogue) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 => unsafe { x86::matmul_avx2(w, x, out, lanes, precision, epilogue) },
        _ => {
            match precision {
                Precision::Exact => matmul_portable::<2, false>(w, x, out, lanes),
                Precision::Fast => matmul_portable::<2, true>(w, x, out, lanes),
            }
            apply_epilogue(out, lanes, epilogue)
        }
    }
}

/// The epilogue over `out` (rows × lanes, row-major), element by element.
fn apply_epilogue(out: &mut [f64], lanes: usize, epilogue: Epilogue) -> bool {
    if let Some(bias) = epilogue.bias {
        for (row, b) in out.chunks_exact_mut(lanes).zip(bias) {
            if let Some(b) = b {
                row.iter_mut().for_each(|x| *x += b);
            }
        }
    }
    match epilogue.relu {
        Some(target) => super::relu(out, &mut target[..out.len()]),
        None => false,
    }
}

fn matvec_portable(w: &Matrix, x: &[f64], out: &mut [f64], precision: Precision) {
    match precision {
        Precision::Exact => matvec_columns::<false>(w, x, out),
        Precision::Fast => matvec_columns::<true>(w, x, out),
    }
}

/// Column by column: `out[i]` accumulates `w[i][j] * x[j]` for `j` in order.
#[inline(always)]
fn matvec_columns<const FUSED: bool>(w: &Matrix, x: &[f64], out: &mut [f64]) {
    let rows = w.rows;
    let out = &mut out[..rows];
    out.fill(0.0);
    for (j, &xj) in x[..w.cols].iter().enumerate() {
        let column = &w.columns[j * w.column_stride..j * w.column_stride + rows];
        for (o, &wij) in out.iter_mut().zip(column) {
            *o = if FUSED { wij.mul_add(xj, *o) } else { *o + wij * xj };
        }
    }
}

/// The portable tile: [`PANEL_ROWS`] output rows × `NR` lanes, accumulated column by column
/// (`j` in order), so each output element sees exactly the reference's operations.
#[inline(always)]
fn matmul_portable<const NR: usize, const FUSED: bool>(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize) {
    let (rows, cols) = (w.rows, w.cols);
    for p in 0..rows.div_ceil(PANEL_ROWS) {
        let panel = &w.panels[p * cols * PANEL_ROWS..(p + 1) * cols * PANEL_ROWS];
        let first_row = p * PANEL_ROWS;
        let rows_here = PANEL_ROWS.min(rows - first_row);
        for b0 in (0..lanes).step_by(NR) {
            let mut acc = [[0.0f64; NR]; PANEL_ROWS];
            for j in 0..cols {
                let xr: &[f64; NR] = x[j * lanes + b0..j * lanes + b0 + NR].try_into().expect("NR lanes");
                let wp: &[f64; PANEL_ROWS] =
                    panel[j * PANEL_ROWS..(j + 1) * PANEL_ROWS].try_into().expect("a panel column");
                for r in 0..PANEL_ROWS {
                    let wv = wp[r];
                    for l in 0..NR {
                        acc[r][l] = if FUSED { wv.mul_add(xr[l], acc[r][l]) } else { acc[r][l] + wv * xr[l] };
                    }
                }
            }
            for (r, row) in acc.iter().enumerate().take(rows_here) {
                let at = (first_row + r) * lanes + b0;
                out[at..at + NR].copy_from_slice(row);
            }
        }
    }
}
