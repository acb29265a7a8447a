//! Optimised lower slopes (α-CROWN): the lower line `α·z` of an unstable relu is valid for
//! every `α ∈ [0, 1]`, and the best `α` depends on the bound being computed. For one row,
//! the bound is a piecewise-linear function of the slopes; its gradient comes from one pass
//! back up the layers over the coefficients recorded by back-substitution, and projected
//! sign-gradient steps improve it.
//!
//! Soundness does not depend on this file: every bound it returns is computed by the rigorous
//! back-substitution ([`back_substitute_with`]) with the slopes chosen, which charges all
//! rounding; the gradient only steers the choice.

mod parts;
mod rows;

pub use self::parts::{RowOnPart, optimise_parts};
pub use self::rows::optimise_rows;

use super::float::Interval;
use super::interval::Bounds;
use super::linear::LowerBound;
use super::operator::Layer;
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

/// Where an optimisation ended, to start a part's optimisation from its box's (β-CROWN's warm
/// start): the lower slopes of the best bound (per layer, empty for layers that are not relus;
/// any slope in `[0, 1]` is a valid line, so `f32` is enough and halves what the queue keeps)
/// and the multipliers of the sign constraints it had (in their order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Warm {
    slopes: Vec<Vec<f32>>,
    beta: Vec<f64>,
}

/// The best lower bound of `row·v` (`v` the output of layer `from`) over slopes `α ∈ [0, 1]`
/// found from `start` (the better of the two fixed choices) by [`Steps::COLD`] sign-gradient steps,
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
    optimise_row_from(layers, bounds, prepared, from, row, start, start_bound, goal, signs, None, Steps::COLD).0
}

/// The sign-gradient steps of one optimisation: how many, and the first one's size (each next
/// is 0.6 times the last).
#[derive(Clone, Copy, Debug)]
pub struct Steps {
    pub count: usize,
    pub first: f64,
}

impl Steps {
    /// From the fixed slopes: 5 steps, the first of 1/2 (4, 5 and 6 decide all 186 ACAS Xu
    /// instances in 40–46 s, 8 in 81 s: docs/verification.md, "Branch and bound").
    pub const COLD: Steps = Steps { count: 5, first: 0.5 };
    /// From where the box's optimisation ended (a relu part): 5 steps of a fifth of that size;
    /// larger ones throw the warm start away (on mnist_fc 256×4 `prop_3_0.05` a first step of
    /// 1/2 left half of the search open after 30 s, 1/10 a tenth, 1/20 and 1/5 more than 1/10).
    pub const WARM: Steps = Steps { count: 5, first: 0.1 };
}

/// [`optimise_row`], starting from `warm` where given (the slopes of relus still unstable here
/// and the multipliers of the constraints it had; a constraint added since starts at 0), and
/// returning where it ended for the parts of this box.
#[allow(clippy::too_many_arguments, reason = "the search's inputs, each used once")]
pub fn optimise_row_from(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &mut PreparedLayers,
    from: usize,
    row: &[f64],
    start: LowerSlope,
    start_bound: LowerBound,
    goal: f64,
    signs: &[SignConstraint],
    warm: Option<&Warm>,
    steps: Steps,
) -> (LowerBound, Warm) {
    let part = RowOnPart { bounds, prepared, row, start_bound, signs, warm };
    optimise_parts(layers, &mut [part], from, start, goal, steps).pop().expect("one part in, one out")
}

/// The lines of every activation layer up to `from`, as `start` chooses them (empty for the
/// other layers).
fn start_lines(layers: &[Layer], prepared: &PreparedLayers, from: usize, start: LowerSlope) -> Vec<Vec<Line>> {
    (0..=from)
        .map(|k| {
            let lines = layers[k].is_activation().then(|| prepared.lower_lines(k, start)).flatten();
            lines.map(<[Line]>::to_vec).unwrap_or_default()
        })
        .collect()
}

/// Which inputs of each relu layer up to `from` can have both signs (empty for other layers):
/// only their slopes are free.
fn unstable_relus(layers: &[Layer], bounds: &Bounds, from: usize) -> Vec<Vec<bool>> {
    (0..=from)
        .map(|k| {
            let unstable = |z: &Interval| z.lo < 0.0 && z.hi > 0.0;
            if layers[k].splits_at_zero() { bounds.input_of(k).iter().map(unstable).collect() } else { Vec::new() }
        })
        .collect()
}

/// One sign-gradient step of size `step` for the slope of every unstable relu (`unstable[k]`
/// per element of layer `k`), in `lines` laid out as `gradient` is (rows of layer `k`'s width,
/// one row or many). Tanh and sigmoid have no slope to choose.
fn step_slopes(lines: &mut [Vec<Line>], gradient: &[Vec<f64>], unstable: &[Vec<bool>], step: f64) {
    for (k, g) in gradient.iter().enumerate() {
        let width = unstable[k].len();
        for (index, d) in g.iter().enumerate() {
            // A NaN derivative (weights near overflow) says nothing: the slope stays.
            if width > 0 && unstable[k][index % width] && *d != 0.0 && !d.is_nan() {
                let slope = &mut lines[k][index].slope;
                *slope = (*slope + step * d.signum()).clamp(0.0, 1.0);
            }
        }
    }
}

/// The shifts of [`LowerLines::PerRowConstrained`] for rows each with its own constraints and
/// multipliers (`rows[a]`: row `a`'s): `β·sign` at each constrained element of the row, for the
/// constraints on layers up to `from` (every layer with a constraint of any row gets a vector,
/// the other rows' entries there 0). `width(k)`: the width of layer `k`'s output.
fn row_shifts(rows: &[(&[SignConstraint], &[f64])], from: usize, width: impl Fn(usize) -> usize) -> Vec<Vec<f64>> {
    let n = rows.len();
    let mut shifts: Vec<Vec<f64>> = vec![Vec::new(); from + 1];
    for (a, (signs, beta)) in rows.iter().enumerate() {
        for (c, b) in signs.iter().zip(beta.iter()) {
            if c.output_of > from {
                continue;
            }
            let w = width(c.output_of);
            let shift = &mut shifts[c.output_of];
            if shift.is_empty() {
                shift.resize(n * w, 0.0);
            }
            shift[a * w + c.neuron] = if c.positive { *b } else { -*b };
        }
    }
    shifts
}

/// One sign-gradient step of a part's multipliers: `∂ bound / ∂ β = −sign·v` at the
/// relaxation's minimiser (`values(k)`: layer `k`'s), a step scaled to the size of the
/// coefficients met at that layer (`trace(k)`), the part's row alone in both.
fn step_multipliers<'t>(
    beta: &mut [f64],
    signs: &[SignConstraint],
    from: usize,
    trace: impl Fn(usize) -> &'t [f64],
    values: impl Fn(usize) -> &'t [f64],
    step: f64,
) {
    for (c, b) in signs.iter().zip(beta.iter_mut()) {
        if c.output_of > from {
            continue;
        }
        let sign = if c.positive { 1.0 } else { -1.0 };
        let scale = trace(c.output_of).iter().fold(0.0f64, |m, g| m.max(g.abs()));
        let slope = -sign * values(c.output_of)[c.neuron];
        if slope != 0.0 && scale.is_finite() {
            *b = (*b + step * scale * slope.signum()).max(0.0);
        }
    }
}

/// Row `a`'s entries of a layer's array for `n` rows (row-major).
fn row_of(layer: &[f64], a: usize, n: usize) -> &[f64] {
    let w = layer.len() / n;
    &layer[a * w..(a + 1) * w]
}

#[cfg(test)]
#[path = "alpha_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "alpha_batch_tests.rs"]
mod batch_tests;
