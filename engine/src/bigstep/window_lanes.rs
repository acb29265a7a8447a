//! The plan's window operations on a group of rows (elements × lanes, `exec.rs`'s layout): for
//! every lane, bit for bit what [`ConvKernel::apply`] and [`pool_apply`] give that row alone,
//! vectorised across independent sums (lanes, and for `conv2d` output positions), never across
//! the terms of one sum.
//!
//! - `conv2d` (`ext-conv2d-helper-step`): the taps of every output position are laid out once
//!   per call, channel, kernel row, kernel column (the helper's order), as the rows of a matrix
//!   whose columns are (position, lane): a padding tap is the Float `0.0` the helper multiplies
//!   (so `0·∞` is NaN). Then each group's kernel (`M/G × Cg·KH·KW`, row-major: the taps' order)
//!   times that matrix is the batched product of `linear`: each element `((0.0 + w₀·x₀) + w₁·x₁)
//!   + …` in column order, then `+ b` (the tensor kernels' contract, `docs/big-step.md`).
//! - The pools (`ext-max-pool2d-helper-step`, `ext-avg-pool2d-helper-step`, `ext-pool-mean`):
//!   the taps inside the input of each output, rows then columns, found once per call; `max`
//!   from `-Infinity` (a NaN flags the lane, whose error the one-row definition then words),
//!   or `+` from `0.0` then `/` the count.

use std::cell::RefCell;

use knn_semantics::syntax::Pool;
use knn_semantics::window::{Conv2dGeometry, Pool2dGeometry, WindowAttrs};

use super::window_ops::{ConvKernel, MaxOfNaN, pool_apply};
use crate::tensor::{AlignedFloats, Epilogue, LANE_GROUP, Matrix, Precision, matmul_lanes};

thread_local! {
    /// Each thread's im2col matrix and padded product, reused from call to call.
    static SCRATCH: RefCell<(AlignedFloats, AlignedFloats)> = RefCell::new(Default::default());
}

/// Along one axis, for each output index `o` and kernel tap `k` (row-major `o × taps`), the
/// input index `o·stride − pad + k·dilation`, `None` outside `0 .. n` (padding): the geometry's
/// `input_position`, one axis at a time.
pub(super) fn axis_taps(outputs: i64, taps: i64, stride: i64, pad: i64, dilation: i64, n: i64) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity((outputs * taps) as usize);
    for o in 0..outputs {
        for k in 0..taps {
            let p = i128::from(o) * i128::from(stride) - i128::from(pad) + i128::from(k) * i128::from(dilation);
            out.push((0..i128::from(n)).contains(&p).then_some(p as usize));
        }
    }
    out
}

/// The rows and the columns axes of a window operator.
fn axes(attrs: &WindowAttrs, input: [i64; 3], output: [i64; 3], kernel: [i64; 2]) -> [Vec<Option<usize>>; 2] {
    let [sh, sw] = attrs.strides;
    let [dh, dw] = attrs.dilations;
    let [top, left, ..] = attrs.pads;
    [axis_taps(output[1], kernel[0], sh, top, dh, input[1]), axis_taps(output[2], kernel[1], sw, left, dw, input[2])]
}

/// How many Floats of im2col matrix one product reads at most (about 192 KiB): a block of
/// output rows at a time, so that the matrix stays in the core's L2 cache while the kernels
/// sweep it once per output channel.
const IM2COL_BLOCK: usize = 24 * 1024;

/// [`ConvKernel::apply`] on every lane of `input` (elements × lanes) into `result`. The output
/// positions are taken a block of output rows at a time (each position's sum is whole within
/// its block, so the blocks change no bit).
pub(super) fn conv2d_lanes(conv: &ConvKernel, input: &[f64], result: &mut [f64], lanes: usize) {
    let g: &Conv2dGeometry = &conv.geometry;
    let [m, cg, kh, kw] = g.kernel.map(|n| n as usize);
    let [_, h, wd] = g.input.map(|n| n as usize);
    let [_, oh, ow] = g.output.map(|n| n as usize);
    let [rows, cols] = axes(&g.attrs, g.input, g.output, [g.kernel[2], g.kernel[3]]);
    let (per_group, taps) = (m / g.attrs.group as usize, cg * kh * kw);
    // Every (position, lane) of the output, and the output rows of one block.
    let all = oh * ow * lanes;
    if all == 0 {
        return;
    }
    // Blocks pay when the matrix is read again for each tile of output channels and is larger
    // than what a block copies back (the outputs of its rows: `per_group` per column).
    let blocked = taps * all > IM2COL_BLOCK && taps > per_group;
    let block_rows = if blocked { (IM2COL_BLOCK / (taps * ow * lanes)).clamp(1, oh) } else { oh };
    SCRATCH.with_borrow_mut(|(x, out)| {
        for group in 0..g.attrs.group as usize {
            let first = group * per_group;
            let w = Matrix::shared(per_group, taps, conv.weights.clone(), first * taps);
            let bias: Option<Vec<Option<f64>>> =
                conv.bias.as_ref().map(|b| b[first..first + per_group].iter().copied().map(Some).collect());
            let here = &mut result[first * all..(first + per_group) * all];
            for top in (0..oh).step_by(block_rows) {
                let block = top..(top + block_rows).min(oh);
                // The product's columns: the block's (position, lane), padded to the kernels' lane group.
                let width = block.len() * ow * lanes;
                let padded = width.next_multiple_of(LANE_GROUP);
                x.resize(taps * padded, 0.0);
                for c in 0..cg {
                    let channel = g.input_channel(first as i64, c as i64) as usize;
                    for (ki, kj) in (0..kh).flat_map(|ki| (0..kw).map(move |kj| (ki, kj))) {
                        let t = (c * kh + ki) * kw + kj;
                        let row = &mut x[t * padded..(t + 1) * padded];
                        // Row `t` of the columns: output position `(i, j)` reads input `(r, s)`,
                        // one output row at a time (no division per position).
                        for (i, out_row) in block.clone().zip(row[..width].chunks_exact_mut(ow * lanes)) {
                            let Some(r) = rows[i * kh + ki] else {
                                // `ext-conv2d-helper-step` reads a padding position as the Float 0.0.
                                out_row.fill(0.0);
                                continue;
                            };
                            let line = (channel * h + r) * wd;
                            for (j, lanes_here) in out_row.chunks_exact_mut(lanes).enumerate() {
                                match cols[j * kw + kj] {
                                    Some(s) if lanes == 1 => lanes_here[0] = input[line + s],
                                    Some(s) => {
                                        lanes_here.copy_from_slice(&input[(line + s) * lanes..(line + s + 1) * lanes])
                                    }
                                    None => lanes_here.fill(0.0),
                                }
                            }
                        }
                        row[width..].fill(0.0);
                    }
                }
                let epilogue = Epilogue { bias: bias.as_deref(), relu: None };
                let columns = block.start * ow * lanes;
                if padded == width && width == all {
                    matmul_lanes(&w, &x[..], here, width, Precision::Exact, epilogue);
                } else {
                    out.resize(per_group * padded, 0.0);
                    matmul_lanes(&w, &x[..], out, padded, Precision::Exact, epilogue);
                    for (o, row) in here.chunks_exact_mut(all).enumerate() {
                        row[columns..columns + width].copy_from_slice(&out[o * padded..o * padded + width]);
                    }
                }
            }
        }
    });
}

/// [`pool_apply`] on every lane of `input` (elements × lanes) into `result`: the lanes where
/// `max` met a NaN, with the error as the one-row definition gives it.
pub fn pool_lanes(
    pool: Pool,
    g: &Pool2dGeometry,
    input: &[f64],
    result: &mut [f64],
    lanes: usize,
) -> Vec<(usize, MaxOfNaN)> {
    let [_, h, wd] = g.input.map(|n| n as usize);
    let [_, oh, ow] = g.output.map(|n| n as usize);
    let [kh, kw] = g.attrs.kernel.map(|n| n as usize);
    let [rows, cols] = axes(&g.attrs, g.input, g.output, g.attrs.kernel);
    // The taps inside the input, in window order (padding taps are left out: they read nothing).
    let inside = |axis: &[Option<usize>], o: usize, k: usize| -> Vec<usize> {
        axis[o * k..(o + 1) * k].iter().flatten().copied().collect()
    };
    let row_taps: Vec<Vec<usize>> = (0..oh).map(|i| inside(&rows, i, kh)).collect();
    let col_taps: Vec<Vec<usize>> = (0..ow).map(|j| inside(&cols, j, kw)).collect();
    // Per lane, whether `max` met a NaN: a 64-bit word per lane, so that the flags vectorise
    // with the f64 lanes they come from.
    let mut nan = vec![0u64; lanes];
    let count_pad = g.attrs.count_pad == 1;
    if lanes == 1 {
        nan[0] = u64::from(pool_row(pool, g, (&rows, &cols), input, result));
    } else {
        for (k, out) in result.chunks_exact_mut(lanes).enumerate() {
            let (o, i, j) = (k / (oh * ow), (k / ow) % oh, k % ow);
            let (rows, cols) = (&row_taps[i], &col_taps[j]);
            // `poolMean`: `KH·KW` with `countPad = 1`, else the taps inside.
            let count = if count_pad { kh * kw } else { rows.len() * cols.len() } as f64;
            match pool {
                Pool::Max => {
                    out.fill(f64::NEG_INFINITY);
                    for &r in rows {
                        for &s in cols {
                            let at = (o * h + r) * wd + s;
                            for ((acc, &x), flag) in
                                out.iter_mut().zip(&input[at * lanes..(at + 1) * lanes]).zip(&mut nan)
                            {
                                // `k_max(acc, x)` for an `acc` that is never NaN: `x` when `acc < x`,
                                // else `acc` (`max-left` keeps the earlier on ties); a NaN `x` has
                                // no rule.
                                *acc = if *acc < x { x } else { *acc };
                                *flag |= u64::from(x.is_nan());
                            }
                        }
                    }
                }
                Pool::Avg => {
                    out.fill(0.0);
                    for &r in rows {
                        for &s in cols {
                            let at = (o * h + r) * wd + s;
                            for (acc, &x) in out.iter_mut().zip(&input[at * lanes..(at + 1) * lanes]) {
                                *acc += x;
                            }
                        }
                    }
                    out.iter_mut().for_each(|acc| *acc /= count);
                }
            }
        }
    }
    // A lane that met a NaN fails at its first one, in the helper's order: the one-row
    // definition finds it and words it.
    let mut failed = Vec::new();
    if nan.iter().all(|&flag| flag == 0) {
        // No lane to re-run, and no row-sized buffers to zero: at one image that zeroing cost
        // a tenth of the pool itself.
        return failed;
    }
    let (mut row, mut pooled) = (vec![0.0; input.len() / lanes], vec![0.0; result.len() / lanes]);
    for lane in (0..lanes).filter(|&l| nan[l] != 0) {
        for (k, v) in row.iter_mut().enumerate() {
            *v = input[k * lanes + lane];
        }
        if let Err(error) = pool_apply(pool, g, &row, &mut pooled) {
            failed.push((lane, error));
        }
    }
    failed
}

/// One row's pool, a row of outputs `(o, i, ·)` at a time: for each tap `(ki, kj)` in window
/// order, every output of the row whose tap it is inside the input. Each output still sees its
/// taps in window order (`ki`, then `kj`), and the outputs' independent chains of `max` or `+`
/// interleave. Whether `max` met a NaN.
fn pool_row(
    pool: Pool,
    g: &Pool2dGeometry,
    (rows, cols): (&[Option<usize>], &[Option<usize>]),
    input: &[f64],
    result: &mut [f64],
) -> bool {
    let [_, h, wd] = g.input.map(|n| n as usize);
    let [_, oh, ow] = g.output.map(|n| n as usize);
    let [kh, kw] = g.attrs.kernel.map(|n| n as usize);
    let mut nan = false;
    // Per kernel column `kj`, the outputs `j` whose tap is inside the input: a run `j0 .. j0 +
    // count` (the input column `j·stride − pad + kj·dilation` grows with `j`), reading the
    // input columns from `s0` a stride apart. Found once per call, not per output row.
    let stride = g.attrs.strides[1] as usize;
    let runs: Vec<(usize, usize, usize)> = (0..kw)
        .filter_map(|kj| {
            let inside: Vec<(usize, usize)> = (0..ow).filter_map(|j| cols[j * kw + kj].map(|s| (j, s))).collect();
            let &(j0, s0) = inside.first()?;
            assert!(inside.iter().enumerate().all(|(k, &(j, s))| j == j0 + k && s == s0 + k * stride), "not a run");
            Some((j0, inside.len(), s0))
        })
        .collect();
    for (n, out) in result.chunks_exact_mut(ow).enumerate() {
        let (o, i) = (n / oh, n % oh);
        out.fill(match pool {
            Pool::Max => f64::NEG_INFINITY,
            Pool::Avg => 0.0,
        });
        for r in (0..kh).filter_map(|ki| rows[i * kh + ki]) {
            let line = &input[(o * h + r) * wd..(o * h + r + 1) * wd];
            for &(j0, count, s0) in &runs {
                let taps = out[j0..j0 + count].iter_mut().zip(line[s0..].iter().step_by(stride));
                match pool {
                    // `k_max(acc, x)` for an `acc` that is never NaN (see `pool_lanes`).
                    Pool::Max => {
                        for (acc, &x) in taps {
                            *acc = if *acc < x { x } else { *acc };
                            nan |= x.is_nan();
                        }
                    }
                    Pool::Avg => taps.for_each(|(acc, &x)| *acc += x),
                }
            }
        }
        if pool == Pool::Avg {
            // `poolMean`: `KH·KW` with `countPad = 1`, else the taps inside.
            let inside_rows = (0..kh).filter(|&ki| rows[i * kh + ki].is_some()).count();
            for (j, acc) in out.iter_mut().enumerate() {
                let inside_cols = (0..kw).filter(|&kj| cols[j * kw + kj].is_some()).count();
                let count = if g.attrs.count_pad == 1 { kh * kw } else { inside_rows * inside_cols };
                *acc /= count as f64;
            }
        }
    }
    nan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bigstep::window_ops::{pool_count, pool_taps};

    /// Every small geometry: strides, pads, dilations and kernels 1–3 on inputs of 1–5.
    fn geometries() -> Vec<WindowAttrs> {
        let mut all = Vec::new();
        for (s, p, d, k) in attribute_grid(3) {
            all.push(WindowAttrs {
                strides: [s, 4 - s],
                pads: [p, 2 - p, 1, p],
                dilations: [d, 3 - d + 1],
                group: 1,
                kernel: [k, 4 - k],
                count_pad: k % 2,
            });
        }
        all
    }

    /// Strides and kernels 1–`n`, pads 0–2, dilations 1–2.
    fn attribute_grid(n: i64) -> Vec<(i64, i64, i64, i64)> {
        let mut out = Vec::new();
        for s in 1..=n {
            for p in 0..=2 {
                for d in 1..=2 {
                    for k in 1..=n {
                        out.push((s, p, d, k));
                    }
                }
            }
        }
        out
    }

    /// The axes decomposition reads what `pool_taps` and `pool_count` (the one-row definition)
    /// read, in the same order, for every output of every small geometry.
    #[test]
    fn axis_taps_are_the_geometrys_taps() {
        let mut checked = 0;
        for attrs in geometries() {
            for (h, w) in [(1, 1), (3, 5), (5, 2), (4, 4)] {
                let Ok(g) = Pool2dGeometry::check("maxPool2d", "x", &[2, h, w], attrs) else { continue };
                let [rows, cols] = axes(&g.attrs, g.input, g.output, g.attrs.kernel);
                let [kh, kw] = g.attrs.kernel.map(|n| n as usize);
                let [_, oh, ow] = g.output.map(|n| n as usize);
                for k in 0..g.output.iter().product::<i64>() as usize {
                    let (o, i, j) = (k / (oh * ow), (k / ow) % oh, k % ow);
                    let mut mine = Vec::new();
                    for ki in 0..kh {
                        for kj in 0..kw {
                            if let (Some(r), Some(s)) = (rows[i * kh + ki], cols[j * kw + kj]) {
                                mine.push((o * h as usize + r) * w as usize + s);
                            }
                        }
                    }
                    assert_eq!(mine, pool_taps(&g, k).collect::<Vec<_>>(), "{attrs:?} {h}×{w} output {k}");
                    let count = if attrs.count_pad == 1 { kh * kw } else { mine.len() };
                    assert_eq!(count as f64, pool_count(&g, k));
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked} outputs checked");
    }

    /// Convolutions whose im2col matrix takes several blocks of output rows (and, at one lane,
    /// a block that ends inside the padded lane group), grouped and padded: on 1, 16 and 48
    /// lanes every output is the one-row definition's (`ConvKernel::apply`) bit for bit.
    #[test]
    fn blocks_of_output_rows_change_no_bit() {
        let mut state = 7u64;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Values whose sums depend on their order: spread over 40 binades, both signs.
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            (unit - 0.5) * 2f64.powi((state % 40) as i32 - 20)
        };
        for (channels, group, [h, w], pads) in [(3, 1, [40, 40], [1, 1, 1, 1]), (4, 2, [33, 60], [0, 2, 1, 0])] {
            let attrs = WindowAttrs { strides: [1, 1], pads, dilations: [1, 1], group, kernel: [4, 4], count_pad: 0 };
            let m = 4 * group;
            let kernel = [m, channels / group, 4, 4];
            let geometry =
                Conv2dGeometry::check(("x", "w", Some("b")), &[channels, h, w], &kernel, Some(&[m][..]), attrs)
                    .unwrap();
            let taps = (channels / group * 16) as usize;
            let [_, oh, ow] = geometry.output.map(|n| n as usize);
            assert!(taps * ow * LANE_GROUP > IM2COL_BLOCK && taps * ow < IM2COL_BLOCK && taps * oh * ow > IM2COL_BLOCK);
            assert!(taps > m as usize / group as usize, "the blocks are taken");
            let weights: Vec<f64> = (0..m as usize * taps).map(|_| next()).collect();
            let bias: Vec<f64> = (0..m).map(|_| next()).collect();
            let conv = ConvKernel { geometry, weights: weights.into(), bias: Some(bias.into()) };
            let (len, out_len) = (conv.input_len(), conv.output_len());
            for lanes in [1, 16, 48] {
                let rows: Vec<Vec<f64>> = (0..lanes).map(|_| (0..len).map(|_| next()).collect()).collect();
                let mut input = vec![0.0; len * lanes];
                for (l, row) in rows.iter().enumerate() {
                    for (k, &v) in row.iter().enumerate() {
                        input[k * lanes + l] = v;
                    }
                }
                let mut result = vec![f64::NAN; out_len * lanes];
                conv2d_lanes(&conv, &input, &mut result, lanes);
                for (l, row) in rows.iter().enumerate() {
                    let mut alone = vec![0.0; out_len];
                    conv.apply(row, &mut alone);
                    for (k, v) in alone.iter().enumerate() {
                        assert_eq!(v.to_bits(), result[k * lanes + l].to_bits(), "lanes {lanes}, lane {l}, output {k}");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "pool_row_tests.rs"]
mod pool_row_tests;
