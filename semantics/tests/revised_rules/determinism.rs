//! Rev-11's global property: under the revised profile no configuration reachable from the
//! authors' programs, the examples, the programs of docs/semantics.md §3's table or the
//! extensions' constructs has two successors.

use std::collections::{HashSet, VecDeque};
use std::path::Path;

use knn_semantics::config::Config;
use knn_semantics::inputs::{TensorInput, initial_config};
use knn_semantics::profile::{Priorities, Profile};
use knn_semantics::successors;
use knn_semantics::syntax::parse_program;
use knn_semantics::term::term_of_program;

use super::common;

/// How many distinct configurations one program's state space may have.
const MAX_STATES: usize = 200_000;

/// The programs of docs/semantics.md §3's table (the quirks and the patches' effect on them), one row
/// each, with the variants `semantics/tests/expected_effects/` checks.
const TABLE_PROGRAMS: &[&str] = &[
    // (a)
    "let t = initTensor(3) in let t[1] = -2.0 in let t[2] = 5.0 in (let u = reluTensor(t) in u[1])",
    // (b)
    "let m = initTensor(2, 2) in let m[0, 1] = -4.0 in let m[1, 0] = 3.0 in (let r = reluTensor(m) in r[0, 1] + r[1, 0])",
    "let t = initTensor(2, 2, 2) in let t[1, 0, 1] = -3.0 in let t[0, 1, 1] = 4.0 in \
     (let u = reluTensor(t) in u[1, 0, 1] + u[0, 1, 1])",
    "let t = initTensor(2, 2, 2) in 1.0",
    "let t = initTensor(1, 1, 2) in (let u = reluTensor(t) in 1.0)",
    // (c)
    "let m = initTensor(1, 2) in let m[0, 0] = -1.0 in let m[0, 1] = 1.0 in (let h = tanhTensor(m) in h[0, 0] + h[0, 1])",
    "let v = initTensor(2) in let v[0] = -1.0 in (let h = tanhTensor(v) in h[0])",
    "let m = initTensor(1, 2) in let m[0, 0] = -2.0 in (let s = sigmoidTensor(m) in s[0, 0])",
    "let v = initTensor(2) in let v[1] = 2.0 in (let s = sigmoidTensor(v) in s[0] + s[1])",
    "let m = initTensor(2, 2) in let m[0][1] = -5.0 in m[0, 1]",
    // (d)
    "let s = initTensor(3) in let s[0] = -3.0 in let s[1] = -1.0 in let s[2] = -2.0 in ArgMax(s)",
    "let s = initTensor(3) in let s[0] = 1.0 in let s[1] = 5.0 in let s[2] = 5.0 in ArgMax(s)",
    "let s = initTensor(3) in let s[1] = 2.0 in ArgMax(s)",
    "let s = initTensor(2) in let s[0] = 4.0 in let s[1] = 3.0 in ArgMax(s)",
    "let s = initTensor(2) in let s[0] = 4.0 in let s[1] = 3.0 in let k = ArgMax(s) in k",
    "let s = initTensor(3) in let s[0] = 1.0 in (let r = reluTensor(s) in ArgMax(r))",
    "let m = initTensor(2, 2) in ArgMax(m)",
    "let s = initTensor(1) in let s[0] = -0.0 in ArgMax(s)",
    // (e)
    "let a = initTensor(2) in let b = initTensor(2) in let b[0] = 7.0 in a[3]",
    "let a = initTensor(2) in let b = initTensor(2) in a[2]",
    "let a = initTensor(2) in let b = initTensor(2) in a[5]",
    "let a = initTensor(2) in let b = initTensor(2) in let a[2] = 9.0 in b[0]",
    "let a = initTensor(2) in let b = initTensor(2) in let a[7] = 1.0 in a[0]",
    "let m = initTensor(2, 2) in let m[0, 3] = 5.0 in m[1, 0]",
    // (f)
    "1 + 2",
    "1 + 2.0",
    "2 * 3",
    "let x = 1 in x + 2.0",
    "let n = 3 in n",
    "let n = 0 in n",
    "0",
    // (g)
    "let x = relu(3.0) in x",
    "let x = relu(-3.0) in x",
    "let x = tanh(0.5) in x",
    "let x = sigmoid(0.5) in x",
    // (h)
    "let x = initTensor(1) in let W = initTensor(1, 2) in let x[0] = 1.0 in let W[0, 0] = 2.0 in \
     let W[0, 1] = 3.0 in (let y = linear(W, x) in y[0])",
    "let x = initTensor(3) in let W = initTensor(1, 2) in let W[0, 0] = 2.0 in let W[0, 1] = 3.0 in \
     let x[0] = 1.0 in let x[1] = 1.0 in let x[2] = 100.0 in (let y = linear(W, x) in y[0])",
    "let x = initTensor(2) in let W = initTensor(1, 2) in let W[0, 0] = 2.0 in let W[0, 1] = 3.0 in \
     let x[0] = 1.0 in let x[1] = 1.0 in (let y = linear(W, x) in y[0])",
    // (i)
    "let x = 1.0 in let x = 2.0 in x",
    "let t = initTensor(2) in let t = initTensor(3) in t[0]",
    "let t = initTensor(2) in let t[0] = 5.0 in (let t = reluTensor(t) in t[0])",
    "let t = 5.0 in (let t = initTensor(2) in t[0])",
    "let t = initTensor(2) in let t = 5.0 in t",
    "(let u = initTensor(1) in 2.0) + u[0]",
    // (j)
    "let v = initTensor(1) in let v[0] = 400.0 in (let h = tanhTensor(v) in h[0])",
    "let m = initTensor(1, 1) in let m[0, 0] = 400.0 in (let h = tanhTensor(m) in h[0, 0])",
    "let v = initTensor(1) in let v[0] = 3.0 in (let s = sigmoidTensor(v) in s[0])",
    // (k)
    "let X = initTensor(0) in X[0]",
    "let X = initTensor(0) in ArgMax(X)",
    "let X = initTensor(2, 0) in X[0, 0]",
    "let X = initTensor(0, 3) in X[0, 1]",
    // (l)
    "let x = 2.0 in let y = x in y",
    "let X = initTensor(2) in let Y = X in Y[0]",
    "let X = initTensor(2) in let Y = X in let Y[1] = 4.0 in X[1]",
    // (m)
    "let x = initTensor(2) in let W = initTensor(2, 2) in let x[0] = 1.0 in let W[0, 0] = -1.0 in \
     let W[1, 1] = 2.0 in (let h = linear(W, x) in (let a = reluTensor(h) in a[0]))",
    "let x = initTensor(2) in let W = initTensor(2, 2) in let x[0] = 1.0 in let W[0, 0] = -1.0 in \
     let W[1, 1] = 2.0 in (let h = linear(W, x) in ArgMax(h))",
    "let x = initTensor(2) in let W = initTensor(2, 2) in let x[0] = 1.0 in let W[0, 0] = -1.0 in \
     let W[1, 1] = 2.0 in (let h = linear(W, x) in (let a = reluTensor(h) in ArgMax(a)))",
    "let x = initTensor(2) in let W = initTensor(2, 2) in let V = initTensor(2, 2) in let x[0] = 1.0 in \
     let x[1] = -1.0 in let W[0, 0] = 2.0 in let W[1, 1] = 1.0 in let V[0, 0] = 1.0 in let V[1, 0] = -1.0 in \
     (let h = linear(W, x) in (let o = linear(V, h) in o[0] + o[1]))",
];

/// The `*.knn` files of a directory of the workspace, with their text.
fn knn_files(dir: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "knn"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path.display().to_string(), text)
        })
        .collect();
    files.sort();
    files
}

/// Every program of the determinism check, named, with its initial configuration under the
/// revised profile (read with the revised grammar).
fn determinism_programs() -> Vec<(String, Config)> {
    let profile = Profile::revised();
    let mut programs = Vec::new();
    let authors = knn_files("spec-tests/programs/authors");
    assert_eq!(authors.len(), 9, "the authors' nine programs");
    let examples = knn_files("examples");
    assert!(!examples.is_empty(), "no examples found");
    for (name, source) in authors.into_iter().chain(examples) {
        let program = parse_program(&source, profile.grammar).unwrap_or_else(|e| panic!("{name}\n{e}"));
        let term = term_of_program(&program);
        if name.ends_with("mlp.knn") {
            // The MLP reads the input `x`; run it bound to the documented input too.
            let input = TensorInput { name: "x".into(), shape: vec![3], data: vec![1.0, -2.0, 0.5] };
            let config = initial_config(profile, term.clone(), &[input]).expect("binding x");
            programs.push((format!("{name} with x = [1.0, -2.0, 0.5]"), config));
        }
        programs.push((name, Config::initial(term)));
    }
    for source in TABLE_PROGRAMS.iter().chain(EXT_PROGRAMS) {
        programs.push((source.to_string(), common::revised_initial(source)));
    }
    programs
}

/// The extensions' constructs, on their paths to a value and to each of their errors.
const EXT_PROGRAMS: &[&str] = &[
    "let h = initTensor(2, 2) in let b = initTensor(2, 2) in let h[0, 1] = 1 in let b[0, 1] = 2.5 in \
     (let z = addTensor(h, b) in z[0, 1])",
    "let h = initTensor(2) in let b = initTensor(3) in let z = addTensor(h, b) in z",
    "let h = initTensor(2) in let z = addTensor(h, 1.0) in z",
    "let h = initTensor(2, 1) in let h[1] = 3.0 in let z = addTensor(h, h) in z",
    "let x = initTensor(1, 2, 2)[1.0, 2, 3.0, 4.0] in let w = initTensor(2, 1, 1, 2)[0.5, 1, -1.0, 2.0] in \
     let b = initTensor(2)[1.0, 0.5] in (let y = conv2d(x, w, b, pads = [0, 1, 0, 0]) in y[1, 1, 1])",
    "let x = initTensor(1, 2, 2) in let w = initTensor(1, 1, 3, 3) in let y = conv2d(x, w) in y",
    "let x = initTensor(1, 2, 2) in let w = initTensor(1, 1, 1, 1) in let y = conv2d(x, w, strides = [0, 1]) in y",
    "let x = initTensor(1, 2, 2) in let y = conv2d(x, 1.0) in y",
    "let x = initTensor(1, 2, 3)[1.0, 5, 2.0, 4.0, 3.0, 6.0] in let y = avgPool2d(x, kernel = [2, 2], pads = [0, 1, 0, 0]) in y",
    "let x = initTensor(1, 2, 3)[1.0, 5.0, 2.0, 4.0, 3.0, 6.0] in let y = maxPool2d(x, kernel = [2, 1], strides = [1, 2]) in y",
    "let x = initTensor(1, 2, 2)[1.0, 0.0, 2.0, 3.0] in let y = maxPool2d(x, kernel = [2, 2]) in y",
    "let x = initTensor(1, 2, 2) in let y = maxPool2d(x, kernel = [3, 1]) in y",
    "let x = initTensor(1, 2, 2) in let y = avgPool2d(x, kernel = [1, 1], strides = [0, 1]) in y",
    "let x = initTensor(2, 3)[1.0, 2, 3.0, 4.0, 5.0, 6.0] in let y = reshape(x, 3, 1, 2) in y",
    "let x = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in let y = flatten(x) in let y[0] = 9.0 in x",
    "let x = initTensor(2, 3) in let y = reshape(x, 5) in y",
    "let x = initTensor(1) in let y = flatten(2.0) in x",
    "let x = initTensor(2, 1, 3)[1.0, 2, 3.0, 4.0, 5.0, 6.0] in let y = transpose(x, 2, 0, 1) in let y[0, 1, 0] = 9.0 in x",
    "let x = initTensor(2, 3) in let y = transpose(x, 1, 1) in y",
    "let x = initTensor(2, 3) in let y = transpose(x, 1, 0, 2) in y",
    "let y = initTensor(2, 2)[1.0, 2.0, 3.0, -Infinity] in let x = softmax(y, 0) in let z = logSoftmax(y, 1) in z",
    "let y = initTensor(3)[0.5, 2, 1.0] in let x = expTensor(y) in x",
    "let y = initTensor(2)[2.0, 0.0] in let x = logTensor(y) in let z = softmax(x, 1) in z",
    "let y = initTensor(2, 3)[1.0, 2, 3.0, 4.0, 5.0, 6.0] in let x = reduceSum(y, 1) in let z = reduceMean(y, 0, 1) in z",
    "let y = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in let x = reduceMax(y, 0) in let z = reduceMin(y, 1) in z",
    "let y = initTensor(2, 2)[1.0, NaN, 3.0, 4.0] in let x = reduceMax(y, 0) in x",
    "let a = initTensor(2, 1)[1.0, 2] in let b = initTensor(2, 0) in let y = concat(a, b, a, 1) in let y[0, 1] = 9.0 in a",
    "let a = initTensor(2, 1) in let b = initTensor(2, 2) in let y = concat(a, b, 2) in y",
    "let a = initTensor(2, 1) in let b = initTensor(3, 1) in let y = concat(a, b, 1) in y",
    "let x = initTensor(2, 3)[1.0, 2, 3.0, 4.0, 5.0, 6.0] in let y = slice(x, 1, 0, 3, 2) in let y[0, 1] = 9.0 in x",
    "let x = initTensor(2, 3) in let y = slice(x, 0, 1, 1) in y",
    "let x = initTensor(2, 3) in let y = slice(x, 1, 0, 4) in y",
    "let x = initTensor(2, 1)[1.0, 2] in let y = pad(x, NaN, 0, 1, 1, 0) in let y[0, 0] = 9.0 in x",
    "let x = initTensor(2, 3) in let y = pad(x, 0.5, 1, 1) in y",
    "let x = initTensor(0) in let y = pad(x, -2.5, 1, 2) in y",
    "let y = initTensor(2, 2)[1.0, 2, 3.0, 4.0] in let z = initTensor(2)[0.5, -1.0] in let x = matmul(y, z) in let w = matmul(z, y) in w",
    "let y = initTensor(2, 1, 2)[1.0, 2.0, 3.0, 4.0] in let z = initTensor(2, 1)[1.0, 2.0] in let x = matmul(y, z) in x",
    "let y = initTensor(2, 3) in let z = initTensor(2) in let x = matmul(y, z) in x",
    "let x = initTensor(2, 2)[3.0, 5, 1.0, 0.0] in let p = initTensor(2)[1.0, 2.0] in \
     let v = initTensor(2)[-3.0, 0.0] in let y = batchNorm(x, p, p, p, v, epsilon = 1.0) in let y[0, 0] = 9.0 in x",
    "let x = initTensor(2, 2) in let p = initTensor(3) in let y = batchNorm(x, p, p, p, p) in y",
    "let x = initTensor(2) in let p = initTensor(2) in let y = batchNorm(x, p, p, 1.0, p) in y",
];

/// Explores the whole state space of `initial` under the revised profile with `priorities`,
/// breadth first, and asserts that no configuration has two successors.
fn assert_deterministic(name: &str, initial: Config, priorities: Priorities) {
    let profile = Profile::revised();
    // `Config`'s hash and equality do not depend on the lazily computed caches inside terms.
    #[allow(clippy::mutable_key_type)]
    let mut seen: HashSet<Config> = HashSet::new();
    let mut queue = VecDeque::new();
    seen.insert(initial.clone());
    queue.push_back(initial);
    while let Some(config) = queue.pop_front() {
        let next = successors(profile, &config, priorities);
        if next.len() > 1 {
            let rules: Vec<&str> = next.iter().map(|s| s.step.rule.id).collect();
            panic!("{name} ({priorities:?}): {} successors, by {rules:?}, of\n{config:?}", next.len());
        }
        for successor in next {
            assert!(successor.abort.is_none(), "{name} ({priorities:?}): krun aborts: {:?}", successor.abort);
            if seen.insert(successor.config.clone()) {
                assert!(
                    seen.len() <= MAX_STATES,
                    "{name} ({priorities:?}): more than {MAX_STATES} configurations; the exploration is incomplete"
                );
                queue.push_back(successor.config);
            }
        }
    }
}

/// Rev-11: under the revised rules no redex is matched by two rules, so from every program
/// each reachable configuration has at most one successor, with krun's priority classes and
/// with the flat classes of `krun --search` on llvm-backend ≥ March 2023 (§2.10).
#[test]
fn revised_is_deterministic() {
    let programs = determinism_programs();
    assert!(programs.len() >= 9 + 4 + TABLE_PROGRAMS.len());
    for (name, initial) in programs {
        for priorities in [Priorities::Krun, Priorities::FlatCooling] {
            assert_deterministic(&name, initial.clone(), priorities);
        }
    }
}
