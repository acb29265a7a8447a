//! Hidden bounds refined by relu splits: the lower bound of one element of a hidden layer,
//! found by branch and bound over the signs of the relus before it (what α,β-CROWN's
//! `bab-refine` gets from a MIP solver, here with the verifier's own rigorous bounds).
//!
//! The box is cut into parts where an unstable relu's input, as the engine computes it, is at
//! most 0 and at least 0; the parts cover the box. Each part's bound is one of
//! [`crate::linear`]'s rigorous back-substitutions, with the part's own bounds (its relus'
//! inputs cut to their signs, intersected with everything known on the box) and multipliers
//! of its sign constraints (β-CROWN, [`crate::alpha`]). So at any moment the least bound of
//! the parts not yet split is a lower bound over the whole box: the search can stop whenever
//! its budget runs out, and what it found holds. A part whose bounds fail to meet holds no
//! point and bounds nothing. Only the order of the work and the choice of relus rest on
//! heuristics (docs/verification.md, "Refined hidden bounds").

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

use rayon::prelude::*;

use super::alpha::{RowOnPart, SignConstraint, Steps, Warm, optimise_parts};
use super::deadline::Deadline;
use super::float::Interval;
use super::interval::Bounds;
use super::linear::{LowerBound, PartRows, back_substitute_batch};
use super::operator::Layer;
use super::prepare::PreparedLayers;
use super::relax::LowerSlope;
use super::split::relu_to_split;
use super::tighten::{NoBound, Slopes, bounds_within, meet, tighten_from};

/// A part of the box in the search for one element's bound.
struct Part {
    /// Its lower bound of the row (every point of the part is at least this).
    value: f64,
    bounds: Arc<Vec<Vec<Interval>>>,
    signs: Vec<SignConstraint>,
    warm: Warm,
    /// Its layers as its bounds prepared them.
    prepared: PreparedLayers,
}

impl PartialEq for Part {
    fn eq(&self, other: &Part) -> bool {
        self.value.total_cmp(&other.value) == Ordering::Equal
    }
}
impl Eq for Part {}
impl PartialOrd for Part {
    fn partial_cmp(&self, other: &Part) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Part {
    /// The worst bound first (a max-heap of the negated order).
    fn cmp(&self, other: &Part) -> Ordering {
        other.value.total_cmp(&self.value)
    }
}

/// The lower bound of `row·v` (`v` the output of the last of `layers`, `row` over its
/// elements) on the box of `bounds`, at least `known` (a bound already found on the box),
/// tightened by splitting relus until every part's bound is above `goal`, `parts` parts have
/// been bounded, or `deadline` passes.
pub fn refined_lower(
    layers: &[Layer],
    bounds: &Bounds,
    row: &[f64],
    known: f64,
    goal: f64,
    parts: usize,
    deadline: Deadline,
) -> f64 {
    if deadline.passed() {
        return known;
    }
    let whole = Cut {
        bounds: Arc::new(bounds.layers.clone()),
        signs: Vec::new(),
        warm: None,
        prepared: PreparedLayers::new(layers.len()),
        known,
    };
    let mut open: BinaryHeap<Part> =
        bound_parts(layers, &bounds.input, vec![whole], row, deadline).into_iter().collect();
    if open.is_empty() {
        return known;
    }
    // Parts with no unstable relu left: their bound is as good as it gets.
    let mut settled = f64::INFINITY;
    let mut bounded = 1;
    while let Some(worst) = open.peek() {
        if worst.value > goal || worst.value >= settled || bounded >= parts || deadline.passed() {
            break;
        }
        // The worst parts, each cut in two, bounded in one batch.
        let mut cuts = Vec::new();
        while cuts.len() < BATCHED_PARTS
            && bounded + cuts.len() < parts
            && open.peek().is_some_and(|worst| worst.value <= goal && worst.value < settled)
        {
            let worst = open.pop().expect("peeked");
            let part_bounds = Bounds { input: bounds.input.clone(), layers: worst.bounds.to_vec() };
            let mut prepared = worst.prepared.clone();
            let Some((layer, neuron)) = relu_to_split(layers, &part_bounds, &mut prepared, row) else {
                settled = settled.min(worst.value);
                continue;
            };
            for positive in [true, false] {
                let side =
                    if positive { Interval::new(0.0, f64::INFINITY) } else { Interval::new(f64::NEG_INFINITY, 0.0) };
                let mut cut = worst.bounds.to_vec();
                let z = &mut cut[layer - 1][neuron];
                // The relu is unstable here (lo < 0 < hi), so each side meets it.
                *z = z.meet(side).unwrap_or(*z);
                let mut signs = worst.signs.clone();
                signs.push(SignConstraint { output_of: layer - 1, neuron, positive });
                let warm = Some(worst.warm.clone());
                cuts.push(Cut {
                    bounds: Arc::new(cut),
                    signs,
                    warm,
                    prepared: prepared.for_part(layers, layer),
                    known: worst.value,
                });
            }
        }
        bounded += cuts.len();
        // A part left out holds no point (its bounds do not meet).
        open.extend(bound_parts(layers, &bounds.input, cuts, row, deadline));
    }
    open.iter().map(|p| p.value).fold(settled, f64::min)
}

/// A part of the box cut out of a bounded one, to be bounded: its bounds (the bounded part's,
/// one relu's input cut to a sign), its sign constraints, where the bounded part's
/// optimisation ended, its layers as the bounded part's bounds prepared them (those before the
/// cut), and the bounded part's bound (a bound on a box holding it).
#[derive(Clone)]
struct Cut {
    bounds: Arc<Vec<Vec<Interval>>>,
    signs: Vec<SignConstraint>,
    warm: Option<Warm>,
    prepared: PreparedLayers,
    known: f64,
}

/// Bounds a batch of parts, each as alone ([`back_substitute_batch`], [`optimise_parts`]):
/// its layers' interval bounds from the input, each intersected with the part's own, then
/// `row`'s bound with the part's signs, at least what is known. A part that holds no point is
/// left out.
fn bound_parts(layers: &[Layer], input: &[Interval], cuts: Vec<Cut>, row: &[f64], deadline: Deadline) -> Vec<Part> {
    let mut done = Vec::new();
    let mut ready = Vec::new();
    for cut in cuts {
        // Every part has the box's input, and the bounds it holds were met with their
        // intervals there; nothing before its newest sign's relu changed.
        let kept = cut.signs.last().map_or(0, |c| c.output_of + 1);
        match bounds_within(layers, input, Some(&cut.bounds), kept) {
            Ok(found) => ready.push((Bounds { input: input.to_vec(), layers: found }, cut)),
            // The part's bounds do not meet: it holds no point.
            Err(NoBound::Empty) if !cut.signs.is_empty() => {}
            // A NaN may be computed on the part (or the whole box's bounds failed): nothing
            // new is known of it.
            Err(_) => done.push(Part {
                value: cut.known,
                bounds: cut.bounds,
                signs: cut.signs,
                warm: cut.warm.unwrap_or_default(),
                prepared: cut.prepared,
            }),
        }
    }
    if ready.is_empty() {
        return done;
    }
    let last = layers.len() - 1;
    let fixed = {
        let mut batch: Vec<PartRows<'_>> =
            ready.iter_mut().map(|(b, c)| PartRows { bounds: b, prepared: &mut c.prepared, count: 1 }).collect();
        let rows = row.repeat(batch.len());
        back_substitute_batch(layers, &mut batch, last, rows, row.len())
    };
    let ended: Vec<(LowerBound, Warm)> = if deadline.passed() {
        fixed.iter().zip(&ready).map(|(f, (_, c))| (f.clone(), c.warm.clone().unwrap_or_default())).collect()
    } else {
        // A batch is the whole box alone, or parts cut from bounded ones (all warm).
        let steps = if ready[0].1.warm.is_some() { Steps::WARM } else { Steps::COLD };
        let mut batch: Vec<RowOnPart<'_>> = ready
            .iter_mut()
            .zip(&fixed)
            .map(|((bounds, cut), start_bound)| {
                let Cut { prepared, signs, warm, .. } = cut;
                RowOnPart { bounds, prepared, row, start_bound: start_bound.clone(), signs, warm: warm.as_ref() }
            })
            .collect();
        optimise_parts(layers, &mut batch, last, LowerSlope::Chord, f64::INFINITY, steps)
    };
    for (((bounds, cut), fixed), (optimised, warm)) in ready.into_iter().zip(fixed).zip(ended) {
        let value = fixed.value.max(optimised.value).max(cut.known);
        done.push(Part { value, bounds: Arc::new(bounds.layers), signs: cut.signs, warm, prepared: cut.prepared });
    }
    done
}

/// Refines both ends of every element of layer `k`'s output that feeds a relu and can still
/// have both signs, each by [`refined_lower`] over the layers up to `k` with at most `parts`
/// parts, all elements in parallel. The bounds of the layers after `k` are left as they are
/// (still sound: they hold for looser bounds of layer `k`).
pub fn refine_layer(
    layers: &[Layer],
    bounds: &mut Bounds,
    k: usize,
    parts: usize,
    deadline: Deadline,
) -> Result<(), NoBound> {
    let prefix = &layers[..=k];
    let prefix_bounds = Bounds { input: bounds.input.clone(), layers: bounds.layers[..=k].to_vec() };
    let width = bounds.layers[k].len();
    let ends: Vec<(usize, f64)> = (0..width)
        .filter(|&i| bounds.layers[k][i].lo < 0.0 && bounds.layers[k][i].hi > 0.0)
        .flat_map(|i| [(i, 1.0), (i, -1.0)])
        .collect();
    // Each end gets an equal share of the time (the ends run a thread each at a time), so
    // that the ends taken last are not left without any.
    let started = std::time::Instant::now();
    let per_end = deadline.instant().map(|end| {
        let threads = rayon::current_num_threads().max(1) as u32;
        end.saturating_duration_since(started) * threads / (ends.len().max(1) as u32)
    });
    let known = |&(i, sign): &(usize, f64)| {
        let z = prefix_bounds.layers[k][i];
        if sign > 0.0 { z.lo } else { -z.hi }
    };
    let refine = |ends: &[(usize, f64)]| -> Vec<f64> {
        ends.par_iter()
            .map(|end| {
                let mut row = vec![0.0; width];
                row[end.0] = end.1;
                let until = per_end.map_or(deadline, |d| deadline.earlier(std::time::Instant::now() + d));
                refined_lower(prefix, &prefix_bounds, &row, known(end), 0.0, parts, until)
            })
            .collect()
    };
    // A sample of the ends first: where refining brings them only a little of the way to 0,
    // the rest of the layer is left as it is (the last hidden layers of mnist_fc's networks
    // gained 5% of their relus' gaps in more than half the time; the others, 25–97%).
    let sample = ends.len().min((ends.len() / PROBED_SHARE).max(PROBED_AT_LEAST * rayon::current_num_threads()));
    let mut found = refine(&ends[..sample]);
    let closed = ends[..sample].iter().zip(&found).map(|(end, &v)| ((v - known(end)) / -known(end)).min(1.0));
    if closed.sum::<f64>() >= MIN_CLOSED * sample as f64 {
        found.extend(refine(&ends[sample..]));
    }
    for (&(i, sign), value) in ends.iter().zip(found) {
        let side =
            if sign > 0.0 { Interval::new(value, f64::INFINITY) } else { Interval::new(f64::NEG_INFINITY, -value) };
        bounds.layers[k][i] = meet(bounds.layers[k][i], side)?;
    }
    Ok(())
}

/// Refines the relu inputs of every hidden layer that follows an earlier relu layer
/// ([`refine_layer`], at most `parts` parts per end), first to last, re-tightening the later
/// layers after each (fixed, then optimised slopes) so that the next refinement starts from
/// bounds the refined ones have tightened. Each layer gets an equal share of the time left
/// before `refine_until`; past it the rest is left as it is (still sound). `deadline` is the
/// search's own: past it, [`NoBound::OutOfTime`].
pub fn refine_hidden(
    layers: &[Layer],
    bounds: &mut Bounds,
    parts: usize,
    refine_until: Deadline,
    deadline: Deadline,
) -> Result<(), NoBound> {
    let hidden = refined_layers(layers);
    for (n, &k) in hidden.iter().enumerate() {
        if refine_until.passed() {
            break;
        }
        let share = refine_until.instant().map(|end| {
            let now = std::time::Instant::now();
            now + end.saturating_duration_since(now) / (hidden.len() - n) as u32
        });
        let layer_until = share.map_or(refine_until, |s| refine_until.earlier(s));
        refine_layer(layers, bounds, k, parts, layer_until)?;
        for slopes in [Slopes::Fixed, Slopes::Optimised] {
            tighten_from(layers, bounds, &mut PreparedLayers::new(layers.len()), slopes, k, deadline)?;
        }
    }
    Ok(())
}

/// The layers whose outputs [`refine_hidden`] refines: those that feed a relu and follow an
/// earlier relu layer (the first relu layer's input is bounded exactly by intervals).
pub fn refined_layers(layers: &[Layer]) -> Vec<usize> {
    let feeds_relu = |k: usize| layers.get(k + 1).is_some_and(|l| l.splits_at_zero());
    let after_a_relu = |k: usize| layers[..k].iter().any(|l| l.splits_at_zero());
    (0..layers.len()).filter(|&k| feeds_relu(k) && after_a_relu(k)).collect()
}

/// Parts bounded in one batch (the children of the worst half as many). On mnist_fc, 8 and 2
/// (one part's children) decided five instances in the same total time, 16 one of them in
/// twice its time; per part 8 is about a tenth faster (docs/verification.md, "Parts in
/// batches").
const BATCHED_PARTS: usize = 8;

/// Parts per end when refining the hidden bounds of a case's whole box: a cap that the time
/// shares of the refinement's budget usually meet first, so that the budget is spent rather
/// than left to a search on weaker bounds. (On mnist_fc 256×6 `prop_4_0.05`, 64 left the
/// atoms' bounds near −1, 256 proved it at the root in the same time; with 256, 256×4
/// `prop_9_0.05` finished refining after 12 s of its 300 and its search proved 78% of the
/// leaves, with 1,024 it refined for 52 s and proved 87%, and once the kernels were faster
/// 1,024 parts took 35 s; with 4,096 it holds in 286 s, 256×6 `prop_1_0.03` in 148 s
/// instead of 56–66% of the leaves, 256×6 `prop_13_0.05` in 201 s instead of 0.6%:
/// docs/verification.md, "Refined hidden bounds".)
pub const REFINED_PARTS: usize = 4096;

/// [`refine_layer`] refines one end in this many first (at least [`PROBED_AT_LEAST`] per
/// thread), and the rest only if the first closed at least [`MIN_CLOSED`] of the way from
/// their bounds to 0 on average.
const PROBED_SHARE: usize = 8;
const PROBED_AT_LEAST: usize = 4;
const MIN_CLOSED: f64 = 0.15;

/// The share of the time left that refining the hidden bounds of a case's whole box may take.
const REFINED_SHARE: f64 = 0.4;

/// When refining the whole box's hidden bounds stops: [`REFINED_SHARE`] of the time left
/// before `deadline` (no limit but the parts without one).
pub fn refine_until(deadline: Deadline) -> Deadline {
    deadline.instant().map_or(Deadline::NEVER, |end| {
        let now = std::time::Instant::now();
        Deadline::at(now + end.saturating_duration_since(now).mul_f64(REFINED_SHARE))
    })
}

#[cfg(test)]
#[path = "refine_tests.rs"]
mod tests;
