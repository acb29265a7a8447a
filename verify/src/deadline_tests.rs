//! Unit tests of `deadline.rs`, and of every phase of the verifier given a deadline that has
//! passed: each stops at its first poll, does no work, and the answer is `unknown: timeout`,
//! where without the deadline the same call computes bounds, searches, or answers.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;
use crate::bab::{CaseSearch, Examined, Inherited};
use crate::falsify::SplitMix;
use crate::float::Interval;
use crate::interval::{Bounds, network_bounds};
use crate::operator::Layer;
use crate::prepare::PreparedLayers;
use crate::property::Property;
use crate::queue::CaseOutcome;
use crate::test_support::{IDENTITY, property_2d, target_and_property};
use crate::tighten::{NoBound, Slopes, tighten};
use crate::{Conclusion, Options, Question, Target, Unknown, verify};
use knn_engine::tensor::Matrix;

fn passed() -> Deadline {
    Deadline::at(Instant::now())
}

#[test]
fn the_search_stops_a_margin_before_the_timeout() {
    let started = Instant::now();
    let stop = |t: f64| Deadline::of_timeout(started, Some(Duration::from_secs_f64(t))).instant().unwrap();
    assert_eq!(stop(30.0), started + Duration::from_millis(29_750));
    // A short timeout keeps nine tenths of itself.
    assert_eq!(stop(1.0), started + Duration::from_millis(900));
    assert_eq!(Deadline::of_timeout(started, None), Deadline::NEVER);
}

#[test]
fn only_a_deadline_in_the_past_has_passed() {
    assert!(!Deadline::NEVER.passed());
    assert!(passed().passed());
    assert!(!Deadline::at(Instant::now() + Duration::from_secs(3600)).passed());
    let soon = Instant::now() + Duration::from_secs(1);
    assert_eq!(Deadline::NEVER.earlier(soon), Deadline::at(soon));
    assert_eq!(Deadline::at(soon).earlier(soon + Duration::from_secs(1)), Deadline::at(soon));
}

/// A random relu network 32 → 3×64 → 2: wide enough that its hidden layers' optimised bounds
/// cost thousands of back-substitutions.
fn wide_network(seed: u64) -> Vec<Layer> {
    let mut rng = SplitMix::new(seed);
    let mut random = |n: usize| (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect::<Vec<f64>>();
    let mut layers = Vec::new();
    let mut cols = 32;
    for _ in 0..3 {
        let w = Arc::new(Matrix::new(64, cols, random(64 * cols)));
        layers.push(Layer::dense(w, random(64).into_iter().map(Some).collect()));
        layers.push(Layer::relu());
        cols = 64;
    }
    layers.push(Layer::dense(Arc::new(Matrix::new(2, cols, random(2 * cols))), vec![None, None]));
    layers
}

#[test]
fn bounds_are_not_tightened_after_the_deadline() {
    let layers = wide_network(5);
    let input = vec![Interval::new(-0.1, 0.1); 32];
    let intervals = Bounds { layers: network_bounds(&layers, &input).unwrap(), input };
    for slopes in [Slopes::Fixed, Slopes::Optimised] {
        let mut late = intervals.clone();
        let stopped = tighten(&layers, &mut late, &mut PreparedLayers::new(layers.len()), slopes, passed());
        assert_eq!(stopped, Err(NoBound::OutOfTime), "{slopes:?}");
        assert_eq!(late.layers, intervals.layers, "{slopes:?}: no bound was computed");
        // In time, the same call tightens them: the deadline is what stopped it.
        let mut tightened = intervals.clone();
        tighten(&layers, &mut tightened, &mut PreparedLayers::new(layers.len()), slopes, Deadline::NEVER).unwrap();
        assert_ne!(tightened.layers, intervals.layers, "{slopes:?}");
    }
}

/// `y0 = relu(x0 − 0.5) − relu(x0 − 0.5)` (0 everywhere, but not to the bounds), `y1 = 0`.
const TWIN_RELUS: &str = "let W = initTensor(2, 2) in let W[0, 0] = 1.0 in let W[1, 0] = 1.0 in \
    let z = linear(W, x) in let z[0] = z[0] + -0.5 in let z[1] = z[1] + -0.5 in let h = reluTensor(z) in \
    let V = initTensor(2, 2) in let V[0, 0] = 1.0 in let V[0, 1] = -1.0 in let y = linear(V, h) in y";

/// `y0 ≥ 0.001` on `[0, 1]²`: holds, after splitting.
fn holds_after_splitting() -> (Target, Property) {
    target_and_property(TWIN_RELUS, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], "(assert (>= Y_0 0.001))"))
}

#[test]
fn a_box_and_a_search_after_the_deadline_decide_nothing() {
    let (target, property) = holds_after_splitting();
    let search = CaseSearch::new(&target.net, &target.plan, &property.cases[0]).expect("points");
    let root = search.root().to_vec();
    assert!(matches!(search.examine_until(&root, Inherited::default(), 0, passed()), Examined::OutOfTime));
    let in_time = search.examine_until(&root, Inherited::default(), 0, Deadline::NEVER);
    assert!(matches!(in_time, Examined::Split { .. } | Examined::SplitRelu { .. }), "{in_time:?}");
    // The search: no box examined, no progress, no candidate; in time it proves the case.
    let mut reports = Vec::new();
    let outcome = search.run(Some(Instant::now()), 4, &|_| panic!("no candidate"), &mut |p| reports.push(p));
    assert!(matches!(outcome, CaseOutcome::Timeout), "{outcome:?}");
    assert!(reports.is_empty(), "{reports:?}");
    assert!(matches!(search.run(None, 4, &|_| false, &mut |_| {}), CaseOutcome::Holds));
}

#[test]
fn every_answer_is_a_timeout_once_the_time_is_up() {
    // A case that holds after a search, one violated at every point (found by sampling and
    // replayed), and a box of four binary64 points (all run, no search): decided in time, and
    // `unknown: timeout` when the timeout started counting long ago (the network took that
    // long to load, say).
    let one_up = "1.0000000000000002220446049250313080847263336181640625";
    let questions = [
        (holds_after_splitting(), "holds"),
        (
            target_and_property(IDENTITY, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], "(assert (<= Y_0 5.0))")),
            "violated",
        ),
        (
            target_and_property(IDENTITY, 2, &property_2d(["1.0", "1.0"], [one_up, one_up], "(assert (>= Y_0 2.0))")),
            "holds",
        ),
    ];
    for ((target, property), expected) in questions {
        let question = Question::Property(property);
        let in_time =
            verify(&target, &question, Options { timeout: Some(Duration::from_secs(60)), ..Options::default() });
        let word = match in_time.unwrap() {
            Conclusion::Holds { .. } => "holds",
            Conclusion::Violated(_) => "violated",
            Conclusion::Unknown(why) => panic!("{expected}: {why:?}"),
        };
        assert_eq!(word, expected);
        let long_ago = Instant::now() - Duration::from_secs(10);
        let late = Options { timeout: Some(Duration::from_secs(1)), started: Some(long_ago), ..Options::default() };
        let answer = verify(&target, &question, late).unwrap();
        assert!(matches!(answer, Conclusion::Unknown(Unknown::Timeout)), "{expected}: {answer:?}");
    }
}

#[test]
fn the_falsifier_gets_a_tenth_of_the_time_left_and_at_least_300_ms() {
    let now = Instant::now();
    let at = |d: Deadline| d.instant().map(|i| i.duration_since(now));
    let in_ = |ms: u64| Deadline::at(now + Duration::from_millis(ms));
    assert_eq!(at(crate::falsify::falsifier_deadline(in_(20_000), now)), Some(Duration::from_millis(2_000)));
    assert_eq!(at(crate::falsify::falsifier_deadline(in_(1_000), now)), Some(Duration::from_millis(300)));
    // Never past the search's own deadline.
    assert_eq!(at(crate::falsify::falsifier_deadline(in_(100), now)), Some(Duration::from_millis(100)));
    // Without a deadline its work (bounded) runs to its end.
    assert_eq!(crate::falsify::falsifier_deadline(Deadline::NEVER, now), Deadline::NEVER);
}
