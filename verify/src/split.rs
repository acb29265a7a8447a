//! What to split when a box is not decided: an input side, chosen by the bounds' sensitivity
//! (docs/verification.md, "Branch and bound"), or, where splitting inputs cannot get far (many
//! inputs), the sign of one unstable relu, chosen by how much splitting it tightens the bound
//! (filtered smart branching over BaBSR's intercept score).

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
    /// As [`Split::Relus`], with the hidden bounds of the case's whole box refined by relu
    /// splits from the start (`Relus` and `Auto` refine them only once a search of the
    /// unrefined box has not ended: docs/verification.md, "Refined hidden bounds").
    RefinedRelus,
}

/// The most inputs for which splitting inputs can reach three halvings per side (2^48 boxes).
pub const SPLITTABLE_INPUTS: usize = 16;

impl Split {
    pub fn relus_first(self, inputs: usize) -> bool {
        match self {
            Split::Auto => inputs > SPLITTABLE_INPUTS,
            Split::Inputs => false,
            Split::Relus | Split::RefinedRelus => true,
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

/// The unstable relu to split for the lower bound of `row·v` (`v` the output of the last
/// layer): `(k, i)` for element `i` of the input of relu layer `k`, i.e. of
/// `bounds.layers[k − 1]`. `None` when every relu is stable.
///
/// Filtered smart branching (FSB): the [`CANDIDATES`] relus of each layer whose relaxation
/// costs the bound the most by BaBSR's intercept score are each judged by the bound of their
/// two parts, from that layer down (above it nothing changes), and the one whose worse part
/// gains the most is split; where none gains, the best intercept score. Only the choice rests
/// on these numbers: the parts' bounds are computed afresh.
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
    let mut scored: Vec<((usize, usize), f64)> = Vec::new();
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
            if score.is_finite() {
                scored.push(((k, i), score));
            }
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    let by_intercept = scored.first().map(|(at, _)| *at);
    let mut best: Option<((usize, usize), f64)> = None;
    for (k, layer) in layers.iter().enumerate().skip(1) {
        let candidates: Vec<usize> =
            scored.iter().filter(|((l, _), _)| *l == k).take(CANDIDATES).map(|((_, i), _)| *i).collect();
        if candidates.is_empty() || !layer.splits_at_zero() {
            continue;
        }
        for (i, gain) in part_gains(layers, bounds, prepared, k, &trace[k], &candidates) {
            if gain.is_finite() && best.is_none_or(|(_, s)| gain > s) {
                best = Some(((k, i), gain));
            }
        }
    }
    match best {
        Some((at, gain)) if gain > 0.0 => Some(at),
        _ => by_intercept,
    }
}

/// Relus of each layer judged by FSB.
const CANDIDATES: usize = 4;

/// For each candidate relu `i` of relu layer `k`, what the bound gains on the worse of its two
/// parts: the coefficients `g` over the relu's output become those over its input through the
/// box's lines (chord lower lines), except `i`'s, which passes unchanged (`z_i ≥ 0`: the relu
/// is the identity) or vanishes (`z_i ≤ 0`: it is 0), its intercept no longer paid; all rows
/// are carried down in one pass with the box's lines.
fn part_gains(
    layers: &[Layer],
    bounds: &Bounds,
    prepared: &mut PreparedLayers,
    k: usize,
    g: &[f64],
    candidates: &[usize],
) -> Vec<(usize, f64)> {
    let (Some(lower), Some(upper)) = (prepared.lower_lines(k, LowerSlope::Chord), prepared.upper_lines(k)) else {
        return Vec::new();
    };
    let chosen = |i: usize| if g[i] >= 0.0 { lower[i] } else { upper[i] };
    let through: Vec<f64> = (0..g.len()).map(|i| g[i] * chosen(i).slope).collect();
    let freed: Vec<f64> = candidates.iter().map(|&i| -g[i] * chosen(i).intercept).collect();
    let mut rows = through.clone();
    for &i in candidates {
        for part in [g[i], 0.0] {
            let start = rows.len();
            rows.extend_from_slice(&through);
            rows[start + i] = part;
        }
    }
    let lines = LowerLines::Slope(LowerSlope::Chord);
    let found = back_substitute_with(layers, bounds, prepared, k - 1, rows, g.len(), lines, None);
    let whole = found[0].value;
    candidates
        .iter()
        .enumerate()
        .map(|(c, &i)| {
            let gain = |part: usize| found[1 + 2 * c + part].value + freed[c] - whole;
            (i, gain(0).min(gain(1)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deadline::Deadline;
    use crate::falsify::SplitMix;
    use crate::interval::network_bounds;
    use crate::test_support::{boxed, random_network};
    use crate::tighten::{Slopes, meet, tighten};

    #[test]
    fn a_candidates_gain_is_what_the_bound_of_its_worse_part_gains() {
        // FSB's shortcut (only the relu's own coefficient changes, nothing above its layer)
        // against each part bounded on its own: the part's bounds, the relu's input cut to
        // one sign, prepared afresh. They differ only by rounding charges.
        let mut rng = SplitMix::new(41);
        let chord = LowerLines::Slope(LowerSlope::Chord);
        let mut compared = 0;
        for _ in 0..20 {
            let layers = random_network(&mut rng, 3, 8, 3);
            let last = layers.len() - 1;
            let input = boxed(&[(-1.0, 1.0), (-0.5, 0.5), (0.0, 1.0)]);
            let mut bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
            let mut prepared = PreparedLayers::new(layers.len());
            tighten(&layers, &mut bounds, &mut prepared, Slopes::Fixed, Deadline::NEVER).unwrap();
            let row = vec![1.0, -1.0];
            let mut prepared = PreparedLayers::new(layers.len());
            let mut trace = Vec::new();
            let whole =
                back_substitute_with(&layers, &bounds, &mut prepared, last, row.clone(), 2, chord, Some(&mut trace))[0]
                    .value;
            let part_bound = |k: usize, i: usize, side: Interval| {
                let mut part = bounds.clone();
                part.layers[k - 1][i] = meet(part.layers[k - 1][i], side).unwrap();
                let mut fresh = PreparedLayers::new(layers.len());
                back_substitute_with(&layers, &part, &mut fresh, last, row.clone(), 2, chord, None)[0].value
            };
            for k in (1..layers.len()).filter(|&k| layers[k].splits_at_zero()) {
                let unstable: Vec<usize> =
                    (0..8).filter(|&i| bounds.layers[k - 1][i].lo < 0.0 && bounds.layers[k - 1][i].hi > 0.0).collect();
                for (i, gain) in part_gains(&layers, &bounds, &mut prepared, k, &trace[k], &unstable) {
                    let positive = part_bound(k, i, Interval::new(0.0, f64::INFINITY)) - whole;
                    let negative = part_bound(k, i, Interval::new(f64::NEG_INFINITY, 0.0)) - whole;
                    let actual = positive.min(negative);
                    assert!((gain - actual).abs() <= 1e-9 * (1.0 + whole.abs()), "relu {k}/{i}: {gain} vs {actual}");
                    compared += 1;
                }
            }
        }
        assert!(compared >= 40, "only {compared} unstable relus compared");
    }

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
