//! Unit tests of `falsify.rs`: the generator's published sequence, the points the cheap search
//! tries, the attack that finds what sampling misses (more of the attack in
//! `falsify_attack_tests.rs`).

use super::*;
use crate::Target;
use crate::test_support::{IDENTITY, IDENTITY_ARGMAX, property_2d, target_and_property as setup};

fn falsifier<'a>(target: &'a Target, case: &'a Case) -> Falsifier<'a> {
    Falsifier { net: &target.net, plan: &target.plan, case, class: None, inner: case.input.inner().expect("points") }
}

#[test]
fn splitmix_gives_the_published_sequence() {
    // SplitMix64 from seed 0 (Steele, Lea and Flood; the reference test vector).
    let mut rng = SplitMix::new(0);
    assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
    assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    // `unit` keeps the top 53 bits: the fourth output's, over 2^53.
    let mut again = SplitMix::new(0);
    let fourth = (0..4).map(|_| again.next_u64()).last().unwrap();
    let unit = rng.unit();
    assert_eq!(unit, (fourth >> 11) as f64 / 9007199254740992.0);
    assert!((0.0..1.0).contains(&unit));
}

#[test]
fn the_cheap_search_tries_the_centre_and_every_corner() {
    // Only the corner (1, 1) is unsafe: no random point is exactly there.
    let (target, property) =
        setup(IDENTITY, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], "(assert (>= Y_0 1.0)) (assert (>= Y_1 1.0))"));
    let case = &property.cases[0];
    let (found, points) = falsifier(&target, case).sample(7);
    assert_eq!(found, Some(vec![1.0, 1.0]));
    assert_eq!(points.len(), 1 + 4 + RANDOM_POINTS, "the centre, four corners, the random points");
    assert_eq!(points[0], vec![0.5, 0.5]);
    let corners: Vec<&Vec<f64>> = points[1..5].iter().collect();
    for corner in [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]] {
        assert!(corners.contains(&&corner.to_vec()), "{corner:?} in {corners:?}");
    }
    // The same through an ArgMax: the scores are read from the chain.
    let (target, property) = setup(
        IDENTITY_ARGMAX,
        2,
        &property_2d(["0.0", "0.0"], ["1.0", "1.0"], "(assert (>= Y_0 1.0)) (assert (>= Y_1 1.0))"),
    );
    assert_eq!(falsifier(&target, &property.cases[0]).sample(7).0, Some(vec![1.0, 1.0]));
    // Only the centre is unsafe.
    let (target, property) = setup(
        IDENTITY,
        2,
        &property_2d(
            ["-1.0", "2.0"],
            ["3.0", "4.0"],
            "(assert (>= Y_0 1.0)) (assert (<= Y_0 1.0)) (assert (>= Y_1 3.0)) (assert (<= Y_1 3.0))",
        ),
    );
    assert_eq!(falsifier(&target, &property.cases[0]).sample(7).0, Some(vec![1.0, 3.0]));
    // Nothing is unsafe.
    let (target, property) = setup(IDENTITY, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], "(assert (>= Y_0 2.0))"));
    assert_eq!(falsifier(&target, &property.cases[0]).sample(7).0, None);
}

#[test]
fn random_points_spread_over_the_box_and_stay_inside() {
    let (target, property) =
        setup(IDENTITY, 2, &property_2d(["-3.0", "10.0"], ["5.0", "10.5"], "(assert (>= Y_0 100.0))"));
    let (_, points) = falsifier(&target, &property.cases[0]).sample(11);
    let random = &points[5..];
    for (j, (lo, hi)) in [(-3.0, 5.0), (10.0, 10.5)].into_iter().enumerate() {
        let values: Vec<f64> = random.iter().map(|x| x[j]).collect();
        assert!(values.iter().all(|v| (lo..=hi).contains(v)), "element {j} leaves the box");
        let (min, max) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let width = hi - lo;
        // 512 uniform points: the extremes within 2% of the ends, the mean within 10% of the centre.
        assert!(min < lo + 0.02 * width && max > hi - 0.02 * width, "element {j}: {min}..{max}");
        assert!((mean - (lo + hi) / 2.0).abs() < 0.1 * width, "element {j}: mean {mean}");
    }
    // Another seed, other points; the same seed, the same points.
    let (_, again) = falsifier(&target, &property.cases[0]).sample(11);
    let (_, other) = falsifier(&target, &property.cases[0]).sample(12);
    assert_eq!(points, again);
    assert_ne!(points[5..], other[5..]);
}

/// `y0 = −|x0 − 0.3| − |x1 − 0.6|` through four relus, `y1 = 0`: the unsafe set `y0 ≥ −0.01` is
/// a diamond of radius 0.01 inside `[0, 1]²` (2·10⁻⁴ of the area), away from the centre and
/// the corners.
const DIAMOND: &str = "let W = initTensor(4, 2) in let W[0, 0] = 1.0 in let W[1, 0] = -1.0 in \
    let W[2, 1] = 1.0 in let W[3, 1] = -1.0 in let z = linear(W, x) in \
    let z[0] = z[0] + -0.3 in let z[1] = z[1] + 0.3 in let z[2] = z[2] + -0.6 in let z[3] = z[3] + 0.6 in \
    let h = reluTensor(z) in let V = initTensor(2, 4) in let V[0, 0] = -1.0 in let V[0, 1] = -1.0 in \
    let V[0, 2] = -1.0 in let V[0, 3] = -1.0 in let y = linear(V, h) in y";

#[test]
fn the_descent_finds_a_small_region_that_sampling_misses() {
    // On [−1, 1]²: the steps are fractions of a side of width 2.
    let (target, property) =
        setup(DIAMOND, 2, &property_2d(["-1.0", "-1.0"], ["1.0", "1.0"], "(assert (>= Y_0 -0.01))"));
    let search = falsifier(&target, &property.cases[0]);
    let (found, points) = search.sample(3);
    assert_eq!(found, None, "sampling alone should miss the diamond");
    let x = search.descend(&points, 3, 0..ROUNDS, None).expect("the descent reaches the diamond");
    assert!((x[0] - 0.3).abs() + (x[1] - 0.6).abs() <= 0.01, "{x:?} is outside the diamond");
    assert!(x.iter().all(|v| (-1.0..=1.0).contains(v)));
    // A deadline already passed stops it at once.
    assert_eq!(search.descend(&points, 3, 0..ROUNDS, Some(Instant::now())), None);
}

/// `y = x` on `n` inputs, and the box `[0, 1]^n` with an output bound nothing reaches.
fn wide_identity(n: usize) -> (Target, crate::property::Property) {
    let mut program = format!("let W = initTensor({n}, {n}) in ");
    for k in 0..n {
        program.push_str(&format!("let W[{k}, {k}] = 1.0 in "));
    }
    program.push_str("let y = linear(W, x) in y");
    let mut property = String::new();
    for k in 0..n {
        property.push_str(&format!("(declare-const X_{k} Real) (declare-const Y_{k} Real) "));
        property.push_str(&format!("(assert (>= X_{k} 0.0)) (assert (<= X_{k} 1.0)) "));
    }
    property.push_str("(assert (>= Y_0 2.0))");
    setup(&program, n, &property)
}

#[test]
fn corners_are_tried_only_when_there_are_few() {
    // 2^10 corners are tried; 2^11 and 2^64 are too many (and 2^64 does not fit a usize).
    for (n, corners) in [(10, 1 << 10), (11, 0), (64, 0)] {
        let (target, property) = wide_identity(n);
        let (found, points) = falsifier(&target, &property.cases[0]).sample(5);
        assert_eq!(found, None);
        assert_eq!(points.len(), 1 + corners + RANDOM_POINTS, "{n} inputs");
    }
}
