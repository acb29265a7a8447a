//! Soundness of the verifier on random small networks whose tensors branch and meet again
//! (`verify/src/branches.rs`): a residual sum or difference of two computed tensors, or their
//! concatenation read by a product — the
//! skip taken before a relu (carried across it as a sign pair), after it, or from the input;
//! a tensor read by two products; a computed `[1]` broadcast against a vector; tanh, sigmoid or
//! exp instead of the first relu, acting on their segment while the skip is kept — and the
//! element-wise functions with a constant operand (`mulTensor`, `subTensor` of a constant,
//! `divTensor` by constants, tiny ones included, `addTensor` of a bias, `matmul` by a constant
//! matrix on either side, `expTensor`, `logTensor` of a relu's output, `batchNorm`, `reduceSum`,
//! `reduceMean`, `reduceMax` and `reduceMin` of pairs) and of two computed operands (`mulTensor`,
//! `divTensor` by a positive computed tensor or by one that may be 0, `matmul` as an outer
//! product summed back, `softmax` and `logSoftmax` in the middle). Whenever the verifier says
//! `holds`,
//! 10^4 random points and the box's corners find no violation (the corners on the small-step
//! reference too); whenever it says `violated`, the counterexample replays on the reference.
//! `KNN_VERIFY_CASES` sets the number of networks (default 100).

mod verify_support;

use knn_verify::claim::Claim;
use knn_verify::falsify::SplitMix;
use quickcheck::TestResult;
use verify_support::answers::{Case, check_random_cases, checked_answer, uniform};
use verify_support::{below, exact_box, literal};

/// A random network on `x` of `n` elements with a branch, and its number of outputs.
fn random_network(rng: &mut SplitMix, n: usize) -> (String, usize) {
    let m = if below(rng, 2) == 0 { n } else { 1 + below(rng, 3) };
    let outputs = 2 + below(rng, 2);
    let mut s =
        format!("let W0 = {} in let B0 = {} in ", literal(rng, &[m, n], -2.0, 2.0), literal(rng, &[m], -1.0, 1.0));
    // The first activation: mostly a relu, else a monotone one acting on its segment alone
    // while the skip is kept.
    let act = ["reluTensor", "reluTensor", "reluTensor", "tanhTensor", "sigmoidTensor", "expTensor"][below(rng, 6)];
    s += &format!("let l0 = linear(W0, x) in let h0 = addTensor(l0, B0) in let r0 = {act}(h0) in ");
    s += &format!("let W1 = {} in let l1 = linear(W1, r0) in ", literal(rng, &[m, m], -2.0, 2.0));
    // The second branch: the skip before the relu, after it, the input, a second product of
    // the relu's output, or a [1] computed from it and broadcast.
    let skip = match below(rng, 5) {
        0 => "h0".to_string(),
        1 => "r0".to_string(),
        2 if m == n => "x".to_string(),
        3 => {
            s += &format!("let W2 = {} in let l2 = linear(W2, r0) in ", literal(rng, &[m, m], -2.0, 2.0));
            "l2".to_string()
        }
        _ => {
            s += &format!("let V = {} in let v = linear(V, r0) in ", literal(rng, &[1, m], -2.0, 2.0));
            "v".to_string()
        }
    };
    let skip_len = if skip == "v" { 1 } else { m };
    let joined = literal(rng, &[m, m + skip_len], -2.0, 2.0);
    s += &match below(rng, 4) {
        3 => format!("let c = concat(l1, {skip}, 0) in let WJ = {joined} in let j = linear(WJ, c) in "),
        0 => format!("let j = addTensor(l1, {skip}) in "),
        1 => format!("let j = subTensor(l1, {skip}) in "),
        _ => format!("let j = subTensor({skip}, l1) in "),
    };
    // A constant step on the sum.
    let c = literal(rng, &[m], -2.0, 2.0);
    let square = literal(rng, &[m, m], -2.0, 2.0);
    let norm = [(-2.0, 2.0), (-1.0, 1.0), (-1.0, 1.0), (0.0, 3.0)].map(|(lo, hi)| literal(rng, &[m], lo, hi));
    let doubled = literal(rng, &[2 * m, m], -2.0, 2.0);
    let reduce = ["reduceSum", "reduceMean", "reduceMax", "reduceMin"][below(rng, 4)];
    let offset = literal(rng, &[m], 0.0, 2.0);
    s += &match below(rng, 16) {
        11 => "let k = mulTensor(j, l1) in ".to_string(),
        12 => format!(
            "let jr = reluTensor(j) in let O = {offset} in let den = addTensor(jr, O) in let k = divTensor(l1, den) in "
        ),
        13 => format!(
            "let jm = reshape(j, {m}, 1) in let lm = reshape(l1, 1, {m}) in let o = matmul(jm, lm) in let k = reduceSum(o, 1) in "
        ),
        14 => "let k = softmax(j, 0) in ".to_string(),
        15 => "let k = logSoftmax(j, 0) in ".to_string(),
        10 => format!(
            "let WD = {doubled} in let d = linear(WD, j) in let dm = reshape(d, {m}, 2) in let k = {reduce}(dm, 1) in "
        ),
        9 => format!(
            "let S = {} in let B = {} in let M = {} in let V = {} in let k = batchNorm(j, S, B, M, V, epsilon = 0.001) in ",
            norm[0], norm[1], norm[2], norm[3]
        ),
        7 => "let k = expTensor(j) in ".to_string(),
        8 => "let jr = reluTensor(j) in let k = logTensor(jr) in ".to_string(),
        5 => format!("let C = {square} in let k = matmul(C, j) in "),
        6 => format!("let C = {square} in let k = matmul(j, C) in "),
        0 => format!("let C = {c} in let k = mulTensor(j, C) in "),
        1 => format!("let C = {c} in let k = subTensor(C, j) in "),
        2 => {
            let divisors: Vec<String> =
                (0..m).map(|_| format!("{:?}", [0.5, 2.0, -4.0, 0.125, 3.0, -0.1, 1e-300][below(rng, 7)])).collect();
            format!("let P = initTensor({m})[{}] in let k = divTensor(j, P) in ", divisors.join(", "))
        }
        3 => format!("let C = {c} in let k = addTensor(j, C) in "),
        _ => "let k = reluTensor(j) in ".to_string(),
    };
    s += &format!(
        "let r1 = reluTensor(k) in let WY = {} in let y = linear(WY, r1) in y",
        literal(rng, &[outputs, m], -2.0, 2.0)
    );
    (s, outputs)
}

fn random_case(seed: u64) -> Case {
    let mut rng = SplitMix::new(seed);
    let n = 1 + below(&mut rng, 3);
    let (source, outputs) = random_network(&mut rng, n);
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
fn holds_and_violated_are_never_wrong_on_random_networks_that_branch() {
    check_random_cases(sound as fn(u64) -> TestResult);
}

#[test]
fn holds_is_never_wrong_on_networks_that_branch_when_the_bounds_decide_alone() {
    check_random_cases(sound_by_bounds as fn(u64) -> TestResult);
}
