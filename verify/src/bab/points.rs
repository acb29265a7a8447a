//! Points of a box tried as counterexamples: its centre, the corners its bounds point to, and
//! any point where the chain's result breaks the claim. They only propose: what is reported
//! is confirmed on the engines ([`crate::replay`]).

use super::{CaseSearch, Examined};
use crate::float::Interval;
use crate::interval::Bounds;
use crate::property::Truth;

impl CaseSearch<'_> {
    /// The centre of `region` as a candidate, if the claim is broken there.
    pub(super) fn try_centre(&self, region: &[Interval]) -> Option<Examined> {
        let centre = self.centre(region);
        self.is_unsafe(&centre).then_some(Examined::Candidate(centre))
    }

    /// Whether the chain's result at `x` breaks the claim ([`Judge::breaks`]: a NaN, a failed
    /// run, the class the engine returns, the constants as written).
    pub fn is_unsafe(&self, x: &[f64]) -> bool {
        self.judge().breaks(&self.net.result_at(x))
    }

    /// The first of `points` at which [`CaseSearch::is_unsafe`], the points run together.
    pub(super) fn first_unsafe_of(&self, points: Vec<Vec<f64>>) -> Option<Vec<f64>> {
        let judge = self.judge();
        let results = self.net.results_at(&points);
        points.into_iter().zip(results).find(|(_, result)| judge.breaks(result)).map(|(point, _)| point)
    }

    /// A point of the box when some conjunction is true on all of it.
    pub(super) fn unsafe_everywhere(&self, bounds: &Bounds, open: &[usize], region: &[Interval]) -> Option<Vec<f64>> {
        let y = self.outputs(bounds);
        let everywhere = open.iter().any(|&c| self.case.unsafe_when[c].truth(&y) == Truth::True);
        let centre = self.centre(region);
        (everywhere && self.is_unsafe(&centre)).then_some(centre)
    }

    pub(super) fn outputs(&self, bounds: &Bounds) -> Vec<Interval> {
        let last = bounds.layers.last().expect("a network has layers");
        self.net.outputs.iter().map(|&k| last[k]).collect()
    }

    pub(super) fn centre(&self, region: &[Interval]) -> Vec<f64> {
        let centre: Vec<f64> = region.iter().map(Interval::midpoint).collect();
        self.clamp(&centre)
    }

    /// The nearest point inside the box as written.
    pub(super) fn clamp(&self, x: &[f64]) -> Vec<f64> {
        x.iter().zip(&self.inner).map(|(&v, b)| v.clamp(b.lo, b.hi)).collect()
    }
}
