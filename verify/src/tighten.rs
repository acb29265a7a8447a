//! Bounds of the hidden layers on a box: every vector that feeds an activation is bounded by
//! back-substitution from it (both ends of each element the activation does not already map
//! exactly), in order from the first layer, and the later layers' interval bounds are
//! re-derived from the tightened ones. Every bound is one of [`super::linear`]'s rigorous
//! ones, so any choice of slopes keeps this sound; the choice only decides how tight it is.

use super::alpha::{SignConstraint, optimise_rows};
use super::deadline::Deadline;
use super::float::Interval;
use super::interval::{Bounds, layer_bounds};
use super::linear::back_substitute;
use super::operator::Layer;
use super::prepare::PreparedLayers;
use super::relax::LowerSlope;

/// How the relus' lower slopes are chosen for the hidden layers' bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slopes {
    /// The better of the two fixed choices, per bound (cheap).
    Fixed,
    /// Then, for each relu input still of both signs, slopes optimised for each end until
    /// the end has one sign (α-CROWN for intermediate bounds: many times the cost, and on
    /// deep networks far tighter, since every relu made stable removes a relaxation from
    /// all later bounds).
    Optimised,
}

/// Why a box has no bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoBound {
    /// A bound is NaN: nothing is known.
    NotANumber,
    /// Two bounds of one element do not meet. Every bound holds for every engine value of the
    /// points considered, so there are none: in a part of a box cut out by relu signs this
    /// proves the part (no point has those signs); on a whole box it would mean an unsound
    /// bound, and nothing may be decided.
    Empty,
    /// The deadline passed before the bounds were found: nothing is decided.
    OutOfTime,
}

/// Relu inputs bounded per back-substitution (two rows each) between two polls of the deadline:
/// a block costs a few milliseconds on a 256-wide MNIST layer; ACAS Xu's 50 fit in one.
const BLOCK: usize = 64;

/// The meet of two bounds of one element.
pub fn meet(a: Interval, b: Interval) -> Result<Interval, NoBound> {
    a.meet(b).ok_or(NoBound::Empty)
}

/// [`crate::interval::network_bounds`] on a box inside one whose bounds `outer` are known: each layer's
/// enclosure met with `outer`'s (they hold on the whole of that box). The first `kept` layers
/// are `outer`'s as they are: the caller says the box has `outer`'s own input and that nothing
/// before layer `kept` was cut (a relu part keeps everything up to the layer its newest sign
/// constrains). Found on this very input and met with its intervals there, those layers' meet
/// would give them back bit for bit; either way `outer`'s bounds hold on the box (on mnist_fc
/// the first layer holds half the weights, and the refinement's parts spent a seventh of
/// their time on the layers before their cut). [`NoBound::NotANumber`] where a NaN may be
/// computed; [`NoBound::Empty`] where two bounds do not meet.
pub fn bounds_within(
    layers: &[Layer],
    input: &[Interval],
    outer: Option<&[Vec<Interval>]>,
    kept: usize,
) -> Result<Vec<Vec<Interval>>, NoBound> {
    let mut bounds: Vec<Vec<Interval>> = Vec::with_capacity(layers.len());
    for (k, layer) in layers.iter().enumerate() {
        if let Some(outer) = outer.filter(|_| k < kept) {
            bounds.push(outer[k].clone());
            continue;
        }
        let v = bounds.last().map_or(input, Vec::as_slice);
        let mut found = layer_bounds(layer, v).ok_or(NoBound::NotANumber)?;
        if let Some(outer) = outer {
            for (b, o) in found.iter_mut().zip(&outer[k]) {
                *b = meet(*b, *o)?;
            }
        }
        bounds.push(found);
    }
    Ok(bounds)
}

/// Tightens `bounds` layer by layer, until `deadline` (then [`NoBound::OutOfTime`]).
pub fn tighten(
    layers: &[Layer],
    bounds: &mut Bounds,
    prepared: &mut PreparedLayers,
    slopes: Slopes,
    deadline: Deadline,
) -> Result<(), NoBound> {
    tighten_from(layers, bounds, prepared, slopes, 0, deadline)
}

/// [`tighten`] from layer `first` on: the bounds of the layers before it are taken as final
/// (a relu part's, where they are its box's and the split changed none of them).
pub fn tighten_from(
    layers: &[Layer],
    bounds: &mut Bounds,
    prepared: &mut PreparedLayers,
    slopes: Slopes,
    first: usize,
    deadline: Deadline,
) -> Result<(), NoBound> {
    tighten_part(layers, bounds, prepared, slopes, first, &[], deadline)
}

/// [`tighten_from`] on the part of the box where the relus' inputs have `signs`: the optimised
/// slopes' bounds take multipliers of those constraints too (β-CROWN's, per row), so they hold
/// on the part only, which is what its bounds are for.
pub fn tighten_part(
    layers: &[Layer],
    bounds: &mut Bounds,
    prepared: &mut PreparedLayers,
    slopes: Slopes,
    first: usize,
    signs: &[SignConstraint],
    deadline: Deadline,
) -> Result<(), NoBound> {
    let mut changed = false;
    for k in first..layers.len() {
        if deadline.passed() {
            return Err(NoBound::OutOfTime);
        }
        if changed {
            // Re-derive this layer from its tightened input; both enclosures hold, so keep
            // their intersection.
            let derived = layer_bounds(&layers[k], bounds.input_of(k)).ok_or(NoBound::NotANumber)?;
            for (b, d) in bounds.layers[k].iter_mut().zip(derived) {
                *b = meet(*b, d)?;
            }
        }
        let feeds_activation = layers.get(k + 1).is_some_and(|next| next.is_activation());
        // A first affine layer's interval bounds are already the exact range (up to rounding).
        let first_exact = k == 0 && layers[0].exact_on_box();
        if !feeds_activation || first_exact {
            continue;
        }
        let relu = layers[k + 1].splits_at_zero();
        let width = bounds.layers[k].len();
        let unstable = |z: Interval| z.lo < 0.0 && z.hi > 0.0;
        let chosen: Vec<usize> = (0..width).filter(|&i| !relu || unstable(bounds.layers[k][i])).collect();
        if chosen.is_empty() {
            continue;
        }
        // Each row is carried back on its own, so blocks of rows give the bounds of one pass.
        let mut found = Vec::with_capacity(2 * chosen.len());
        for block in chosen.chunks(BLOCK) {
            if deadline.passed() {
                return Err(NoBound::OutOfTime);
            }
            let mut rows = vec![0.0; 2 * block.len() * width];
            for (r, &i) in block.iter().enumerate() {
                rows[(2 * r) * width + i] = 1.0;
                rows[(2 * r + 1) * width + i] = -1.0;
            }
            found.extend(back_substitute(layers, bounds, prepared, k, rows, width));
        }
        for (r, &i) in chosen.iter().enumerate() {
            let (lo, hi) = (found[2 * r].value, -found[2 * r + 1].value);
            bounds.layers[k][i] = meet(bounds.layers[k][i], Interval::new(lo, hi))?;
        }
        if relu && slopes == Slopes::Optimised {
            // Both ends of each element that can still have both signs, all rows of a block
            // optimised together; the goal is a bound past 0.
            let ends: Vec<(usize, f64)> = chosen
                .iter()
                .enumerate()
                .flat_map(|(r, &i)| [(2 * r, i, 1.0), (2 * r + 1, i, -1.0)])
                .filter(|&(_, i, _)| unstable(bounds.layers[k][i]))
                .map(|(end, _, sign)| (end, sign))
                .collect();
            for block in ends.chunks(2 * BLOCK) {
                if deadline.passed() {
                    return Err(NoBound::OutOfTime);
                }
                let mut rows = vec![0.0; block.len() * width];
                for (r, &(end, sign)) in block.iter().enumerate() {
                    rows[r * width + chosen[end / 2]] = sign;
                }
                let starts = block.iter().map(|&(end, _)| found[end].clone()).collect();
                let better =
                    optimise_rows(layers, bounds, prepared, k, &rows, width, LowerSlope::Chord, starts, 0.0, signs);
                for (&(end, sign), better) in block.iter().zip(better) {
                    let i = chosen[end / 2];
                    let side = if sign > 0.0 {
                        Interval::new(better.value, f64::INFINITY)
                    } else {
                        Interval::new(f64::NEG_INFINITY, -better.value)
                    };
                    bounds.layers[k][i] = meet(bounds.layers[k][i], side)?;
                }
            }
        }
        changed = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::falsify::SplitMix;
    use crate::interval::network_bounds;
    use crate::test_support::{fixed_on_a_box, random_network};
    use knn_engine::tensor::Matrix;

    /// Every layer's value at 300 points sampled from the box lies inside its bounds.
    fn assert_hold_at_samples(layers: &[Layer], bounds: &Bounds, rng: &mut SplitMix) {
        for _ in 0..300 {
            let mut v: Vec<f64> = bounds.input.iter().map(|x| x.lo + rng.unit() * (x.hi - x.lo)).collect();
            for (k, layer) in layers.iter().enumerate() {
                v = layer.apply(&v);
                for (value, z) in v.iter().zip(&bounds.layers[k]) {
                    assert!(z.lo <= *value && *value <= z.hi, "layer {k}: {value} outside {z:?}");
                }
            }
        }
    }

    fn unstable(bounds: &Bounds) -> usize {
        bounds.layers.iter().flatten().filter(|z| z.lo < 0.0 && z.hi > 0.0).count()
    }

    /// `x ∈ [0, 1]`, `z = (x, 1 − x)`, `activation(z)`, then `(a_0 + a_1, −a_0 − a_1)`, which
    /// is `(1, −1)` for relu and intervals `[0, 2]`, `[−2, 0]` (of one sign each), then
    /// `activation` again and an output layer.
    fn correlated(activation: Layer) -> (Vec<Layer>, Bounds) {
        let dense = |rows: usize, cols: usize, w: Vec<f64>, bias: Vec<Option<f64>>| {
            Layer::dense(Arc::new(Matrix::new(rows, cols, w)), bias)
        };
        let layers = vec![
            dense(2, 1, vec![1.0, -1.0], vec![None, Some(1.0)]),
            activation.clone(),
            dense(2, 2, vec![1.0, 1.0, -1.0, -1.0], vec![None, None]),
            activation,
            dense(1, 2, vec![1.0, 1.0], vec![None]),
        ];
        let input = vec![Interval::new(0.0, 1.0)];
        let bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
        (layers, bounds)
    }

    #[test]
    fn only_relu_inputs_of_both_signs_are_bounded_again() {
        // Relu is exact on an input of one sign, so such an element keeps its interval bounds
        // (docs/verification.md: "both ends of every element that is not already stable"),
        // even where back-substitution would find `[1, 1]` and `[−1, −1]`.
        let (layers, mut bounds) = correlated(Layer::relu());
        assert_eq!(bounds.layers[2], [Interval::new(0.0, 2.0), Interval::new(-2.0, 0.0)]);
        for slopes in [Slopes::Fixed, Slopes::Optimised] {
            tighten(&layers, &mut bounds, &mut PreparedLayers::new(layers.len()), slopes, Deadline::NEVER).unwrap();
            assert_eq!(bounds.layers[2], [Interval::new(0.0, 2.0), Interval::new(-2.0, 0.0)], "{slopes:?}");
        }
    }

    #[test]
    fn every_tanh_input_is_bounded_again() {
        // Tanh is relaxed on any range, so each of its inputs is bounded by back-substitution:
        // `a_0 + a_1` with `a = tanh(x, 1 − x)` is at least `2·tanh(0.5) − …`, well above the
        // interval bound's `0`, and at most `tanh(1)`'s double, the interval bound's end.
        let (layers, mut bounds) = correlated(Layer::tanh());
        let before = bounds.layers[2].clone();
        assert!(before[0].lo == 0.0 && before[1].hi == 0.0, "{before:?}");
        tighten(&layers, &mut bounds, &mut PreparedLayers::new(layers.len()), Slopes::Fixed, Deadline::NEVER).unwrap();
        let after = &bounds.layers[2];
        assert!(after[0].lo > 0.5 && after[1].hi < -0.5, "{after:?}");
        // And they still hold: tanh(x) + tanh(1 − x) on a grid of [0, 1].
        for i in 0..=64 {
            let x = i as f64 / 64.0;
            let value = Layer::tanh().apply(&[x, 1.0 - x]).iter().sum::<f64>();
            assert!(after[0].lo <= value && value <= after[0].hi, "{x}: {value} outside {:?}", after[0]);
        }
    }

    #[test]
    fn a_relu_part_keeps_the_layers_before_its_cut_with_the_bits_it_would_compute() {
        // A part cut at relu input `(l, i)` keeps layers `0..=l` of its box's bounds: the
        // same bits as computing them again from the input and meeting them with the box's.
        // Keeping one layer more (the relu after the cut) would keep it stale.
        let mut rng = SplitMix::new(31);
        let mut compared = 0;
        for _ in 0..20 {
            let (layers, outer) = fixed_on_a_box(&mut rng, 8, 3);
            let input = outer.input.clone();
            for l in (0..layers.len()).filter(|&l| layers.get(l + 1).is_some_and(|n| n.splits_at_zero())) {
                let Some(i) = outer.layers[l].iter().position(|z| z.lo < 0.0 && z.hi > 0.0) else { continue };
                let mut cut = outer.layers.clone();
                // The side where the relu is 0: its output changes from `[0, hi]` to `[0, 0]`.
                cut[l][i] = Interval::new(cut[l][i].lo, 0.0);
                let kept = bounds_within(&layers, &input, Some(&cut), l + 1).unwrap();
                let computed = bounds_within(&layers, &input, Some(&cut), 0).unwrap();
                assert_eq!(kept, computed, "cut at ({l}, {i})");
                let stale = bounds_within(&layers, &input, Some(&cut), l + 2).unwrap();
                assert_ne!(stale[l + 1], computed[l + 1], "the relu after the cut must be computed again");
                compared += 1;
            }
        }
        assert!(compared >= 10, "only {compared} cuts compared");
    }

    #[test]
    fn tightening_from_a_layer_leaves_the_earlier_ones_as_they_were() {
        // A relu part keeps its box's bounds up to the split's layer: `tighten_from` must not
        // touch them (even where they are only interval bounds), and must still tighten, and
        // keep sound, the later ones.
        let mut rng = SplitMix::new(23);
        let mut tightened_later = 0;
        for _ in 0..20 {
            let layers = random_network(&mut rng, 3, 10, 3);
            let input = vec![Interval::new(-1.0, 1.0), Interval::new(-0.5, 0.5), Interval::new(0.0, 1.0)];
            let intervals = Bounds { layers: network_bounds(&layers, &input).unwrap(), input: input.clone() };
            let mut from_two = intervals.clone();
            let mut prepared = PreparedLayers::new(layers.len());
            tighten_from(&layers, &mut from_two, &mut prepared, Slopes::Fixed, 2, Deadline::NEVER).unwrap();
            assert_eq!(from_two.layers[..2], intervals.layers[..2]);
            for (f, i) in from_two.layers[2..].iter().flatten().zip(intervals.layers[2..].iter().flatten()) {
                assert!(f.lo >= i.lo && f.hi <= i.hi, "{f:?} looser than {i:?}");
            }
            if unstable(&from_two) < unstable(&intervals) {
                tightened_later += 1;
            }
            assert_hold_at_samples(&layers, &from_two, &mut rng);
        }
        assert!(tightened_later >= 10, "the later layers were tightened in only {tightened_later} of 20");
    }

    #[test]
    fn optimised_hidden_bounds_hold_and_are_never_looser() {
        let mut rng = SplitMix::new(11);
        let mut fewer_unstable = 0;
        for _ in 0..30 {
            let (layers, fixed) = fixed_on_a_box(&mut rng, 10, 4);
            // As the search does: the optimised stage starts from the fixed stage's bounds, and
            // keeps every bound within them (back-substitution is not monotone in the bounds of
            // earlier layers, so only the intersection guarantees this).
            let mut optimised = fixed.clone();
            tighten(
                &layers,
                &mut optimised,
                &mut PreparedLayers::new(layers.len()),
                Slopes::Optimised,
                Deadline::NEVER,
            )
            .unwrap();
            for (f, o) in fixed.layers.iter().flatten().zip(optimised.layers.iter().flatten()) {
                assert!(o.lo >= f.lo && o.hi <= f.hi, "optimised {o:?} looser than fixed {f:?}");
            }
            if unstable(&optimised) < unstable(&fixed) {
                fewer_unstable += 1;
            }
            assert_hold_at_samples(&layers, &optimised, &mut rng);
        }
        assert!(fewer_unstable >= 12, "optimised slopes made relus stable in only {fewer_unstable} of 30 networks");
    }
}
