//! Errors on every engine: the same kind, the same words, the same `<env>` left behind.

use super::*;

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
        // Ext-9, Ext-10.
        ("let v = initTensor(2)[1, 2] in let y = expTensor(v) in y", &[][..], "`expItem` takes a Float, not an Int"),
        ("let h = softmax(x, 0) in h", &nan[..], "`max` cannot compute with -inf and NaN"),
        (
            "let v = initTensor(2, 3) in let y = softmax(v, 2) in y",
            &[][..],
            "softmax(v, 2): v has shape 2×3 and 2 axes; the axis must be one of 0 … 1",
        ),
        (
            "let v = initTensor(2, 3) in let y = reduceSum(v, 1, 1) in y",
            &[][..],
            "reduceSum(v, 1, 1): v has shape 2×3 and 2 axes; the axes must each be one of 0 … 1, none twice",
        ),
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
