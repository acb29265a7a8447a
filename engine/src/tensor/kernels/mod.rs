//! The products of a layer: one input (vectorised across output rows) and a batch of inputs
//! (vectorised across batch lanes), exact or fused, for AVX-512, AVX2 and portable targets,
//! followed by the layer's [`Epilogue`] (bias, relu).
//!
//! Every variant computes the same bits in exact mode: each output element is one sum
//! `((0.0 + w[i][0]*x[0]) + w[i][1]*x[1]) + …` accumulated in order; the vector lanes hold
//! independent sums.

/// `$kernel::<N, FUSED>(args)` for the run-time count `$n` (one of the listed ones) and the
/// precision: kernels are monomorphised per count of vectors or rows, so that their
/// accumulators are arrays the compiler keeps in registers.
#[cfg(target_arch = "x86_64")]
macro_rules! by_count {
    ($precision:expr, $n:expr, [$($k:literal),+], $kernel:ident $args:tt) => {
        match ($precision, $n) {
            $(
                (Precision::Exact, $k) => $kernel::<$k, false> $args,
                (Precision::Fast, $k) => $kernel::<$k, true> $args,
            )+
            (_, n) => unreachable!("no kernel for a count of {n}"),
        }
    };
}

mod sparse;
#[cfg(test)]
mod sparse_tests;
#[cfg(test)]
mod tests;
mod transpose;
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
mod x86_lanes;

use std::cell::RefCell;

use super::{LANE_GROUP, Matrix, PANEL_ROWS};

pub use transpose::{transpose, transpose_on};

/// Exact: the reference's operations in its order. Fast: fused multiply-adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    #[default]
    Exact,
    Fast,
}

impl Precision {
    /// `Fast` when fused multiply-adds are allowed (`--fast-math`), else `Exact`.
    pub fn fast_if(fast_math: bool) -> Precision {
        if fast_math { Precision::Fast } else { Precision::Exact }
    }
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

    /// The CPU features the variant is compiled for: `portable`, `avx2+fma`, `avx512f+fma`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2+fma",
            Isa::Avx512 => "avx512f+fma",
        }
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
    TERMS.with_borrow_mut(|terms| {
        sparse::terms(w, &x[..w.cols], terms);
        sum_columns_on(isa, w, x, terms, out, precision);
    });
    apply_epilogue(&mut out[..w.rows], 1, epilogue)
}

/// `out = Σ W[:, j] x[j]` over `columns` (increasing, below `w.cols`) for one input.
fn sum_columns_on(isa: Isa, w: &Matrix, x: &[f64], columns: &[u32], out: &mut [f64], precision: Precision) {
    debug_assert!(columns.is_sorted());
    assert!(x.len() >= w.cols && out.len() >= w.rows && columns.last().is_none_or(|&j| (j as usize) < w.cols));
    if let Some(panels) = w.panels_only() {
        // A batch has laid the matrix out in panels and no input alone has yet: read those
        // rather than hold the weights a third time (the verifier runs both).
        return matvec_panels(isa, w, panels, x, columns, out, precision);
    }
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller checked that the CPU has the features; the operand sizes and
        // the columns were checked above.
        Isa::Avx512 => unsafe { x86::matvec_avx512(w, x, columns, out, precision) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 => unsafe { x86_lanes::matvec_avx2(w, x, columns, out, precision) },
        _ => matvec_portable(w, x, columns, out, precision),
    }
}

thread_local! {
    /// The columns one input's sum runs over, reused from call to call.
    static TERMS: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
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

/// [`matmul_lanes`] compiled for `isa`, which the CPU must have ([`Isa::available`]): the
/// dense kernel, or when the CPU has AVX2 and enough of the inputs are zeros (on AVX2 a
/// quarter for products of up to 52 rows, 60% for taller ones; 70% on AVX-512:
/// `sparse::worth_skipping`), the kernel that skips them. Both give the same bits.
pub fn matmul_lanes_on(
    isa: Isa,
    w: &Matrix,
    x: &[f64],
    out: &mut [f64],
    lanes: usize,
    precision: Precision,
    epilogue: Epilogue,
) -> bool {
    // Each kernel checks the operands; the choice reads only what they will be checked to hold.
    if isa >= Isa::Avx2 && sparse::worth_skipping(isa, w, x, lanes) {
        matmul_lanes_skipping_zeros_on(isa, w, x, out, lanes, precision, epilogue)
    } else {
        matmul_lanes_dense_on(isa, w, x, out, lanes, precision, epilogue)
    }
}

/// The operands of a batched product, checked before the kernels rely on them.
fn check_batch(isa: Isa, w: &Matrix, x: &[f64], out: &[f64], lanes: usize, epilogue: &Epilogue) {
    assert!(lanes.is_multiple_of(LANE_GROUP), "lanes are padded to a multiple of {LANE_GROUP}");
    assert!(x.len() >= w.cols * lanes && out.len() >= w.rows * lanes, "matmul operands");
    assert!(epilogue.bias.is_none_or(|b| b.len() == w.rows), "one bias entry per row");
    assert!(epilogue.relu.as_ref().is_none_or(|r| r.len() >= w.rows * lanes), "a relu output per element");
    assert!(isa <= Isa::detect(), "{isa:?} is not available on this CPU");
}

/// [`matmul_lanes_on`] with the dense kernel: every term of every sum, vectorised across lanes.
pub fn matmul_lanes_dense_on(
    isa: Isa,
    w: &Matrix,
    x: &[f64],
    out: &mut [f64],
    lanes: usize,
    precision: Precision,
    epilogue: Epilogue,
) -> bool {
    check_batch(isa, w, x, out, lanes, &epilogue);
    let out = &mut out[..w.rows * lanes];
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has the features (asserted above); `Tiles::new` checks the operands.
        Isa::Avx512 => unsafe { x86::matmul_avx512(&mut x86::Tiles::new(w, x, out, lanes, epilogue), precision) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 => unsafe { x86::matmul_avx2(&mut x86::Tiles::new(w, x, out, lanes, epilogue), precision) },
        _ => {
            match precision {
                Precision::Exact => matmul_portable::<2, false>(w, x, out, lanes),
                Precision::Fast => matmul_portable::<2, true>(w, x, out, lanes),
            }
            apply_epilogue(out, lanes, epilogue)
        }
    }
}

/// [`matmul_lanes_on`] skipping the terms whose input is ±0.0 (the matrix must allow it:
/// [`Matrix::skips_zero_inputs`]); [`matmul_lanes_on`] takes this way by itself when
/// `sparse::worth_skipping` says enough inputs are zeros.
pub fn matmul_lanes_skipping_zeros_on(
    isa: Isa,
    w: &Matrix,
    x: &[f64],
    out: &mut [f64],
    lanes: usize,
    precision: Precision,
    epilogue: Epilogue,
) -> bool {
    assert!(w.skips_zero_inputs(), "a matrix with infinite or NaN weights cannot skip zero inputs");
    check_batch(isa, w, x, out, lanes, &epilogue);
    let out = &mut out[..w.rows * lanes];
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 | Isa::Avx2 => {
            let width = if isa == Isa::Avx512 { x86_lanes::LaneWidth::Avx512 } else { x86_lanes::LaneWidth::Avx2 };
            return LANE_TERMS.with_borrow_mut(|terms| {
                // SAFETY: the CPU has what `width` names, AVX2 and FMA included (an AVX-512
                // CPU has them too: asserted above); `Tiles::new` checks the operands. The
                // matrix was checked above.
                unsafe {
                    x86_lanes::matmul_by_lane(&mut x86::Tiles::new(w, x, out, lanes, epilogue), precision, terms, width)
                }
            });
        }
        _ => LANE.with_borrow_mut(|lane_scratch| {
            let (input, result, terms) = lane_scratch;
            input.resize(w.cols, 0.0);
            result.resize(w.rows, 0.0);
            for lane in 0..lanes {
                for (j, v) in input.iter_mut().enumerate() {
                    *v = x[j * lanes + lane];
                }
                sparse::terms(w, input, terms);
                sum_columns_on(isa, w, input, terms, result, precision);
                for (i, v) in result.iter().enumerate() {
                    out[i * lanes + lane] = *v;
                }
            }
        }),
    }
    apply_epilogue(out, lanes, epilogue)
}

#[cfg(target_arch = "x86_64")]
thread_local! {
    /// Which inputs of each lane of a batch are nonzero, reused from call to call.
    static LANE_TERMS: RefCell<x86_lanes::LaneTerms> = RefCell::new(x86_lanes::LaneTerms::default());
}

thread_local! {
    /// One lane's inputs, sums and nonzero columns, reused from call to call.
    static LANE: RefCell<(Vec<f64>, Vec<f64>, Vec<u32>)> = const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
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

fn matvec_portable(w: &Matrix, x: &[f64], columns: &[u32], out: &mut [f64], precision: Precision) {
    match precision {
        Precision::Exact => matvec_columns::<false>(w, x, columns, out),
        Precision::Fast => matvec_columns::<true>(w, x, columns, out),
    }
}

/// Column by column: `out[i]` accumulates `w[i][j] * x[j]` for `j` in `columns`, in order.
#[inline(always)]
fn matvec_columns<const FUSED: bool>(w: &Matrix, x: &[f64], columns: &[u32], out: &mut [f64]) {
    let rows = w.rows;
    let out = &mut out[..rows];
    out.fill(0.0);
    let layout = w.columns();
    for &j in columns {
        let (j, xj) = (j as usize, x[j as usize]);
        let column = &layout[j * w.column_stride..j * w.column_stride + rows];
        for (o, &wij) in out.iter_mut().zip(column) {
            *o = if FUSED { wij.mul_add(xj, *o) } else { *o + wij * xj };
        }
    }
}

/// One input's sums read from the panel layout, a panel ([`PANEL_ROWS`] rows) at a time:
/// `out[i]` accumulates `w[i][j] * x[j]` for `j` in `columns`, in order, as every kernel does.
/// Fast mode fuses with the CPU's own FMA where it has one: `f64::mul_add` compiled without
/// the feature is a software routine (it gives the same bits, many times slower: a fifth of
/// mnist_fc's search went there).
fn matvec_panels(
    isa: Isa,
    w: &Matrix,
    panels: &[f64],
    x: &[f64],
    columns: &[u32],
    out: &mut [f64],
    precision: Precision,
) {
    match (precision, isa) {
        (Precision::Exact, _) => matvec_panels_with::<false>(w, panels, x, columns, out),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `isa` is available on this CPU (the caller checked) and both have FMA.
        (Precision::Fast, Isa::Avx512 | Isa::Avx2) => unsafe { matvec_panels_fused_fma(w, panels, x, columns, out) },
        (Precision::Fast, _) => matvec_panels_with::<true>(w, panels, x, columns, out),
    }
}

/// [`matvec_panels_with`] fused, compiled with the CPU's FMA.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn matvec_panels_fused_fma(w: &Matrix, panels: &[f64], x: &[f64], columns: &[u32], out: &mut [f64]) {
    matvec_panels_with::<true>(w, panels, x, columns, out)
}

#[inline(always)]
fn matvec_panels_with<const FUSED: bool>(w: &Matrix, panels: &[f64], x: &[f64], columns: &[u32], out: &mut [f64]) {
    let (rows, cols) = (w.rows, w.cols);
    for (p, out) in out[..rows].chunks_mut(PANEL_ROWS).enumerate() {
        let panel = &panels[p * cols * PANEL_ROWS..(p + 1) * cols * PANEL_ROWS];
        let mut acc = [0.0f64; PANEL_ROWS];
        for &j in columns {
            let (j, xj) = (j as usize, x[j as usize]);
            let wp: &[f64; PANEL_ROWS] =
                panel[j * PANEL_ROWS..(j + 1) * PANEL_ROWS].try_into().expect("a panel column");
            for (a, &wij) in acc.iter_mut().zip(wp) {
                *a = if FUSED { wij.mul_add(xj, *a) } else { *a + wij * xj };
            }
        }
        out.copy_from_slice(&acc[..out.len()]);
    }
}

/// The portable tile: [`PANEL_ROWS`] output rows × `NR` lanes, accumulated column by column
/// (`j` in order), so each output element sees exactly the reference's operations.
#[inline(always)]
fn matmul_portable<const NR: usize, const FUSED: bool>(w: &Matrix, x: &[f64], out: &mut [f64], lanes: usize) {
    let (rows, cols, panels) = (w.rows, w.cols, w.panels());
    for p in 0..rows.div_ceil(PANEL_ROWS) {
        let panel = &panels[p * cols * PANEL_ROWS..(p + 1) * cols * PANEL_ROWS];
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
