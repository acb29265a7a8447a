//! Tests of `monotone.rs`'s `exp` and `log`: the engine's values where they are known by hand, the band and the
//! interval ends at every binary64 point of small boxes where `exp` overflows or underflows and
//! `log` meets 0, and networks through them bounded at every point of their boxes.

use std::sync::Arc;

use knn_engine::tensor::Matrix;

use super::window_tests::{bounds_hold_everywhere, run_from};
use super::{Layer, Monotone, Operator};
use crate::decimal::Exact;
use crate::float::Interval;
use crate::relax::LowerSlope;

#[test]
fn exp_and_log_compute_the_correctly_rounded_values() {
    let (exp, log) = (Monotone::Exp, Monotone::Log);
    // e = 2.718281828459045 09…, 1/e = 0.367879441171442 32…: binary64's nearest.
    assert_eq!(exp.apply(&[0.0, 1.0, -1.0]), [1.0, std::f64::consts::E, 0.36787944117144233]);
    assert_eq!(exp.apply(&[710.0, -746.0, f64::NEG_INFINITY]), [f64::INFINITY, 0.0, 0.0]);
    assert_eq!(log.apply(&[1.0, std::f64::consts::E, 0.0, -0.0]), [0.0, 1.0, f64::NEG_INFINITY, f64::NEG_INFINITY]);
    assert!(log.apply(&[-1e-300])[0].is_nan());
}

/// At every point `x` of `side` (consecutive binary64 values), `f̂(x)` lies within the interval
/// ends and between the band's two lines, the lines evaluated in exact rationals.
fn band_holds_at_every_point(f: Monotone, side: &[f64]) {
    let z = Interval::new(side[0], *side.last().unwrap());
    let (low, high) = f.relaxation(z, LowerSlope::Adaptive).unwrap();
    let ends = f.interval(&[z]).unwrap()[0];
    // A NaN or an infinite slope would bound nothing (sound, but a band thrown away).
    assert!(low.slope.is_finite() && high.slope.is_finite(), "{low:?} {high:?}");
    assert!(!low.intercept.is_nan() && !high.intercept.is_nan(), "{low:?} {high:?}");
    let exact = |v: f64| Exact::of_binary64(v).expect("finite");
    for &x in side {
        let y = f.apply(&[x])[0];
        assert!(ends.lo <= y && y <= ends.hi, "{} of {x:e} = {y:e} outside {ends:?}", f.describe());
        if !y.is_finite() {
            // Only a constant line at ±∞ bounds it.
            assert!(y == f64::INFINITY && high.intercept == y || y == f64::NEG_INFINITY && low.intercept == y);
            continue;
        }
        let line = |l: crate::relax::Line| {
            (l.intercept.is_finite()).then(|| exact(l.slope).mul(&exact(x)).add(&exact(l.intercept)).unwrap())
        };
        if let Some(below) = line(low) {
            assert!(below <= exact(y), "{} of {x:e} = {y:e} below its lower line {low:?}", f.describe());
        }
        // An upper line at +∞ (the box reaches exp's overflow) bounds nothing, soundly.
        if let Some(above) = line(high) {
            assert!(exact(y) <= above, "{} of {x:e} = {y:e} above its upper line {high:?}", f.describe());
        }
    }
}

#[test]
fn the_band_holds_at_every_point_where_exp_overflows_underflows_or_rounds() {
    // The last finite exp is at 709.782712893384; past -745.1332191019411 it is 0.
    for start in [709.782712893384 - 2e-13, -745.1332191019411 - 2e-13, -708.3964185322641, -1e-13, 1.0] {
        band_holds_at_every_point(Monotone::Exp, &run_from(start, 2000));
    }
    // Wide boxes, sampled: the band's 32 pieces, not consecutive points, are what is tested.
    for (lo, hi) in [(-3.0, 2.0), (-800.0, 700.0), (700.0, 709.7), (0.5, 720.0)] {
        let side: Vec<f64> = (0..=4000).map(|k| lo + (hi - lo) * f64::from(k) / 4000.0).collect();
        band_holds_at_every_point(Monotone::Exp, &side);
    }
}

#[test]
fn the_band_holds_at_every_point_where_log_meets_zero_or_rounds() {
    for start in [0.0, 5e-324, f64::MIN_POSITIVE - 1e-320, 1.0 - 1e-13, f64::MAX / 2.0] {
        band_holds_at_every_point(Monotone::Log, &run_from(start, 2000));
    }
    for (lo, hi) in [(0.5, 2.0), (1e-300, 1e300), (0.0, 3.0)] {
        let side: Vec<f64> = (0..=4000).map(|k| lo + (hi - lo) * f64::from(k) / 4000.0).collect();
        band_holds_at_every_point(Monotone::Log, &side);
    }
}

#[test]
fn a_log_that_may_meet_a_negative_number_bounds_nothing() {
    let log = Monotone::Log;
    assert!(log.interval(&[Interval::new(-5e-324, 1.0)]).is_none(), "NaN at -5e-324");
    assert!(log.interval(&[Interval::new(-2.0, -1.0)]).is_none());
    // −0 is not below 0: log(−0) = −∞, a value.
    assert_eq!(log.interval(&[Interval::new(-0.0, 1.0)]).unwrap(), [Interval::new(f64::NEG_INFINITY, 0.0)]);
}

#[test]
fn networks_through_exp_and_log_are_bounded_at_every_point() {
    let exp = || Layer(Arc::new(Monotone::Exp));
    let log = || Layer(Arc::new(Monotone::Log));
    let dense = |rows, cols, w: Vec<f64>| Layer::dense(Arc::new(Matrix::new(rows, cols, w)), vec![None; rows]);
    // exp of a difference whose rounding matters, then scores that cancel.
    let layers = [dense(2, 2, vec![1.0, -1.0, 1.0, 1e-16]), exp(), dense(2, 2, vec![1.0, -1.0, -3.0, 0.5])];
    bounds_hold_everywhere(&layers, &[run_from(0.5, 40), run_from(0.5 - 1e-15, 40)]);
    bounds_hold_everywhere(&layers, &[run_from(-700.0, 30), run_from(8.0, 30)]);
    // Past the overflow on part of the box: the ends reach ∞, and a row through it bounds
    // nothing above.
    bounds_hold_everywhere(&[dense(1, 1, vec![2.0]), exp()], &[run_from(354.891356446692, 40)]);
    // log of relu's output (0 included: −∞), and of a positive range, then a dense layer.
    let layers = [Layer::relu(), log(), dense(1, 2, vec![1.0, -1.0])];
    bounds_hold_everywhere(&layers, &[run_from(1.0 - 1e-14, 40), run_from(1.0, 40)]);
    bounds_hold_everywhere(&[Layer::relu(), log()], &[run_from(-1e-320, 60)]);
    // log after exp: the identity up to rounding, where the charges decide.
    bounds_hold_everywhere(&[exp(), log(), dense(1, 1, vec![1e16])], &[run_from(0.25, 100)]);
}
