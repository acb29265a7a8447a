//! Branch and bound, one box at a time: bound a box (intervals, then linear bounds); if every
//! unsafe conjunction is refuted there the box is proved; else cut it to where unsafe points
//! can be, look for one at the corners the bounds point to, and say what to split
//! ([`super::split`]). The search over the boxes is in [`super::queue`].

mod atoms;
mod exhaust;
mod intervals;
mod points;

use std::sync::Arc;

use knn_engine::bigstep::Plan;

pub use self::atoms::WarmStarts;
use self::atoms::{AtomBounds, PreparedConjunction, dense_over_last};
pub(crate) use self::exhaust::with_both_zeros;
pub use self::exhaust::{Limit, first_breaking};
use super::alpha::SignConstraint;
use super::clip::{HalfSpace, clip, hull};
use super::deadline::Deadline;
use super::float::Interval;
use super::judge::{ClassClaim, Judge};
use super::network::Network;
use super::prepare::PreparedLayers;
use super::property::Case;
use super::refine::{REFINED_PARTS, refine_hidden, refine_until};
use super::split::{Split, input_to_split, relu_to_split};
use super::tighten::{NoBound, Slopes, tighten_part};

/// One case of a property, ready for the search.
pub struct CaseSearch<'a> {
    pub(super) net: &'a Network,
    /// The compiled program, for deciding the smallest boxes point by point.
    plan: &'a Plan,
    case: &'a Case,
    conjunctions: Vec<PreparedConjunction>,
    /// The binary64 points inside the box as written: candidates are clamped into it.
    inner: Vec<Interval>,
    /// The case's whole box (outer).
    root: Vec<Interval>,
    pub(super) width: usize,
    /// Split the signs of unstable relus before inputs.
    pub(super) relus_first: bool,
    /// Refine the whole box's hidden bounds before the search, not only once it has stalled.
    pub(super) refine_at_once: bool,
    /// For a class claim, the class claimed: points are judged by the class the engine
    /// returns ([`Judge`]).
    class: Option<ClassClaim>,
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
        /// The conjunctions still open on the box (all when `None`).
        open: Option<Arc<Vec<usize>>>,
    },
    /// Not decided: split the sign of the input of relu `neuron` of layer `layer` (element
    /// `neuron` of `bounds[layer − 1]`), on `region`, the part where unsafe points can be.
    SplitRelu {
        region: Vec<Interval>,
        layer: usize,
        neuron: usize,
        bounds: LayerBounds,
        /// Where the atoms' optimisations ended: both parts start from there.
        warm: Arc<WarmStarts>,
        /// The conjunctions still open on the box (the others are refuted on both parts).
        open: Arc<Vec<usize>>,
    },
    /// Not decided and too narrow to split further.
    Stuck,
    /// The deadline passed before the box was decided: nothing is known of it.
    OutOfTime,
}

/// What a box inherits from the box it was split from (nothing, for a case's whole box).
#[derive(Clone, Copy, Default)]
pub struct Inherited<'p> {
    /// The bounds of every layer found on that box: they hold on its parts.
    pub bounds: Option<&'p LayerBounds>,
    /// The box is cut to the inputs where some relus have these signs (the inherited bounds
    /// are cut to them too), so bounds that do not meet prove it.
    pub signs: &'p [SignConstraint],
    /// Where the optimisations of that box's atoms ended (a relu part's warm start).
    pub warm: Option<&'p WarmStarts>,
    /// The conjunctions that box left open: the others are refuted on all of it.
    pub open: Option<&'p [usize]>,
    /// The box's region is that box's own (a relu part not cut further): the inherited bounds
    /// of the layers up to the one its newest sign constrains are already within their
    /// intervals on the region, so they are kept as they are rather than computed again.
    pub same_region: bool,
}

/// Splits per input dimension (on average) past which a box's search counts as stalled and
/// its hidden layers get optimised slopes.
const STALLED_HALVINGS: usize = 3;

/// How a box's hidden layers are bounded, stage by stage.
#[derive(Clone, Copy, Debug)]
enum Stage {
    Slopes(Slopes),
    /// Refined by relu splits ([`refine_hidden`]).
    Refined,
}

/// The bounds of every layer's output on a box, shared with the boxes split from it.
pub type LayerBounds = Arc<Vec<Vec<Interval>>>;

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
        let root = case.input.outer();
        let (refine_at_once, class) = (false, None);
        Some(CaseSearch { net, plan, case, conjunctions, inner, root, width, relus_first, refine_at_once, class })
    }

    /// Judges points by the class the engine returns, for a claim about `class` (the case's
    /// conjunctions are that claim's unsafe region for vectors without a NaN).
    pub fn judged_by(mut self, class: Option<ClassClaim>) -> CaseSearch<'a> {
        self.class = class;
        self
    }

    fn judge(&self) -> Judge<'_> {
        Judge { case: self.case, class: self.class }
    }

    /// The case's whole box (outer).
    pub fn root(&self) -> &[Interval] {
        &self.root
    }

    /// Chooses what to split ([`Split::Auto`] unless told).
    pub fn splitting(mut self, split: Split) -> CaseSearch<'a> {
        self.relus_first = split.relus_first(self.root.len());
        self.refine_at_once = split == Split::RefinedRelus;
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
        let from = Inherited { bounds: inherited, signs, ..Inherited::default() };
        self.examine_until(region, from, depth, Deadline::NEVER)
    }

    /// [`CaseSearch::examine`], given up ([`Examined::OutOfTime`]) once `deadline` passes: the
    /// bounds poll it per layer, per block of rows and per optimised row.
    pub fn examine_until(&self, region: &[Interval], from: Inherited<'_>, depth: u32, deadline: Deadline) -> Examined {
        self.examine_stages(region, from, depth, deadline, false)
    }

    /// The case's whole box examined: refined ([`CaseSearch::examine_refined`]) when the split
    /// asks for it at once, else as [`CaseSearch::examine_until`] does.
    pub fn examine_root(&self, deadline: Deadline) -> Examined {
        if self.refine_at_once {
            self.examine_refined(deadline)
        } else {
            self.examine_until(&self.root, Inherited::default(), 0, deadline)
        }
    }

    /// The case's whole box examined as [`CaseSearch::examine_until`] does, with a third stage
    /// when relus are split: the hidden bounds refined by relu splits
    /// (docs/verification.md, "Refined hidden bounds").
    pub fn examine_refined(&self, deadline: Deadline) -> Examined {
        self.examine_stages(&self.root, Inherited::default(), 0, deadline, self.relus_first)
    }

    fn examine_stages(
        &self,
        region: &[Interval],
        from: Inherited<'_>,
        depth: u32,
        deadline: Deadline,
        refine: bool,
    ) -> Examined {
        if deadline.passed() {
            return Examined::OutOfTime;
        }
        let Inherited { bounds: inherited, signs, warm, open: parent_open, same_region } = from;
        let relu_part = !signs.is_empty();
        let layers = &self.net.layers;
        // A relu part on its box's own region: nothing before its newest sign's relu changed.
        let kept = if same_region { signs.last().map_or(1, |c| c.output_of + 1) } else { 0 };
        let mut bounds = match self.interval_bounds(region, inherited, kept) {
            Ok(bounds) => bounds,
            Err(failure) => return self.without_bounds(failure, region, relu_part),
        };
        // A conjunction refuted on the box this one was split from is refuted here too.
        let open = parent_open.map_or_else(|| (0..self.conjunctions.len()).collect(), <[usize]>::to_vec);
        let mut open = self.open_conjunctions(&bounds, open);
        if let Some(point) = self.unsafe_everywhere(&bounds, &open, region) {
            return Examined::Candidate(point);
        }
        if open.is_empty() {
            return Examined::Proved;
        }
        if !bounds.layers.iter().flatten().all(|b| b.lo.is_finite() && b.hi.is_finite()) {
            // The linear bounds' argument is exact arithmetic on the engine's values, which needs
            // them finite (docs/verification.md, "Linear bounds in floating point"): where a
            // layer may overflow, only the intervals decide, and the box is split.
            return self
                .try_centre(region)
                .unwrap_or_else(|| self.undecided(region, &[], Some(Arc::new(bounds.layers)), None));
        }
        let mut atoms: Option<AtomBounds> = None;
        // Optimised slopes for the hidden layers cost many times the fixed ones: worth it where
        // input splitting has stalled, past three halvings of every side on average, and
        // everywhere when there are too many inputs for splitting to get that far
        // (docs/verification.md, "Branch and bound").
        let stalled = depth as usize >= STALLED_HALVINGS * region.len() || self.relus_first;
        // A part of a box split at a relu (it carries its box's warm start) keeps its box's
        // bounds up to the split's layer and re-tightens only the later layers, both stages:
        // with optimised slopes there too, mnist_fc 256×4 `prop_14_0.05` is proved after 71
        // boxes, with fixed ones after 2,535, each of them five times as cheap. Its atoms'
        // slopes and multipliers start where its box's ended (docs/verification.md, "Relu
        // splits").
        let first = match (warm, signs.last()) {
            (Some(_), Some(newest)) => newest.output_of + 1,
            _ => 0,
        };
        let stages: &[Stage] = match (stalled, refine) {
            (false, _) => &[Stage::Slopes(Slopes::Fixed)],
            (true, false) => &[Stage::Slopes(Slopes::Fixed), Stage::Slopes(Slopes::Optimised)],
            (true, true) => &[Stage::Slopes(Slopes::Fixed), Stage::Slopes(Slopes::Optimised), Stage::Refined],
        };
        let mut last_prepared = None;
        for &stage in stages {
            // Each stage starts afresh: the bounds of every layer may change, so none of the
            // last stage's preparations holds.
            let mut prepared = PreparedLayers::new(layers.len());
            let tightened = match stage {
                Stage::Slopes(slopes) => {
                    tighten_part(layers, &mut bounds, &mut prepared, slopes, first, signs, deadline)
                }
                Stage::Refined => refine_hidden(layers, &mut bounds, REFINED_PARTS, refine_until(deadline), deadline),
            };
            match tightened {
                Ok(()) => {}
                Err(NoBound::OutOfTime) => return Examined::OutOfTime,
                Err(failure) => return self.without_bounds(failure, region, relu_part),
            }
            open = self.open_conjunctions(&bounds, open);
            if open.is_empty() {
                return Examined::Proved;
            }
            // A relu part's second stage starts its atoms where its first ended, not from its
            // box's again (docs/verification.md, "What a part recomputes": 256×4 `prop_7_0.05`).
            let start = if warm.is_some() { atoms.as_ref().map(|a| &a.warm).or(warm) } else { warm };
            let Some(found) = self.atom_bounds(&bounds, &mut prepared, &open, signs, start, deadline) else {
                return Examined::OutOfTime;
            };
            open.retain(|c| !found.refuted[*c]);
            if open.is_empty() {
                return Examined::Proved;
            }
            atoms = Some(found);
            // The last stage's bounds are the box's: what it prepared holds for them.
            last_prepared = Some(prepared);
        }
        let AtomBounds { owners, fixed: found, optimised: optimised_bounds, mut refuted, warm: ended } =
            atoms.expect("the stages ran");
        // Cut the box to where the open conjunctions' bounds let them hold (docs/verification.md,
        // "Branch and bound"): the rest is proved.
        let parts: Vec<(usize, Vec<Interval>)> = open
            .iter()
            .filter_map(|&c| {
                let mut part = region.to_vec();
                for ((owner, bound), optimised) in owners.iter().zip(&found).zip(&optimised_bounds) {
                    if owner.0 != c {
                        continue;
                    }
                    let constant =
                        self.conjunctions[c].atoms[owner.1].1.as_ref().expect("only dense atoms have rows").1;
                    for bound in std::iter::once(bound).chain(optimised) {
                        if !clip(&mut part, &HalfSpace::where_atom_can_hold(bound, constant)) {
                            return None;
                        }
                    }
                }
                Some((c, part))
            })
            .collect();
        // A conjunction whose cut leaves nothing is refuted on the whole box.
        let remaining: Vec<usize> = parts.iter().map(|(c, _)| *c).collect();
        for &c in &open {
            refuted[c] |= !remaining.contains(&c);
        }
        let Some(cut) = hull(parts.into_iter().map(|(_, part)| part)) else {
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
        if let Some(point) = self.first_unsafe_of(candidates) {
            return Examined::Candidate(point);
        }
        if self.relus_first {
            // The relu that costs the bound of the open atom nearest to failing the most.
            let margin = |r: usize| {
                let (c, a) = owners[r];
                let constant = self.conjunctions[c].atoms[a].1.as_ref().expect("only dense atoms have rows").1;
                let value = optimised_bounds[r].as_ref().unwrap_or(&found[r]).value;
                value + constant.lo
            };
            let worst = (0..owners.len())
                .filter(|&r| !refuted[owners[r].0])
                .min_by(|&a, &b| margin(a).total_cmp(&margin(b)))
                .map(|r| &owners[r]);
            let row =
                worst.map(|&(c, a)| &self.conjunctions[c].atoms[a].1.as_ref().expect("only dense atoms have rows").0);
            let mut prepared = last_prepared.unwrap_or_else(|| PreparedLayers::new(layers.len()));
            if let Some((layer, neuron)) = row.and_then(|row| relu_to_split(layers, &bounds, &mut prepared, row)) {
                return Examined::SplitRelu {
                    region: region.to_vec(),
                    layer,
                    neuron,
                    bounds: Arc::new(bounds.layers),
                    warm: Arc::new(ended),
                    open: Arc::new(remaining),
                };
            }
        }
        self.undecided(region, &weights, Some(Arc::new(bounds.layers)), Some(Arc::new(remaining)))
    }

    /// Split the input side that [`input_to_split`] chooses (a box too narrow to split is
    /// decided point by point).
    pub(super) fn undecided(
        &self,
        region: &[Interval],
        weights: &[f64],
        bounds: Option<LayerBounds>,
        open: Option<Arc<Vec<usize>>>,
    ) -> Examined {
        match input_to_split(region, &self.root, weights) {
            Some(dim) => Examined::Split { region: region.to_vec(), dim, bounds, open },
            None => self.exhaust(region),
        }
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

#[cfg(test)]
mod tests;
