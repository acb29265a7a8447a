//! Optimised lower slopes (α-CROWN): the lower line `α·z` of an unstable relu is valid for
//! every `α ∈ [0, 1]`, and the best `α` depends on the bound being computed. For one row,
//! the bound is a piecewise-linear function of the slopes; its gradient comes from one pass
//! back up the layers over the coefficients recorded by back-substitution, and projected
//! sign-gradient steps improve it.
//!
//! Soundness does not depend on this file: every bound it returns is computed by the rigorous
//! back-substitution ([`back_substitute_with`]) with the slopes chosen, which charges all
//! rounding; the gradient only steers the choice.

use super::float::Interval;
use super::interval::Bounds;
use super::linear::{LowerBound, LowerLines, back_substitute_with};
use super::operator::{ChosenLines, Layer};
use super::prepare::PreparedLayers;
use super::relax::{Line, LowerSlope};

/// A constraint on the part of a box being bounded: element `neuron` of layer `output_of`'s
/// output is at least 0 (`positive`) or at most 0, as the engine computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignConstraint {
    pub output_of: usize,
    pub neuron: usize,
    pub positive: bool,
}

/// Gradient steps per row: 4, 5 and 6 decide all 186 ACAS Xu instances in 40–46 s, 8 in 81 s
/// (docs/verification.md, "Branch and bound").
const STEPS: usize = 5;

/// The best lower bound of `row·v` (`v` the output of layer `from`) over slopes `α ∈ [0, 1]`
/// found from `start` (the better of the two fixed choices) by `STEPS` sign-gradient steps,
/// stopping early once the bound is above `goal`.
#[allow(clippy::too_many_arguments, reason = "the search's inputs, each used once")]
pub fn optimise_row(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &mut PreparedLayers,
    from: usize,
    row: &[f64],
    start: LowerSlope,
    start_bound: LowerBound,
    goal: f64,
    signs: &[SignConstraint],
) -> LowerBound {
    // The lines of every activation layer up to `from`, starting from `start`'s.
    let mut lines: Vec<Vec<Line>> = (0..=from)
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
    if unstable.iter().all(|u| !u.contains(&true)) && signs.is_empty() {
        return start_bound;
    }
    // The multipliers β ≥ 0 of the sign constraints, as shifts of the coefficients
    // (`β·sign`, see `LowerLines::Constrained`), all starting at 0.
    let mut beta = vec![0.0; signs.len()];
    let mut shifts: Vec<Vec<f64>> = vec![Vec::new(); from + 1];
    for c in signs.iter().filter(|c| c.output_of <= from) {
        shifts[c.output_of] = vec![0.0; bounds.layers[c.output_of].len()];
    }
    let mut best = start_bound;
    let mut trace = Vec::new();
    let mut step = 0.5;
    for _ in 0..STEPS {
        if best.value > goal {
            break;
        }
        let found = back_substitute_with(
            layers,
            bounds,
            prepared,
            from,
            row.to_vec(),
            row.len(),
            if signs.is_empty() { LowerLines::Given(&lines) } else { LowerLines::Constrained(&lines, &shifts) },
            Some(&mut trace),
        )
        .pop()
        .expect("one row in, one bound out");
        let coefficients = found.coefficients.clone();
        if found.value > best.value {
            best = found;
        }
        let (gradient, values) = slope_gradient(layers, bounds, prepared, &lines, &trace, &coefficients);
        // ∂ bound / ∂ β = −sign·v at the relaxation's minimiser; a step scaled to the size of
        // the coefficients met at that layer.
        for (c, b) in signs.iter().zip(beta.iter_mut()) {
            if c.output_of > from {
                continue;
            }
            let sign = if c.positive { 1.0 } else { -1.0 };
            let scale = trace[c.output_of].iter().fold(0.0f64, |m, g| m.max(g.abs()));
            let slope = -sign * values[c.output_of][c.neuron];
            if slope != 0.0 && scale.is_finite() {
                *b = (*b + step * scale * slope.signum()).max(0.0);
            }
            shifts[c.output_of][c.neuron] = *b * sign;
        }
        for (k, g) in gradient.iter().enumerate() {
            for (i, d) in g.iter().enumerate() {
                // Only an unstable relu has a slope to choose (tanh and sigmoid have none).
                if unstable[k].get(i) == Some(&true) && *d != 0.0 {
                    let slope = &mut lines[k][i].slope;
                    *slope = (*slope + step * d.signum()).clamp(0.0, 1.0);
                }
            }
        }
        step *= 0.6;
    }
    best
}

/// `∂ bound / ∂ α` for every relu's lower slope, by one pass from the input up: `d` is the
/// bound's derivative with respect to the coefficients over a layer's input, carried to its
/// output's (`trace[k]`) by the layer's transpose, and each unstable relu whose coefficient
/// chose the lower line (`g ≥ 0`) gets `d_i·g_i`.
///
/// Also returns each layer's output at the input the bound's minimum is at, through the lines
/// (`d` after the layer), for the gradient of the multipliers.
fn slope_gradient(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &PreparedLayers,
    lines: &[Vec<Line>],
    trace: &[Vec<f64>],
    input_coefficients: &[f64],
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    // The bound's input term is Σ_j min(G_j·lo_j, G_j·hi_j).
    let mut d: Vec<f64> =
        input_coefficients.iter().zip(&bounds.input).map(|(&c, x)| if c >= 0.0 { x.lo } else { x.hi }).collect();
    let mut gradient: Vec<Vec<f64>> = lines.iter().map(|l| vec![0.0; l.len()]).collect();
    let mut values = Vec::with_capacity(trace.len());
    for (k, layer) in layers.iter().enumerate().take(trace.len()) {
        let g = &trace[k];
        if layer.splits_at_zero() {
            // The bound's derivative in the slope of an unstable relu that chose its lower line.
            for (i, &gi) in g.iter().enumerate() {
                if gi >= 0.0 {
                    gradient[k][i] = d[i] * gi;
                }
            }
        }
        let upper = prepared.upper_lines(k).unwrap_or_default();
        d = layer.relaxed_forward(d, &ChosenLines { coefficients: g, lower: &lines[k], upper });
        values.push(d.clone());
    }
    (gradient, values)
}

#[cfg(test)]
#[path = "alpha_tests.rs"]
mod tests;
