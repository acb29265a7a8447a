//! The two-layer MLP of `examples/mlp.knn` (linear → bias lets → reluTensor → linear → bias →
//! ArgMax) classifies like an independent dense evaluation written here with plain loops, on
//! the two documented inputs and on 200 seeded random ones.

use knn_semantics::engine::Outcome;
use knn_semantics::inputs::{TensorInput, initial_config};
use knn_semantics::syntax::parse_program;
use knn_semantics::term::term_of_program;
use knn_semantics::{Profile, StepOptions, run};

const W1: [[f64; 3]; 4] = [[0.5, -1.0, 2.0], [1.0, 1.0, 1.0], [-1.0, 0.0, 1.0], [0.0, -0.5, 0.0]];
const B1: [f64; 4] = [0.1, -0.2, 0.0, 0.3];
const W2: [[f64; 4]; 2] = [[1.0, 0.0, 0.0, -1.0], [-0.5, 2.0, 1.0, 1.0]];
const B2: [f64; 2] = [0.0, 0.5];

/// `linear` as the rules compute it: `((0.0 + w0*x0) + w1*x1) + …`.
fn linear<const I: usize, const J: usize>(w: &[[f64; J]; I], x: &[f64; J]) -> [f64; I] {
    let mut y = [0.0; I];
    for i in 0..I {
        for j in 0..J {
            y[i] += w[i][j] * x[j];
        }
    }
    y
}

/// The class the network gives `x`: ties go to the first index.
fn dense_class(x: [f64; 3]) -> i64 {
    let mut z = linear(&W1, &x);
    for (zi, bi) in z.iter_mut().zip(B1) {
        if bi != 0.0 {
            *zi += bi;
        }
    }
    let h = z.map(|v| if v < 0.0 { 0.0 } else { v });
    let mut o = linear(&W2, &h);
    o[1] += B2[1];
    let mut best = 0;
    for k in 1..o.len() {
        if o[k] > o[best] {
            best = k;
        }
    }
    best as i64
}

fn knn_class(x: [f64; 3]) -> i64 {
    let profile = Profile::revised();
    let source = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/mlp.knn")).unwrap();
    let program = term_of_program(&parse_program(&source, profile.grammar).unwrap());
    let input = TensorInput { name: "x".into(), shape: vec![3], data: x.to_vec() };
    let config = initial_config(profile, program, &[input]).unwrap();
    match run(profile, config, StepOptions::default()).outcome {
        Outcome::Value(v) => v.as_int().expect("ArgMax gives an Int"),
        other => panic!("{x:?}: {other:?}"),
    }
}

#[test]
fn the_documented_inputs_give_the_documented_classes() {
    // By hand: h = relu([3.6, -0.7, -0.5, 1.3]); o = [3.6 - 1.3, -1.8 + 1.3 + 0.5] = [2.3, 0.0].
    assert_eq!(knn_class([1.0, -2.0, 0.5]), 0);
    // h = relu([-0.9, 0.8, 0.0, -0.2]); o = [0.0, 1.6 + 0.5].
    assert_eq!(knn_class([0.0, 1.0, 0.0]), 1);
}

#[test]
fn random_inputs_classify_like_a_dense_evaluation() {
    let mut seed: u64 = 0x5eed;
    let mut next = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((seed >> 11) as f64 / (1u64 << 53) as f64) * 8.0 - 4.0
    };
    let mut classes = [0; 2];
    for _ in 0..200 {
        let x = [next(), next(), next()];
        let class = knn_class(x);
        assert_eq!(class, dense_class(x), "{x:?}");
        classes[class as usize] += 1;
    }
    assert!(classes[0] > 20 && classes[1] > 20, "both classes occur: {classes:?}");
}
