//! What back-substitution needs of each layer on one box, computed once: the rounding charges
//! of a dense or bias layer (effects 1 and 2 of [`super::linear`]: the engine's rounding and our
//! own), the inputs that are exactly zero, and an activation's relaxation lines.

use std::sync::Arc;

use super::interval::Bounds;
use super::operator::{Layer, Prepared, Relaxed};
use super::relax::{Line, LowerSlope};

/// The layers prepared on one box, each prepared when first needed from the bounds of its
/// input. Nothing needs forgetting: [`super::tighten::tighten`] tightens the layers in order and
/// back-substitutes from layer `k` only through layers `0..=k`, so a layer is prepared only
/// once the bounds of its input are final (the tightening of layer `k` changes the inputs of
/// layers after `k`, none of which is prepared yet).
#[derive(Clone)]
pub struct PreparedLayers {
    entries: Vec<Option<Arc<Prepared>>>,
}

impl PreparedLayers {
    pub fn new(layers: usize) -> PreparedLayers {
        PreparedLayers { entries: (0..layers).map(|_| None).collect() }
    }

    pub(super) fn get(&mut self, layers: &[Layer], bounds: &Bounds, k: usize) -> &Prepared {
        self.entries[k].get_or_insert_with(|| Arc::new(layers[k].prepare(bounds.input_of(k))))
    }

    /// [`PreparedLayers::get`], shared: for a batch of parts, each holding its own.
    pub(super) fn shared(&mut self, layers: &[Layer], bounds: &Bounds, k: usize) -> Arc<Prepared> {
        self.get(layers, bounds, k);
        Arc::clone(self.entries[k].as_ref().expect("just prepared"))
    }

    /// These preparations, for a part of this box whose bounds differ only from layer `first`'s
    /// input on: each was made from its input's bounds on the box, which hold on the part
    /// (charges from a wider range and relaxation lines of a wider interval still bound it), so
    /// none needs making again. Those before `first` are the part's own; of the later ones only
    /// the affine layers' are kept (their rounding charges, which the part's tighter bounds
    /// would lower by parts in 10¹³ of the bound), and the rest is prepared again on the
    /// part's bounds (a relu's lines, which its tighter bounds change).
    pub fn for_part(&self, layers: &[Layer], first: usize) -> PreparedLayers {
        let kept = |k: usize| k < first || (layers[k].exact_on_box() && !layers[k].is_activation());
        let entries = self.entries.iter().enumerate().map(|(k, e)| if kept(k) { e.clone() } else { None }).collect();
        PreparedLayers { entries }
    }

    /// The upper lines of activation layer `k`, once prepared.
    pub(super) fn upper_lines(&self, k: usize) -> Option<&[Line]> {
        Some(&self.relaxed(k)?.upper)
    }

    /// The relaxation of activation layer `k`, once prepared.
    fn relaxed(&self, k: usize) -> Option<&Relaxed> {
        self.entries[k].as_ref()?.downcast_ref()
    }

    /// The lower lines of activation layer `k` for a choice of slope, once prepared.
    pub(super) fn lower_lines(&self, k: usize, slope: LowerSlope) -> Option<&[Line]> {
        Some(self.relaxed(k)?.lower(slope))
    }
}
