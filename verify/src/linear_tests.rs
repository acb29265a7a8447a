//! Unit tests of `linear.rs`.

use std::sync::Arc;

use super::*;
use crate::deadline::Deadline;
use crate::falsify::SplitMix;
use crate::float::{Interval, UNIT_ROUNDOFF};
use crate::interval::network_bounds;
use crate::relax::LowerSlope;
use crate::test_support::{boxed, fixed_bounds, random_network};
use crate::tighten::{Slopes, tighten};
use knn_engine::tensor::Matrix;

fn dense(w: f64, b: f64) -> Layer {
    Layer::dense(Arc::new(Matrix::new(1, 1, vec![w])), vec![Some(b)])
}

/// Bounds of the single output of `layers` on `[lo, hi]`: intervals, then back-substitution
/// of `y` (lower) and `−y` (upper).
fn linear_range(layers: &[Layer], lo: f64, hi: f64) -> (Interval, f64, f64) {
    let input = vec![Interval::new(lo, hi)];
    let mut bounds = Bounds { layers: network_bounds(layers, &input).unwrap(), input };
    let mut prepared = PreparedLayers::new(layers.len());
    tighten(layers, &mut bounds, &mut prepared, Slopes::Fixed, Deadline::NEVER).unwrap();
    let last = layers.len() - 1;
    let found = back_substitute(layers, &bounds, &mut prepared, last, vec![1.0, -1.0], 1);
    (bounds.layers[last][0], found[0].value, -found[1].value)
}

#[test]
fn a_sum_that_rounds_up_past_the_real_range_is_bounded_as_computed() {
    // y = (x + 1e17) − 1e17 on [8.1, 8.2]: the spacing of binary64 at 1e17 is 16, so
    // x + 1e17 rounds to 1e17 + 16 and the engine computes y = 16 for every x there. The
    // real range is [8.1, 8.2]: a bound derived in real arithmetic (y ≤ 8.2) is wrong.
    let layers = [dense(1.0, 1e17), dense(1.0, -1e17)];
    assert_eq!(layers[1].apply(&layers[0].apply(&[8.15])), vec![16.0]);
    let (interval, lower, upper) = linear_range(&layers, 8.1, 8.2);
    assert_eq!(interval, Interval::new(16.0, 16.0), "interval bounds follow the engine's rounding");
    assert!(lower <= 16.0 && upper >= 16.0, "linear bounds [{lower}, {upper}] must hold 16");
    // The a-priori charges at magnitude 1e17 are wide (γ·1e17 ≈ 20 per operation); the
    // interval bound is the exact one there, and the search intersects both.
    assert!(upper - lower < 1000.0, "and stay finite and bounded: [{lower}, {upper}]");
}

#[test]
fn relu_chains_with_cancellation_keep_their_rounding_charges() {
    // Through a relu: y = relu(x + 1e17) − 1e17 on [8.1, 8.2] is 16 as computed too.
    let layers = [dense(1.0, 1e17), Layer::relu(), dense(1.0, -1e17)];
    let (_, lower, upper) = linear_range(&layers, 8.1, 8.2);
    assert!(lower <= 16.0 && upper >= 16.0, "[{lower}, {upper}]");
}

#[test]
fn a_bias_layer_after_a_relu_is_carried_through_with_its_charges() {
    // Dense(x) → relu → Bias(+0.5) → Dense(·2): on
    // [−1, 3], y = 2·(relu(x) + 0.5) ∈ [1, 7], at x ≤ 0 exactly 1 and at x = 3 exactly 7.
    let layers = [dense(1.0, 0.0), Layer::relu(), Layer::bias(vec![Some(0.5)]), dense(2.0, 0.0)];
    let (interval, lower, upper) = linear_range(&layers, -1.0, 3.0);
    assert_eq!(interval, Interval::new(1.0, 7.0));
    assert!(lower <= 1.0 && upper >= 7.0, "[{lower}, {upper}]");
    // CROWN's best line below relu on [−1, 3] is 0.75·x, so the lower bound is 2·(−0.75) + 1
    // = −0.5; a bias subtracted instead would give [−2.5, 5].
    assert!(lower > -1.0 && upper < 8.0, "the bias is added, not subtracted: [{lower}, {upper}]");
    // The chord above relu is 0.75·x + 0.75, so y ≤ 2·(0.75·3 + 0.75 + 0.5) = 7: both bounds
    // are CROWN's, up to charges of a few ulps (the bias enters as 2·0.5, not 2 + 0.5).
    assert!(lower >= -0.5 - 1e-9 && upper <= 7.0 + 1e-9, "[{lower}, {upper}]");
}

#[test]
fn the_engines_rounding_in_a_long_dense_row_is_charged() {
    // y = fl(…fl(fl(1e17·1 + x_1) + x_2)… + x_10) − 1e17 with x_j ∈ [8.1, 8.2]: each
    // addition rounds up to the next multiple of 16 (the spacing at 1e17), so the engine
    // computes 160, while the real value is at most 82. Only the charge for the engine's
    // rounding (about γ_11·1e17 ≈ 122) lets the upper bound reach 160.
    let mut w = vec![1e17];
    w.extend([1.0; 10]);
    let layers = [Layer::dense(Arc::new(Matrix::new(1, 11, w)), vec![None]), dense(1.0, -1e17)];
    let mut input = vec![Interval::point(1.0)];
    input.extend([Interval::new(8.1, 8.2); 10]);
    let mut bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
    assert_eq!(bounds.layers[1], [Interval::point(160.0)], "the engine's value");
    let mut prepared = PreparedLayers::new(layers.len());
    tighten(&layers, &mut bounds, &mut prepared, Slopes::Fixed, Deadline::NEVER).unwrap();
    let found = back_substitute(&layers, &bounds, &mut prepared, 1, vec![1.0, -1.0], 1);
    let (lower, upper) = (found[0].value, -found[1].value);
    assert!(lower <= 160.0 && upper >= 160.0, "[{lower}, {upper}] must hold 160");
}

#[test]
fn bias_layers_of_two_elements_are_carried_row_by_row_with_their_charges() {
    // v = x + (8.1, none) twenty times on x = (1e17, 1e17), then y = v_0 − v_1: each
    // addition rounds up by 16, so the engine computes 320 where the real value is 162.
    // The bias layers' own charges (u·(|v| + |b|) ≈ 11 each) are needed to reach 320;
    // each row must meet its own coefficients (y's lower bound and −y's both).
    let mut layers = vec![Layer::bias(vec![Some(8.1), None]); 20];
    layers.push(Layer::dense(Arc::new(Matrix::new(1, 2, vec![1.0, -1.0])), vec![None]));
    let input = vec![Interval::point(1e17); 2];
    let mut bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
    assert_eq!(bounds.layers[20], [Interval::point(320.0)], "the engine's value");
    let mut prepared = PreparedLayers::new(layers.len());
    tighten(&layers, &mut bounds, &mut prepared, Slopes::Fixed, Deadline::NEVER).unwrap();
    let found = back_substitute(&layers, &bounds, &mut prepared, 20, vec![1.0, -1.0], 1);
    let (lower, upper) = (found[0].value, -found[1].value);
    assert!(lower <= 320.0 && upper >= 320.0, "[{lower}, {upper}] must hold 320");
    // And the bounds stay finite and of the charges' size (a few hundred).
    assert!(upper - lower < 1000.0, "[{lower}, {upper}]");
}

#[test]
fn relu_lines_charge_their_intercepts_sum_and_fractional_slopes_only() {
    // One relu layer on z ∈ [−1, 3]⁴ × [1, 2], row g = (−1, −1, 1, 2, 1). The chord has
    // slope 3/4 and intercept 3/4 (exact); the lower line is (3/4)·z. So Σ g·c = −1.5
    // exactly, and docs/verification.md charges (2): γ_5·Σ|g·c| = 7.5u for the sum of
    // intercepts, and u·|fl(g·s)|·|z| for each fractional slope: (0.75 + 0.75 + 0.75 + 1.5)
    // ·3·u = 11.25u; the identity line of the stable fifth element is exact, charged
    // nothing (the m·η terms are far below an ulp here).
    let layers = [Layer::relu()];
    let mut input = vec![Interval::new(-1.0, 3.0); 4];
    input.push(Interval::new(1.0, 2.0));
    let bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
    let mut prepared = PreparedLayers::new(1);
    let row = vec![-1.0, -1.0, 1.0, 2.0, 1.0];
    let found =
        back_substitute_with(&layers, &bounds, &mut prepared, 0, row, 5, LowerLines::Slope(LowerSlope::Chord), None);
    assert_eq!(found[0].coefficients, [-0.75, -0.75, 0.75, 1.5, 1.0]);
    let u = UNIT_ROUNDOFF;
    let charge = 18.75 * u;
    let constant = found[0].constant;
    // At least the documented charge, and at most one ulp of 1.5 (2u) more for rounding down.
    assert!(constant <= -1.5 - charge, "{constant} charges less than {charge}");
    assert!(constant >= -1.5 - charge - 2.0 * u - 1e-3 * charge, "{constant} charges more than {charge}");
}

#[test]
fn bounds_are_exact_enough_on_small_exact_networks() {
    // y = relu(x) − relu(−x) = x on [−1, 2] (relu splits, both unstable): lower ≤ −1, upper ≥ 2.
    let layers = [
        Layer::dense(Arc::new(Matrix::new(2, 1, vec![1.0, -1.0])), vec![None, None]),
        Layer::relu(),
        Layer::dense(Arc::new(Matrix::new(1, 2, vec![1.0, -1.0])), vec![None]),
    ];
    let (_, lower, upper) = linear_range(&layers, -1.0, 2.0);
    assert!(lower <= -1.0 && upper >= 2.0, "[{lower}, {upper}]");
    assert!(lower > -3.0 && upper < 4.0, "[{lower}, {upper}]");
}

#[test]
fn coefficients_that_overflow_bound_nothing() {
    // z = W·x + b with W = (−8.98846567431158e307, 1e308) and b = (−1, −0) on a box of
    // subnormal x near −5.266e-309 (the exhaustive search's seed 2145589): both outputs are
    // about −0.5266 and their difference, about 1e-14, is what is bounded. G·W for
    // G = (1, −1) is −1.8988e308 in exact arithmetic, past the largest binary64: computed, it
    // is −∞, and −∞ times a negative x made the lower bound +∞·|x| = MAX. The engine's values
    // at the box's ends show the bound may not be above about 1e-14.
    let w = Arc::new(Matrix::new(2, 1, vec![-8.98846567431158e307, 1e308]));
    let layers = [Layer::dense(w, vec![Some(-1.0), Some(-0.0)])];
    let (lo, hi) = (-5.266354939635125e-309, -5.26635493963483e-309);
    let input = vec![Interval::new(lo, hi)];
    let bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
    let mut prepared = PreparedLayers::new(1);
    let found = back_substitute(&layers, &bounds, &mut prepared, 0, vec![1.0, -1.0], 2);
    let differences: Vec<f64> = [lo, hi].iter().map(|&x| layers[0].apply(&[x])).map(|z| z[0] - z[1]).collect();
    assert!(differences.iter().all(|d| d.abs() < 1e-13), "{differences:?}");
    for bound in &found {
        assert!(differences.iter().all(|&d| bound.value <= d), "the bound {} is above {differences:?}", bound.value);
        assert!(bound.coefficients.iter().all(|c| c.is_finite()), "{:?}", bound.coefficients);
    }
}

#[test]
fn a_batch_of_many_parts_and_rows_bounds_each_row_with_the_bits_it_has_alone() {
    // More rows than one group of BATCH_ROWS: the parts go through in several groups, each
    // part with its own box (its own bounds and charges) and rows of its own. Every row's bound
    // must be the one its part gives it alone, in the order of the parts and their rows.
    let mut rng = SplitMix::new(2311);
    for _ in 0..4 {
        let layers = random_network(&mut rng, 3, 10, 2);
        let last = layers.len() - 1;
        let mut boxes = Vec::new();
        let mut counts = Vec::new();
        for _ in 0..12 {
            let sides: Vec<(f64, f64)> = (0..3)
                .map(|_| {
                    let lo = rng.unit() * 2.0 - 1.0;
                    (lo, lo + rng.unit())
                })
                .collect();
            boxes.push(fixed_bounds(&layers, boxed(&sides)));
            counts.push(4 + (rng.unit() * 27.0) as usize);
        }
        let total: usize = counts.iter().sum();
        assert!(total > 2 * BATCH_ROWS, "{total} rows fit in two groups");
        let rows: Vec<f64> = (0..total * 2).map(|_| rng.unit() * 2.0 - 1.0).collect();
        let mut prepared: Vec<PreparedLayers> = boxes.iter().map(|_| PreparedLayers::new(layers.len())).collect();
        let mut parts: Vec<PartRows<'_>> = boxes
            .iter()
            .zip(prepared.iter_mut())
            .zip(&counts)
            .map(|((bounds, prepared), &count)| PartRows { bounds, prepared, count })
            .collect();
        let batch = back_substitute_batch(&layers, &mut parts, last, rows.clone(), 2);
        assert_eq!(batch.len(), total);
        let mut first = 0;
        for (bounds, &count) in boxes.iter().zip(&counts) {
            let own = rows[first * 2..(first + count) * 2].to_vec();
            let alone = back_substitute(&layers, bounds, &mut PreparedLayers::new(layers.len()), last, own, 2);
            for (r, a) in alone.iter().enumerate() {
                let b = &batch[first + r];
                assert_eq!(
                    b.value.to_bits(),
                    a.value.to_bits(),
                    "row {} of a part: {} alone, {} batched",
                    r,
                    a.value,
                    b.value
                );
                assert_eq!(b.constant.to_bits(), a.constant.to_bits());
                let bits = |l: &LowerBound| l.coefficients.iter().map(|c| c.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(b), bits(a));
            }
            first += count;
        }
    }
}

#[test]
fn a_row_that_overflows_among_others_leaves_them_as_they_are_alone() {
    // The weights of `coefficients_that_overflow_bound_nothing` with a second input, three rows
    // carried together: z₁ alone, z₀ − z₁ (its first coefficient −∞, given up), z₀ alone. The
    // rows beside the one given up keep the bits they have alone, and every bound holds at the
    // box's corners.
    let w = Arc::new(Matrix::new(2, 2, vec![-8.98846567431158e307, 1.0, 1e308, 1.0]));
    let layers = [Layer::dense(w, vec![Some(-1.0), Some(-0.0)])];
    let (lo, hi) = (-5.266354939635125e-309, -5.26635493963483e-309);
    let input = vec![Interval::new(lo, hi), Interval::new(0.0, 1.0)];
    let bounds = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
    let rows = [[0.0, 1.0], [1.0, -1.0], [1.0, 0.0]];
    let together = back_substitute(&layers, &bounds, &mut PreparedLayers::new(1), 0, rows.concat(), 2);
    for (row, found) in rows.iter().zip(&together) {
        let alone = back_substitute(&layers, &bounds, &mut PreparedLayers::new(1), 0, row.to_vec(), 2);
        let (a, b) = (alone[0].value, found.value);
        assert_eq!(b.to_bits(), a.to_bits(), "{row:?}: {b} together, {a} alone");
        for x in [[lo, 0.0], [lo, 1.0], [hi, 0.0], [hi, 1.0]] {
            let z = layers[0].apply(&x);
            let value = row[0] * z[0] + row[1] * z[1];
            assert!(b <= value, "{row:?}: the bound {b} is above {value} at {x:?}");
        }
    }
}
