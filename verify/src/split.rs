//! What to split when a box is not decided: an input side, chosen by the bounds' sensitivity
//! (docs/verification.md, "Branch and bound"), or, where splitting inputs cannot get far (many
//! inputs), the sign of one unstable relu, chosen by how much its relaxation loosens the bound
//! (BaBSR's intercept score: the coefficient the bound gives the relu times the height of its
//! upper line above the relu).

use super::float::Interval;
use super::interval::Bounds;
use super::linear::{LowerLines, back_substitute_with};
use super::operator::Layer;
use super::prepare::PreparedLayers;
use super::relax::LowerSlope;

/// How much wider, relative to the case's box, a side may stay than the side the sensitivity
/// chooses before it is split instead.
const UNBALANCED: f64 = 256.0;

/// How a case's boxes are split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Split {
    /// Inputs, or relus when there are more than [`SPLITTABLE_INPUTS`] inputs.
    #[default]
    Auto,
    Inputs,
    /// Relus while one is unstable, then inputs.
    Relus,
}

/// The most inputs for which splitting inputs can reach three halvings per side (2^48 boxes).
pub const SPLITTABLE_INPUTS: usize = 16;

impl Split {
    pub fn relus_first(self, inputs: usize) -> bool {
        match self {
            Split::Auto => inputs > SPLITTABLE_INPUTS,
            Split::Inputs => false,
            Split::Relus => true,
        }
    }
}

/// The side of `region` to halve: the largest `width × weight` (by width alone without
/// weights), unless a side spans more than [`UNBALANCED`] times the share of the case's box
/// (`root`) that this one spans. `None` when no side can be halved.
pub fn input_to_split(region: &[Interval], root: &[Interval], weights: &[f64]) -> Option<usize> {
    let score = |j: usize| {
        let width = region[j].width();
        let w = weights.get(j).copied().unwrap_or(0.0);
        if weights.iter().any(|&w| w > 0.0) { width * w } else { width }
    };
    let splittable = |j: &usize| {
        let x = region[*j];
        let mid = x.midpoint();
        x.lo < mid && mid < x.hi
    };
    // The share of the case's box that a side still spans.
    let relative = |j: usize| {
        let whole = root[j].width();
        if whole > 0.0 { region[j].width() / whole } else { 0.0 }
    };
    let by = |f: &dyn Fn(usize) -> f64| (0..region.len()).filter(splittable).max_by(|&a, &b| f(a).total_cmp(&f(b)));
    let sensitive = by(&score)?;
    // Sensitivity misses what a side adds through the relaxations alone (a side the bound
    // hardly depends on can still keep relus unstable): a side left far wider, relative to
    // the case's box, than the one chosen is split instead, so that no side is never split.
    let widest = by(&relative).unwrap_or(sensitive);
    Some(if relative(widest) > UNBALANCED * relative(sensitive) { widest } else { sensitive })
}

/// The unstable relu whose relaxation costs the lower bound of `row·v` (`v` the output of
/// the last layer) the most: `(k, i)` for element `i` of the input of relu layer `k`, i.e. of
/// `bounds.layers[k − 1]`. `None` when every relu is stable.
/// `prepared`: the layers as the box's bounds prepared them (reused, not prepared again).
pub fn relu_to_split(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &mut PreparedLayers,
    row: &[f64],
) -> Option<(usize, usize)> {
    let last = layers.len().checked_sub(1)?;
    let mut trace = Vec::new();
    let lines = LowerLines::Slope(LowerSlope::Chord);
    back_substitute_with(layers, bounds, prepared, last, row.to_vec(), row.len(), lines, Some(&mut trace));
    let mut best: Option<((usize, usize), f64)> = None;
    for (k, layer) in layers.iter().enumerate().skip(1) {
        if !layer.splits_at_zero() {
            continue;
        }
        for (i, z) in bounds.layers[k - 1].iter().enumerate() {
            if !(z.lo < 0.0 && z.hi > 0.0) {
                continue;
            }
            // The upper line's height above relu at 0: −lo·hi / (hi − lo).
            let gap = -z.lo * z.hi / (z.hi - z.lo);
            let score = trace[k].get(i).map_or(0.0, |g| g.abs()) * gap;
            if score.is_finite() && best.is_none_or(|(_, s)| score > s) {
                best = Some(((k, i), score));
            }
        }
    }
    best.map(|(at, _)| at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::boxed;

    #[test]
    fn auto_splits_relus_beyond_sixteen_inputs() {
        assert!(!Split::Auto.relus_first(SPLITTABLE_INPUTS));
        assert!(Split::Auto.relus_first(SPLITTABLE_INPUTS + 1));
        assert!(Split::Relus.relus_first(1) && !Split::Inputs.relus_first(1000));
    }

    #[test]
    fn the_side_split_is_the_widest_or_the_most_sensitive() {
        let root = boxed(&[(2.0, 3.0), (0.0, 4.0)]);
        // No weights: the wider side (widths 1 and 4; not their ends' sums 5 and 4).
        assert_eq!(input_to_split(&root, &root, &[]), Some(1));
        // Weights that are all zero count as none: the wider side, here the first.
        let wide_first = boxed(&[(0.0, 4.0), (2.0, 3.0)]);
        assert_eq!(input_to_split(&wide_first, &wide_first, &[0.0, 0.0]), Some(0));
        // Weights: width × weight, 1 × 1 against 4 × 0.1.
        assert_eq!(input_to_split(&root, &root, &[1.0, 0.1]), Some(0));
        // A side left more than 256 times wider, relative to the case's box, is split instead.
        let region = boxed(&[(2.0, 3.0), (0.0, 4.0 / 512.0)]);
        assert_eq!(input_to_split(&region, &root, &[0.0, 1.0]), Some(0));
        let region = boxed(&[(2.0, 2.5), (0.0, 4.0 / 256.0)]);
        assert_eq!(input_to_split(&region, &root, &[0.0, 1.0]), Some(1));
        // A side of one binary64 point cannot be halved.
        let point = boxed(&[(1.0, 1.0), (1.0, 1.0f64.next_up())]);
        assert_eq!(input_to_split(&point, &point, &[]), None);
    }
}
