//! The big-step engine (direct and staged) against the small-step reference under the revised
//! rules: the same value bit for bit, or the same error kind, on the spec programs, the cases of
//! docs/semantics.md §3 and §4, and hand-written programs around every construct.

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

/// The programs of docs/semantics.md §3's table (see semantics/tests/expected_effects.rs).
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
fn errors_match_by_kind() {
    for program in [
        "let 1.0 = 2.0 in 3.0",
        "let x = tanh(1) in x",
        "let t = initTensor(2) in let u = initTensor(1) in let t[1] = u in ArgMax(t)",
        "let x = 1.0 in x[0]",
        "let m = initTensor(2, 2) in m[0, 0, 0]",
        "let t = initTensor(2) in t + 1.0",
        "max(1, 2.0)",
        "max(NaN, 1.0)",
        "min(1.0, NaN)",
        "4611686018427387903 * 4",
        "let x = 1.0 in let y = reluTensor(x) in y",
        "let y = linear(W, x) in y",
        "let W = initTensor(2, 2) in let W = linear(W, W) in W",
        "ArgMax(z)",
        "let a = 1.0 in let b = 2.0 in let (a + b)[0] = 1.0 in 2.0",
        "let t = initTensor(2, 2) in let t[0, 1][0] = 1.0 in 2.0",
        "let t = initTensor(2) in let t[0] = initTensor(2) in 1.0",
    ] {
        let verdict = agree(program, &[]);
        assert!(matches!(verdict, Verdict::Error { .. }), "{program}: {verdict}");
    }
}

/// An error's words are the same on every engine (a verifier's counterexample quotes them,
/// whichever engine found the point): operands written as `knn run` writes numbers (`0.0`, not
/// K's `0.00000000000000000e0`), an Int as `an Int` and a tensor as `a tensor`, the function by its name.
#[test]
fn errors_are_worded_the_same_by_both_engines() {
    let nan = [vector("x", &[f64::NAN, 1.0])];
    for (program, inputs, words) in [
        ("let h = reluTensor(x) in h", &nan[..], "`max` cannot compute with NaN and 0.0"),
        (
            "let t = initTensor(1, 2) in let t[0, 0] = x[0] in let h = reluTensor(t) in h",
            &nan[..],
            "`max` cannot compute with NaN and 0.0",
        ),
        ("min(0.0, x[0])", &nan[..], "`min` cannot compute with 0.0 and NaN"),
        ("max(x[0], -1.5e300)", &nan[..], "`max` cannot compute with NaN and -1.5e300"),
        ("let t = initTensor(2) in t + 1.0", &[][..], "`+` cannot compute with a tensor and 1.0"),
        ("max(1, 2.0)", &[][..], "`max` cannot compute with an Int and 2.0"),
        ("let t = initTensor(1) in 0.0 * t", &[][..], "`*` cannot compute with 0.0 and a tensor"),
        ("let i = ArgMax(x) in let y = tanh(i) in y", &nan[..], "`tanhItem` takes a Float, not an Int"),
        ("let s = 1.0 in s[0]", &[][..], "a scalar: it cannot be indexed"),
        ("let s = 1.0 in let s[0] = 2.0 in s", &[][..], "`s` holds a scalar: it cannot be indexed"),
        ("let y = sigmoid(3) in y", &[][..], "`sigmoidItem` takes a Float, not an Int"),
    ] {
        let program_ast =
            parse_program(program, Profile::revised().grammar).unwrap_or_else(|e| panic!("{program}: {e}"));
        let reference = SmallStep::revised().evaluate(&program_ast, inputs).unwrap();
        let Verdict::Error { detail, .. } = &reference else { panic!("{program}: {reference}") };
        assert_eq!(detail, words, "{program}: the reference");
        for engine in engines() {
            let Verdict::Error { detail, .. } = engine.evaluate(&program_ast, inputs).unwrap() else {
                panic!("{program}: {} gives no error", engine.name())
            };
            assert_eq!(detail, words, "{program}: {}", engine.name());
        }
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

/// Ext-1's `addTensor` on constants and on symbolic inputs, at ranks 1 to 3, with Int and
/// mixed elements, and each of its errors; the sums are worked out by hand.
#[test]
fn add_tensor_agrees_on_values_and_errors() {
    let x = vector("x", &[0.5, -1.5, 2.0]);
    let m = matrix("m", 2, &[1.0, -2.0, 3.0, 0.25, -0.0, 7.0]);
    let tensor = |source: &str, inputs: &[TensorInput]| match agree(source, inputs) {
        Verdict::Value(Observed::Tensor(t)) => (t.shape, t.data),
        other => panic!("{source}: {other}"),
    };
    // x + b with b = [0.5, 0.0, -2.0]: [1.0, -1.5, 0.0].
    let bias = "let b = initTensor(3) in let b[0] = 0.5 in let b[2] = -2.0 in let z = addTensor(x, b) in z";
    assert_eq!(tensor(bias, std::slice::from_ref(&x)), (vec![3], vec![1.0, -1.5, 0.0]));
    // m + m: every element doubled, -0.0 + -0.0 stays -0.0.
    let (shape, data) = tensor("let z = addTensor(m, m) in z", std::slice::from_ref(&m));
    assert_eq!(shape, [2, 3]);
    assert_eq!(
        data.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        [2.0, -4.0, 6.0, 0.5, -0.0, 14.0].map(f64::to_bits)
    );
    // A layer: relu(W x + b), W = [[1, 0, 0], [0, 0, 1]]: W x = [0.5, 2.0], + [-1.0, 1 (an Int)]
    // = [-0.5, 3.0].
    let layer = "let W = initTensor(2, 3) in let W[0, 0] = 1.0 in let W[1, 2] = 1.0 in \
                 let b = initTensor(2) in let b[0] = -1.0 in let b[1] = 1 in \
                 let h = linear(W, x) in let z = addTensor(h, b) in let a = reluTensor(z) in a";
    assert_eq!(tensor(layer, std::slice::from_ref(&x)), (vec![2], vec![0.0, 3.0]));
    // Rank 3, constants: z[1, 0, 1] = 3.0 + 0.5.
    let rank3 = "let h = initTensor(2, 1, 2) in let b = initTensor(2, 1, 2) in let h[1, 0, 1] = 3.0 in \
                 let b[1, 0, 1] = 0.5 in let z = addTensor(h, b) in z[1, 0, 1]";
    assert!(matches!(agree(rank3, &[]), Verdict::Value(Observed::Float(v)) if v == 3.5));
    // Ints add as Ints.
    let ints = "let h = initTensor(1) in let b = initTensor(1) in let h[0] = 2 in let b[0] = 3 in \
                let z = addTensor(h, b) in z[0]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Int(5))));
    for (program, kind) in [
        ("let z = addTensor(x, m) in z", "shape-mismatch"),
        ("let b = initTensor(1, 3) in let z = addTensor(x, b) in z", "shape-mismatch"),
        ("let z = addTensor(x, 1.0) in z", "unknown-tensor"),
        ("let s = 1.0 in let z = addTensor(s, x) in z", "unknown-tensor"),
        ("let z = addTensor(x, c) in z", "unbound-identifier"),
        ("let x = addTensor(x, x) in x", "aliased-output"),
        ("let u = initTensor(1) in let x[1] = u in let z = addTensor(x, x) in z", "invalid-operands"),
        ("let m[1] = 1.0 in let z = addTensor(m, m) in z", "too-many-indices"),
    ] {
        match agree(program, &[x.clone(), m.clone()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
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

/// `<env>` after an error, as the differential property found the engines differ (both seeds
/// of 2026-11-25): a tensor function binds its result before its helper runs, and a staged
/// row fails at its first error even when staging went on to a later one.
#[test]
fn an_error_leaves_the_same_env_on_every_engine() {
    let relu = "let t2 = initTensor(4) in let t3 = initTensor(4, 4) in let t3[1, 0] = NaN in \
                (let z4 = linear(t3, t2) in let h5 = reluTensor(z4) in ArgMax(t2))";
    let names = |e: &Evaluation| e.env.iter().map(|(x, _)| x.clone()).collect::<Vec<_>>();
    assert_eq!(names(&observe(relu, &[])), ["h5", "t2", "t3", "z4"]);
    let staged = "let x = max(x[0], 0.0) in (let t1 = initTensor(2) in let t1[2] = 0 in x)";
    let failed = observe(staged, &[vector("x", &[f64::NAN])]);
    assert!(matches!(failed.verdict, Verdict::Error { .. }));
    assert_eq!(names(&failed), ["x"], "the first error is max's, before t1 is bound");
    // A finished program restored every scope, the input's too.
    let finished = "let x = max(x[0], 0.0) in (let t1 = initTensor(2) in let t1[1] = x in t1)";
    let done = observe(finished, &[vector("x", &[1.0])]);
    assert!(matches!(done.verdict, Verdict::Value(_)) && done.env.is_empty(), "{:?}", done.env);
}

#[test]
fn tensor_literals_agree_on_values_and_errors() {
    let x = vector("x", &[0.5, -1.5, 2.0]);
    // A layer from literals: W x = [0.5 + 2.0, -1.5 * -1.0] = [2.5, 1.5], + b = [2.5, 1.5 + 2 (an Int)].
    let layer = "let W = initTensor(2, 3)[1.0, 0.0, 1.0, 0.0, -1.0, 0.0] in let h = linear(W, x) in \
                 let b = initTensor(2)[0.0, 2] in let z = addTensor(h, b) in z";
    match agree(layer, std::slice::from_ref(&x)) {
        Verdict::Value(Observed::Tensor(t)) => assert_eq!((t.shape, t.data), (vec![2], vec![2.5, 3.5])),
        other => panic!("{other}"),
    }
    // Special values are stored as written: -0.0 stays -0.0, an Int stays an Int.
    assert!(
        matches!(agree("let t = initTensor(3)[1.0, -0.0, NaN] in t[1]", &[]), Verdict::Value(Observed::Float(v)) if v.to_bits() == (-0f64).to_bits())
    );
    assert!(matches!(agree("let t = initTensor(1, 2)[7, 1.5] in t[0, 0]", &[]), Verdict::Value(Observed::Int(7))));
    // The big-step store keeps a literal's Floats in the literal's array: a write into it is
    // seen by reads, by an alias and by `linear` (whose weights are then no longer the array).
    let written = "let W = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in let V = W in let V[1, 0] = 10.0 in \
                   let y = linear(W, x) in let z = initTensor(3) in let z[0] = y[0] in let z[1] = y[1] in \
                   let z[2] = W[1, 0] + V[0, 1] in z";
    let x2 = vector("x", &[0.5, -1.5]);
    match agree(written, std::slice::from_ref(&x2)) {
        // y = [0.5 - 3.0, 5.0 - 6.0]; W[1, 0] + V[0, 1] = 10 + 2.
        Verdict::Value(Observed::Tensor(t)) => assert_eq!(t.data, vec![-2.5, -1.0, 12.0]),
        other => panic!("{other}"),
    }
    // Rank 3 and a zero dimension, read back element by element.
    let rank3 = "let t = initTensor(2, 0)[] in let u = initTensor(2, 2, 2)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0] in \
                 u[1, 0, 1] * 10.0 + u[0, 1, 0]";
    assert!(matches!(agree(rank3, &[]), Verdict::Value(Observed::Float(v)) if v == 63.0));
    // Errors after a literal: out of bounds, a NaN element into relu.
    assert!(matches!(agree("let t = initTensor(2)[1.0, 2.0] in t[2]", &[]), Verdict::Error { .. }));
    assert!(matches!(
        agree("let t = initTensor(2)[NaN, 2.0] in let r = reluTensor(t) in r", &[]),
        Verdict::Error { .. }
    ));
}

#[test]
fn a_literal_built_without_the_parser_fails_alike_on_every_engine() {
    use knn_semantics::syntax::{Elements, Exp, ExpKind, Func, FuncKind, Span};
    let span = Span::default();
    let id = |name: &str| Box::new(Exp::new(ExpKind::Id(name.into()), span));
    // Three elements for a shape of four, and a negative dimension: the parser never makes
    // these, an importer could.
    for (dims, count, kind) in [(vec![2, 2], 3, "shape-mismatch"), (vec![-1], 0, "negative-dimension")] {
        let func = Func { kind: FuncKind::TensorLiteral(dims, Elements::floats(vec![1.0; count])), span };
        let program = Exp::new(ExpKind::LetFunc { target: id("t"), func, body: id("t") }, span);
        let reference = SmallStep::revised().observe(&program, &[]).unwrap();
        let Verdict::Error { kind: got, .. } = &reference.verdict else { panic!("{}", reference.verdict) };
        assert_eq!(got.to_string(), kind);
        for engine in engines() {
            let verdict = engine.observe(&program, &[]).unwrap();
            assert!(
                verdict.agrees_with(&reference),
                "{}: {} against {}",
                engine.name(),
                verdict.verdict,
                reference.verdict
            );
            assert_eq!(verdict.verdict.to_string(), reference.verdict.to_string(), "{}", engine.name());
        }
    }
}
