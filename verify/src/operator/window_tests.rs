//! Tests of the window layers (`sparse.rs`, `divide.rs`, `max_pool.rs`): they compute the
//! engine's bits (checked against the engine's own per-row definitions, `window_ops`), and their
//! interval and linear bounds hold at every binary64 point of small boxes, where rounding is
//! what decides.

use std::sync::Arc;

use knn_engine::bigstep::window_ops::{ConvKernel, pool_apply};
use knn_engine::tensor::Matrix;
use knn_semantics::syntax::{Pool, Span};
use knn_semantics::window::{Conv2dGeometry, Pool2dGeometry, WindowAttrs};

use super::{Layer, MaxPool, Operator, Sparse};
use crate::deadline::Deadline;
use crate::decimal::Exact;
use crate::falsify::SplitMix;
use crate::float::Interval;
use crate::interval::{Bounds, network_bounds};
use crate::linear::back_substitute;
use crate::prepare::PreparedLayers;
use crate::tighten::{Slopes, tighten};

fn attrs(strides: [i64; 2], pads: [i64; 4], dilations: [i64; 2], group: i64, kernel: [i64; 2]) -> WindowAttrs {
    WindowAttrs { strides, pads, dilations, group, kernel, count_pad: 0 }
}

fn conv(input: [i64; 3], kernel: [i64; 4], a: WindowAttrs, weights: Vec<f64>, bias: Option<Vec<f64>>) -> ConvKernel {
    let bias_shape = [kernel[0]];
    let names = ("x", "w", bias.as_ref().map(|_| "b"));
    let geometry = Conv2dGeometry::check(names, &input, &kernel, bias.as_ref().map(|_| &bias_shape[..]), a)
        .expect("the test geometry fits");
    ConvKernel { geometry, weights: weights.into(), bias: bias.map(Into::into) }
}

fn pool(input: [i64; 3], a: WindowAttrs) -> Pool2dGeometry {
    Pool2dGeometry::check("pool", "x", &input, a).expect("the test geometry fits")
}

/// Values where rounding, signs of zero and the specials matter.
fn special(rng: &mut SplitMix) -> f64 {
    const SPECIALS: [f64; 10] =
        [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e300, -1e300, 5e-324, 0.1, 1e16];
    match rng.next_u64() % 4 {
        0 => SPECIALS[(rng.next_u64() % SPECIALS.len() as u64) as usize],
        _ => (rng.unit() - 0.5) * 4.0,
    }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() }).collect()
}

/// Lanes side by side (element-major), as `apply_lanes` takes them.
fn interleave(rows: &[Vec<f64>]) -> Vec<f64> {
    let lanes = rows.len();
    let mut out = vec![0.0; rows[0].len() * lanes];
    for (l, row) in rows.iter().enumerate() {
        for (j, x) in row.iter().enumerate() {
            out[j * lanes + l] = *x;
        }
    }
    out
}

fn lane(v: &[f64], l: usize, lanes: usize) -> Vec<f64> {
    v.iter().skip(l).step_by(lanes).copied().collect()
}

#[test]
fn a_convolution_layer_computes_the_engines_bits_on_every_lane() {
    let mut rng = SplitMix::new(7);
    let shapes = [
        ([1, 3, 3], [2, 1, 2, 2], attrs([1, 1], [0; 4], [1, 1], 1, [1, 1])),
        ([2, 4, 3], [2, 1, 2, 2], attrs([2, 1], [1, 0, 1, 1], [1, 1], 2, [1, 1])),
        ([1, 5, 5], [3, 1, 2, 3], attrs([1, 2], [0, 2, 1, 0], [2, 1], 1, [1, 1])),
    ];
    for (input, kernel, a) in shapes {
        for with_bias in [false, true] {
            let weights = (0..kernel.iter().product::<i64>())
                .map(|_| special(&mut rng))
                .map(|w| if w.is_nan() { 0.5 } else { w })
                .collect();
            let bias = with_bias.then(|| (0..kernel[0]).map(|_| special(&mut rng)).collect());
            let k = conv(input, kernel, a, weights, bias);
            let layer = Layer::sparse(Sparse::conv2d(&k));
            let rows: Vec<Vec<f64>> = (0..8).map(|_| (0..k.input_len()).map(|_| special(&mut rng)).collect()).collect();
            let batched = layer.apply_lanes(&interleave(&rows), rows.len());
            for (l, x) in rows.iter().enumerate() {
                let mut engine = vec![0.0; k.output_len()];
                k.apply(x, &mut engine);
                assert_eq!(bits(&layer.apply(x)), bits(&engine), "{input:?} {kernel:?} at {x:?}");
                assert_eq!(bits(&lane(&batched, l, rows.len())), bits(&engine));
            }
        }
    }
}

#[test]
fn a_padding_tap_with_an_infinite_weight_makes_its_output_nan_and_unbounded() {
    // 0.0 · ∞ is NaN: the engine's padding tap reads 0.0 and multiplies it.
    let k = conv(
        [1, 2, 2],
        [1, 1, 2, 2],
        attrs([1, 1], [1, 1, 0, 0], [1, 1], 1, [1, 1]),
        vec![f64::INFINITY, 1.0, 1.0, 1.0],
        None,
    );
    let layer = Layer::sparse(Sparse::conv2d(&k));
    let mut engine = vec![0.0; k.output_len()];
    k.apply(&[1.0, 2.0, 3.0, 4.0], &mut engine);
    assert!(engine[0].is_nan() && layer.apply(&[1.0, 2.0, 3.0, 4.0])[0].is_nan());
    assert_eq!(layer.interval(&[Interval::new(1.0, 2.0); 4]), None);
}

#[test]
fn pool_layers_compute_the_engines_bits_and_max_fails_where_it_does() {
    let mut rng = SplitMix::new(11);
    let geometries = [
        pool([2, 4, 4], attrs([2, 2], [0; 4], [1, 1], 1, [2, 2])),
        pool([1, 5, 4], attrs([1, 2], [1, 0, 1, 1], [1, 1], 1, [3, 2])),
        pool([1, 5, 5], WindowAttrs { count_pad: 1, ..attrs([2, 2], [1, 1, 1, 1], [1, 1], 1, [3, 3]) }),
    ];
    for g in geometries {
        let input_len = g.input.iter().product::<i64>() as usize;
        let outputs = g.output.iter().product::<i64>() as usize;
        let max = MaxPool::new(g, Span::default()).expect("no window wholly in the padding");
        let windows = (0..outputs).map(|k| knn_engine::bigstep::window_ops::pool_taps(&g, k).collect());
        let sums = Layer::sparse(Sparse::window_sums(input_len, windows));
        let counts = (0..outputs).map(|k| knn_engine::bigstep::window_ops::pool_count(&g, k)).map(Some).collect();
        let divide = Layer::divide(counts);
        for _ in 0..50 {
            let x: Vec<f64> = (0..input_len).map(|_| special(&mut rng)).collect();
            let mut engine = vec![0.0; outputs];
            pool_apply(Pool::Avg, &g, &x, &mut engine).expect("an average never fails");
            assert_eq!(bits(&divide.apply(&sums.apply(&x))), bits(&engine), "avg at {x:?}");
            let failed = pool_apply(Pool::Max, &g, &x, &mut engine);
            match (failed, max.failure(&x)) {
                (Ok(()), None) => assert_eq!(bits(&max.apply(&x)), bits(&engine)),
                (Err(nan), Some(error)) => assert_eq!(error.detail, nan.detail()),
                (engine, ours) => panic!("the engine: {engine:?}, the layer: {ours:?} at {x:?}"),
            }
        }
    }
}

/// Every binary64 point of `sides` (each a few consecutive values).
pub(super) fn grid(sides: &[Vec<f64>]) -> Vec<Vec<f64>> {
    sides.iter().fold(vec![Vec::new()], |points, side| {
        points.iter().flat_map(|p| side.iter().map(move |x| [p.clone(), vec![*x]].concat())).collect()
    })
}

/// `count` consecutive binary64 values from `x`.
pub(super) fn run_from(x: f64, count: usize) -> Vec<f64> {
    std::iter::successors(Some(x), |v| Some(v.next_up())).take(count).collect()
}

/// The engine's value of every output at every point of the grid lies within the interval
/// bounds and the linear bounds (back-substitution of `±e_i` from the last layer), and above
/// (below) each bound's line at that very point, not only its minimum over the box: the line
/// `c·x + d` evaluated in exact rationals, so that no rounding of ours hides a missing charge.
pub(super) fn bounds_hold_everywhere(layers: &[Layer], sides: &[Vec<f64>]) {
    let input: Vec<Interval> = sides.iter().map(|s| Interval::new(s[0], *s.last().unwrap())).collect();
    let mut bounds = Bounds { layers: network_bounds(layers, &input).expect("no NaN"), input };
    let mut prepared = PreparedLayers::new(layers.len());
    tighten(layers, &mut bounds, &mut prepared, Slopes::Fixed, Deadline::NEVER).expect("bounds");
    let last = layers.len() - 1;
    let width = bounds.layers[last].len();
    let mut rows = vec![0.0; 2 * width * width];
    for i in 0..width {
        rows[2 * i * width + i] = 1.0;
        rows[(2 * i + 1) * width + i] = -1.0;
    }
    let found = back_substitute(layers, &bounds, &mut prepared, last, rows, width);
    for x in grid(sides) {
        let y = layers.iter().fold(x.clone(), |v, layer| layer.apply(&v));
        for (i, yi) in y.iter().enumerate() {
            let (lo, hi) = (found[2 * i].value, -found[2 * i + 1].value);
            let interval = bounds.layers[last][i];
            assert!(lo <= *yi && *yi <= hi, "output {i} = {yi} at {x:?} outside the linear bounds [{lo}, {hi}]");
            assert!(interval.lo <= *yi && *yi <= interval.hi, "output {i} = {yi} at {x:?} outside {interval:?}");
            for (bound, sign) in [(&found[2 * i], 1.0), (&found[2 * i + 1], -1.0)] {
                // An infinite value (`exp` past 709.78) is held by the ends above, and a line
                // with an infinite constant bounds nothing: no rational to compare.
                if !yi.is_finite() || !bound.constant.is_finite() {
                    continue;
                }
                let exact = |v: f64| Exact::of_binary64(v).expect("finite");
                let line =
                    bound.coefficients.iter().zip(&x).fold(exact(bound.constant), |sum, (c, v)| {
                        sum.add(&exact(*c).mul(&exact(*v))).expect("finite")
                    });
                assert!(exact(sign * yi) >= line, "output {i} = {yi} at {x:?}: {sign}·y is below its line {bound:?}");
            }
        }
    }
}

#[test]
fn a_convolution_that_rounds_past_the_real_range_is_bounded_as_computed() {
    // out = (x·1 + 1e17·1) − 1e17 on x ∈ [8.1, 8.2]: x + 1e17 rounds to 1e17 + 16, so the
    // engine computes 16 everywhere; the reals would say [8.1, 8.2].
    let k = conv([1, 1, 2], [1, 1, 1, 2], attrs([1, 1], [0; 4], [1, 1], 1, [1, 1]), vec![1.0, 1.0], Some(vec![-1e17]));
    let layers = [Layer::sparse(Sparse::conv2d(&k))];
    assert_eq!(layers[0].apply(&[8.15, 1e17]), vec![16.0]);
    bounds_hold_everywhere(&layers, &[run_from(8.1, 6), vec![1e17]]);
}

#[test]
fn conv_relu_max_pool_and_a_dense_layer_are_bounded_at_every_point() {
    // Two channels of 2×2 on a 1×2×3 image, relu, a 1×2 max pool over overlapping windows
    // (stride 1: the middle column is in two windows), then a dense layer: near 1e16 the
    // sums round, and ties in the pool are common.
    let k = conv(
        [1, 2, 3],
        [2, 1, 1, 2],
        attrs([1, 1], [0; 4], [1, 1], 1, [1, 1]),
        vec![1.0, -1.0, 0.1, 3.0],
        Some(vec![0.5, -1e16]),
    );
    let g = pool([2, 2, 2], attrs([1, 1], [0; 4], [1, 1], 1, [1, 2]));
    let dense = Layer::dense(
        Arc::new(Matrix::new(2, 4, vec![1.0, -2.0, 0.5, 1e-16, -1.0, 1.0, 1.0, 3.0])),
        vec![Some(0.25), None],
    );
    let layers = [
        Layer::sparse(Sparse::conv2d(&k)),
        Layer::relu(),
        Layer::max_pool(MaxPool::new(g, Span::default()).unwrap()),
        dense,
    ];
    let sides = [
        run_from(1e16, 3),
        run_from(-0.5, 2),
        run_from(1e16 - 4.0, 3),
        run_from(0.75, 2),
        run_from(2.0, 2),
        run_from(3e15, 3),
    ];
    bounds_hold_everywhere(&layers, &sides);
    let sides =
        [run_from(-1.0, 2), run_from(0.0, 3), run_from(1.0, 2), run_from(-0.1, 2), run_from(0.1, 2), run_from(5.0, 2)];
    bounds_hold_everywhere(&layers, &sides);
}

#[test]
fn an_average_pool_is_bounded_at_every_point_despite_its_divisions() {
    // A 3-wide window divides by 3 (never exact in binary); with padding and countPad 0 the
    // border windows divide by 2.
    let g = pool([1, 1, 4], attrs([1, 1], [0, 1, 0, 1], [1, 1], 1, [1, 3]));
    let windows = (0..4).map(|k| knn_engine::bigstep::window_ops::pool_taps(&g, k).collect());
    let counts = (0..4).map(|k| knn_engine::bigstep::window_ops::pool_count(&g, k)).collect::<Vec<_>>();
    assert_eq!(counts, vec![2.0, 3.0, 3.0, 2.0]);
    let dense = Layer::dense(Arc::new(Matrix::new(1, 4, vec![1.0, -3.0, 3.0, 0.7])), vec![Some(-0.1)]);
    let layers = [
        Layer::relu(),
        Layer::sparse(Sparse::window_sums(4, windows)),
        Layer::divide(counts.into_iter().map(Some).collect()),
        dense,
    ];
    bounds_hold_everywhere(&layers, &[run_from(0.1, 3), run_from(1e16, 4), run_from(-0.3, 2), run_from(1e-310, 3)]);
    bounds_hold_everywhere(&layers, &[run_from(-1e-300, 2), run_from(0.3, 3), run_from(0.2, 3), run_from(7.0, 2)]);
}

/// Two rows computing `x·w` and `x·w'` with `w' = w·(1 + 2⁻⁵²)`, `w = 1e17`: each product rounds
/// by up to 2 (the spacing near 3e16 is 4), but their difference `x·(w − w')` is about −22·x, so
/// a bound of `h0 − h1` carried back to `x` has a coefficient of −22 and no large term: only
/// the layers' own rounding charges can account for the engine's error.
fn cancelling_products() -> Sparse {
    cancelling(1e17)
}

/// The two rows `x·w` and `x·w·(1 + 2⁻⁵²)` on one input.
fn cancelling(w: f64) -> Sparse {
    let k = conv(
        [1, 1, 1],
        [2, 1, 1, 1],
        attrs([1, 1], [0; 4], [1, 1], 1, [1, 1]),
        vec![w, w * (1.0 + f64::EPSILON)],
        None,
    );
    Sparse::conv2d(&k)
}

#[test]
fn a_sparse_layers_rounding_is_charged_where_the_coefficients_cancel() {
    let difference = Layer::dense(Arc::new(Matrix::new(1, 2, vec![1.0, -1.0])), vec![None]);
    let layers = [Layer::sparse(cancelling_products()), difference.clone()];
    bounds_hold_everywhere(&layers, &[run_from(0.3, 64)]);
    // Not as the first layer too (after a relu that keeps positive inputs as they are), and
    // as the last, where no later layer's charge covers its rounding.
    let layers = [Layer::relu(), Layer::sparse(cancelling_products()), difference];
    bounds_hold_everywhere(&layers, &[run_from(0.3, 64)]);
    bounds_hold_everywhere(&[Layer::relu(), Layer::sparse(cancelling_products())], &[run_from(0.3, 64)]);
}

#[test]
fn a_divisions_rounding_is_charged_where_the_coefficients_cancel() {
    // As above, the products exact this time (x a multiple of 1/8, w a power of two), then
    // each divided by 3: the quotients round by up to half an ulp of ~1.5e16.
    let difference = Layer::dense(Arc::new(Matrix::new(1, 2, vec![1.0, -1.0])), vec![None]);
    let layers = [Layer::sparse(cancelling(2f64.powi(56))), Layer::divide(vec![Some(3.0), Some(3.0)]), difference];
    let eighths: Vec<f64> = (0..64).map(|k| 0.25 + f64::from(k) / 8.0).collect();
    bounds_hold_everywhere(&layers, std::slice::from_ref(&eighths));
    bounds_hold_everywhere(
        &[Layer::relu(), Layer::divide(vec![Some(3.0)])],
        &[eighths.iter().map(|x| x * 1e16).collect()],
    );
}

#[test]
fn a_division_by_any_finite_constant_is_bounded_at_every_point() {
    // `x / c`, `divTensor`: negative, not a power of two, subnormal quotients, a bias after.
    let difference = Layer::dense(Arc::new(Matrix::new(1, 2, vec![1.0, -1.0])), vec![None]);
    let eighths: Vec<f64> = (0..64).map(|k| 0.25 + f64::from(k) / 8.0).collect();
    for d in [-3.0, 0.1, -7.0 / 3.0] {
        let layers =
            [Layer::sparse(cancelling(2f64.powi(56))), Layer::divide(vec![Some(d), Some(d)]), difference.clone()];
        bounds_hold_everywhere(&layers, std::slice::from_ref(&eighths));
    }
    let layers = [Layer::divide(vec![Some(7e307), None, Some(-0.1)]), Layer::bias(vec![None, Some(0.5), Some(-1e16)])];
    bounds_hold_everywhere(&layers, &[run_from(1.5, 40), run_from(-1e-300, 3), run_from(1e15, 4)]);
    bounds_hold_everywhere(&[Layer::relu(), Layer::divide(vec![Some(-7e307)])], &[run_from(-1e-300, 20)]);
    // As the last layer, where no later layer's charge covers its rounding.
    let large: Vec<f64> = eighths.iter().map(|x| x * 1e16).collect();
    bounds_hold_everywhere(&[Layer::relu(), Layer::divide(vec![Some(-3.0)])], &[large]);
    // A quotient that overflows on part of the box: the ends are the engine's `MAX` and `∞`.
    let x = f64::MAX * 2f64.powi(-1000);
    let divide = Layer::divide(vec![Some(2f64.powi(-1000))]);
    assert_eq!(divide.apply(&[x.next_up()]), [f64::INFINITY]);
    assert_eq!(divide.interval(&[Interval::new(x, x.next_up())]).unwrap(), [Interval::new(f64::MAX, f64::INFINITY)]);
}

#[test]
fn a_max_pool_whose_taps_overlap_is_bounded_by_its_largest_upper_end() {
    // Two taps whose ranges overlap: neither is always the maximum, so −y is bounded through
    // the constant max hi; then a negative weight makes that the bound that matters.
    let g = pool([1, 1, 2], attrs([1, 1], [0; 4], [1, 1], 1, [1, 2]));
    let layers = [
        Layer::max_pool(MaxPool::new(g, Span::default()).unwrap()),
        Layer::dense(Arc::new(Matrix::new(1, 1, vec![-2.0])), vec![Some(1.0)]),
    ];
    bounds_hold_everywhere(&layers, &[run_from(1.0, 6), run_from(1.0f64.next_up().next_up(), 6)]);
    bounds_hold_everywhere(&layers, &[vec![1.0, 1.25, 1.5, 2.0], vec![1.1, 1.6, 1.9]]);
}

#[test]
fn a_scalings_rounding_is_charged_where_the_coefficients_cancel() {
    // The products exact (as above), then each multiplied by 0.1 (the plan's `Scale`, an
    // imported `Mul` or batch normalisation): near 1e16 the products round by up to an ulp.
    let difference = Layer::dense(Arc::new(Matrix::new(1, 2, vec![1.0, -1.0])), vec![None]);
    let scale = |factors: Vec<Option<f64>>| Layer::scale(super::Scale::new(factors));
    let layers = [Layer::sparse(cancelling(2f64.powi(56))), scale(vec![Some(0.1), Some(0.1)]), difference.clone()];
    let eighths: Vec<f64> = (0..64).map(|k| 0.25 + f64::from(k) / 8.0).collect();
    bounds_hold_everywhere(&layers, std::slice::from_ref(&eighths));
    // As the last layer, where no later layer's charge covers its rounding.
    let large: Vec<f64> = eighths.iter().map(|x| x * 1e16).collect();
    bounds_hold_everywhere(&[Layer::relu(), scale(vec![Some(0.1)])], std::slice::from_ref(&large));
    bounds_hold_everywhere(&[Layer::relu(), scale(vec![Some(-3.3)])], &[run_from(1e-310, 40)]);
    // A negative factor, one element left as it is, a bias after it (batch normalisation's
    // `x·a + b`), and a relu and a dense layer after that.
    let layers = [
        scale(vec![Some(-1.0 / 3.0), None, Some(3e-17)]),
        Layer::bias(vec![Some(0.5), None, Some(-1e16)]),
        Layer::relu(),
        Layer::dense(Arc::new(Matrix::new(2, 3, vec![1.0, -1.0, 1.0, 0.5, 2.0, -1e-16])), vec![None, Some(1.0)]),
    ];
    bounds_hold_everywhere(&layers, &[run_from(-1e16, 4), run_from(0.3, 3), run_from(1e32, 3)]);
    bounds_hold_everywhere(&layers, &[run_from(-1.5, 3), run_from(-1e-310, 3), run_from(-2e32, 2)]);
}

#[test]
fn a_scaling_that_could_make_a_nan_bounds_nothing() {
    let scale = |factor: f64| Layer::scale(super::Scale::new(vec![Some(factor)]));
    // ∞·0 is NaN: an infinite factor on a range holding 0, a zero factor on one reaching ∞.
    assert!(scale(f64::INFINITY).interval(&[Interval::new(-1.0, 1.0)]).is_none());
    assert!(scale(0.0).interval(&[Interval::new(1.0, f64::INFINITY)]).is_none());
    assert!(scale(f64::NAN).interval(&[Interval::new(1.0, 2.0)]).is_none());
    // Elsewhere the ends map to the ends, swapped by a negative factor; the engine's values.
    assert_eq!(
        scale(f64::INFINITY).interval(&[Interval::new(1.0, 2.0)]).unwrap(),
        [Interval::new(f64::INFINITY, f64::INFINITY)]
    );
    assert_eq!(scale(-2.0).interval(&[Interval::new(1.0, 3.0)]).unwrap(), [Interval::new(-6.0, -2.0)]);
    assert_eq!(scale(-0.0).apply(&[3.0]), [-0.0]);
    assert_eq!(scale(1e300).apply(&[1e10]), [f64::INFINITY]);
}

#[test]
fn a_pad_is_exact_and_its_constants_reach_the_bounds_rounded_down() {
    // [x0, x1] padded to [x1, 0.1, x0, 0.1, 0.1] (`pad`'s gather, Ext-13), then a dense layer
    // whose rows weigh the constants heavily (1e16·0.1 is not a double) and cancel x0 against
    // x1 near 1e16: every bound must hold at every point, the constants' products charged.
    let pad = Layer::pad(super::Pad::new(Arc::from([Some(1), None, Some(0), None, None]), 2, 0.1));
    let weights = vec![1.0, 1e16, -1.0, 3.0, -0.5, 1e16, -1.0, 1.0, 1e16, 1e16];
    let dense = Layer::dense(Arc::new(Matrix::new(2, 5, weights)), vec![None, None]);
    let sides = [run_from(1e16, 12), run_from(1e16 - 64.0, 12)];
    bounds_hold_everywhere(&[pad.clone(), dense], &sides);
    bounds_hold_everywhere(&[pad, Layer::relu()], &[run_from(-3e-323, 8), run_from(0.5, 8)]);
}
