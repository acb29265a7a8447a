//! Soundness of the verifier on random small networks whose hidden layers are sliced
//! (Ext-12's `slice`, the plan's `Gather` read as the `Gather` operator: exact, coefficients
//! scattered back): whenever it says `holds`, 10^4 random points and the corners of the box find
//! no violation (on the big-step engine, and the corners on the small-step reference too);
//! whenever it says `violated`, the counterexample lies in the box and replays on the reference.
//! `KNN_VERIFY_CASES` sets the number of networks (default 100).

mod verify_support;

use knn_formats::import::emit::emit;
use knn_formats::import::{Activation, Network as Imported, Step};
use knn_verify::claim::Claim;
use knn_verify::falsify::SplitMix;
use quickcheck::TestResult;
use verify_support::answers::{Case, answer_is_right, check_random_cases, uniform};
use verify_support::{ask, exact_box, target};

fn random_case(seed: u64) -> Case {
    let mut rng = SplitMix::new(seed);
    let inputs = 1 + (rng.next_u64() % 3) as usize;
    let outputs = 2 + (rng.next_u64() % 2) as usize;
    let mut steps = Vec::new();
    let mut width = inputs;
    for k in 0..3 {
        let rows = if k == 2 { outputs } else { 2 + (rng.next_u64() % 4) as usize };
        let weights: Vec<f64> = (0..rows * width).map(|_| uniform(&mut rng, -2.0, 2.0)).collect();
        steps.push(Step::Linear { rows, cols: width, weights: weights.as_slice().into() });
        steps.push(Step::Add((0..rows).map(|_| uniform(&mut rng, -1.0, 1.0)).collect()));
        width = rows;
        if k < 2 {
            steps.push(Step::Activation(if rng.next_u64().is_multiple_of(3) {
                Activation::Tanh
            } else {
                Activation::Relu
            }));
            // A nonempty slice of the hidden vector: a start, an end past it, a step of 1 to 3.
            let begin = (rng.next_u64() % width as u64) as usize;
            let end = begin + 1 + (rng.next_u64() % (width - begin) as u64) as usize;
            let step = 1 + (rng.next_u64() % 3) as usize;
            let kept = (end - begin - 1) / step + 1;
            if kept < width {
                steps.push(Step::Slice { axis: 0, begin, end, step, output: vec![kept] });
                width = kept;
            }
        }
    }
    let network = Imported {
        source: "a test".into(),
        format: "test",
        input: "x".into(),
        input_len: inputs,
        input_shape: vec![inputs],
        output: "y".into(),
        steps,
        notes: vec![],
    };
    let eps = uniform(&mut rng, 0.0, 1.0) * 10f64.powi(-((rng.next_u64() % 3) as i32));
    let centre: Vec<f64> = (0..inputs).map(|_| uniform(&mut rng, -1.0, 1.0)).collect();
    let lo: Vec<f64> = centre.iter().map(|c| c - eps).collect();
    let hi: Vec<f64> = centre.iter().map(|c| c + eps).collect();
    let claim = match rng.next_u64() % 3 {
        0 => Claim::ArgmaxStable,
        1 => Claim::ArgmaxIs((rng.next_u64() % outputs as u64) as usize),
        _ => Claim::ArgmaxIsNot((rng.next_u64() % outputs as u64) as usize),
    };
    Case { source: emit(&network), region: exact_box(&lo, &hi), lo, hi, claim }
}

fn sound(seed: u64) -> TestResult {
    let case = random_case(seed);
    let t = target(&case.source, case.lo.len());
    let answer = ask(&t, case.region.clone(), case.claim);
    answer_is_right(seed, &case, &t, answer, false)
}

#[test]
fn holds_and_violated_are_never_wrong_on_random_sliced_networks() {
    // Most of the networks slice: the test is about the Gather operator.
    let sliced = (0..100).filter(|&seed| random_case(seed).source.contains("slice(")).count();
    assert!(sliced >= 60, "{sliced} of 100 networks slice");
    check_random_cases(sound as fn(u64) -> TestResult);
}
