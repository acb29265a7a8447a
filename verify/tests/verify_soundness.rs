//! Soundness of the verifier on random small networks (ReLU, tanh, sigmoid) and boxes:
//! whenever it says `holds`, 10^4 random points and the corners of the box find no
//! violation (on the big-step engine, and the corners on the small-step reference too);
//! whenever it says `violated`, the counterexample lies in the box and replays on the
//! reference. `KNN_VERIFY_CASES` sets the number of networks (default 100).

mod verify_support;

use knn_formats::import::Activation;
use knn_verify::claim::Claim;
use knn_verify::falsify::SplitMix;
use quickcheck::TestResult;
use verify_support::answers::{Case, answer_is_right, check_random_cases, uniform};
use verify_support::{Dense, ask, exact_box, program_text, target};

fn random_case(seed: u64) -> Case {
    let mut rng = SplitMix::new(seed);
    let inputs = 1 + (rng.next_u64() % 3) as usize;
    let hidden = 1 + (rng.next_u64() % 2) as usize;
    let outputs = 2 + (rng.next_u64() % 2) as usize;
    let mut layers = Vec::new();
    let mut width = inputs;
    for k in 0..=hidden {
        let rows = if k == hidden { outputs } else { 2 + (rng.next_u64() % 4) as usize };
        let activation = if k == hidden {
            None
        } else {
            Some(match rng.next_u64() % 5 {
                0 => Activation::Tanh,
                1 => Activation::Sigmoid,
                _ => Activation::Relu,
            })
        };
        let weights = (0..rows * width).map(|_| uniform(&mut rng, -2.0, 2.0)).collect();
        let bias = (0..rows).map(|_| uniform(&mut rng, -1.0, 1.0)).collect();
        layers.push(Dense { rows, cols: width, weights, bias, activation });
        width = rows;
    }
    let eps = uniform(&mut rng, 0.0, 1.0) * 10f64.powi(-((rng.next_u64() % 3) as i32));
    let centre: Vec<f64> = (0..inputs).map(|_| uniform(&mut rng, -1.0, 1.0)).collect();
    let lo: Vec<f64> = centre.iter().map(|c| c - eps).collect();
    let hi: Vec<f64> = centre.iter().map(|c| c + eps).collect();
    let claim = match rng.next_u64() % 4 {
        0 | 1 => Claim::ArgmaxStable,
        2 => Claim::ArgmaxIs((rng.next_u64() % outputs as u64) as usize),
        _ => Claim::ArgmaxIsNot((rng.next_u64() % outputs as u64) as usize),
    };
    Case { source: program_text(inputs, &layers), region: exact_box(&lo, &hi), lo, hi, claim }
}

fn sound(seed: u64) -> TestResult {
    let case = random_case(seed);
    let t = target(&case.source, case.lo.len());
    let answer = ask(&t, case.region.clone(), case.claim);
    answer_is_right(seed, &case, &t, answer, false)
}

#[test]
fn holds_and_violated_are_never_wrong_on_random_networks() {
    check_random_cases(sound as fn(u64) -> TestResult);
}
