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

pub(super) fn dense(rows: usize, cols: usize, w: Vec<f64>, bias: Vec<Option<f64>>) -> Layer {
    Layer::dense(Arc::new(Matrix::new(rows, cols, w)), bias)
}

/// The network, its bounds on `input` (tightened with fixed slopes), every layer prepared,
/// and the better fixed-slope bound of `row·y`.
pub(super) fn start(layers: &[Layer], input: Vec<Interval>, row: &[f64]) -> (Bounds, PreparedLayers, LowerBound) {
    let mut bounds = Bounds { layers: network_bounds(layers, &input).unwrap(), input };
    let mut prepared = PreparedLayers::new(layers.len());
    tighten(layers, &mut bounds, &mut prepared, Slopes::Fixed, Deadline::NEVER).unwrap();
    let last = layers.len() - 1;
    let start = back_substitute(layers, &bounds, &mut prepared, last, row.to_vec(), row.len()).pop().unwrap();
    (bounds, prepared, start)
}

/// A random 2-8-8-2 network with relus, its weights and biases drawn by `random`.
pub(super) fn two_relu_layers(random: &mut impl FnMut(usize) -> Vec<f64>) -> Vec<Layer> {
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
