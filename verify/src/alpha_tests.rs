//! Unit tests of `alpha.rs`.

use std::sync::Arc;

use super::rows::{shared_upper_lines, slope_gradients};
use super::*;
use crate::deadline::Deadline;
use crate::falsify::SplitMix;
use crate::float::Interval;
use crate::interval::network_bounds;
use crate::linear::{LowerLines, back_substitute, back_substitute_with};
use crate::tighten::{Slopes, tighten};
use knn_engine::tensor::Matrix;

fn dense(rows: usize, cols: usize, w: Vec<f64>, bias: Vec<Option<f64>>) -> Layer {
    Layer::dense(Arc::new(Matrix::new(rows, cols, w)), bias)
}

/// The network, its bounds on `input` (tightened with fixed slopes), every layer prepared,
/// and the better fixed-slope bound of `row·y`.
fn start(layers: &[Layer], input: Vec<Interval>, row: &[f64]) -> (Bounds, PreparedLayers, LowerBound) {
    let mut bounds = Bounds { layers: network_bounds(layers, &input).unwrap(), input };
    let mut prepared = PreparedLayers::new(layers.len());
    tighten(layers, &mut bounds, &mut prepared, Slopes::Fixed, Deadline::NEVER).unwrap();
    let last = layers.len() - 1;
    let start = back_substitute(layers, &bounds, &mut prepared, last, row.to_vec(), row.len()).pop().unwrap();
    (bounds, prepared, start)
}

/// A random 2-8-8-2 network with relus, its weights and biases drawn by `random`.
fn two_relu_layers(random: &mut impl FnMut(usize) -> Vec<f64>) -> Vec<Layer> {
    vec![
        Layer::dense(Arc::new(Matrix::new(8, 2, random(16))), random(8).into_iter().map(Some).collect()),
        Layer::relu(),
        Layer::dense(Arc::new(Matrix::new(8, 8, random(64))), random(8).into_iter().map(Some).collect()),
        Layer::relu(),
        Layer::dense(Arc::new(Matrix::new(2, 8, random(16))), vec![None, None]),
    ]
}

/// `y = relu(z) − z/2` for `z = x − 1`, `x ∈ [0, 4]`, built as `relu(x − 1) − relu(x + 9)/2
/// + 5` (the second relu is stable). With the lower line `α·z`, the bound of `y` is
/// `(α − 1/2)·x + 1/2 − α`: `1/2 − α` (at `x = 0`) for `α ≥ 1/2`, `3·(α − 1/2)` (at `x = 4`)
/// below. The best slope is `1/2`, with bound 0 (the true minimum, at `z = 0`); the chord's
/// `3/4` gives `−1/4`, the identity `−1/2`.
fn half_absolute_value() -> (Vec<Layer>, Bounds, PreparedLayers, LowerBound) {
    let layers = vec![
        dense(2, 1, vec![1.0, 1.0], vec![Some(-1.0), Some(9.0)]),
        Layer::relu(),
        dense(1, 2, vec![1.0, -0.5], vec![Some(5.0)]),
    ];
    let (bounds, prepared, start) = start(&layers, vec![Interval::new(0.0, 4.0)], &[1.0]);
    (layers, bounds, prepared, start)
}

#[test]
fn sign_steps_close_in_on_the_best_slope() {
    let (layers, bounds, mut prepared, start) = half_absolute_value();
    assert!((start.value + 0.25).abs() < 1e-12, "the chord's bound: {}", start.value);
    let best = optimise_row(&layers, &bounds, &mut prepared, 2, &[1.0], LowerSlope::Chord, start, f64::INFINITY, &[]);
    // The steps of 1/2, 0.3, 0.18, … from 3/4: 1/4 (bound −3/4), 0.55 (−0.05), 0.37, 0.478.
    assert!(best.value >= -0.05 - 1e-9 && best.value <= 0.0, "{}", best.value);
}

#[test]
fn a_bound_above_the_goal_is_returned_at_once_and_one_at_it_is_improved() {
    let (layers, bounds, mut prepared, start) = half_absolute_value();
    let at_once = optimise_row(
        &layers,
        &bounds,
        &mut prepared,
        2,
        &[1.0],
        LowerSlope::Chord,
        start.clone(),
        f64::NEG_INFINITY,
        &[],
    );
    assert_eq!(at_once.value, start.value);
    // "Above" is strict: a bound equal to the goal is still improved.
    let goal = start.value;
    let improved = optimise_row(&layers, &bounds, &mut prepared, 2, &[1.0], LowerSlope::Chord, start, goal, &[]);
    assert!(improved.value >= -0.05 - 1e-9, "{}", improved.value);
}

#[test]
fn a_network_that_is_one_relu_is_optimised_too() {
    // y = relu(x) on [−1, 3]: the chord 3/4 gives −3/4; the slope 0 gives the true minimum 0,
    // which the steps reach (3/4 → 1/4 → 0).
    let layers = vec![Layer::relu()];
    let (bounds, mut prepared, start) = start(&layers, vec![Interval::new(-1.0, 3.0)], &[1.0]);
    assert!((start.value + 0.75).abs() < 1e-12, "{}", start.value);
    let best = optimise_row(&layers, &bounds, &mut prepared, 0, &[1.0], LowerSlope::Chord, start, f64::INFINITY, &[]);
    assert!(best.value > -1e-12 && best.value <= 0.0, "{}", best.value);
}

#[test]
fn the_slope_gradient_is_the_bounds_derivative() {
    // For every relu, ∂ bound / ∂ (its lower line's slope), by central differences of the
    // rigorous bound, at random slopes; widths 10 and 9 exercise the chunked dot product,
    // and a bias layer of its own is carried through too.
    let mut rng = SplitMix::new(5);
    let (mut compared, mut agreed, mut nonzero) = (0, 0, 0);
    for net in 0..12 {
        let mut random = |n: usize| (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect::<Vec<f64>>();
        let first = if net % 2 == 0 { Layer::relu() } else { Layer::tanh() };
        let layers = vec![
            dense(10, 3, random(30), random(10).into_iter().map(Some).collect()),
            first,
            dense(10, 10, random(100), random(10).into_iter().map(Some).collect()),
            Layer::bias(random(10).into_iter().enumerate().map(|(i, b)| (i % 3 != 0).then_some(b)).collect()),
            Layer::relu(),
            dense(9, 10, random(90), random(9).into_iter().map(Some).collect()),
            Layer::relu(),
            dense(2, 9, random(18), vec![None, Some(0.25)]),
        ];
        let row = random(2);
        let input = vec![Interval::new(-1.0, 1.0), Interval::new(-0.5, 1.0), Interval::new(0.0, 2.0)];
        let (bounds, mut prepared, _) = start(&layers, input, &row);
        let mut slopes = SplitMix::new(net as u64);
        let mut lines: Vec<Vec<Line>> = (0..layers.len())
            .map(|k| prepared.lower_lines(k, LowerSlope::Chord).map(<[Line]>::to_vec).unwrap_or_default())
            .collect();
        for (k, layer_lines) in lines.iter_mut().enumerate() {
            if layers[k].splits_at_zero() {
                for (line, z) in layer_lines.iter_mut().zip(bounds.input_of(k)) {
                    if z.lo < 0.0 && z.hi > 0.0 {
                        line.slope = 0.05 + 0.9 * slopes.unit();
                    }
                }
            }
        }
        let last = layers.len() - 1;
        let mut bound = |lines: &[Vec<Line>], trace: Option<&mut Vec<Vec<f64>>>| {
            back_substitute_with(&layers, &bounds, &mut prepared, last, row.clone(), 2, LowerLines::Given(lines), trace)
                .pop()
                .unwrap()
        };
        let mut trace = Vec::new();
        let found = bound(&lines, Some(&mut trace));
        let h = 1e-6;
        let mut derivatives = Vec::new();
        for k in 0..lines.len() {
            for i in 0..lines[k].len() {
                let mut moved = lines.clone();
                moved[k][i].slope += h;
                let up = bound(&moved, None).value;
                moved[k][i].slope -= 2.0 * h;
                let down = bound(&moved, None).value;
                derivatives.push((k, i, (up - down) / (2.0 * h)));
            }
        }
        let upper = shared_upper_lines(&prepared, trace.len());
        let (gradient, _) = slope_gradients(&layers, &bounds.input, &upper, &lines, &trace, &found.coefficients, 1);
        for (k, i, fd) in derivatives {
            if !layers[k].splits_at_zero() {
                // Tanh and sigmoid have no slope to choose: no gradient.
                assert_eq!(gradient[k][i], 0.0, "layer {k}");
                continue;
            }
            compared += 1;
            if gradient[k][i] != 0.0 {
                nonzero += 1;
            }
            if (gradient[k][i] - fd).abs() <= 1e-5 * (1.0 + fd.abs()) {
                agreed += 1;
            }
        }
    }
    // A central difference straddles a kink (a coefficient changing sign) only rarely.
    assert!(compared > 200 && nonzero > 50, "{compared} compared, {nonzero} nonzero");
    assert!(agreed * 100 >= compared * 98, "{agreed} of {compared} derivatives agree");
}

#[test]
fn optimised_slopes_never_lose_and_still_bound_the_network() {
    let mut rng = SplitMix::new(7);
    let mut random = |n: usize| (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect::<Vec<f64>>();
    let mut improved = 0;
    for net in 0..40 {
        // Every other network has a tanh layer before the relu: slopes are chosen for
        // relus only (a tanh layer once crashed the optimiser).
        let first = if net % 2 == 0 { Layer::relu() } else { Layer::tanh() };
        let layers = vec![
            Layer::dense(Arc::new(Matrix::new(8, 2, random(16))), random(8).into_iter().map(Some).collect()),
            first,
            Layer::dense(Arc::new(Matrix::new(8, 8, random(64))), random(8).into_iter().map(Some).collect()),
            Layer::relu(),
            Layer::dense(Arc::new(Matrix::new(2, 8, random(16))), vec![None, None]),
        ];
        let input = vec![Interval::new(-1.0, 1.0), Interval::new(-0.5, 1.0)];
        let mut bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
        let mut prepared = PreparedLayers::new(layers.len());
        tighten(&layers, &mut bounds, &mut prepared, Slopes::Fixed, Deadline::NEVER).unwrap();
        let row = vec![1.0, -1.0];
        let start = back_substitute(&layers, &bounds, &mut prepared, 4, row.clone(), 2).pop().unwrap();
        let optimised = optimise_row(
            &layers,
            &bounds,
            &mut prepared,
            4,
            &row,
            LowerSlope::Chord,
            start.clone(),
            f64::INFINITY,
            &[],
        );
        assert!(optimised.value >= start.value);
        if optimised.value > start.value {
            improved += 1;
        }
        // y0 − y1 at sampled points is never below the bound.
        for k in 0..200 {
            let x = [-1.0 + 2.0 * (k as f64 / 199.0), -0.5 + 1.5 * ((k * 37 % 200) as f64 / 199.0)];
            let y = layers.iter().fold(x.to_vec(), |v, layer| layer.apply(&v));
            assert!(y[0] - y[1] >= optimised.value, "bound {} above {} at {x:?}", optimised.value, y[0] - y[1]);
        }
    }
    assert!(improved >= 8, "the optimisation improved only {improved} of 40 bounds");
}

#[test]
fn a_warm_start_resumes_where_the_optimisation_ended() {
    // Optimising a second time from where the first ended starts at the first's best bound
    // (its lines and multipliers give that bound again), so it can only be better; and its
    // bounds still hold at sampled points. A part whose relu was split keeps the exact line
    // of that relu, whatever slope the warm start had for it.
    let mut rng = SplitMix::new(19);
    let mut random = |n: usize| (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect::<Vec<f64>>();
    let mut resumed_better = 0;
    for _ in 0..30 {
        let layers = two_relu_layers(&mut random);
        let input = vec![Interval::new(-1.0, 1.0), Interval::new(-0.5, 1.0)];
        let row = vec![1.0, -1.0];
        let (bounds, mut prepared, start) = start(&layers, input, &row);
        let optimise = |prepared: &mut PreparedLayers, bounds: &Bounds, start: &LowerBound, warm: Option<&Warm>| {
            let signs: &[SignConstraint] = &[];
            optimise_row_from(
                &layers,
                bounds,
                prepared,
                4,
                &row,
                LowerSlope::Chord,
                start.clone(),
                f64::INFINITY,
                signs,
                warm,
                if warm.is_some() { Steps::WARM } else { Steps::COLD },
            )
        };
        let (first, ended) = optimise(&mut prepared, &bounds, &start, None);
        let (again, _) = optimise(&mut prepared, &bounds, &start, Some(&ended));
        assert!(again.value >= first.value, "resumed at {} below the first's {}", again.value, first.value);
        if again.value > first.value {
            resumed_better += 1;
        }
        // The part where the first unstable relu input of layer 0 is at least 0: its line is
        // the identity there, and the warm start's slope for it is not used.
        let Some(i) = bounds.layers[0].iter().position(|z| z.lo < 0.0 && z.hi > 0.0) else { continue };
        let mut part = bounds.clone();
        part.layers[0][i].lo = 0.0;
        let mut part_prepared = PreparedLayers::new(layers.len());
        let part_start = back_substitute(&layers, &part, &mut part_prepared, 4, row.clone(), 2).pop().unwrap();
        let (on_part, _) = optimise(&mut part_prepared, &part, &part_start, Some(&ended));
        for k in 0..400 {
            let x = [-1.0 + 2.0 * (k as f64 / 399.0), -0.5 + 1.5 * ((k * 37 % 400) as f64 / 399.0)];
            let z0 = layers[0].apply(&x);
            let y = layers.iter().fold(x.to_vec(), |v, layer| layer.apply(&v));
            assert!(y[0] - y[1] >= again.value, "bound {} above {} at {x:?}", again.value, y[0] - y[1]);
            if z0[i] >= 0.0 {
                assert!(y[0] - y[1] >= on_part.value, "part's bound {} above {} at {x:?}", on_part.value, y[0] - y[1]);
            }
        }
    }
    assert!(resumed_better >= 5, "resuming improved only {resumed_better} of 30 bounds");
}

#[test]
fn rows_optimised_together_get_each_rows_own_optimisation() {
    // `optimise_rows` carries every row at once, with its own slopes; each row must end where
    // `optimise_row` alone ends (up to the order of the products' sums), and every bound must
    // still hold at points of the box.
    let mut rng = SplitMix::new(7);
    let mut improved = 0;
    for _ in 0..20 {
        let layers = crate::test_support::random_network(&mut rng, 3, 10, 3);
        let last = layers.len() - 1;
        let input = vec![Interval::new(-1.0, 1.0), Interval::new(-0.5, 0.5), Interval::new(0.0, 1.0)];
        let (bounds, mut prepared, _) = start(&layers, input.clone(), &[1.0, 0.0]);
        let rows = [1.0, 0.0, 0.0, 1.0, 1.0, -1.0, -2.0, 0.5];
        let starts = back_substitute(&layers, &bounds, &mut prepared, last, rows.to_vec(), 2);
        let together = optimise_rows(
            &layers,
            &bounds,
            &mut prepared,
            last,
            &rows,
            2,
            LowerSlope::Chord,
            starts.clone(),
            f64::INFINITY,
            &[],
        );
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
                f64::INFINITY,
                &[],
            );
            assert!(
                (both.value - alone.value).abs() <= 1e-9 * (1.0 + alone.value.abs()),
                "row {r}: {both:?} vs {alone:?}"
            );
            assert!(both.value >= start.value, "row {r} lost: {} < {}", both.value, start.value);
            improved += usize::from(both.value > start.value);
            for _ in 0..50 {
                let x: Vec<f64> = input.iter().map(|i| i.lo + rng.unit() * (i.hi - i.lo)).collect();
                let y = layers.iter().fold(x, |v, layer| layer.apply(&v));
                let value = row[0] * y[0] + row[1] * y[1];
                assert!(value >= both.value, "row {r}: {value} below the bound {}", both.value);
            }
        }
    }
    assert!(improved >= 20, "the optimisation improved only {improved} of 80 rows");
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
    // layer being bounded ends far from these.
    let layers = vec![
        dense(2, 1, vec![4.0, 1.0], vec![None, Some(2.0)]),
        Layer::relu(),
        dense(1, 2, vec![0.0, 3.0], vec![Some(-6.0)]),
    ];
    let (mut bounds, _, _) = start(&layers, vec![Interval::new(-1.0, 1.0)], &[1.0]);
    bounds.layers[0][0] = bounds.layers[0][0].meet(Interval::new(0.0, f64::INFINITY)).unwrap();
    let signs = [SignConstraint { output_of: 0, neuron: 0, positive: true }];
    let chord = LowerSlope::Chord;
    for (from, row, without, least, within) in [(2, vec![1.0], -3.0, 0.0, 0.3), (0, vec![0.0, 1.0], 1.0, 2.0, 0.1)] {
        let mut prepared = PreparedLayers::new(layers.len());
        let start = back_substitute(&layers, &bounds, &mut prepared, from, row.clone(), row.len()).pop().unwrap();
        assert!((start.value - without).abs() < 1e-9, "from {from}: without a multiplier {}", start.value);
        let unconstrained =
            optimise_row(&layers, &bounds, &mut prepared, from, &row, chord, start.clone(), f64::INFINITY, &[]);
        assert!((unconstrained.value - without).abs() < 1e-9, "from {from}: {}", unconstrained.value);
        let best = optimise_row(&layers, &bounds, &mut prepared, from, &row, chord, start, f64::INFINITY, &signs);
        assert!(best.value <= least && best.value >= least - within, "from {from}: {} for {least}", best.value);
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
    let last = 4;
    let row = [1.0, -1.0];
    let chord = LowerSlope::Chord;
    // A part's bounds (one relu of the first layer cut to a sign on odd parts), its signs, its
    // layers prepared and its fixed-slope bound.
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
    let prepare = |layers: &[Layer], bounds: &Bounds| {
        let mut prepared = PreparedLayers::new(layers.len());
        let start = back_substitute(layers, bounds, &mut prepared, last, row.to_vec(), 2).pop().unwrap();
        (prepared, start)
    };
    let mut compared = 0;
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
        let mut prepared: Vec<(PreparedLayers, LowerBound)> = parts.iter().map(|(b, _)| prepare(&layers, b)).collect();
        let mut starts: Vec<f64> = prepared.iter().map(|(_, s)| s.value).collect();
        starts.sort_by(f64::total_cmp);
        for goal in [f64::INFINITY, starts[2] + 0.01 * (1 + net % 3) as f64] {
            let mut batch: Vec<RowOnPart<'_>> = parts
                .iter()
                .zip(prepared.iter_mut())
                .map(|((bounds, signs), (prepared, start))| RowOnPart {
                    bounds,
                    prepared,
                    row: &row,
                    start_bound: start.clone(),
                    signs,
                    warm: None,
                })
                .collect();
            let together = optimise_parts(&layers, &mut batch, last, chord, goal, Steps::COLD);
            for (p, ((bounds, signs), (both, both_end))) in parts.iter().zip(&together).enumerate() {
                let (mut own, start) = prepare(&layers, bounds);
                let (alone, alone_end) = optimise_row_from(
                    &layers,
                    bounds,
                    &mut own,
                    last,
                    &row,
                    chord,
                    start,
                    goal,
                    signs,
                    None,
                    Steps::COLD,
                );
                let bits = |l: &LowerBound| {
                    (l.value.to_bits(), l.coefficients.iter().map(|c| c.to_bits()).collect::<Vec<_>>())
                };
                assert_eq!(bits(both), bits(&alone), "net {net}, part {p}, goal {goal}");
                assert_eq!(both_end, &alone_end, "net {net}, part {p}, goal {goal}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 300);
}
