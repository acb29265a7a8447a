//! Rounding traps: networks whose binary64 answer differs from the real-number one. The
//! verifier must answer for the bits the engine computes (docs/verification.md); each test
//! also shows, with exact integer arithmetic, what a real-number verifier would conclude.

mod verify_support;

use knn_formats::import::Activation;
use knn_verify::Conclusion;
use knn_verify::Target;
use knn_verify::claim::Claim;
use knn_verify::property::InputBox;
use knn_verify::split::Split;
use verify_support::{Dense, ask_splitting, exact_box, program_text, target};

/// The answer with input splits, after checking that relu splits (with their β multipliers)
/// give the same kind of answer and class.
fn ask(t: &Target, region: InputBox, claim: Claim) -> Conclusion {
    let by_inputs = ask_splitting(t, region.clone(), claim, Split::Inputs);
    let by_relus = ask_splitting(t, region, claim, Split::Relus);
    match (&by_inputs, &by_relus) {
        (Conclusion::Holds { class: a }, Conclusion::Holds { class: b }) => assert_eq!(a, b),
        (Conclusion::Violated(_), Conclusion::Violated(_)) => {}
        _ => panic!("input splits: {by_inputs:?}; relu splits: {by_relus:?}"),
    }
    by_inputs
}

const BIG: f64 = 1e17;

/// `y0 = relu(x + 1e17) − 1e17`, `y1 = 0·relu(…) + bias1`: in binary64 `x + 1e17` rounds to
/// `1e17` for every `x` in `[0, 4]` (the spacing there is 16), so `y0` is exactly 0.
fn trap(bias1: f64) -> String {
    program_text(
        1,
        &[
            Dense { rows: 1, cols: 1, weights: vec![1.0], bias: vec![BIG], activation: Some(Activation::Relu) },
            Dense { rows: 2, cols: 1, weights: vec![1.0, 0.0], bias: vec![-BIG, bias1], activation: None },
        ],
    )
}

/// `y0` in exact arithmetic at an integer input `x ≥ 0`: `(x + 10^17) − 10^17 = x`.
fn real_y0(x: i128) -> i128 {
    (x + 100_000_000_000_000_000) - 100_000_000_000_000_000
}

#[test]
fn a_sum_that_rounds_away_is_proved_as_the_engine_computes_it() {
    let t = target(&trap(0.5), 1);
    // The engine: y0 = 0 < 0.5 = y1 everywhere, so the class is 1.
    assert_eq!(t.net.eval(&[4.0]), vec![0.0, 0.5]);
    // The reals: at x = 4, y0 = 4 > 0.5, class 0: a real-number verifier refutes `argmax=1`.
    assert_eq!(real_y0(4), 4);
    match ask(&t, exact_box(&[0.0], &[4.0]), Claim::ArgmaxIs(1)) {
        Conclusion::Holds { class } => assert_eq!(class, Some(1)),
        other => panic!("expected holds for the engine's bits, got {other:?}"),
    }
    // And the real-number claim `argmax=0` somewhere is not what the engine does: refuted.
    assert!(matches!(ask(&t, exact_box(&[1.0], &[4.0]), Claim::ArgmaxIs(0)), Conclusion::Violated(_)));
}

#[test]
fn a_tie_in_binary64_is_broken_by_the_first_index() {
    // y0 = 0 (weight 0, bias 0) and y1 = relu(x + 1e17) − 1e17: both exactly 0 in binary64, a
    // tie that ArgMax gives to index 0; in the reals y1 = x > 0 = y0 for x > 0 (class 1).
    let source = program_text(
        1,
        &[
            Dense { rows: 1, cols: 1, weights: vec![1.0], bias: vec![BIG], activation: Some(Activation::Relu) },
            Dense { rows: 2, cols: 1, weights: vec![0.0, 1.0], bias: vec![0.0, -BIG], activation: None },
        ],
    );
    let t = target(&source, 1);
    assert_eq!(t.net.eval(&[3.0]), vec![0.0, 0.0]);
    assert!(real_y0(3) > 0, "in the reals the second score wins");
    assert!(matches!(ask(&t, exact_box(&[1.0], &[4.0]), Claim::ArgmaxIs(0)), Conclusion::Holds { class: Some(0) }));
    match ask(&t, exact_box(&[1.0], &[4.0]), Claim::ArgmaxIs(1)) {
        Conclusion::Violated(c) => assert_eq!(c.class, Some(0)),
        other => panic!("expected a counterexample with class 0, got {other:?}"),
    }
}

#[test]
fn outputs_equal_in_the_reals_but_not_in_binary64_are_told_apart() {
    // z = (x + 1e17, x), then y = (z0 − 1e17, z1): y0 = y1 = x in the reals, a tie that the
    // first index wins (class 0). In binary64 x + 1e17 rounds to 1e17 for x in [1, 4], so
    // y0 = 0 < x = y1: class 1 on the whole box.
    let source = program_text(
        1,
        &[
            Dense { rows: 2, cols: 1, weights: vec![1.0, 1.0], bias: vec![BIG, 0.0], activation: None },
            Dense { rows: 2, cols: 2, weights: vec![1.0, 0.0, 0.0, 1.0], bias: vec![-BIG, 0.0], activation: None },
        ],
    );
    let t = target(&source, 1);
    assert_eq!(t.net.eval(&[2.0]), vec![0.0, 2.0]);
    assert_eq!(real_y0(2), 2, "in the reals y0 = x = y1: a tie, class 0");
    assert!(matches!(ask(&t, exact_box(&[1.0], &[4.0]), Claim::ArgmaxIs(1)), Conclusion::Holds { class: Some(1) }));
    match ask(&t, exact_box(&[1.0], &[4.0]), Claim::ArgmaxIs(0)) {
        Conclusion::Violated(c) => {
            assert_eq!(c.class, Some(1));
            assert!((1.0..=4.0).contains(&c.input[0]));
        }
        other => panic!("expected a counterexample, got {other:?}"),
    }
}
