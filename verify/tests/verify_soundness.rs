//! Soundness of the verifier on random small networks (ReLU, tanh, sigmoid) and boxes:
//! whenever it says `holds`, 10^4 random points and the corners of the box find no
//! violation (on the big-step engine, and the corners on the small-step reference too);
//! whenever it says `violated`, the counterexample lies in the box and replays on the
//! reference. `KNN_VERIFY_CASES` sets the number of networks (default 100).

mod verify_support;

use knn_engine::bigstep::ops::argmax;
use knn_engine::bigstep::{ExecOptions, run_rows};
use knn_formats::import::Activation;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_verify::claim::Claim;
use knn_verify::falsify::SplitMix;
use knn_verify::property::InputBox;
use knn_verify::{Conclusion, Target};
use std::sync::atomic::{AtomicUsize, Ordering};

use quickcheck::{QuickCheck, TestResult};
use verify_support::{Dense, ask, exact_box, program_text, target};

/// How many cases were proved and refuted: both must be common, or the property says little.
static PROVED: AtomicUsize = AtomicUsize::new(0);
static REFUTED: AtomicUsize = AtomicUsize::new(0);

struct Case {
    source: String,
    inputs: usize,
    region: InputBox,
    lo: Vec<f64>,
    hi: Vec<f64>,
    claim: Claim,
}

fn uniform(rng: &mut SplitMix, lo: f64, hi: f64) -> f64 {
    lo + rng.unit() * (hi - lo)
}

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
    Case { source: program_text(inputs, &layers), inputs, region: exact_box(&lo, &hi), lo, hi, claim }
}

/// The class the reference computes at `x`.
fn reference_class(t: &Target, x: &[f64]) -> usize {
    let input = TensorInput { name: "x".into(), shape: vec![x.len()], data: x.to_vec() };
    match SmallStep::revised().evaluate(&t.program, &[input]) {
        Ok(Verdict::Value(Observed::Tensor(y))) => argmax(y.data.iter().copied()) as usize,
        other => panic!("the reference did not compute a vector at {x:?}: {other:?}"),
    }
}

fn meets(claim: Claim, proved_class: Option<usize>, class: usize) -> bool {
    match claim {
        Claim::ArgmaxIs(k) => class == k,
        Claim::ArgmaxIsNot(k) => class != k,
        Claim::ArgmaxStable => Some(class) == proved_class,
    }
}

fn sound(seed: u64) -> TestResult {
    let case = random_case(seed);
    let t = target(&case.source, case.inputs);
    let answer = ask(&t, case.region.clone(), case.claim);
    match answer {
        Conclusion::Holds { class } => {
            let mut rng = SplitMix::new(seed ^ 0x5eed);
            let mut points: Vec<Vec<f64>> = (0..10_000)
                .map(|_| case.lo.iter().zip(&case.hi).map(|(l, h)| uniform(&mut rng, *l, *h).clamp(*l, *h)).collect())
                .collect();
            let corners: Vec<Vec<f64>> = (0..1usize << case.inputs)
                .map(|m| (0..case.inputs).map(|j| if m >> j & 1 == 1 { case.hi[j] } else { case.lo[j] }).collect())
                .collect();
            points.extend(corners.iter().cloned());
            let rows: Vec<Vec<&[f64]>> = points.iter().map(|x| vec![x.as_slice()]).collect();
            for (x, result) in points.iter().zip(run_rows(&t.plan, &rows, ExecOptions::default())) {
                let Ok(Observed::Tensor(y)) = result else { panic!("no vector at {x:?}") };
                let found = argmax(y.data.iter().copied()) as usize;
                if !meets(case.claim, class, found) {
                    return TestResult::error(format!(
                        "seed {seed}: holds ({class:?}) but class {found} at {x:?}\n{}",
                        case.source
                    ));
                }
            }
            for x in &corners {
                let found = reference_class(&t, x);
                if !meets(case.claim, class, found) {
                    return TestResult::error(format!(
                        "seed {seed}: holds but the reference gives {found} at corner {x:?}"
                    ));
                }
            }
            PROVED.fetch_add(1, Ordering::Relaxed);
            TestResult::passed()
        }
        Conclusion::Violated(c) => {
            if !case.region.contains(&c.input) {
                return TestResult::error(format!("seed {seed}: counterexample {:?} outside the box", c.input));
            }
            let found = reference_class(&t, &c.input);
            let stable_class = c.expected_class;
            let violates = match case.claim {
                Claim::ArgmaxIs(k) => found != k,
                Claim::ArgmaxIsNot(k) => found == k,
                Claim::ArgmaxStable => Some(found) != stable_class,
            };
            if !violates || Some(found) != c.class {
                return TestResult::error(format!(
                    "seed {seed}: counterexample {:?} does not replay (class {found})",
                    c.input
                ));
            }
            REFUTED.fetch_add(1, Ordering::Relaxed);
            TestResult::passed()
        }
        Conclusion::Unknown(why) => TestResult::error(format!("seed {seed}: undecided ({why:?}) on a tiny network")),
    }
}

#[test]
fn holds_and_violated_are_never_wrong_on_random_networks() {
    let cases = std::env::var("KNN_VERIFY_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    QuickCheck::new().tests(cases).max_tests(cases).quickcheck(sound as fn(u64) -> TestResult);
    let (proved, refuted) = (PROVED.load(Ordering::Relaxed), REFUTED.load(Ordering::Relaxed));
    assert!(
        proved * 5 >= cases as usize && refuted * 5 >= cases as usize,
        "{proved} proved, {refuted} refuted of {cases}"
    );
}
