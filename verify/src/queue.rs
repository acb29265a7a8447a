//! The search over a case's boxes: depth-first, a batch at a time across the rayon pool (so the
//! queue stays small), each box examined by [`CaseSearch::examine`] and replaced by its halves
//! or its two relu-sign parts when undecided.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::alpha::SignConstraint;
use super::bab::{CaseSearch, Examined, Inherited, LayerBounds, WarmStarts};
use super::clip::volume_share;
use super::deadline::Deadline;
use super::float::Interval;

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

impl CaseSearch<'_> {
    /// Searches the whole box: `confirm` decides whether a candidate is a real counterexample
    /// (the search goes on when it is not); `report` hears of progress after each batch. Every
    /// box polls `deadline` (so does every bound inside a box): a batch ends soon after it.
    pub fn run(
        &self,
        deadline: Option<Instant>,
        batch: usize,
        confirm: &(dyn Fn(&[f64]) -> bool + Sync),
        report: &mut dyn FnMut(CaseProgress),
    ) -> CaseOutcome {
        self.run_from(None, deadline, batch, confirm, report)
    }

    /// [`CaseSearch::run`], with the case's whole box already examined (`root`, from
    /// [`CaseSearch::examine_until`] on [`CaseSearch::root`] with nothing inherited): on a deep,
    /// wide network that bound takes seconds, and is not computed twice.
    ///
    /// Where relus are split, a search that has not ended after [`refine_after`] starts again
    /// from the whole box with its hidden bounds refined by relu splits
    /// ([`CaseSearch::examine_refined`]): that costs seconds, which most cases do not need, and
    /// turns some that no search of the unrefined box gets anywhere on into quick proofs
    /// (docs/verification.md, "Refined hidden bounds").
    pub fn run_from(
        &self,
        root_examined: Option<Examined>,
        deadline: Option<Instant>,
        batch: usize,
        confirm: &(dyn Fn(&[f64]) -> bool + Sync),
        report: &mut dyn FnMut(CaseProgress),
    ) -> CaseOutcome {
        let deadline = Deadline::from(deadline);
        if self.refine_at_once {
            let root = root_examined.unwrap_or_else(|| self.examine_refined(deadline));
            return self.search(Some(root), deadline, batch, confirm, report);
        }
        if !self.relus_first {
            return self.search(root_examined, deadline, batch, confirm, report);
        }
        let mut first = CaseProgress::default();
        let mut heard = |p: CaseProgress| {
            first = p;
            report(p);
        };
        match self.search(root_examined, refine_after(deadline), batch, confirm, &mut heard) {
            CaseOutcome::Timeout if !deadline.passed() => {
                // The boxes count both searches; the share proved is the second's (it starts
                // from the whole box again).
                let mut again = |p: CaseProgress| report(CaseProgress { boxes: first.boxes + p.boxes, ..p });
                match self.examine_refined(deadline) {
                    Examined::Proved => {
                        again(CaseProgress { boxes: 1, proved_share: 1.0 });
                        CaseOutcome::Holds
                    }
                    Examined::OutOfTime => CaseOutcome::Timeout,
                    root => self.search(Some(root), deadline, batch, confirm, &mut again),
                }
            }
            outcome => outcome,
        }
    }

    /// The search of [`CaseSearch::run_from`], until `deadline`.
    fn search(
        &self,
        mut root_examined: Option<Examined>,
        deadline: Deadline,
        batch: usize,
        confirm: &(dyn Fn(&[f64]) -> bool + Sync),
        report: &mut dyn FnMut(CaseProgress),
    ) -> CaseOutcome {
        let root = self.root().to_vec();
        let mut stack: Vec<Pending> = vec![Pending {
            region: root,
            share: 1.0,
            bounds: None,
            depth: 0,
            signs: Arc::new(Vec::new()),
            warm: None,
            open: None,
            same_region: false,
        }];
        let mut progress = CaseProgress::default();
        let mut stuck = false;
        while !stack.is_empty() {
            if deadline.passed() {
                return CaseOutcome::Timeout;
            }
            let take = stack.len().min(batch.max(1));
            let work: Vec<Pending> = stack.split_off(stack.len() - take);
            let results: Vec<Examined> = match root_examined.take() {
                // The first batch is the root alone.
                Some(examined) => vec![examined],
                None => work
                    .par_iter()
                    .map(|p| {
                        let from = Inherited {
                            bounds: p.bounds.as_ref(),
                            signs: &p.signs,
                            warm: p.warm.as_deref(),
                            open: p.open.as_deref().map(Vec::as_slice),
                            same_region: p.same_region,
                        };
                        self.examine_until(&p.region, from, p.depth, deadline)
                    })
                    .collect(),
            };
            // A box given up at the deadline is decided by nobody: the case times out, unless a
            // counterexample of the same batch is confirmed (it was found in time).
            let mut out_of_time = false;
            for (Pending { region, share, bounds, depth, signs, warm: _, open, same_region: _ }, result) in
                work.into_iter().zip(results)
            {
                progress.boxes += u64::from(!matches!(result, Examined::OutOfTime));
                match result {
                    Examined::Proved => progress.proved_share += share,
                    Examined::Candidate(x) => {
                        if confirm(&x) {
                            return CaseOutcome::Candidate(x);
                        }
                        // Not confirmed: keep searching the box as undecided.
                        match self.undecided(&region, &[], bounds, open) {
                            Examined::Split { region, dim, bounds, open } => {
                                // Halves of the inputs: a new region, no relu split's warm start.
                                push_halves(&mut stack, Pending::halved(region, share, depth, bounds, signs, open), dim)
                            }
                            _ => stuck = true,
                        }
                    }
                    Examined::Split { region: cut, dim, bounds, open } => {
                        let kept = share * volume_share(&cut, &region);
                        progress.proved_share += share - kept;
                        push_halves(&mut stack, Pending::halved(cut, kept, depth, bounds, signs, open), dim);
                    }
                    Examined::SplitRelu { region: cut, layer, neuron, bounds, warm, open } => {
                        let kept = share * volume_share(&cut, &region);
                        progress.proved_share += share - kept;
                        let same_region = cut == region;
                        let parent = Pending {
                            same_region,
                            region: cut,
                            share: kept,
                            depth,
                            bounds: None,
                            signs,
                            warm: Some(warm),
                            open: Some(open),
                        };
                        push_signs(&mut stack, parent, layer, neuron, &bounds);
                    }
                    Examined::Stuck => stuck = true,
                    Examined::OutOfTime => out_of_time = true,
                }
            }
            report(progress);
            if out_of_time {
                return CaseOutcome::Timeout;
            }
        }
        if stuck { CaseOutcome::Stuck } else { CaseOutcome::Holds }
    }
}

/// When a search of the unrefined box gives way to one of the refined box: after a tenth of
/// the time left, at most [`UNREFINED_FOR`] (and after that without a deadline).
fn refine_after(deadline: Deadline) -> Deadline {
    let now = Instant::now();
    let share =
        deadline.instant().map_or(UNREFINED_FOR, |end| (end.saturating_duration_since(now) / 10).min(UNREFINED_FOR));
    deadline.earlier(now + share)
}

/// The longest search of the unrefined box. On mnist_fc every case that search decides, it
/// decides within about 2 s; for the others the wait delays the refinement that decides them
/// (256×4 `prop_13_0.05`: 31.0 s with 10 s here, 24.0 s with 3 s; docs/verification.md,
/// "Refined hidden bounds").
const UNREFINED_FOR: Duration = Duration::from_secs(3);

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
    /// Where the optimisations of the box it was split from ended (relu parts only).
    warm: Option<Arc<WarmStarts>>,
    /// The conjunctions that box left open (all when `None`).
    open: Option<Arc<Vec<usize>>>,
    /// Its region is that box's own ([`Inherited::same_region`]).
    same_region: bool,
}

impl Pending {
    /// A box about to be halved at an input: a new region, so no relu split's warm start.
    fn halved(
        region: Vec<Interval>,
        share: f64,
        depth: u32,
        bounds: Option<LayerBounds>,
        signs: Arc<Vec<SignConstraint>>,
        open: Option<Arc<Vec<usize>>>,
    ) -> Pending {
        Pending { region, share, depth, bounds, signs, warm: None, open, same_region: false }
    }
}

/// Pushes the two halves of `parent`'s region split at the middle of side `j`.
fn push_halves(stack: &mut Vec<Pending>, parent: Pending, j: usize) {
    let Pending { region, share, depth, bounds, signs, warm, open, same_region: _ } = parent;
    let x = region[j];
    let mid = x.midpoint();
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
        warm: warm.clone(),
        open: open.clone(),
        same_region: false,
    });
    stack.push(Pending {
        region: left,
        share: share / 2.0,
        depth: depth + 1,
        bounds,
        signs,
        warm,
        open,
        same_region: false,
    });
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
            warm: parent.warm.clone(),
            open: parent.open.clone(),
            same_region: parent.same_region,
        });
    }
}
