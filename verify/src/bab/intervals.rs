//! A box's interval bounds, each cut to what the box it was split from knew, and the
//! conjunctions they leave open; a box whose bounds failed.

use super::{CaseSearch, Examined, LayerBounds};
use crate::float::Interval;
use crate::interval::{Bounds, layer_bounds};
use crate::property::Truth;
use crate::tighten::{NoBound, meet};

impl CaseSearch<'_> {
    /// Interval bounds of every layer on `region`, each cut to the bounds inherited from the
    /// box it was split from (they hold on every part of that box).
    pub(super) fn interval_bounds(
        &self,
        region: &[Interval],
        inherited: Option<&LayerBounds>,
        same_region: bool,
    ) -> Result<Bounds, NoBound> {
        let mut bounds = Bounds { input: region.to_vec(), layers: Vec::with_capacity(self.net.layers.len()) };
        for (k, layer) in self.net.layers.iter().enumerate() {
            if let (0, Some(outer), true) = (k, inherited, same_region) {
                // Found on this very region and met with its intervals there: the meet would
                // give them back bit for bit (on mnist_fc the first layer is half the weights).
                bounds.layers.push(outer[0].clone());
                continue;
            }
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
