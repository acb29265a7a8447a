//! The big-step engine (direct and staged) against the small-step reference under the revised
//! rules: the same value bit for bit, or the same error kind, on the spec programs, the cases of
//! docs/semantics.md §3 and §4, and hand-written programs around every construct; errors (their
//! kind, words and `<env>`) in `errors.rs`, the extensions' constructs in `extensions.rs`.

mod batch_norm;
mod broadcast;
mod concat;
mod conv;
mod errors;
mod extensions;
mod fused;
mod fused_cnn;
mod fused_windows;
mod images;
mod matmul;
mod pad;
mod pool;
mod reduce;
mod reshape;
mod slice;
mod sub_div;
mod tensor_math;
mod transpose;

use std::path::PathBuf;

use knn_engine::bigstep::{BigStep, Staging};
use knn_engine::tensor::Precision;
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, Evaluation, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::parse_program;

fn engines() -> Vec<Box<dyn Engine>> {
    vec![
        Box::new(BigStep { staging: Staging::Direct, precision: Precision::Exact }),
        Box::new(BigStep { staging: Staging::Staged, precision: Precision::Exact }),
    ]
}

/// Runs `source` on the reference and on each big-step engine, which must agree on the verdict
/// and on `<env>`; returns the reference's evaluation.
fn observe(source: &str, inputs: &[TensorInput]) -> Evaluation {
    let program = parse_program(source, Profile::revised().grammar).unwrap_or_else(|e| panic!("{source}: {e}"));
    let reference = SmallStep::revised().observe(&program, inputs).unwrap();
    let verdict = &reference.verdict;
    assert!(!matches!(verdict, Verdict::Limit | Verdict::Stuck(_)), "{source}: {verdict}");
    for engine in engines() {
        let got = engine.observe(&program, inputs).unwrap();
        assert!(
            got.agrees_with(&reference),
            "{}\n  {source}\n  reference: {verdict}, {:?}\n  {}: {}, {:?}",
            engine.name(),
            reference.env,
            engine.name(),
            got.verdict,
            got.env
        );
    }
    reference
}

/// [`observe`]'s verdict.
fn agree(source: &str, inputs: &[TensorInput]) -> Verdict {
    observe(source, inputs).verdict
}

fn vector(name: &str, data: &[f64]) -> TensorInput {
    TensorInput { name: name.into(), shape: vec![data.len()], data: data.to_vec() }
}

fn matrix(name: &str, rows: usize, data: &[f64]) -> TensorInput {
    TensorInput { name: name.into(), shape: vec![rows, data.len() / rows], data: data.to_vec() }
}

#[test]
fn authors_programs_and_examples() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    for dir in ["spec-tests/programs/authors", "examples"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "knn") && !path.ends_with("mlp.knn") {
                agree(&std::fs::read_to_string(&path).unwrap(), &[]);
            }
        }
    }
    let mlp = std::fs::read_to_string(root.join("examples/mlp.knn")).unwrap();
    for x in [[1.0, -2.0, 0.5], [0.0, 1.0, 0.0], [f64::NAN, 0.0, 0.0], [1e308, 1e308, -1e308]] {
        agree(&mlp, &[vector("x", &x)]);
    }
}

/// The programs of docs/semantics.md §3's table (see semantics/tests/expected_effects/).
#[test]
fn quirks_and_expected_effects() {
    let s3 = "let s = initTensor(3) in ";
    let ab = "let a = initTensor(2) in let b = initTensor(2) in ";
    let w = "let W = initTensor(1, 2) in let W[0, 0] = 2.0 in let W[0, 1] = 3.0 in ";
    let net = "let x = initTensor(2) in let W = initTensor(2, 2) in let x[0] = 1.0 in let W[0, 0] = -1.0 in \
               let W[1, 1] = 2.0 in (let h = linear(W, x) in ";
    let programs = vec![
        "let t = initTensor(3) in let t[1] = -2.0 in let t[2] = 5.0 in (let u = reluTensor(t) in u[1])".to_string(),
        "let m = initTensor(2, 2) in let m[0, 1] = -4.0 in let m[1, 0] = 3.0 in (let r = reluTensor(m) in r[0, 1] + r[1, 0])".into(),
        "let t = initTensor(2, 2, 2) in let t[1, 0, 1] = -3.0 in let t[0, 1, 1] = 4.0 in (let u = reluTensor(t) in u[1, 0, 1] + u[0, 1, 1])".into(),
        "let t = initTensor(1, 1, 2) in (let u = reluTensor(t) in 1.0)".into(),
        "let m = initTensor(1, 2) in let m[0, 0] = -1.0 in let m[0, 1] = 1.0 in (let h = tanhTensor(m) in h[0, 0] + h[0, 1])".into(),
        "let m = initTensor(1, 2) in let m[0, 0] = -2.0 in (let s = sigmoidTensor(m) in s[0, 0])".into(),
        "let m = initTensor(2, 2) in let m[0][1] = -5.0 in m[0, 1]".into(),
        format!("{s3}let s[0] = -3.0 in let s[1] = -1.0 in let s[2] = -2.0 in ArgMax(s)"),
        format!("{s3}let s[0] = 1.0 in let s[1] = 5.0 in let s[2] = 5.0 in ArgMax(s)"),
        format!("{s3}let s[1] = 2.0 in ArgMax(s)"),
        "let s = initTensor(2) in let s[0] = 4.0 in let s[1] = 3.0 in let k = ArgMax(s) in k".into(),
        format!("{s3}let s[0] = 1.0 in (let r = reluTensor(s) in ArgMax(r))"),
        "let m = initTensor(2, 2) in ArgMax(m)".into(),
        "let s = initTensor(1) in let s[0] = -0.0 in ArgMax(s)".into(),
        format!("{ab}let b[0] = 7.0 in a[3]"),
        format!("{ab}a[2]"),
        format!("{ab}let a[2] = 9.0 in b[0]"),
        format!("{ab}let a[7] = 1.0 in a[0]"),
        "let m = initTensor(2, 2) in let m[0, 3] = 5.0 in m[1, 0]".into(),
        "1 + 2".into(),
        "1 + 2.0".into(),
        "2 * 3.5".into(),
        "let n = 0 in n".into(),
        "0".into(),
        "let x = relu(3.0) in x".into(),
        "let x = relu(-3.0) in x".into(),
        "let x = tanh(0.5) in x".into(),
        "let x = sigmoid(0.0) in x".into(),
        format!("let x = initTensor(1) in {w}let x[0] = 1.0 in (let y = linear(W, x) in y[0])"),
        format!("let x = initTensor(3) in {w}let x[0] = 1.0 in let x[1] = 1.0 in let x[2] = 100.0 in (let y = linear(W, x) in y[0])"),
        format!("let x = initTensor(2) in {w}let x[0] = 1.0 in let x[1] = 1.0 in (let y = linear(W, x) in y[0])"),
        "let x = 1.0 in let x = 2.0 in x".into(),
        "let t = initTensor(2) in let t = initTensor(3) in t[0]".into(),
        "let t = initTensor(2) in let t[0] = 5.0 in (let t = reluTensor(t) in t[0])".into(),
        "let t = 5.0 in (let t = initTensor(2) in t[0])".into(),
        "let t = initTensor(2) in let t = 5.0 in t".into(),
        "(let u = initTensor(1) in 2.0) + u[0]".into(),
        "let v = initTensor(1) in let v[0] = 400.0 in (let h = tanhTensor(v) in h[0])".into(),
        "let X = initTensor(0) in X[0]".into(),
        "let X = initTensor(0) in ArgMax(X)".into(),
        "let X = initTensor(2, 0) in X[0, 0]".into(),
        "let X = initTensor(0, 3) in X[0, 1]".into(),
        "let X = initTensor(2) in let Y = X in Y[0]".into(),
        "let X = initTensor(2) in let Y = X in let Y[1] = 4.0 in X[1]".into(),
        format!("{net}(let a = reluTensor(h) in a[0]))"),
        format!("{net}ArgMax(h))"),
        format!("{net}(let a = reluTensor(h) in ArgMax(a)))"),
    ];
    for program in programs {
        agree(&program, &[]);
    }
}

#[test]
fn tensors_scalars_and_aliases() {
    for program in [
        "let t = initTensor(2, 3) in let t[1, 2] = 3.0 in t",
        "let t = initTensor(2, 3) in let t[1, 2] = 3.0 in t[1]",
        "let t = initTensor(2) in let u = initTensor(2) in let t[1] = u in t",
        "let t = initTensor(2) in let t[0] = 7 in t",
        "let t = initTensor(3) in let t[0] = 1 in let t[1] = 2.5 in let u = reluTensor(t) in u",
        "let W = initTensor(2, 2) in let W[0, 0] = 2 in let W[1, 1] = 3 in let x = initTensor(2) in \
         let x[0] = 1.5 in let x[1] = -1.0 in let y = linear(W, x) in y",
        "let a = 2 in let b = a * 3 in let c = b + 0.5 in max(c, 1.0) + min(-0.0, 0.0)",
        "let t = initTensor(3) in let t[0] = -0.0 in let u = reluTensor(t) in u",
        "let t = initTensor(2, 2) in let r = t[1] in let r[0] = 5.0 in t[1, 0]",
        "let t = initTensor(4) in let t[3] = 1.0 in let t[1] = 1.0 in ArgMax(t) + 10",
        "let x = (let y = 2.0 in y * y) in x + 1.0",
        "let t = initTensor(1) in let t[0] = Infinity in let u = tanhTensor(t) in let v = sigmoidTensor(t) in u[0] + v[0]",
    ] {
        agree(program, &[]);
    }
}

#[test]
fn symbolic_inputs_through_every_construct() {
    let x = vector("x", &[0.5, -1.5, 2.0]);
    let m = matrix("m", 2, &[1.0, -2.0, 3.0, 0.25, -0.0, 7.0]);
    for program in [
        "x[0] + x[1] * x[2]",
        "let y = x in let y[0] = 10.0 in x[0] + y[0]",
        "let a = x[1] in let x[1] = 3.0 in a + x[1]",
        "let t = initTensor(3) in let t[0] = x[2] in let t[1] = 1.0 in let u = reluTensor(t) in u",
        "let u = reluTensor(x) in let v = tanhTensor(u) in let w = sigmoidTensor(v) in w",
        "let u = reluTensor(m) in u[1, 0] + u[0, 2]",
        "let x[1] = x[1] + 0.5 in let x[2] = max(x[2], 10.0) in ArgMax(x)",
        "let k = ArgMax(x) in k * 2 + 1",
        "let k = ArgMax(x) in k + 0.5",
        "let W = initTensor(2, 3) in let W[0, 1] = 1.0 in let W[1, 2] = -2 in let y = linear(W, x) in y",
        "let W = initTensor(2, 3) in let W[0, 1] = x[0] in let y = linear(W, x) in y",
        "let r = m[1] in let r[2] = x[0] in ArgMax(r)",
        "let n = relu(x[1]) in let s = sigmoid(x[0]) in let t = tanh(x[2]) in n + s + t",
        "let x[0] = 1 in x",
        "x[3]",
        "m[0, 1, 2]",
        "let z = initTensor(3) in let z[1] = x[0] in let z = z in ArgMax(z)",
    ] {
        agree(program, &[x.clone(), m.clone()]);
    }
    // NaN inputs: relu and max of NaN are errors, ArgMax keeps the earlier index.
    let nan = vector("x", &[f64::NAN, 1.0, -1.0]);
    for program in ["let u = reluTensor(x) in u", "max(x[0], 1.0)", "ArgMax(x)", "let y = tanhTensor(x) in y"] {
        agree(program, &[nan.clone(), m.clone()]);
    }
}

/// `--fast-math` fuses: on a sum where the fused multiply-add keeps a bit that the separate
/// product rounds away, the fast engine's result differs from the reference's in that bit
/// (and only there), while the exact engines give the reference's bits.
#[test]
fn fast_math_fuses_where_exact_mode_rounds_the_product() {
    // w1 * x1 = (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60: the product alone loses 2^-60, a fused
    // `acc + w1 * x1` with acc = -1 keeps it.
    let e = 1.0 + 2f64.powi(-30);
    // The weights are constants (the plan's product), the input is `x`.
    let source = format!(
        "let W = initTensor(1, 2) in let W[0, 0] = 1.0 in let W[0, 1] = {e:?} in \
                          let y = linear(W, x) in y[0]"
    );
    let program = parse_program(&source, Profile::revised().grammar).unwrap();
    let inputs = [vector("x", &[-1.0, e])];
    let exact = 2f64.powi(-29);
    let fused = 2f64.powi(-29) + 2f64.powi(-60);
    let reference = agree(&source, &inputs);
    assert!(matches!(reference, Verdict::Value(Observed::Float(v)) if v == exact), "{reference}");
    let fast = BigStep { staging: Staging::Staged, precision: Precision::Fast };
    let got = fast.evaluate(&program, &inputs).unwrap();
    assert!(matches!(got, Verdict::Value(Observed::Float(v)) if v == fused), "fast math gives {got}");
}
