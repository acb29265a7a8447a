//! Helpers of the `knn verify` command-line tests: the fixtures, the test networks computed by
//! hand (the engine's operations in the engine's order), VNN-COMP witnesses read back.
#![allow(dead_code, reason = "each test file uses its own subset")]

use std::path::PathBuf;
use std::process::Output;

use crate::common::{knn, stderr, stdout};

/// Runs `knn verify ARGS`.
pub fn verify(args: &[&str]) -> Output {
    let mut all = vec!["verify"];
    all.extend_from_slice(args);
    knn(&all, None)
}

/// Runs `knn verify`, asserts the exit code exactly (never 101, a panic) and returns stdout
/// and stderr.
pub fn verify_exit(args: &[&str], code: i32) -> (String, String) {
    let out = verify(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "knn verify {args:?}\nstdout: {}\nstderr: {}",
        stdout(&out),
        stderr(&out)
    );
    (stdout(&out), stderr(&out))
}

/// A file of `tests/fixtures/verify/`.
pub fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify").join(name);
    path.to_string_lossy().into_owned()
}

/// `examples/mlp.knn`.
pub fn mlp_program() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/mlp.knn").to_string_lossy().into_owned()
}

/// `linear(W, x)` as `rev-linear-mac` computes it: `((0.0 + w0·x0) + w1·x1) + …` per row.
fn linear<const R: usize, const C: usize>(w: &[[f64; C]; R], x: &[f64; C]) -> [f64; R] {
    w.map(|row| row.iter().zip(x).fold(0.0, |sum, (wij, xj)| sum + wij * xj))
}

fn relu<const N: usize>(v: [f64; N]) -> [f64; N] {
    v.map(|x| if x > 0.0 { x } else { 0.0 })
}

/// The revised `ArgMax`: the first index of the largest value.
pub fn argmax(scores: &[f64]) -> usize {
    let mut best = 0;
    for (k, &s) in scores.iter().enumerate() {
        if s > scores[best] {
            best = k;
        }
    }
    best
}

/// The scores `o` of `examples/mlp.knn` (3 -> 4 -> 2, before its `ArgMax`), as written there:
/// `linear`, then the bias `let`s on `z[0]`, `z[1]`, `z[3]` and `o[1]`.
pub fn mlp_scores(x: [f64; 3]) -> [f64; 2] {
    let w1 = [[0.5, -1.0, 2.0], [1.0, 1.0, 1.0], [-1.0, 0.0, 1.0], [0.0, -0.5, 0.0]];
    let mut z = linear(&w1, &x);
    z[0] += 0.1;
    z[1] += -0.2;
    z[3] += 0.3;
    let h = relu(z);
    let w2 = [[1.0, 0.0, 0.0, -1.0], [-0.5, 2.0, 1.0, 1.0]];
    let mut o = linear(&w2, &h);
    o[1] += 0.5;
    o
}

/// The outputs of `fc_2-2-3.nnet` (its biases are zero and the import leaves them out).
pub fn fc_relu(x: [f64; 2]) -> [f64; 3] {
    let h = relu(linear(&[[1.0, 1.0], [-1.0, -1.0]], &x));
    linear(&[[2.0, -1.0], [-1.0, 1.0], [1.0, -1.0]], &h)
}

/// A VNN-COMP witness `((X_0 v) (X_1 v) … (Y_0 v) …)`: the X values and the Y values.
pub fn read_witness(text: &str) -> (Vec<f64>, Vec<f64>) {
    let flat = text.replace(['(', ')'], " ");
    let words: Vec<&str> = flat.split_whitespace().collect();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for pair in words.chunks(2) {
        let [name, value] = pair else { panic!("an odd witness: {text}") };
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("`{value}` in the witness {text}"));
        let (list, index) = match name.split_once('_') {
            Some(("X", i)) => (&mut xs, i),
            Some(("Y", i)) => (&mut ys, i),
            _ => panic!("`{name}` in the witness {text}"),
        };
        assert_eq!(index.parse::<usize>().unwrap(), list.len(), "witness pairs in order: {text}");
        list.push(value);
    }
    (xs, ys)
}

/// The values of a printed vector `[1.0, -2.0, 0.5]`.
pub fn read_vector(text: &str) -> Vec<f64> {
    let inner = text.trim().trim_start_matches('[').trim_end_matches(']');
    inner.split(',').map(|v| v.trim().parse().unwrap_or_else(|_| panic!("`{v}` in {text}"))).collect()
}

/// The value after `label =` on a line of the text report (`  input  = [...]`).
pub fn report_line(report: &str, label: &str) -> Vec<f64> {
    let line = report
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` line in {report}"));
    read_vector(line.split_once('=').expect("label = value").1)
}
