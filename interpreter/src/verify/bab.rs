//! Branch and bound on the input box: bound a box (intervals, then linear bounds); if every
//! unsafe conjunction is refuted there the box is proved; else look for an unsafe point at the
//! corners the bounds point to, and split the input dimension that the bounds are most
//! sensitive to (width times the weight of the dimension in the unrefuted bounds, as
//! α,β-CROWN's input split for ACAS Xu does). Boxes are taken depth-first, a batch at a time
//! across the rayon pool, so the queue stays small.

use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use crate::bigstep::{ExecOptions, Plan, run_rows};
use knn_semantics::engine::Observed;

use super::alpha::optimise_row;
use super::float::Interval;
use super::interval::layer_bounds;
use super::linear::{Bounds, LowerBound, back_substitute, tighten};
use super::network::Network;
use super::prepare::PreparedLayers;
use super::property::{Atom, Case, Truth};
use super::relax::LowerSlope;

/// An atom's coefficients over the last layer's vector and its constant, when they are
/// binary64 values (else it is decided by interval bounds alone).
type DenseAtom = Option<(Vec<f64>, Interval)>;

/// An unsafe conjunction prepared for linear bounds.
struct PreparedConjunction {
    atoms: Vec<(Atom, DenseAtom)>,
}

/// One case of a property, ready for the search.
pub struct CaseSearch<'a> {
    net: &'a Network,
    /// The compiled program, for deciding the smallest boxes point by point.
    plan: &'a Plan,
    case: &'a Case,
    conjunctions: Vec<PreparedConjunction>,
    /// The binary64 points inside the box as written: candidates are clamped into it.
    inner: Vec<Interval>,
    width: usize,
}

/// What examining one box found.
#[derive(Clone, Debug)]
pub enum Examined {
    Proved,
    /// A point of the box (inside the box as written) whose output the network's own
    /// evaluation finds unsafe: to be confirmed on the engines.
    Candidate(Vec<f64>),
    /// Not decided: split this dimension. The bounds found hold on both halves too.
    Split(usize, Option<LayerBounds>),
    /// Not decided and too narrow to split further.
    Stuck,
}

/// The most binary64 points a box too narrow to split may hold to be decided point by point.
const EXHAUSTIVE_POINTS: usize = 1 << 12;

/// The bounds of every layer's output on a box, shared with the boxes split from it.
pub type LayerBounds = Arc<Vec<Vec<Interval>>>;

/// How a case's search ended.
#[derive(Clone, Debug)]
pub enum CaseOutcome {
    Holds,
    Candidate(Vec<f64>),
    Timeout,
    /// Boxes that could not be split further remained undecided.
    Stuck,
}

/// Progress of one case: boxes examined, and the share of the box's volume proved.
#[derive(Clone, Copy, Debug, Default)]
pub struct CaseProgress {
    pub boxes: u64,
    pub proved_share: f64,
}

impl<'a> CaseSearch<'a> {
    /// `None` when the case's box holds no binary64 point (the case holds vacuously).
    pub fn new(net: &'a Network, plan: &'a Plan, case: &'a Case) -> Option<CaseSearch<'a>> {
        let inner = case.input.inner()?;
        let width = net.widths().last().copied().unwrap_or(0);
        let conjunctions = case
            .unsafe_when
            .iter()
            .map(|c| PreparedConjunction {
                atoms: c.atoms.iter().map(|a| (a.clone(), dense_over_last(net, a, width))).collect(),
            })
            .collect();
        Some(CaseSearch { net, plan, case, conjunctions, inner, width })
    }

    /// Examines one box of inputs (an outer box: binary64 bounds holding the points), inside
    /// a box on which `inherited` bounds were found.
    pub fn examine(&self, region: &[Interval], inherited: Option<&LayerBounds>) -> Examined {
        let layers = &self.net.layers;
        let Some(mut bounds) = self.interval_bounds(region, inherited) else {
            return self.undecided(region, &[], None);
        };
        let mut open = self.open_conjunctions(&bounds, (0..self.conjunctions.len()).collect());
        if let Some(point) = self.unsafe_everywhere(&bounds, &open, region) {
            return Examined::Candidate(point);
        }
        if open.is_empty() {
            return Examined::Proved;
        }
        let mut prepared = PreparedLayers::new(layers.len());
        if tighten(layers, &mut bounds, &mut prepared).is_none() {
            return self.undecided(region, &[], None);
        }
        open = self.open_conjunctions(&bounds, open);
        if open.is_empty() {
            return Examined::Proved;
        }
        // Linear bounds of every atom of the open conjunctions, in one pass.
        let mut rows = Vec::new();
        let mut owners = Vec::new();
        for &c in &open {
            for (a, (_, dense)) in self.conjunctions[c].atoms.iter().enumerate() {
                if let Some((coefficients, _)) = dense {
                    rows.extend_from_slice(coefficients);
                    owners.push((c, a));
                }
            }
        }
        let last = layers.len() - 1;
        let found = if owners.is_empty() {
            Vec::new()
        } else {
            back_substitute(layers, &bounds, &mut prepared, last, rows, self.width)
        };
        let mut refuted = vec![false; self.conjunctions.len()];
        let refutes = |(c, a): (usize, usize), bound: &LowerBound| {
            let (atom, dense) = &self.conjunctions[c].atoms[a];
            atom.never_given(bound.value, dense.as_ref().expect("only dense atoms have rows").1)
        };
        for (owner, bound) in owners.iter().zip(&found) {
            refuted[owner.0] |= refutes(*owner, bound);
        }
        // Optimised slopes for the atoms still open (α-CROWN), one row at a time. They only
        // refute: the split below is steered by the fixed-slope bounds, which split better.
        let mut optimised_bounds: Vec<Option<LowerBound>> = vec![None; found.len()];
        for ((owner, bound), slot) in owners.iter().zip(&found).zip(optimised_bounds.iter_mut()) {
            if refuted[owner.0] {
                continue;
            }
            let row = &self.conjunctions[owner.0].atoms[owner.1].1.as_ref().expect("only dense atoms have rows").0;
            let optimised = optimise_row(layers, &bounds, &mut prepared, last, row, LowerSlope::Chord, bound.clone());
            refuted[owner.0] |= refutes(*owner, &optimised);
            *slot = Some(optimised);
        }
        let remaining: Vec<usize> = open.into_iter().filter(|&c| !refuted[c]).collect();
        if remaining.is_empty() {
            return Examined::Proved;
        }
        // The sensitivity of the open bounds to each input (summed over their atoms: any of
        // them may become the one that refutes its conjunction), and the corners they point to.
        let mut weights = vec![0.0; region.len()];
        let mut candidates = vec![self.centre(region)];
        for (((c, _), bound), optimised) in owners.iter().zip(&found).zip(&optimised_bounds) {
            if refuted[*c] {
                continue;
            }
            // Each bound's input coefficients, scaled to sum 1, from the fixed slopes and the
            // optimised ones: either alone splits some ACAS Xu instances far worse
            // (docs/verification.md, "Branch and bound").
            add_sensitivity(&mut weights, &bound.coefficients);
            add_sensitivity(&mut weights, &optimised.as_ref().unwrap_or(bound).coefficients);
            let corner: Vec<f64> =
                bound.coefficients.iter().zip(region).map(|(&k, x)| if k >= 0.0 { x.lo } else { x.hi }).collect();
            candidates.push(self.clamp(&corner));
        }
        if let Some(point) = candidates.into_iter().find(|x| self.is_unsafe(x)) {
            return Examined::Candidate(point);
        }
        self.undecided(region, &weights, Some(Arc::new(bounds.layers)))
    }

    /// Interval bounds of every layer on `region`, each cut to the bounds inherited from the
    /// box it was split from (they hold on every part of that box).
    fn interval_bounds(&self, region: &[Interval], inherited: Option<&LayerBounds>) -> Option<Bounds> {
        let mut bounds = Bounds { input: region.to_vec(), layers: Vec::with_capacity(self.net.layers.len()) };
        for (k, layer) in self.net.layers.iter().enumerate() {
            let mut found = layer_bounds(layer, bounds.input_of(k))?;
            if let Some(outer) = inherited {
                for (b, o) in found.iter_mut().zip(&outer[k]) {
                    // Both hold, so they meet; an empty meet would mean an unsound bound.
                    *b = b.meet(*o)?;
                }
            }
            bounds.layers.push(found);
        }
        Some(bounds)
    }

    /// Whether the network's evaluation of `x` is unsafe (decidedly, constants as written).
    pub fn is_unsafe(&self, x: &[f64]) -> bool {
        self.case.unsafe_at(&self.net.eval(x)) == Truth::True
    }

    /// The conjunctions of `open` that the interval bounds of the outputs do not refute.
    fn open_conjunctions(&self, bounds: &Bounds, open: Vec<usize>) -> Vec<usize> {
        let y = self.outputs(bounds);
        open.into_iter().filter(|&c| self.case.unsafe_when[c].truth(&y) != Truth::False).collect()
    }

    /// A point of the box when some conjunction is true on all of it.
    fn unsafe_everywhere(&self, bounds: &Bounds, open: &[usize], region: &[Interval]) -> Option<Vec<f64>> {
        let y = self.outputs(bounds);
        let everywhere = open.iter().any(|&c| self.case.unsafe_when[c].truth(&y) == Truth::True);
        let centre = self.centre(region);
        (everywhere && self.is_unsafe(&centre)).then_some(centre)
    }

    fn outputs(&self, bounds: &Bounds) -> Vec<Interval> {
        let last = bounds.layers.last().expect("a network has layers");
        self.net.outputs.iter().map(|&k| last[k]).collect()
    }

    fn centre(&self, region: &[Interval]) -> Vec<f64> {
        let centre: Vec<f64> = region.iter().map(|x| x.lo + (x.hi - x.lo) / 2.0).collect();
        self.clamp(&centre)
    }

    /// The nearest point inside the box as written.
    fn clamp(&self, x: &[f64]) -> Vec<f64> {
        x.iter().zip(&self.inner).map(|(&v, b)| v.clamp(b.lo, b.hi)).collect()
    }

    /// Split the widest dimension by sensitivity (by width alone when there is none).
    fn undecided(&self, region: &[Interval], weights: &[f64], bounds: Option<LayerBounds>) -> Examined {
        let score = |j: usize| {
            let width = region[j].hi - region[j].lo;
            let w = weights.get(j).copied().unwrap_or(0.0);
            if weights.iter().any(|&w| w > 0.0) { width * w } else { width }
        };
        let splittable = |j: &usize| {
            let x = region[*j];
            let mid = x.lo + (x.hi - x.lo) / 2.0;
            x.lo < mid && mid < x.hi
        };
        match (0..region.len()).filter(splittable).max_by(|&a, &b| score(a).total_cmp(&score(b))) {
            Some(j) => Examined::Split(j, bounds),
            None => self.exhaust(region),
        }
    }

    /// Decides a box too narrow to split by running the engine on each of its binary64
    /// points (each dimension has at most two): proved when every point inside the box as
    /// written is decidedly safe, a candidate when one is unsafe, stuck otherwise or when
    /// there are more than `EXHAUSTIVE_POINTS`.
    fn exhaust(&self, region: &[Interval]) -> Examined {
        let wide: Vec<usize> = (0..region.len()).filter(|&j| region[j].lo < region[j].hi).collect();
        if wide.len() >= usize::BITS as usize || 1usize << wide.len() > EXHAUSTIVE_POINTS {
            return Examined::Stuck;
        }
        let points: Vec<Vec<f64>> = (0..1usize << wide.len())
            .map(|mask| {
                let mut x: Vec<f64> = region.iter().map(|v| v.lo).collect();
                for (bit, &j) in wide.iter().enumerate() {
                    if mask >> bit & 1 == 1 {
                        x[j] = region[j].hi;
                    }
                }
                x
            })
            .filter(|x| self.case.input.contains(x))
            .collect();
        let rows: Vec<Vec<&[f64]>> = points.iter().map(|x| vec![x.as_slice()]).collect();
        let mut all_safe = true;
        for (x, result) in points.iter().zip(run_rows(self.plan, &rows, ExecOptions::default())) {
            let y = match result {
                Ok(Observed::Tensor(t)) => t.data,
                Ok(Observed::Int(_)) => self.net.eval(x),
                _ => return Examined::Stuck,
            };
            match self.case.unsafe_at(&y) {
                Truth::True => return Examined::Candidate(x.clone()),
                Truth::Unknown => all_safe = false,
                Truth::False => {}
            }
        }
        if all_safe { Examined::Proved } else { Examined::Stuck }
    }

    /// Searches the whole box: `confirm` decides whether a candidate is a real counterexample
    /// (the search goes on when it is not); `report` hears of progress after each batch.
    pub fn run(
        &self,
        deadline: Option<Instant>,
        batch: usize,
        confirm: &(dyn Fn(&[f64]) -> bool + Sync),
        report: &mut dyn FnMut(CaseProgress),
    ) -> CaseOutcome {
        let root = self.case.input.outer();
        let mut stack: Vec<Pending> = vec![Pending { region: root, share: 1.0, bounds: None }];
        let mut progress = CaseProgress::default();
        let mut stuck = false;
        while !stack.is_empty() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return CaseOutcome::Timeout;
            }
            let take = stack.len().min(batch.max(1));
            let work: Vec<Pending> = stack.split_off(stack.len() - take);
            let results: Vec<Examined> = work.par_iter().map(|p| self.examine(&p.region, p.bounds.as_ref())).collect();
            for (Pending { region, share, bounds }, result) in work.into_iter().zip(results) {
                progress.boxes += 1;
                match result {
                    Examined::Proved => progress.proved_share += share,
                    Examined::Candidate(x) => {
                        if confirm(&x) {
                            return CaseOutcome::Candidate(x);
                        }
                        // Not confirmed: keep searching the box as undecided.
                        match self.undecided(&region, &[], bounds) {
                            Examined::Split(j, b) => push_halves(&mut stack, region, share, j, b),
                            _ => stuck = true,
                        }
                    }
                    Examined::Split(j, b) => push_halves(&mut stack, region, share, j, b),
                    Examined::Stuck => stuck = true,
                }
            }
            report(progress);
        }
        if stuck { CaseOutcome::Stuck } else { CaseOutcome::Holds }
    }
}

/// Adds `|coefficients|`, scaled to sum 1, to `weights`.
fn add_sensitivity(weights: &mut [f64], coefficients: &[f64]) {
    let total: f64 = coefficients.iter().map(|k| k.abs()).sum();
    if total > 0.0 && total.is_finite() {
        for (w, k) in weights.iter_mut().zip(coefficients) {
            *w += k.abs() / total;
        }
    }
}

/// A box waiting to be examined: its share of the case's volume, and the bounds of the box
/// it was split from.
struct Pending {
    region: Vec<Interval>,
    share: f64,
    bounds: Option<LayerBounds>,
}

fn push_halves(stack: &mut Vec<Pending>, region: Vec<Interval>, share: f64, j: usize, bounds: Option<LayerBounds>) {
    let x = region[j];
    let mid = x.lo + (x.hi - x.lo) / 2.0;
    let mut left = region.clone();
    left[j].hi = mid;
    let mut right = region;
    right[j].lo = mid;
    stack.push(Pending { region: right, share: share / 2.0, bounds: bounds.clone() });
    stack.push(Pending { region: left, share: share / 2.0, bounds });
}

/// An atom's coefficients over the last layer's vector (output `k` is element
/// `net.outputs[k]` there) and its constant, when exact.
fn dense_over_last(net: &Network, atom: &Atom, width: usize) -> DenseAtom {
    let (over_outputs, constant) = atom.dense(net.outputs.len())?;
    let mut over_last = vec![0.0; width];
    for (k, c) in over_outputs.into_iter().enumerate() {
        if c == 0.0 {
            continue;
        }
        let slot = &mut over_last[net.outputs[k]];
        if *slot != 0.0 {
            // Two outputs that are the same element: keep it simple and exact.
            return None;
        }
        *slot = c;
    }
    Some((over_last, constant))
}
