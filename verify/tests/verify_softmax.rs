//! Soundness of the verifier on programs that take `ArgMax` of a `softmax` or `logSoftmax`
//! (Ext-9) of their scores: random small networks and boxes, where whenever the verifier says
//! `holds`, 10^4 random points and the box's corners find no other class (the corners on the
//! small-step reference too), and whenever it says `violated`, the counterexample replays on
//! the reference; and the rounding traps of the softmax itself, where two scores that differ
//! give equal probabilities and the tie goes to the lower index. `KNN_VERIFY_CASES` sets the
//! number of networks (default 100).

mod verify_support;

use knn_verify::claim::Claim;
use knn_verify::falsify::SplitMix;
use knn_verify::{Conclusion, Target};
use quickcheck::TestResult;
use verify_support::answers::{
    Case, ask_class, check_random_cases, checked_answer, class_target, reference_class, uniform,
};
use verify_support::{below, exact_box, literal};

fn random_case(seed: u64) -> Case {
    let mut rng = SplitMix::new(seed);
    let n = 1 + below(&mut rng, 3);
    let hidden = 2 + below(&mut rng, 3);
    let outputs = 2 + below(&mut rng, 3);
    let f = if below(&mut rng, 2) == 0 { "softmax" } else { "logSoftmax" };
    // Scores of every size: a softmax of scores far apart underflows to exact zeros.
    let scale = [1.0, 1.0, 30.0, 1000.0][below(&mut rng, 4)];
    let source = format!(
        "let W0 = {} in let B0 = {} in let l0 = linear(W0, x) in let h0 = addTensor(l0, B0) in let r0 = reluTensor(h0) in \
         let W1 = {} in let y = linear(W1, r0) in let p = {f}(y, 0) in ArgMax(p)",
        literal(&mut rng, &[hidden, n], -2.0, 2.0),
        literal(&mut rng, &[hidden], -1.0, 1.0),
        literal(&mut rng, &[outputs, hidden], -2.0 * scale, 2.0 * scale),
    );
    let eps = uniform(&mut rng, 0.0, 1.0) * 10f64.powi(-((rng.next_u64() % 3) as i32));
    let centre: Vec<f64> = (0..n).map(|_| uniform(&mut rng, -1.0, 1.0)).collect();
    let lo: Vec<f64> = centre.iter().map(|c| c - eps).collect();
    let hi: Vec<f64> = centre.iter().map(|c| c + eps).collect();
    let claim = match rng.next_u64() % 4 {
        0 | 1 => Claim::ArgmaxStable,
        2 => Claim::ArgmaxIs(below(&mut rng, outputs as u64)),
        _ => Claim::ArgmaxIsNot(below(&mut rng, outputs as u64)),
    };
    Case { source, region: exact_box(&lo, &hi), lo, hi, claim }
}

fn target(source: &str, inputs: usize) -> Target {
    class_target(source, vec![inputs])
}

fn sound_with(seed: u64, bounds_only: bool) -> TestResult {
    let case = random_case(seed);
    checked_answer(seed, &case, vec![case.lo.len()], bounds_only)
}

fn sound(seed: u64) -> TestResult {
    sound_with(seed, false)
}

fn sound_by_bounds(seed: u64) -> TestResult {
    sound_with(seed, true)
}

#[test]
fn holds_and_violated_are_never_wrong_before_a_softmax() {
    check_random_cases(sound as fn(u64) -> TestResult);
}

#[test]
fn holds_is_never_wrong_before_a_softmax_when_the_bounds_decide_alone() {
    check_random_cases(sound_by_bounds as fn(u64) -> TestResult);
}

/// Two scores `x` and `x + 2^-60` for `x` in `[2^-10, 2^-9]` (the sum exact): the second is
/// the larger by a gap the bounds can prove, so `ArgMax` of the scores is 1, but `exp(−2^-60)`
/// rounds to 1: the probabilities tie and the engine's class is 0 everywhere.
fn tied_by_rounding(f: &str) -> (Target, Case, Case) {
    let source = format!(
        "let W = initTensor(2, 1)[1.0, 1.0] in let y = linear(W, x) in let y[1] = y[1] + {:?} in let p = {f}(y, 0) in ArgMax(p)",
        2f64.powi(-60)
    );
    let t = target(&source, 1);
    let (lo, hi) = (vec![2f64.powi(-10)], vec![2f64.powi(-9)]);
    let case =
        |claim| Case { source: source.clone(), region: exact_box(&lo, &hi), lo: lo.clone(), hi: hi.clone(), claim };
    (t, case(Claim::ArgmaxIs(1)), case(Claim::ArgmaxIsNot(0)))
}

#[test]
fn a_tie_made_by_rounding_goes_to_the_lower_index_and_is_never_proved_away() {
    for f in ["softmax", "logSoftmax"] {
        let (t, is_one, is_not_zero) = tied_by_rounding(f);
        assert_eq!(reference_class(&t, &is_one.lo), 0, "{f}: the reference's class at the box's lower end");
        for (case, bounds_only) in [(&is_one, false), (&is_one, true), (&is_not_zero, false), (&is_not_zero, true)] {
            match ask_class(&t, case, bounds_only) {
                Conclusion::Holds { .. } => panic!("{f}: {:?} proved, but the class is 0", case.claim),
                Conclusion::Violated(c) => {
                    assert_eq!(reference_class(&t, &c.input), 0, "{f}: the counterexample replays");
                }
                Conclusion::Unknown(_) => assert!(bounds_only, "{f}: the falsifier finds class 0 at once"),
            }
        }
        // And class 0 is never denied: `argmax!=0` is violated at every point.
        let (_, _, mut not_zero) = tied_by_rounding(f);
        not_zero.claim = Claim::ArgmaxIsNot(0);
        assert!(matches!(ask_class(&t, &not_zero, false), Conclusion::Violated(_)), "{f}");
    }
}
