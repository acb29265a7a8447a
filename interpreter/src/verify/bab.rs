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

use super::alpha::{SignConstraint, optimise_row};
use super::clip::{HalfSpace, clip, hull, volume_share};
use super::float::Interval;
use super::interval::layer_bounds;
use super::linear::{Bounds, LowerBound, back_substitute};
use super::network::Network;
use super::prepare::PreparedLayers;
use super::property::{Atom, Case, Truth};
use super::relax::LowerSlope;
use super::split::{Split, input_to_split, relu_to_split};
use super::tighten::{NoBound, Slopes, meet, tighten};

/// An atom's coefficients over the last layer's vector and its constant, when they are
/// binary64 values (else it is decided by interval bounds alone).
type DenseAtom = Option<(Vec<f64>, Interval)>;

/// The linear bounds of the atoms of the open conjunctions on one box: `owners[r]` is the
/// (conjunction, atom) of bound `r`.
struct AtomBounds {
    owners: Vec<(usize, usize)>,
    fixed: Vec<LowerBound>,
    optimised: Vec<Option<LowerBound>>,
    /// Per conjunction of the case.
    refuted: Vec<bool>,
}

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
    /// The case's whole box (outer).
    root: Vec<Interval>,
    width: usize,
    /// Split the signs of unstable relus before inputs.
    relus_first: bool,
}

/// What examining one box found.
#[derive(Clone, Debug)]
pub enum Examined {
    Proved,
    /// A point of the box (inside the box as written) whose output the network's own
    /// evaluation finds unsafe: to be confirmed on the engines.
    Candidate(Vec<f64>),
    /// Not decided: split `dim` of `region`, the part of the box where unsafe points can be
    /// (the rest is proved). The bounds found hold on both halves too.
    Split {
        region: Vec<Interval>,
        dim: usize,
        bounds: Option<LayerBounds>,
    },
    /// Not decided: split the sign of the input of relu `neuron` of layer `layer` (element
    /// `neuron` of `bounds[layer − 1]`), on `region`, the part where unsafe points can be.
    SplitRelu {
        region: Vec<Interval>,
        layer: usize,
        neuron: usize,
        bounds: LayerBounds,
    },
    /// Not decided and too narrow to split further.
    Stuck,
}

/// The most binary64 points a box too narrow to split may hold to be decided point by point.
const EXHAUSTIVE_POINTS: usize = 1 << 12;

/// Splits per input dimension (on average) past which a box's search counts as stalled and
/// its hidden layers get optimised slopes.
const STALLED_HALVINGS: usize = 3;

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
        let relus_first = Split::default().relus_first(case.input.len());
        Some(CaseSearch { net, plan, case, conjunctions, inner, root: case.input.outer(), width, relus_first })
    }

    /// Chooses what to split ([`Split::Auto`] unless told).
    pub fn splitting(mut self, split: Split) -> CaseSearch<'a> {
        self.relus_first = split.relus_first(self.root.len());
        self
    }

    /// Examines one box of inputs (an outer box: binary64 bounds holding the points), inside
    /// a box on which `inherited` bounds were found.
    ///
    /// `signs`: the box is cut to the inputs where some relus have these signs (the inherited
    /// bounds are cut to them too), so bounds that do not meet prove it.
    pub fn examine(
        &self,
        region: &[Interval],
        inherited: Option<&LayerBounds>,
        depth: u32,
        signs: &[SignConstraint],
    ) -> Examined {
        let relu_part = !signs.is_empty();
        let layers = &self.net.layers;
        let mut bounds = match self.interval_bounds(region, inherited) {
            Ok(bounds) => bounds,
            Err(failure) => return self.without_bounds(failure, region, relu_part),
        };
        let mut open = self.open_conjunctions(&bounds, (0..self.conjunctions.len()).collect());
        if let Some(point) = self.unsafe_everywhere(&bounds, &open, region) {
            return Examined::Candidate(point);
        }
        if open.is_empty() {
            return Examined::Proved;
        }
        let mut atoms = None;
        // Optimised slopes for the hidden layers cost many times the fixed ones: worth it where
        // input splitting has stalled, past three halvings of every side on average, and
        // everywhere when there are too many inputs for splitting to get that far
        // (docs/verification.md, "Branch and bound").
        let stalled = depth as usize >= STALLED_HALVINGS * region.len() || self.relus_first;
        let stages: &[Slopes] = if stalled { &[Slopes::Fixed, Slopes::Optimised] } else { &[Slopes::Fixed] };
        for &slopes in stages {
            // Each stage starts afresh: the bounds of every layer may change, so none of the
            // last stage's preparations holds.
            let mut prepared = PreparedLayers::new(layers.len());
            if let Err(failure) = tighten(layers, &mut bounds, &mut prepared, slopes) {
                return self.without_bounds(failure, region, relu_part);
            }
            open = self.open_conjunctions(&bounds, open);
            if open.is_empty() {
                return Examined::Proved;
            }
            let found = self.atom_bounds(&bounds, &mut prepared, &open, signs);
            open.retain(|c| !found.refuted[*c]);
            if open.is_empty() {
                return Examined::Proved;
            }
            atoms = Some(found);
        }
        let AtomBounds { owners, fixed: found, optimised: optimised_bounds, refuted } = atoms.expect("the stages ran");
        let remaining = open;
        // Cut the box to where the open conjunctions' bounds let them hold (docs/verification.md,
        // "Branch and bound"): the rest is proved.
        let parts = remaining.iter().filter_map(|&c| {
            let mut part = region.to_vec();
            for ((owner, bound), optimised) in owners.iter().zip(&found).zip(&optimised_bounds) {
                if owner.0 != c {
                    continue;
                }
                let constant = self.conjunctions[c].atoms[owner.1].1.as_ref().expect("only dense atoms have rows").1;
                for bound in std::iter::once(bound).chain(optimised) {
                    if !clip(&mut part, &HalfSpace::where_atom_can_hold(bound, constant)) {
                        return None;
                    }
                }
            }
            Some(part)
        });
        let Some(cut) = hull(parts) else {
            return Examined::Proved;
        };
        let region = cut.as_slice();
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
        if self.relus_first {
            // The relu that costs the first open atom's bound the most.
            let first = owners.iter().find(|(c, _)| !refuted[*c]);
            let row =
                first.map(|&(c, a)| &self.conjunctions[c].atoms[a].1.as_ref().expect("only dense atoms have rows").0);
            if let Some((layer, neuron)) = row.and_then(|row| relu_to_split(layers, &bounds, row)) {
                return Examined::SplitRelu { region: region.to_vec(), layer, neuron, bounds: Arc::new(bounds.layers) };
            }
        }
        self.undecided(region, &weights, Some(Arc::new(bounds.layers)))
    }

    /// Linear bounds of every dense atom of the `open` conjunctions, with fixed slopes (in one
    /// pass) and, for atoms that leaves open, optimised ones (α-CROWN, a row at a time).
    /// On a part of a box cut out by relu signs (`signs`), the optimised bounds carry
    /// multipliers of those signs (β-CROWN) and hold on the part only.
    fn atom_bounds(
        &self,
        bounds: &Bounds,
        prepared: &mut PreparedLayers,
        open: &[usize],
        signs: &[SignConstraint],
    ) -> AtomBounds {
        let layers = &self.net.layers;
        let mut rows = Vec::new();
        let mut owners = Vec::new();
        for &c in open {
            for (a, (_, dense)) in self.conjunctions[c].atoms.iter().enumerate() {
                if let Some((coefficients, _)) = dense {
                    rows.extend_from_slice(coefficients);
                    owners.push((c, a));
                }
            }
        }
        let last = layers.len() - 1;
        let fixed = if owners.is_empty() {
            Vec::new()
        } else {
            back_substitute(layers, bounds, prepared, last, rows, self.width)
        };
        let mut refuted = vec![false; self.conjunctions.len()];
        let dense_of =
            |(c, a): (usize, usize)| self.conjunctions[c].atoms[a].1.as_ref().expect("only dense atoms have rows");
        let refutes = |owner: (usize, usize), bound: &LowerBound| {
            self.conjunctions[owner.0].atoms[owner.1].0.never_given(bound.value, dense_of(owner).1)
        };
        for (owner, bound) in owners.iter().zip(&fixed) {
            refuted[owner.0] |= refutes(*owner, bound);
        }
        // The optimised slopes only refute and steer: either alone splits some instances far
        // worse than both (docs/verification.md, "Branch and bound").
        let mut optimised: Vec<Option<LowerBound>> = vec![None; fixed.len()];
        for ((owner, bound), slot) in owners.iter().zip(&fixed).zip(optimised.iter_mut()) {
            if refuted[owner.0] {
                continue;
            }
            let row = &dense_of(*owner).0;
            let better = optimise_row(
                layers,
                bounds,
                prepared,
                last,
                row,
                LowerSlope::Chord,
                bound.clone(),
                f64::INFINITY,
                signs,
            );
            refuted[owner.0] |= refutes(*owner, &better);
            *slot = Some(better);
        }
        AtomBounds { owners, fixed, optimised, refuted }
    }

    /// Interval bounds of every layer on `region`, each cut to the bounds inherited from the
    /// box it was split from (they hold on every part of that box).
    fn interval_bounds(&self, region: &[Interval], inherited: Option<&LayerBounds>) -> Result<Bounds, NoBound> {
        let mut bounds = Bounds { input: region.to_vec(), layers: Vec::with_capacity(self.net.layers.len()) };
        for (k, layer) in self.net.layers.iter().enumerate() {
            let mut found = layer_bounds(layer, bounds.input_of(k)).ok_or(NoBound::NotANumber)?;
            if let Some(outer) = inherited {
                for (b, o) in found.iter_mut().zip(&outer[k]) {
                    *b = meet(*b, *o)?;
                }
            }
            bounds.layers.push(found);
        }
        Ok(bounds)
    }

    /// A box whose bounds failed: bounds that do not meet prove a part cut out by relu signs
    /// (no point of the box has those signs, see [`NoBound::Empty`]); otherwise nothing is
    /// known and the box is split.
    fn without_bounds(&self, failure: NoBound, region: &[Interval], relu_part: bool) -> Examined {
        if failure == NoBound::Empty && relu_part {
            return Examined::Proved;
        }
        self.undecided(region, &[], None)
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

    /// Split the input side that [`input_to_split`] chooses (a box too narrow to split is
    /// decided point by point).
    fn undecided(&self, region: &[Interval], weights: &[f64], bounds: Option<LayerBounds>) -> Examined {
        match input_to_split(region, &self.root, weights) {
            Some(dim) => Examined::Split { region: region.to_vec(), dim, bounds },
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
        let mut stack: Vec<Pending> =
            vec![Pending { region: root, share: 1.0, bounds: None, depth: 0, signs: Arc::new(Vec::new()) }];
        let mut progress = CaseProgress::default();
        let mut stuck = false;
        while !stack.is_empty() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return CaseOutcome::Timeout;
            }
            let take = stack.len().min(batch.max(1));
            let work: Vec<Pending> = stack.split_off(stack.len() - take);
            let results: Vec<Examined> =
                work.par_iter().map(|p| self.examine(&p.region, p.bounds.as_ref(), p.depth, &p.signs)).collect();
            for (Pending { region, share, bounds, depth, signs }, result) in work.into_iter().zip(results) {
                progress.boxes += 1;
                match result {
                    Examined::Proved => progress.proved_share += share,
                    Examined::Candidate(x) => {
                        if confirm(&x) {
                            return CaseOutcome::Candidate(x);
                        }
                        // Not confirmed: keep searching the box as undecided.
                        match self.undecided(&region, &[], bounds) {
                            Examined::Split { region, dim, bounds } => {
                                push_halves(&mut stack, Pending { region, share, depth, bounds, signs }, dim)
                            }
                            _ => stuck = true,
                        }
                    }
                    Examined::Split { region: cut, dim, bounds } => {
                        let kept = share * volume_share(&cut, &region);
                        progress.proved_share += share - kept;
                        push_halves(&mut stack, Pending { region: cut, share: kept, depth, bounds, signs }, dim);
                    }
                    Examined::SplitRelu { region: cut, layer, neuron, bounds } => {
                        let kept = share * volume_share(&cut, &region);
                        progress.proved_share += share - kept;
                        let parent = Pending { region: cut, share: kept, depth, bounds: None, signs };
                        push_signs(&mut stack, parent, layer, neuron, &bounds);
                    }
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
    /// Splits from the case's box.
    depth: u32,
    /// Cut to the inputs where some relus have these signs.
    signs: Arc<Vec<SignConstraint>>,
    bounds: Option<LayerBounds>,
}

/// Pushes the two halves of `parent`'s region split at the middle of side `j`.
fn push_halves(stack: &mut Vec<Pending>, parent: Pending, j: usize) {
    let Pending { region, share, depth, bounds, signs } = parent;
    let x = region[j];
    let mid = x.lo + (x.hi - x.lo) / 2.0;
    let mut left = region.clone();
    left[j].hi = mid;
    let mut right = region;
    right[j].lo = mid;
    stack.push(Pending {
        region: right,
        share: share / 2.0,
        depth: depth + 1,
        bounds: bounds.clone(),
        signs: signs.clone(),
    });
    stack.push(Pending { region: left, share: share / 2.0, depth: depth + 1, bounds, signs });
}

/// Pushes the two parts of `parent`'s box where the input of relu `neuron` of layer `layer` is
/// at most 0 and at least 0 (they cover the box; the engine's relu is 0 at 0 either way), each
/// with `bounds` cut to that sign. The volume share is halved for progress reports only.
fn push_signs(stack: &mut Vec<Pending>, parent: Pending, layer: usize, neuron: usize, bounds: &[Vec<Interval>]) {
    for positive in [true, false] {
        let side = if positive { Interval::new(0.0, f64::INFINITY) } else { Interval::new(f64::NEG_INFINITY, 0.0) };
        let mut cut = bounds.to_vec();
        let z = &mut cut[layer - 1][neuron];
        // An unstable input has lo < 0 < hi, so each meet is non-empty.
        *z = z.meet(side).unwrap_or(*z);
        let mut signs = parent.signs.to_vec();
        signs.push(SignConstraint { output_of: layer - 1, neuron, positive });
        stack.push(Pending {
            region: parent.region.clone(),
            share: parent.share / 2.0,
            depth: parent.depth + 1,
            bounds: Some(Arc::new(cut)),
            signs: Arc::new(signs),
        });
    }
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
