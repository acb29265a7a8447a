//! [`super::optimise_row`] for many rows at once (the hidden layers' bounds: both ends of every
//! unstable relu input of a layer). Each row keeps its own slopes, as α-CROWN's per-neuron
//! slopes; each step carries every row still below the goal back in one pass and forward
//! through the relaxation in one, so the dense layers are matrix–matrix products instead of a
//! matrix–vector product per row.
//!
//! As for one row, soundness does not depend on this file: every bound returned is computed by
//! the rigorous back-substitution with the slopes chosen.

use super::{SignConstraint, Steps, row_of, row_shifts, start_lines, step_multipliers, step_slopes, unstable_relus};
use crate::float::Interval;
use crate::interval::Bounds;
use crate::linear::{LowerBound, LowerLines, back_substitute_with};
use crate::operator::{ChosenLines, Layer};
use crate::prepare::PreparedLayers;
use crate::relax::{Line, LowerSlope};

/// The best lower bound of `rows[r]·v` (`v` the output of layer `from`, `width` entries a row)
/// over slopes `α ∈ [0, 1]` found from `starts[r]` (the bound with `start`'s lines) by
/// [`Steps::COLD`] sign-gradient steps, each row dropped once its bound is above `goal`.
#[allow(clippy::too_many_arguments, reason = "the search's inputs, each used once")]
pub fn optimise_rows(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &mut PreparedLayers,
    from: usize,
    rows: &[f64],
    width: usize,
    start: LowerSlope,
    starts: Vec<LowerBound>,
    goal: f64,
    signs: &[SignConstraint],
) -> Vec<LowerBound> {
    let mut best = starts;
    let base = start_lines(layers, prepared, from, start);
    let unstable = unstable_relus(layers, bounds, from);
    // Only the constraints on layers the rows are carried through bind them.
    let signs: Vec<SignConstraint> = signs.iter().filter(|c| c.output_of <= from).copied().collect();
    if unstable.iter().all(|u| !u.contains(&true)) && signs.is_empty() {
        return best;
    }
    let mut active: Vec<usize> = (0..best.len()).filter(|&r| best[r].value <= goal).collect();
    let mut lines: Vec<Vec<Line>> = base.iter().map(|b| b.repeat(active.len())).collect();
    // Each row's multipliers β ≥ 0 of the part's sign constraints (row-major), from 0.
    let mut beta = vec![0.0; active.len() * signs.len()];
    let mut trace = Vec::new();
    let mut step = Steps::COLD.first;
    for _ in 0..Steps::COLD.count {
        if active.is_empty() {
            break;
        }
        let n = active.len();
        let these: Vec<f64> = active.iter().flat_map(|&r| rows[r * width..(r + 1) * width].iter().copied()).collect();
        let m = signs.len();
        let signed: Vec<_> = (0..n).map(|a| (signs.as_slice(), &beta[a * m..(a + 1) * m])).collect();
        let shifts = row_shifts(&signed, from, |k| bounds.layers[k].len());
        let chosen =
            if signs.is_empty() { LowerLines::PerRow(&lines) } else { LowerLines::PerRowConstrained(&lines, &shifts) };
        let found = back_substitute_with(layers, bounds, prepared, from, these, width, chosen, Some(&mut trace));
        let coefficients: Vec<f64> = found.iter().flat_map(|f| f.coefficients.iter().copied()).collect();
        let upper = shared_upper_lines(prepared, trace.len());
        let (gradient, values) = slope_gradients(layers, &bounds.input, &upper, &lines, &trace, &coefficients, n);
        for (&r, bound) in active.iter().zip(found) {
            if bound.value > best[r].value {
                best[r] = bound;
            }
        }
        step_slopes(&mut lines, &gradient, &unstable, step);
        for (a, beta) in beta.chunks_mut(m.max(1)).enumerate().take(n) {
            let (met, at) = (|k: usize| row_of(&trace[k], a, n), |k: usize| row_of(&values[k], a, n));
            step_multipliers(beta, &signs, from, met, at, step);
        }
        // The rows past the goal are done: keep the others' lines and multipliers only.
        let keep: Vec<bool> = active.iter().map(|&r| best[r].value <= goal).collect();
        if keep.contains(&false) {
            for (k, layer_lines) in lines.iter_mut().enumerate() {
                let w = base[k].len();
                if w > 0 {
                    *layer_lines =
                        (0..n).filter(|&a| keep[a]).flat_map(|a| layer_lines[a * w..(a + 1) * w].to_vec()).collect();
                }
            }
            let m = signs.len();
            beta = (0..n).filter(|&a| keep[a]).flat_map(|a| beta[a * m..(a + 1) * m].to_vec()).collect();
            active = active.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(r, _)| r).collect();
        }
        step *= 0.6;
    }
    best
}

/// The upper lines of the layers before `layers` (empty for those that are not activations),
/// prepared on one box, for [`slope_gradients`].
pub(super) fn shared_upper_lines(prepared: &PreparedLayers, layers: usize) -> Vec<&[Line]> {
    (0..layers).map(|k| prepared.upper_lines(k).unwrap_or_default()).collect()
}

/// `∂ bound / ∂ α` of every row for every relu's lower slope, and every layer's output at the
/// input each row's bound has its minimum at (row-major per layer), every row carried up at
/// once. `input_coefficients`: the rows' coefficients over the input; `input`: the input box,
/// one for all rows or one per row (row-major); `upper[k]`: the upper lines of activation
/// layer `k`, likewise shared or per row.
pub(super) fn slope_gradients(
    layers: &[Layer],
    input: &[Interval],
    upper: &[&[Line]],
    lines: &[Vec<Line>],
    trace: &[Vec<f64>],
    input_coefficients: &[f64],
    rows: usize,
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    // Each row's bound has its input term at Σ_j min(G_j·lo_j, G_j·hi_j).
    let mut d: Vec<f64> = input_coefficients
        .iter()
        .enumerate()
        .map(|(index, &c)| {
            let x = input[index % input.len()];
            if c >= 0.0 { x.lo } else { x.hi }
        })
        .collect();
    let mut gradient: Vec<Vec<f64>> = lines.iter().map(|l| vec![0.0; l.len()]).collect();
    let mut values = Vec::with_capacity(trace.len());
    for (k, layer) in layers.iter().enumerate().take(trace.len()) {
        let g = &trace[k];
        if layer.splits_at_zero() {
            // The bound's derivative in the slope of an unstable relu that chose its lower line.
            for (index, &gi) in g.iter().enumerate() {
                if gi >= 0.0 {
                    gradient[k][index] = d[index] * gi;
                }
            }
        }
        d = layer.relaxed_forward_rows(d, rows, &ChosenLines { coefficients: g, lower: &lines[k], upper: upper[k] });
        values.push(d.clone());
    }
    (gradient, values)
}
