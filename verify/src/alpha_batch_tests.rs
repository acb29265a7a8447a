//! Unit tests of `alpha.rs`'s batches: rows optimised together (`alpha/rows.rs`), parts of
//! boxes optimised together (`alpha/parts.rs`), and the multipliers of a part's sign
//! constraints.

use super::tests::{dense, start, two_relu_layers};
use super::*;
use crate::deadline::Deadline;
use crate::falsify::SplitMix;
use crate::float::Interval;
use crate::interval::network_bounds;
use crate::linear::{BATCH_ROWS, back_substitute};
use crate::tighten::{Slopes, tighten};

#[test]
fn rows_optimised_together_get_each_rows_own_optimisation() {
    // `optimise_rows` carries every row at once, with its own slopes; each row must end where
    // `optimise_row` alone ends (up to the order of the products' sums), also when rows leave
    // the batch past a goal (the others' lines then compacted), and every bound must still hold
    // at points of the box.
    let mut rng = SplitMix::new(7);
    let (mut improved, mut left) = (0, 0);
    for _ in 0..20 {
        let layers = crate::test_support::random_network(&mut rng, 3, 10, 3);
        let last = layers.len() - 1;
        let input = vec![Interval::new(-1.0, 1.0), Interval::new(-0.5, 0.5), Interval::new(0.0, 1.0)];
        let (bounds, mut prepared, _) = start(&layers, input.clone(), &[1.0, 0.0]);
        let rows = [1.0, 0.0, 0.0, 1.0, 1.0, -1.0, -2.0, 0.5];
        let starts = back_substitute(&layers, &bounds, &mut prepared, last, rows.to_vec(), 2);
        let mut ends: Vec<f64> = starts.iter().map(|s| s.value).collect();
        ends.sort_by(f64::total_cmp);
        // Past the goal: a row that starts above it, and one or two that get there.
        let goal = ends[1] + 0.05;
        for goal in [f64::INFINITY, goal] {
            let together = optimise_rows(
                &layers,
                &bounds,
                &mut prepared,
                last,
                &rows,
                2,
                LowerSlope::Chord,
                starts.clone(),
                goal,
                &[],
            );
            left += together.iter().zip(&starts).filter(|(b, s)| s.value <= goal && b.value > goal).count();
            for (r, (both, start)) in together.iter().zip(&starts).enumerate() {
                let row = &rows[2 * r..2 * r + 2];
                let alone = optimise_row(
                    &layers,
                    &bounds,
                    &mut prepared,
                    last,
                    row,
                    LowerSlope::Chord,
                    start.clone(),
                    goal,
                    &[],
                );
                assert!(
                    (both.value - alone.value).abs() <= 1e-9 * (1.0 + alone.value.abs()),
                    "row {r}, goal {goal}: {both:?} vs {alone:?}"
                );
                assert!(both.value >= start.value, "row {r} lost: {} < {}", both.value, start.value);
                improved += usize::from(both.value > start.value && goal == f64::INFINITY);
                for _ in 0..50 {
                    let x: Vec<f64> = input.iter().map(|i| i.lo + rng.unit() * (i.hi - i.lo)).collect();
                    let y = layers.iter().fold(x, |v, layer| layer.apply(&v));
                    let value = row[0] * y[0] + row[1] * y[1];
                    assert!(value >= both.value, "row {r}: {value} below the bound {}", both.value);
                }
            }
        }
    }
    assert!(improved >= 20, "the optimisation improved only {improved} of 80 rows");
    assert!(left >= 10, "only {left} rows left the batch past the goal");
}

#[test]
fn rows_with_sign_multipliers_hold_on_their_part_and_gain_from_it() {
    let mut rng = SplitMix::new(11);
    let mut random = |n: usize| (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect::<Vec<f64>>();
    let (mut parts, mut gained) = (0, 0);
    for net in 0..60 {
        let layers = two_relu_layers(&mut random);
        let input = vec![Interval::new(-1.0, 1.0), Interval::new(-0.5, 1.0)];
        let mut bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
        tighten(&layers, &mut bounds, &mut PreparedLayers::new(layers.len()), Slopes::Fixed, Deadline::NEVER).unwrap();
        // The part where the first unstable relu of the first layer has one sign (alternating).
        let Some(neuron) = bounds.layers[0].iter().position(|z| z.lo < 0.0 && z.hi > 0.0) else { continue };
        let positive = net % 2 == 0;
        let side = if positive { Interval::new(0.0, f64::INFINITY) } else { Interval::new(f64::NEG_INFINITY, 0.0) };
        bounds.layers[0][neuron] = bounds.layers[0][neuron].meet(side).unwrap();
        let signs = [SignConstraint { output_of: 0, neuron, positive }];
        let rows = [1.0, -1.0, -1.0, 1.0, 1.0, 0.0];
        let mut prepared = PreparedLayers::new(layers.len());
        let starts = back_substitute(&layers, &bounds, &mut prepared, 4, rows.to_vec(), 2);
        let optimise = |signs: &[SignConstraint], prepared: &mut PreparedLayers| {
            let chord = LowerSlope::Chord;
            optimise_rows(&layers, &bounds, prepared, 4, &rows, 2, chord, starts.clone(), f64::INFINITY, signs)
        };
        let without = optimise(&[], &mut prepared);
        let with = optimise(&signs, &mut prepared);
        parts += 1;
        gained += usize::from(with.iter().zip(&without).any(|(w, o)| w.value > o.value));
        // Each row's bound holds at every grid point of the part (the relu's input of its sign).
        for a in 0..40 {
            for b in 0..40 {
                let x = vec![-1.0 + 2.0 * (a as f64 / 39.0), -0.5 + 1.5 * (b as f64 / 39.0)];
                let z = layers[0].apply(&x);
                if (z[neuron] >= 0.0) != positive && z[neuron] != 0.0 {
                    continue;
                }
                let y = layers.iter().fold(x.clone(), |v, layer| layer.apply(&v));
                for (r, bound) in with.iter().enumerate() {
                    let value = rows[2 * r] * y[0] + rows[2 * r + 1] * y[1];
                    assert!(value >= bound.value, "net {net} row {r}: {value} below the bound {}", bound.value);
                }
            }
        }
    }
    // The multipliers must pay somewhere, or they would not be worth their cost.
    assert!(parts >= 40 && gained >= 20, "the multipliers raised a bound on {gained} of {parts} parts");
}

#[test]
fn a_parts_multiplier_steps_towards_its_best_value() {
    // x ∈ [−1, 1], z = (4x, x + 2), y = 3·relu(z_1) − 6 = 3x (z_1 ∈ [1, 3] is stable). On the
    // part z_0 ≥ 0 (x ≥ 0) the least y is 0 and the least z_1 is 2, but the part's bounds cut
    // only z_0's interval, which neither depends on: without a multiplier the bounds are those
    // of the whole box, −3 and 1. With one, y − β·z_0 = (3 − 4β)·x is least at 0 for β = 3/4,
    // z_1 − β·z_0 = (1 − 4β)·x + 2 at 2 for β = 1/4. The steps, scaled by the largest
    // coefficient met at z's layer (3 for y, 1 for z_1), move β by 1.5, −0.9, 0.54, −0.324 for
    // y: bounds −3, −0.6, −1.56, −0.264; and by 0.5, −0.3, 0.18, −0.108 for z_1: 1, 1.8, 1.48,
    // 1.912. A step the wrong way, of the wrong size, or skipping the constraint on the very
    // layer being bounded ends far from these. The same with z_0 = −4x and the part z_0 ≤ 0.
    for (weight, positive) in [(4.0, true), (-4.0, false)] {
        let layers = vec![
            dense(2, 1, vec![weight, 1.0], vec![None, Some(2.0)]),
            Layer::relu(),
            dense(1, 2, vec![0.0, 3.0], vec![Some(-6.0)]),
        ];
        let (mut bounds, _, _) = start(&layers, vec![Interval::new(-1.0, 1.0)], &[1.0]);
        let side = if positive { Interval::new(0.0, f64::INFINITY) } else { Interval::new(f64::NEG_INFINITY, 0.0) };
        bounds.layers[0][0] = bounds.layers[0][0].meet(side).unwrap();
        let signs = [SignConstraint { output_of: 0, neuron: 0, positive }];
        let chord = LowerSlope::Chord;
        for (from, row, without, least, within) in [(2, vec![1.0], -3.0, 0.0, 0.3), (0, vec![0.0, 1.0], 1.0, 2.0, 0.1)]
        {
            let mut prepared = PreparedLayers::new(layers.len());
            let start = back_substitute(&layers, &bounds, &mut prepared, from, row.clone(), row.len()).pop().unwrap();
            assert!((start.value - without).abs() < 1e-9, "from {from}: without a multiplier {}", start.value);
            let inf = f64::INFINITY;
            let unconstrained =
                optimise_row(&layers, &bounds, &mut prepared, from, &row, chord, start.clone(), inf, &[]);
            assert!((unconstrained.value - without).abs() < 1e-9, "from {from}: {}", unconstrained.value);
            let best = optimise_row(&layers, &bounds, &mut prepared, from, &row, chord, start, inf, &signs);
            let at = format!("z_0 = {weight}x, from {from}");
            assert!(best.value <= least && best.value >= least - within, "{at}: {} for {least}", best.value);
        }
    }
}

/// A part's layers prepared on its bounds, and its fixed-slope bound of `row·y`.
fn prepare(layers: &[Layer], bounds: &Bounds, row: &[f64]) -> (PreparedLayers, LowerBound) {
    let mut prepared = PreparedLayers::new(layers.len());
    let last = layers.len() - 1;
    let start = back_substitute(layers, bounds, &mut prepared, last, row.to_vec(), row.len()).pop().unwrap();
    (prepared, start)
}

/// Optimises `row` on all `parts` in one batch and asserts that each part's bound (value and
/// coefficients) and end have the bits of the part optimised alone.
fn assert_each_part_ends_as_alone(layers: &[Layer], parts: &[(Bounds, Vec<SignConstraint>)], row: &[f64], goal: f64) {
    let (last, chord) = (layers.len() - 1, LowerSlope::Chord);
    let mut prepared: Vec<(PreparedLayers, LowerBound)> = parts.iter().map(|(b, _)| prepare(layers, b, row)).collect();
    let mut batch: Vec<RowOnPart<'_>> = parts
        .iter()
        .zip(prepared.iter_mut())
        .map(|((bounds, signs), (prepared, start))| RowOnPart {
            bounds,
            prepared,
            row,
            start_bound: start.clone(),
            signs,
            warm: None,
        })
        .collect();
    let together = optimise_parts(layers, &mut batch, last, chord, goal, Steps::COLD);
    assert_eq!(together.len(), parts.len());
    for (p, ((bounds, signs), (both, both_end))) in parts.iter().zip(&together).enumerate() {
        let (mut own, start) = prepare(layers, bounds, row);
        let (alone, alone_end) =
            optimise_row_from(layers, bounds, &mut own, last, row, chord, start, goal, signs, None, Steps::COLD);
        let bits = |l: &LowerBound| (l.value.to_bits(), l.coefficients.iter().map(|c| c.to_bits()).collect::<Vec<_>>());
        assert_eq!(bits(both), bits(&alone), "{} parts, part {p}, goal {goal}", parts.len());
        assert_eq!(both_end, &alone_end, "{} parts, part {p}, goal {goal}", parts.len());
    }
}

#[test]
fn a_batch_of_parts_ends_each_part_where_it_ends_alone() {
    // Parts of boxes optimised in one batch (the refinement's batches) must each end with the
    // bits they have optimised alone, with their own bounds, signs and multipliers, also when
    // some leave the batch (past the goal) or never join it (nothing to optimise: a box of one
    // point, every relu stable): then the batch's arrays are gathered part by part.
    let mut rng = SplitMix::new(29);
    let mut random = |n: usize| (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect::<Vec<f64>>();
    let row = [1.0, -1.0];
    // A part's bounds, one relu of the first layer cut to a sign on odd parts, and its signs.
    let part = |layers: &[Layer], input: Vec<Interval>, p: usize| {
        let (mut bounds, _, _) = start(layers, input, &row);
        let mut signs = Vec::new();
        if let Some(neuron) = bounds.layers[0].iter().position(|z| z.lo < 0.0 && z.hi > 0.0).filter(|_| p % 2 == 1) {
            let positive = p % 4 == 1;
            let side = if positive { Interval::new(0.0, f64::INFINITY) } else { Interval::new(f64::NEG_INFINITY, 0.0) };
            bounds.layers[0][neuron] = bounds.layers[0][neuron].meet(side).unwrap();
            signs.push(SignConstraint { output_of: 0, neuron, positive });
        }
        (bounds, signs)
    };
    for net in 0..30 {
        let layers = two_relu_layers(&mut random);
        let parts: Vec<(Bounds, Vec<SignConstraint>)> = (0..5)
            .map(|p| {
                let c = random(2);
                let input = if p == 2 {
                    vec![Interval::new(c[0], c[0]), Interval::new(c[1], c[1])]
                } else {
                    vec![Interval::new(c[0] - 0.6, c[0] + 0.6), Interval::new(c[1] - 0.3, c[1] + 0.5)]
                };
                part(&layers, input, p)
            })
            .collect();
        let stable = |b: &Bounds| b.layers.iter().flatten().all(|z| !(z.lo < 0.0 && z.hi > 0.0));
        assert!(stable(&parts[2].0), "net {net}: the point's relus are all stable");
        let mut starts: Vec<f64> = parts.iter().map(|(b, _)| prepare(&layers, b, &row).1.value).collect();
        starts.sort_by(f64::total_cmp);
        for goal in [f64::INFINITY, starts[2] + 0.01 * (1 + net % 3) as f64] {
            assert_each_part_ends_as_alone(&layers, &parts, &row, goal);
        }
    }
    // A batch of exactly as many parts as one pass carries, and one more (two groups).
    let layers = two_relu_layers(&mut random);
    for count in [BATCH_ROWS, BATCH_ROWS + 1] {
        let parts: Vec<(Bounds, Vec<SignConstraint>)> = (0..count)
            .map(|p| {
                let c = random(2);
                part(&layers, vec![Interval::new(c[0] - 0.5, c[0] + 0.5), Interval::new(c[1] - 0.5, c[1] + 0.5)], p)
            })
            .collect();
        assert_each_part_ends_as_alone(&layers, &parts, &row, f64::INFINITY);
    }
}
