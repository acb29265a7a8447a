//! [`super::optimise_row`] for many rows at once (the hidden layers' bounds: both ends of every
//! unstable relu input of a layer). Each row keeps its own slopes, as α-CROWN's per-neuron
//! slopes; each step carries every row still below the goal back in one pass and forward
//! through the relaxation in one, so the dense layers are matrix–matrix products instead of a
//! matrix–vector product per row.
//!
//! As for one row, soundness does not depend on this file: every bound returned is computed by
//! the rigorous back-substitution with the slopes chosen.

use super::Steps;
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
) -> Vec<LowerBound> {
    let mut best = starts;
    let base: Vec<Vec<Line>> = (0..=from)
        .map(|k| {
            let lines = layers[k].is_activation().then(|| prepared.lower_lines(k, start)).flatten();
            lines.map(<[Line]>::to_vec).unwrap_or_default()
        })
        .collect();
    let unstable: Vec<Vec<bool>> = (0..=from)
        .map(|k| {
            let unstable = |z: &Interval| z.lo < 0.0 && z.hi > 0.0;
            if layers[k].splits_at_zero() { bounds.input_of(k).iter().map(unstable).collect() } else { Vec::new() }
        })
        .collect();
    if unstable.iter().all(|u| !u.contains(&true)) {
        return best;
    }
    let mut active: Vec<usize> = (0..best.len()).filter(|&r| best[r].value <= goal).collect();
    let mut lines: Vec<Vec<Line>> = base.iter().map(|b| b.repeat(active.len())).collect();
    let mut trace = Vec::new();
    let mut step = Steps::COLD.first;
    for _ in 0..Steps::COLD.count {
        if active.is_empty() {
            break;
        }
        let n = active.len();
        let these: Vec<f64> = active.iter().flat_map(|&r| rows[r * width..(r + 1) * width].iter().copied()).collect();
        let found = back_substitute_with(
            layers,
            bounds,
            prepared,
            from,
            these,
            width,
            LowerLines::PerRow(&lines),
            Some(&mut trace),
        );
        let gradient = slope_gradients(layers, bounds, prepared, &lines, &trace, &found);
        for (&r, bound) in active.iter().zip(found) {
            if bound.value > best[r].value {
                best[r] = bound;
            }
        }
        for (k, g) in gradient.iter().enumerate() {
            let w = unstable[k].len();
            for (index, d) in g.iter().enumerate() {
                if w > 0 && unstable[k][index % w] && *d != 0.0 {
                    let slope = &mut lines[k][index].slope;
                    *slope = (*slope + step * d.signum()).clamp(0.0, 1.0);
                }
            }
        }
        // The rows past the goal are done: keep the others' lines only.
        let keep: Vec<bool> = active.iter().map(|&r| best[r].value <= goal).collect();
        if keep.contains(&false) {
            for (k, layer_lines) in lines.iter_mut().enumerate() {
                let w = base[k].len();
                if w > 0 {
                    *layer_lines =
                        (0..n).filter(|&a| keep[a]).flat_map(|a| layer_lines[a * w..(a + 1) * w].to_vec()).collect();
                }
            }
            active = active.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(r, _)| r).collect();
        }
        step *= 0.6;
    }
    best
}

/// `∂ bound / ∂ α` of every row for every relu's lower slope (row-major per layer), as
/// `super::slope_gradient` computes it for one row, with every row carried up at once.
fn slope_gradients(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &PreparedLayers,
    lines: &[Vec<Line>],
    trace: &[Vec<f64>],
    found: &[LowerBound],
) -> Vec<Vec<f64>> {
    let n = found.len();
    // Each row's bound has its input term at Σ_j min(G_j·lo_j, G_j·hi_j).
    let mut d: Vec<f64> = found
        .iter()
        .flat_map(|f| f.coefficients.iter().zip(&bounds.input).map(|(&c, x)| if c >= 0.0 { x.lo } else { x.hi }))
        .collect();
    let mut gradient: Vec<Vec<f64>> = lines.iter().map(|l| vec![0.0; l.len()]).collect();
    for (k, layer) in layers.iter().enumerate().take(trace.len()) {
        let g = &trace[k];
        if layer.splits_at_zero() {
            for (index, &gi) in g.iter().enumerate() {
                if gi >= 0.0 {
                    gradient[k][index] = d[index] * gi;
                }
            }
        }
        let upper = prepared.upper_lines(k).unwrap_or_default();
        d = layer.relaxed_forward_rows(d, n, &ChosenLines { coefficients: g, lower: &lines[k], upper });
    }
    gradient
}
