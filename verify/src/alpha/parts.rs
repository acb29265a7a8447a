//! [`super::optimise_row_from`] for a batch of parts of a box (β-CROWN's batched subdomains):
//! one row on each part, each part with its own bounds, sign constraints, slopes and
//! multipliers, every step carrying all parts still below the goal back in one pass
//! ([`back_substitute_parts`]: the dense layers' products shared) and forward in one. Each
//! part's bound and end have the bits of the part optimised alone: the steps are the same
//! arithmetic row by row, and a part past the goal simply leaves the batch.
//!
//! As for one row, soundness does not depend on this file: every bound returned is computed by
//! the rigorous back-substitution with the part's own bounds and the lines chosen.

use super::rows::slope_gradients;
use super::{
    SignConstraint, Steps, Warm, row_of, row_shifts, start_lines, step_multipliers, step_slopes, unstable_relus,
};
use crate::float::Interval;
use crate::interval::Bounds;
use crate::linear::{BATCH_ROWS, LowerBound, LowerLines, PartRows, back_substitute_parts};
use crate::operator::Layer;
use crate::prepare::PreparedLayers;
use crate::relax::{Line, LowerSlope};

/// One part of a box in a batch of [`optimise_parts`], with the row to bound on it.
pub struct RowOnPart<'a> {
    pub bounds: &'a Bounds,
    pub prepared: &'a mut PreparedLayers,
    pub row: &'a [f64],
    /// The bound the optimisation starts from (the better of the two fixed choices).
    pub start_bound: LowerBound,
    /// The part's sign constraints (those after the layer bounded are ignored).
    pub signs: &'a [SignConstraint],
    /// Where the optimisation of a box holding the part ended, if it is to start there.
    pub warm: Option<&'a Warm>,
}

/// Where one part's optimisation stands between steps (its lines are the batch's).
struct PartState {
    beta: Vec<f64>,
    best: LowerBound,
    best_warm: Option<Warm>,
    /// Whether it has free slopes or multipliers to optimise at all.
    free: bool,
}

/// Per activation layer, one array for the rows of all parts in their order (row-major): the
/// lines of the rows being optimised, which of them may move, and the upper lines.
struct BatchLines {
    lines: Vec<Vec<Line>>,
    unstable: Vec<Vec<bool>>,
    upper: Vec<Vec<Line>>,
}

impl BatchLines {
    /// Part `p`'s own lines of layer `k`.
    fn of(&self, k: usize, p: usize, parts: usize) -> &[Line] {
        let width = self.lines[k].len() / parts;
        &self.lines[k][p * width..(p + 1) * width]
    }

    /// The arrays of the parts in `active` only (all of them: as they are).
    fn gather<T: Copy>(all: &[Vec<T>], active: &[usize], parts: usize) -> Vec<Vec<T>> {
        all.iter()
            .map(|layer| {
                let width = layer.len() / parts;
                active.iter().flat_map(|&p| layer[p * width..(p + 1) * width].iter().copied()).collect()
            })
            .collect()
    }
}

/// For each part, the best lower bound of `row·v` (`v` the output of layer `from`) over slopes
/// `α ∈ [0, 1]` and multipliers `β ≥ 0` found from `start`'s lines (or the part's warm start)
/// by `steps` sign-gradient steps, the part leaving the batch once its bound is above `goal`;
/// and where it ended, for the parts of that part. The layers up to `from` must be prepared
/// on each part's bounds (as the fixed slopes' pass leaves them).
pub fn optimise_parts(
    layers: &[Layer],
    parts: &mut [RowOnPart<'_>],
    from: usize,
    start: LowerSlope,
    goal: f64,
    steps: Steps,
) -> Vec<(LowerBound, Warm)> {
    // A part's steps are its own: groups of parts go through one after the other, each
    // within the rows a batch carries at once.
    if parts.len() > BATCH_ROWS {
        return parts
            .chunks_mut(BATCH_ROWS)
            .flat_map(|group| optimise_parts(layers, group, from, start, goal, steps))
            .collect();
    }
    let count = parts.len();
    let (mut batch, mut states) = begin(layers, parts, from, start);
    let width = parts.first().map_or(0, |p| p.row.len());
    let input_all: Vec<Interval> = parts.iter().flat_map(|p| p.bounds.input.iter().copied()).collect();
    let mut trace = Vec::new();
    let mut step = steps.first;
    for _ in 0..steps.count {
        let active: Vec<usize> = (0..count).filter(|&p| states[p].free && states[p].best.value <= goal).collect();
        if active.is_empty() {
            break;
        }
        let n = active.len();
        let all = n == count;
        let rows: Vec<f64> = active.iter().flat_map(|&p| parts[p].row.iter().copied()).collect();
        let gathered;
        let lines = if all {
            &batch.lines
        } else {
            gathered = BatchLines::gather(&batch.lines, &active, count);
            &gathered
        };
        let signed: Vec<_> = active.iter().map(|&p| (parts[p].signs, states[p].beta.as_slice())).collect();
        let shifts = row_shifts(&signed, from, |k| parts[active[0]].bounds.layers[k].len());
        let constrained = active.iter().any(|&p| !parts[p].signs.is_empty());
        let chosen =
            if constrained { LowerLines::PerRowConstrained(lines, &shifts) } else { LowerLines::PerRow(lines) };
        let found = {
            let mut group: Vec<PartRows<'_>> = parts
                .iter_mut()
                .enumerate()
                .filter(|(p, _)| all || active.contains(p))
                .map(|(_, part)| PartRows { bounds: part.bounds, prepared: &mut *part.prepared, count: 1 })
                .collect();
            back_substitute_parts(layers, &mut group, from, rows, width, chosen, Some(&mut trace))
        };
        let coefficients: Vec<f64> = found.iter().flat_map(|f| f.coefficients.iter().copied()).collect();
        for (&p, found) in active.iter().zip(found) {
            if found.value > states[p].best.value || states[p].best_warm.is_none() {
                if found.value > states[p].best.value {
                    states[p].best = found;
                }
                states[p].best_warm = Some(ended(layers, from, &batch, p, count, &states[p].beta));
            }
        }
        // Each row's input box and upper lines are its part's.
        let (input_of_active, upper_of_active);
        let (input, upper): (&[Interval], &[Vec<Line>]) = if all {
            (&input_all, &batch.upper)
        } else {
            input_of_active = active.iter().flat_map(|&p| parts[p].bounds.input.iter().copied()).collect::<Vec<_>>();
            upper_of_active = BatchLines::gather(&batch.upper, &active, count);
            (&input_of_active, &upper_of_active)
        };
        let upper: Vec<&[Line]> = upper.iter().map(Vec::as_slice).collect();
        let (gradient, values) = slope_gradients(layers, input, &upper, lines, &trace, &coefficients, n);
        for (a, &p) in active.iter().enumerate() {
            let (met, at) = (|k: usize| row_of(&trace[k], a, n), |k: usize| row_of(&values[k], a, n));
            step_multipliers(&mut states[p].beta, parts[p].signs, from, met, at, step);
        }
        if all {
            step_slopes(&mut batch.lines, &gradient, &batch.unstable, step);
        } else {
            let mut moved = BatchLines::gather(&batch.lines, &active, count);
            step_slopes(&mut moved, &gradient, &BatchLines::gather(&batch.unstable, &active, count), step);
            for (k, layer) in moved.iter().enumerate() {
                let w = layer.len() / n;
                for (a, &p) in active.iter().enumerate() {
                    batch.lines[k][p * w..(p + 1) * w].copy_from_slice(&layer[a * w..(a + 1) * w]);
                }
            }
        }
        step *= 0.6;
    }
    states
        .into_iter()
        .enumerate()
        .map(|(p, s)| {
            if !s.free {
                return (s.best, Warm::default());
            }
            let end = s.best_warm.unwrap_or_else(|| ended(layers, from, &batch, p, count, &s.beta));
            (s.best, end)
        })
        .collect()
}

/// The batch's lines and each part's state before the first step: the lines of `start` (the
/// slopes of relus still unstable here taken from the part's warm start, if any), the
/// multipliers from the warm start (a constraint added since starts at 0).
fn begin(layers: &[Layer], parts: &[RowOnPart<'_>], from: usize, start: LowerSlope) -> (BatchLines, Vec<PartState>) {
    let mut batch = BatchLines {
        lines: vec![Vec::new(); from + 1],
        unstable: vec![Vec::new(); from + 1],
        upper: vec![Vec::new(); from + 1],
    };
    let mut states = Vec::with_capacity(parts.len());
    for part in parts {
        let mut lines = start_lines(layers, part.prepared, from, start);
        let unstable = unstable_relus(layers, part.bounds, from);
        let free = unstable.iter().any(|u| u.contains(&true)) || !part.signs.is_empty();
        let mut beta = vec![0.0; part.signs.len()];
        if let Some(warm) = part.warm {
            for (b, w) in beta.iter_mut().zip(&warm.beta) {
                *b = w.max(0.0);
            }
            // Only the slope of a relu still unstable is chosen: a stable one keeps its line.
            for (k, slopes) in warm.slopes.iter().enumerate().take(from + 1) {
                for ((line, &alpha), &free) in lines[k].iter_mut().zip(slopes).zip(&unstable[k]) {
                    if free {
                        line.slope = f64::from(alpha).clamp(0.0, 1.0);
                    }
                }
            }
        }
        for k in 0..=from {
            batch.lines[k].extend(&lines[k]);
            batch.unstable[k].extend(&unstable[k]);
            if !lines[k].is_empty() {
                batch.upper[k].extend(part.prepared.upper_lines(k).unwrap_or_default());
            }
        }
        // Without a warm start the fixed slopes' bound is the best so far; with one, the first
        // pass's bound replaces it when better.
        let best_warm = part.warm.is_none().then(|| warm_of(layers, from, |k| &lines[k], &beta));
        states.push(PartState { beta, best: part.start_bound.clone(), best_warm, free });
    }
    (batch, states)
}

/// Part `p`'s warm start in the batch (of `parts` parts): its relus' slopes and multipliers.
fn ended(layers: &[Layer], from: usize, batch: &BatchLines, p: usize, parts: usize, beta: &[f64]) -> Warm {
    warm_of(layers, from, |k| batch.of(k, p, parts), beta)
}

/// The warm start of these lines (`lines(k)`: layer `k`'s) and multipliers: the relus' slopes
/// (empty for other layers).
fn warm_of<'l>(layers: &[Layer], from: usize, lines: impl Fn(usize) -> &'l [Line], beta: &[f64]) -> Warm {
    Warm {
        slopes: (0..=from)
            .map(|k| {
                if layers[k].splits_at_zero() { lines(k).iter().map(|l| l.slope as f32).collect() } else { Vec::new() }
            })
            .collect(),
        beta: beta.to_vec(),
    }
}
