//! Linear bounds by back-substitution (CROWN, DeepPoly), sound for the binary64 values the
//! engine computes (docs/verification.md, "Linear bounds in floating point").
//!
//! A lower bound of `Σ_r g_r·v_r` for a vector `v` inside the network is carried backwards
//! as `g·v ≥ G·u + acc` over the vector `u` one layer earlier, down to the input, where the
//! box gives a number. Three things make this sound for the engine's bits and not only for
//! real arithmetic:
//!
//! 1. **The engine's rounding.** A dense layer computes `ẑ = fl(fl(W·u) + b)`, which is
//!    `W·u + b + δ` with `|δ_i| ≤ γ_{n+1}(Σ_j |W_ij|·|u_j| + |b_i|) + (n+1)·η` (`η = 2^-1074`).
//!    The box bounds `|u_j|`, so `δ` is a bounded extra input whose worst case is charged to
//!    `acc` with the weight `|g|`.
//! 2. **Our own rounding.** `G·W` is computed in binary64; the exact product differs by at
//!    most `γ_m·|G|·|W| + m·η` entrywise. Any coefficients are valid if the difference is
//!    charged too: `(G·W)·u ≥ fl(G·W)·u − err·|u|`, and `Σ_j err_j·|u_j|` is again bounded
//!    through `|W|·|u|`, a vector per layer. Likewise for the slopes of relaxations.
//! 3. **Directed rounding** for every number that ends up in `acc` ([`super::float`]).
//!
//! So the computed coefficients may carry any rounding error: only the constant must be, and
//! is, a rigorous bound. Each operator's step, with what it charges, is in its module
//! ([`crate::operator::Operator::substitute`]); this file carries the rows through them.

use super::float::{add_down, min_dot};
use super::interval::Bounds;
use super::operator::{Layer, LowerChoice, Pass, Prepared};
use super::prepare::PreparedLayers;
use super::relax::{Line, LowerSlope};

/// A linear lower bound over the input box: for every input `x` of the box,
/// `target ≥ coefficients·x + constant` in exact arithmetic, and `value` is a lower bound of
/// the right-hand side's minimum over the box (so of the target).
#[derive(Clone, Debug)]
pub struct LowerBound {
    pub coefficients: Vec<f64>,
    pub constant: f64,
    pub value: f64,
}

/// Lower bounds of `rows[r]·v` for `v` the output of layer `from`, over the box of `bounds`:
/// for each row the better of the bounds with either lower slope of unstable relus (both
/// hold, so the larger does).
pub fn back_substitute(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &mut PreparedLayers,
    from: usize,
    rows: Vec<f64>,
    width: usize,
) -> Vec<LowerBound> {
    let count = rows.len() / width.max(1);
    back_substitute_batch(layers, &mut [PartRows { bounds, prepared, count }], from, rows, width)
}

/// [`back_substitute`] for a batch of parts of a box, each with its own rows
/// ([`back_substitute_parts`]): each row's bound has the bits of its part's rows alone. The
/// parts go through in groups of about [`BATCH_ROWS`] rows, so that a group's coefficients stay
/// in the caches.
pub fn back_substitute_batch(
    layers: &[Layer],
    parts: &mut [PartRows<'_>],
    from: usize,
    rows: Vec<f64>,
    width: usize,
) -> Vec<LowerBound> {
    let mut found = Vec::with_capacity(rows.len() / width.max(1));
    let mut rest = parts;
    let mut first_row = 0;
    while !rest.is_empty() {
        // At least one part a group, then parts while the group stays within BATCH_ROWS.
        let mut taken = (1, rest[0].count);
        while taken.0 < rest.len() && taken.1 + rest[taken.0].count <= BATCH_ROWS {
            taken = (taken.0 + 1, taken.1 + rest[taken.0].count);
        }
        let (group, later) = rest.split_at_mut(taken.0);
        let these = rows[first_row * width..(first_row + taken.1) * width].to_vec();
        let adaptive = LowerLines::Slope(LowerSlope::Adaptive);
        let adaptive = back_substitute_parts(layers, group, from, these.clone(), width, adaptive, None);
        let chord =
            back_substitute_parts(layers, group, from, these, width, LowerLines::Slope(LowerSlope::Chord), None);
        found.extend(adaptive.into_iter().zip(chord).map(|(a, c)| if c.value > a.value { c } else { a }));
        first_row += taken.1;
        rest = later;
    }
    found
}

/// The rows a batch carries through the layers at once: on mnist_fc 256×6, 1,024 subdomains of
/// 9 rows took 1.8 times as long in one batch as one after the other (docs/performance.md).
pub const BATCH_ROWS: usize = 64;

/// Which lower lines bound the activations from below.
#[derive(Clone, Copy)]
pub enum LowerLines<'a> {
    /// The prepared lines of one choice of relu slope.
    Slope(LowerSlope),
    /// Lines given per layer (empty for layers that are not activations); each must be below
    /// the activation on its input's range (`α·z` with `α ∈ [0, 1]` for relu).
    Given(&'a [Vec<Line>]),
    /// Given lines, and multipliers of sign constraints (β-CROWN): on a part of the box where
    /// each element `i` of layer `k`'s output with `shifts[k][i] ≠ 0` has the sign of
    /// `shifts[k][i]`, the coefficient of that element is lowered by `shifts[k][i]` when the
    /// pass reaches layer `k`. The bound is then one of `target − Σ c_i·v_i` with `c_i` the
    /// exact change of the coefficient, which rounding cannot give the wrong sign (`fl` is
    /// monotone: `fl(g − s) ≤ g` for `s > 0`): so `c_i·v_i ≥ 0` on the part, and the bound holds
    /// there (only there).
    Constrained(&'a [Vec<Line>], &'a [Vec<f64>]),
    /// Lines given per layer and per row (row-major; empty for layers that are not
    /// activations), each below the activation on its input's range.
    PerRow(&'a [Vec<Line>]),
    /// Lines per row, and multipliers of sign constraints per row: as `Constrained`, with
    /// `shifts[k]` row-major (each row's own shifts of layer `k`'s output; empty for a layer
    /// without constraints). Each row's bound holds on the part, by the same argument.
    PerRowConstrained(&'a [Vec<Line>], &'a [Vec<f64>]),
}

/// Lower bounds of `rows[r]·v` with one choice of lower lines. `rows` is row-major, `width`
/// entries a row. One pass per layer carries every row. With `trace`, the coefficients met
/// before each layer are recorded (`trace[k]`: over layer `k`'s output), for gradients.
#[allow(clippy::too_many_arguments, reason = "the pass's inputs, each used once")]
pub(super) fn back_substitute_with(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &mut PreparedLayers,
    from: usize,
    rows: Vec<f64>,
    width: usize,
    lines: LowerLines<'_>,
    trace: Option<&mut Vec<Vec<f64>>>,
) -> Vec<LowerBound> {
    let count = rows.len() / width.max(1);
    back_substitute_parts(layers, &mut [PartRows { bounds, prepared, count }], from, rows, width, lines, trace)
}

/// One part of a box in a batch of [`back_substitute_parts`]: its bounds, its layers prepared
/// on them, and how many of the batch's rows are its own.
pub struct PartRows<'a> {
    pub bounds: &'a Bounds,
    pub prepared: &'a mut PreparedLayers,
    pub count: usize,
}

/// [`back_substitute_with`] for a batch of parts of a box (subdomains), each with its own
/// rows (`parts[p].count` rows, in the parts' order) bounded on its own bounds: one pass per
/// layer carries every part's rows, the dense layers' products shared
/// ([`crate::operator::Operator::substitute_parts`]). Each row's bound has the bits of its
/// part's rows bounded alone. Lines given per row ([`LowerLines::PerRow`]) are each row's
/// own; lines given per layer must hold on every part.
pub(super) fn back_substitute_parts(
    layers: &[Layer],
    parts: &mut [PartRows<'_>],
    from: usize,
    rows: Vec<f64>,
    width: usize,
    lines: LowerLines<'_>,
    mut trace: Option<&mut Vec<Vec<f64>>>,
) -> Vec<LowerBound> {
    if let Some(trace) = trace.as_deref_mut() {
        trace.clear();
        trace.resize(from + 1, Vec::new());
    }
    let count = rows.len() / width.max(1);
    let counts: Vec<usize> = parts.iter().map(|p| p.count).collect();
    debug_assert_eq!(counts.iter().sum::<usize>(), count, "every row belongs to one part");
    let mut pass = Pass { g: rows, width, count, acc: vec![0.0f64; count] };
    for k in (0..=from).rev() {
        if let LowerLines::Constrained(_, shifts) = lines
            && let Some(shift) = shifts.get(k).filter(|s| s.len() == pass.width)
        {
            for r in 0..count {
                for (gi, s) in pass.g[r * pass.width..(r + 1) * pass.width].iter_mut().zip(shift) {
                    *gi -= s;
                }
            }
        }
        if let LowerLines::PerRowConstrained(_, shifts) = lines
            && let Some(shift) = shifts.get(k).filter(|s| s.len() == count * pass.width)
        {
            for (gi, s) in pass.g.iter_mut().zip(shift) {
                *gi -= s;
            }
        }
        give_up_on_overflow(&mut pass);
        if let Some(trace) = trace.as_deref_mut() {
            trace[k] = pass.g.clone();
        }
        let lower = match lines {
            LowerLines::Slope(slope) => LowerChoice::Prepared(slope),
            LowerLines::Given(given) | LowerLines::Constrained(given, _) => LowerChoice::Given(&given[k]),
            LowerLines::PerRow(given) | LowerLines::PerRowConstrained(given, _) => LowerChoice::PerRow(&given[k]),
        };
        if let [part] = parts {
            let prepared = part.prepared.get(layers, part.bounds, k);
            layers[k].substitute(prepared, &mut pass, lower);
        } else {
            let prepared: Vec<_> = parts.iter_mut().map(|p| p.prepared.shared(layers, p.bounds, k)).collect();
            let prepared: Vec<&Prepared> = prepared.iter().map(|p| &**p).collect();
            layers[k].substitute_parts(&prepared, &counts, &mut pass, lower);
        }
        give_up_on_overflow(&mut pass);
    }
    let Pass { g, width: g_width, acc, .. } = pass;
    let inputs = parts.iter().flat_map(|p| std::iter::repeat_n(&p.bounds.input, p.count));
    inputs
        .enumerate()
        .map(|(r, input)| {
            let coefficients = g[r * g_width..(r + 1) * g_width].to_vec();
            let value = add_down(acc[r], min_dot(&coefficients, input));
            LowerBound { coefficients, constant: acc[r], value }
        })
        .collect()
}

/// The rows whose coefficients overflowed (or became NaN) bound nothing: the error model of
/// (2), `|fl(G·W) − G·W| ≤ γ_m·|G|·|W| + m·η`, holds only while every sum and product stays
/// finite, and an infinite coefficient times an input of the other sign would give a lower
/// bound of `+∞`. Such a row becomes the bound `0·u + (−∞)`, true everywhere, which no later
/// step can raise (nothing is added to `−∞` but finite numbers: its coefficients are 0).
fn give_up_on_overflow(pass: &mut Pass) {
    let width = pass.width;
    for r in 0..pass.count {
        let row = &mut pass.g[r * width..(r + 1) * width];
        if pass.acc[r].is_nan() || row.iter().any(|g| !g.is_finite()) {
            row.fill(0.0);
            pass.acc[r] = f64::NEG_INFINITY;
        }
    }
}

#[cfg(test)]
#[path = "linear_tests.rs"]
mod tests;
