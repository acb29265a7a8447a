//! `knn verify` where the engine computes NaN or ±∞ inside the region, or fails: the
//! reproductions of the wrong `holds` answers (a NaN made inside a layer), each answered
//! `violated` with a counterexample that `knn run` confirms, and the counterexample written so
//! that it reads back (`NaN`, `Infinity` as strings in JSON and as words in the witness; the
//! error where the run fails). The expected answers are derived by hand in the comments.

mod common;

use common::{knn, stderr, stdout, temp_file};
use serde_json::Value;

/// `tanh(1e308·x0 − 1e308·x1)` and `5.0`: both products overflow for |x| > 1.7976931348623157,
/// so at (2, 2) the first score is ∞ − ∞ = NaN, and the revised ArgMax keeps a NaN at index 0:
/// the class is 0 there, 1 wherever the first score is a number (tanh ≤ 1 < 5).
const NAN2D: &str = "let W0 = initTensor(2, 2) in let W0[0, 0] = 1e+308 in let W0[0, 1] = -1e+308 in \
                     let z0 = linear(W0, x) in let h1 = tanhTensor(z0) in let h1[1] = h1[1] + 5.0 in ArgMax(h1)";

/// The program of `source` in a temporary folder.
fn program(dir: &tempfile::TempDir, source: &str) -> String {
    temp_file(dir.path(), "p.knn", source.as_bytes())
}

/// `knn verify` with `--output json`: the exit code and the report.
fn verify_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["verify"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--output", "json"]);
    let out = knn(&all, None);
    let report =
        serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    (out.status.code().unwrap_or(-1), report)
}

/// A JSON value of the report as a binary64: a number, or the strings `NaN`, `Infinity`,
/// `-Infinity` (JSON has no such numbers); read the way a user's tool would.
fn number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().expect("a binary64"),
        Value::String(s) => s.parse().unwrap_or_else(|_| panic!("`{s}` is no number")),
        other => panic!("{other} is no number"),
    }
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().unwrap_or_else(|| panic!("{v} is no array")).iter().map(number).collect()
}

/// `knn run` at `x` (the small-step reference): its exit code, standard output and error.
fn run_at(path: &str, x: &[f64], extra: &[&str]) -> (i32, String, String) {
    let items: Vec<String> = x.iter().map(|v| format!("{v:?}")).collect();
    let input = format!("x=[{}]", items.join(", "));
    let mut args = vec!["run", path, "--input", &input];
    args.extend_from_slice(extra);
    let out = knn(&args, None);
    (out.status.code().unwrap_or(-1), stdout(&out).trim().to_string(), stderr(&out))
}

/// A violated class claim: the counterexample lies in `[lo, hi]` on every side, and `knn run`
/// gives a class other than `claimed` there. Returns the report's counterexample.
fn violated_class(path: &str, args: &[&str], lo: f64, hi: f64, claimed: usize) -> Value {
    let mut all = vec![path];
    all.extend_from_slice(args);
    let (code, report) = verify_json(&all);
    assert_eq!((code, report["answer"].as_str()), (10, Some("violated")), "{report}");
    let c = &report["counterexample"];
    let x = numbers(&c["input"]);
    assert!(x.iter().all(|v| lo <= *v && *v <= hi), "{x:?} outside [{lo}, {hi}]");
    let (status, class, _) = run_at(path, &x, &[]);
    assert_eq!(status, 0);
    assert_ne!(class, claimed.to_string(), "knn run at {x:?}");
    assert_eq!(c["class"].as_u64().map(|k| k.to_string()).as_deref(), Some(class.as_str()), "{report}");
    c.clone()
}

#[test]
fn a_nan_born_inside_a_layer_is_a_counterexample() {
    let dir = tempfile::tempdir().unwrap();
    let path = program(&dir, NAN2D);
    let c = violated_class(&path, &["--box", "x=-2:2,-2:2", "--claim", "argmax=1"], -2.0, 2.0, 1);
    // The scores there: a NaN first, written so that it reads back, and 5.0.
    let scores = numbers(&c["output"]);
    assert!(scores[0].is_nan() && scores[1] == 5.0, "{c}");
    assert_eq!(c["output"][0], "NaN");
    assert!(c["witness"].as_str().unwrap().contains("(Y_0 NaN)"), "{c}");
    // The same program with the weights bound from the command line.
    let bound =
        program(&dir, "let z0 = linear(W0, x) in let h1 = tanhTensor(z0) in let h1[1] = h1[1] + 5.0 in ArgMax(h1)");
    let weights = "W0=[[1e308, -1e308], [0.0, 0.0]]";
    let (code, report) =
        verify_json(&[&bound, "--input", weights, "--input-name", "x", "--box", "x=-2:2,-2:2", "--claim", "argmax=1"]);
    assert_eq!((code, report["answer"].as_str()), (10, Some("violated")), "{report}");
    let x = numbers(&report["counterexample"]["input"]);
    let (_, class, _) = run_at(&bound, &x, &["--input", weights]);
    assert_eq!(class, "0");
}

#[test]
fn an_infinite_weight_times_a_zero_input_is_a_counterexample() {
    // 1e309 reads as ∞; ∞·x0 is NaN at x0 = 0, the centre of the box (sigmoid of NaN is NaN).
    let dir = tempfile::tempdir().unwrap();
    let path = program(
        &dir,
        "let W0 = initTensor(2, 1) in let W0[0, 0] = 1e309 in let z0 = linear(W0, x) in \
         let h1 = sigmoidTensor(z0) in let h1[1] = h1[1] + 5.0 in ArgMax(h1)",
    );
    violated_class(&path, &["--box", "x=-1:1", "--claim", "argmax=1"], -1.0, 1.0, 1);
}

#[test]
fn a_nan_in_a_narrow_band_inside_the_box_is_found() {
    // p = relu(x − 0.3), r = relu(0.3000004 − x); 1e308·(1e308·p) is +∞ exactly where x > 0.3
    // and 1e308·(1e308·r) is +∞ exactly where x < 0.3000004, so z = ∞ − ∞ = NaN only in the band
    // (0.3, 0.3000004), 4·10⁻⁷ wide in a box of width 1, and ±∞ elsewhere. The scores
    // (tanh(z), 0·tanh(z) + 5) are (±1, 5) outside the band (class 1) and (NaN, NaN) inside
    // (class 0). No corner, no centre and few random points land in the band.
    let dir = tempfile::tempdir().unwrap();
    let source = "let W1 = initTensor(2, 1) in let W1[0, 0] = 1.0 in let W1[1, 0] = -1.0 in \
                  let z1 = linear(W1, x) in let z1[0] = z1[0] + -0.3 in let z1[1] = z1[1] + 0.3000004 in \
                  let h1 = reluTensor(z1) in \
                  let W2 = initTensor(2, 2) in let W2[0, 0] = 1e308 in let W2[1, 1] = 1e308 in \
                  let z2 = linear(W2, h1) in \
                  let W3 = initTensor(1, 2) in let W3[0, 0] = 1e308 in let W3[0, 1] = -1e308 in \
                  let z3 = linear(W3, z2) in let h3 = tanhTensor(z3) in \
                  let W4 = initTensor(2, 1) in let W4[0, 0] = 1.0 in let s = linear(W4, h3) in \
                  let s[1] = s[1] + 5.0 in ArgMax(s)";
    let path = program(&dir, source);
    let c = violated_class(&path, &["--box", "x=0:1", "--claim", "argmax=1", "--timeout", "60"], 0.0, 1.0, 1);
    let x = numbers(&c["input"])[0];
    assert!(0.3 < x && x < 0.3000004, "{x} is in the band");
}

#[test]
fn a_nan_reaching_relu_fails_the_run_and_the_failure_is_the_counterexample() {
    // z0 = 1e308·x0 − 1e308·x1 is NaN at (2, 2); relu(NaN) has no rule: invalid-operands.
    let dir = tempfile::tempdir().unwrap();
    let path = program(
        &dir,
        "let W0 = initTensor(2, 2) in let W0[0, 0] = 1e+308 in let W0[0, 1] = -1e+308 in \
         let z0 = linear(W0, x) in let h1 = reluTensor(z0) in ArgMax(h1)",
    );
    // Every class claim is broken there, argmax=0 included.
    let (code, report) = verify_json(&[&path, "--box", "x=-2:2,-2:2", "--claim", "argmax=0"]);
    assert_eq!((code, report["answer"].as_str()), (10, Some("violated")), "{report}");
    let c = &report["counterexample"];
    assert_eq!(c["failure"]["kind"], "invalid-operands", "{report}");
    assert_eq!(c["output"], serde_json::json!([]));
    let x = numbers(&c["input"]);
    let (status, _, error) = run_at(&path, &x, &[]);
    assert_eq!(status, 3, "knn run fails at {x:?}");
    let message = c["failure"]["message"].as_str().unwrap();
    assert!(error.contains(message), "the report quotes knn run's error: {message} / {error}");
    // The text report names the place.
    let out = knn(&["verify", &path, "--box", "x=-2:2,-2:2", "--claim", "argmax=0"], None);
    let text = stdout(&out);
    assert!(text.starts_with("violated: the program fails there"), "{text}");
    assert!(text.contains("error  = 1:"), "{text}");
}

#[test]
fn a_region_on_which_every_point_fails_is_answered_at_once() {
    // A NaN weight makes z0 NaN at every input, and relu fails on it: the first point tried is
    // a counterexample, with no branch and bound at all.
    let dir = tempfile::tempdir().unwrap();
    let path = program(&dir, "let z0 = linear(W0, x) in let h1 = reluTensor(z0) in ArgMax(h1)");
    let weights = "W0=[[NaN, 1.0], [0.0, 0.0]]";
    let (code, report) = verify_json(&[
        &path,
        "--input",
        weights,
        "--input-name",
        "x",
        "--box",
        "x=-1000:1000,-1000:1000",
        "--claim",
        "argmax=1",
        "--timeout",
        "5",
    ]);
    assert_eq!((code, report["answer"].as_str()), (10, Some("violated")), "{report}");
    assert_eq!(report["boxes"], 0, "{report}");
    assert_eq!(report["counterexample"]["failure"]["kind"], "invalid-operands");
}

#[test]
fn a_nan_output_breaks_a_property() {
    // The scores of NAN2D without the ArgMax; the property's unsafe outputs are Y_1 ≤ −100,
    // never met by 5.0, but at (2, 2) Y_0 is NaN: no vector of numbers, so the property fails.
    let dir = tempfile::tempdir().unwrap();
    let path = program(&dir, &NAN2D.replace("ArgMax(h1)", "h1"));
    let property = temp_file(
        dir.path(),
        "p.vnnlib",
        b"(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n\
          (assert (>= X_0 -2))\n(assert (<= X_0 2))\n(assert (>= X_1 -2))\n(assert (<= X_1 2))\n\
          (assert (<= Y_1 -100))\n",
    );
    let (code, report) = verify_json(&[&path, "--vnnlib", &property]);
    assert_eq!((code, report["answer"].as_str()), (10, Some("violated")), "{report}");
    let y = numbers(&report["counterexample"]["output"]);
    assert!(y[0].is_nan(), "{report}");
    // Where the first output cannot be NaN, the property holds.
    let small = temp_file(
        dir.path(),
        "q.vnnlib",
        b"(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n\
          (assert (>= X_0 -1))\n(assert (<= X_0 1))\n(assert (>= X_1 -1))\n(assert (<= X_1 1))\n\
          (assert (<= Y_1 -100))\n",
    );
    let (code, report) = verify_json(&[&path, "--vnnlib", &small]);
    assert_eq!((code, report["answer"].as_str()), (0, Some("holds")), "{report}");
}

#[test]
fn infinite_outputs_read_back_from_json_and_the_witness() {
    // Y_0 = 1e308·x overflows to +∞ for x > 1.7976931348623157, so the claim Y_0 ≤ 1e300 is
    // broken there; the counterexample's output is +∞, written `Infinity`.
    let dir = tempfile::tempdir().unwrap();
    let path = program(&dir, "let W0 = initTensor(1, 1) in let W0[0, 0] = 1e308 in let z0 = linear(W0, x) in z0");
    let property = temp_file(
        dir.path(),
        "p.vnnlib",
        b"(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (>= X_0 1.9))\n(assert (<= X_0 2))\n\
          (assert (>= Y_0 1e300))\n",
    );
    let (code, report) = verify_json(&[&path, "--vnnlib", &property]);
    assert_eq!((code, report["answer"].as_str()), (10, Some("violated")), "{report}");
    let c = &report["counterexample"];
    assert_eq!(c["output"][0], "Infinity", "{report}");
    assert_eq!(numbers(&c["output"]), vec![f64::INFINITY]);
    let witness = c["witness"].as_str().unwrap();
    let y = witness.split("(Y_0 ").nth(1).and_then(|r| r.split(')').next()).expect("a Y_0 pair");
    assert_eq!(y.parse::<f64>(), Ok(f64::INFINITY), "{witness}");
}

/// Outputs near the overflow threshold whose combination is exactly a decimal bound (the
/// exhaustive check's seed 638,815): `Y_0 − Y_1` is exactly `C`, a midpoint of two binary64
/// values, so `Y_0 − Y_1 < C` never holds and `Y_0 − Y_1 ≤ C` always does. Bounding the
/// difference rounds `1.359664768954739e307 − MAX`, whose two-sum error term overflows. The
/// box holds three points, so the answer is exact (on a wide box no bound can refute the
/// strict atom, which is false by a margin of zero, and the honest answer is `unknown`).
#[test]
fn a_difference_of_huge_outputs_equal_to_a_decimal_bound_is_decided_exactly() {
    const C: &str = "-166172665796684181542904357189428536818108709602059985832996407518351782727500653304466126328004868670582490266135714719884315416135504398955170610140214676378563366754743697335776463115463598717134708752181218776782556815235071853414071324338541208602138967813007662089775621540534185959028650822950340001792.0";
    let dir = tempfile::tempdir().unwrap();
    let path = program(
        &dir,
        "let W0 = initTensor(2, 1) in let z0 = linear(W0, x) in \
         let z0[0] = z0[0] + 1.359664768954739e307 in let z0[1] = z0[1] + 1.7976931348623157e308 in z0",
    );
    for (op, expected) in [("<", (0, "holds")), ("<=", (10, "violated"))] {
        let text = format!(
            "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n\
             (assert (>= X_0 1))\n(assert (<= X_0 1.0000000000000004))\n(assert ({op} (+ Y_0 (* -1 Y_1)) {C}))\n"
        );
        let property = temp_file(dir.path(), "p.vnnlib", text.as_bytes());
        let (code, report) = verify_json(&[&path, "--vnnlib", &property, "--timeout", "60"]);
        assert_eq!((code, report["answer"].as_str().unwrap()), expected, "{op}: {report}");
    }
}

#[test]
fn a_box_as_wide_as_the_binary64_range_has_its_centre_inside() {
    // Scores (0·x, 0·x + 1): class 1 at every finite x. The box [−1e400, 1e400] holds every
    // finite binary64 value, and `lo + (hi − lo)/2` of its ends ±MAX is +∞, where 0·∞ = NaN
    // gives the scores [NaN, NaN] and the class 0: argmax-stable must take the class at a
    // point of the region, and hold with class 1.
    let dir = tempfile::tempdir().unwrap();
    let path =
        program(&dir, "let W0 = initTensor(2, 1) in let z0 = linear(W0, x) in let z0[1] = z0[1] + 1.0 in ArgMax(z0)");
    let (code, report) = verify_json(&[&path, "--box", "x=-1e400:1e400", "--claim", "argmax-stable"]);
    assert_eq!((code, report["answer"].as_str(), report["class"].as_u64()), (0, Some("holds"), Some(1)), "{report}");
    // And a claim that is broken far out is found there.
    let (code, report) = verify_json(&[&path, "--box", "x=-1e400:1e400", "--claim", "argmax=0"]);
    assert_eq!((code, report["answer"].as_str()), (10, Some("violated")), "{report}");
}

#[test]
fn a_ball_around_an_infinite_centre_is_refused_with_why() {
    // `c ± eps` of an infinite centre is no region of finite inputs: a usage error (exit 1)
    // naming the element, not a search.
    let dir = tempfile::tempdir().unwrap();
    let path = program(&dir, NAN2D);
    let centre = temp_file(dir.path(), "c.npy", &common::npy_f64(&[2], &[0.5, f64::INFINITY]));
    let around = format!("x={centre}");
    let out = knn(&["verify", &path, "--around", &around, "--eps", "0.1", "--claim", "argmax=1"], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("c.npy: element 1 of the centre is inf, not a finite number"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
}
