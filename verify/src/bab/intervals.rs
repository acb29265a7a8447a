//! A box's interval bounds, each cut to what the box it was split from knew, and the
//! conjunctions they leave open; a box whose bounds failed.

use super::{CaseSearch, Examined, LayerBounds};
use crate::float::Interval;
use crate::interval::Bounds;
use crate::property::Truth;
use crate::tighten::{NoBound, bounds_within};

impl CaseSearch<'_> {
    /// Interval bounds of every layer on `region`, each cut to the bounds inherited from the
    /// box it was split from (they hold on every part of that box); `kept`: as
    /// [`bounds_within`]'s.
    pub(super) fn interval_bounds(
        &self,
        region: &[Interval],
        inherited: Option<&LayerBounds>,
        kept: usize,
    ) -> Result<Bounds, NoBound> {
        let outer = inherited.map(|o| o.as_slice());
        let layers = bounds_within(&self.net.layers, region, outer, kept)?;
        Ok(Bounds { input: region.to_vec(), layers })
    }

    /// A box whose bounds failed: bounds that do not meet prove a part cut out by relu signs
    /// (no point of the box has those signs, see [`NoBound::Empty`]); otherwise nothing is
    /// known and the box is split.
    pub(super) fn without_bounds(&self, failure: NoBound, region: &[Interval], relu_part: bool) -> Examined {
        if failure == NoBound::Empty && relu_part {
            return Examined::Proved;
        }
        // A NaN may be computed somewhere in the box: perhaps at its centre, which breaks the
        // claim; otherwise split until it is found or ruled out.
        self.try_centre(region).unwrap_or_else(|| self.undecided(region, &[], None, None))
    }

    /// The conjunctions of `open` that the interval bounds of the outputs do not refute.
    pub(super) fn open_conjunctions(&self, bounds: &Bounds, open: Vec<usize>) -> Vec<usize> {
        let y = self.outputs(bounds);
        open.into_iter().filter(|&c| self.case.unsafe_when[c].truth(&y) != Truth::False).collect()
    }
}
