//! `Program::verify`: the verifier's answers as a [`Report`] like a run's — the same answers,
//! JSON and exit codes as `knn verify`, counterexamples that replay on both engines through
//! `Program::run`, `unknown` for what cannot be bounded (with its place), and errors that say
//! whose fault they are.

use std::path::{Path, PathBuf};
use std::process::Command;

use knn::render::{results_text, verification_json, verification_note, verification_text};
use knn::{
    Answer, Claim, Conclusion, EngineKind, Failure, Fault, InputBox, Question, RunOptions, Semantics, Unknown,
    VerifyOptions, load, load_source, read_property,
};
use knn_semantics::engine::Observed;
use knn_semantics::inputs::TensorInput;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify").join(name)
}

fn knn(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_knn")).args(args).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn class_question(lower: &[f64], upper: &[f64], claim: Claim) -> Question {
    Question::Class { region: InputBox::from_bounds(lower, upper).unwrap(), claim }
}

// examples/mlp.knn: on [0.9, 1.1] × [−2.1, −1.9] × [0.4, 0.6] the class is 0 (the derivation is
// in cli_verify.rs); the box [0, 1] × [−2, 1] × [0, 0.5] holds (0, 1, 0), of class 1.
const CLASS_0: ([f64; 3], [f64; 3]) = ([0.9, -2.1, 0.4], [1.1, -1.9, 0.6]);
const MIXED: ([f64; 3], [f64; 3]) = ([0.0, -2.0, 0.0], [1.0, 1.0, 0.5]);

#[test]
fn the_library_proves_what_the_command_proves_in_the_same_words() {
    let path = repo("examples/mlp.knn");
    let net = load(&path).unwrap();
    let question = class_question(&CLASS_0.0, &CLASS_0.1, Claim::ArgmaxStable);
    let report = net.verify(&question, VerifyOptions::default()).unwrap();
    assert!(matches!(report.conclusion, Conclusion::Holds { class: Some(0) }), "{:?}", report.conclusion);
    assert_eq!(report.exit_code(), 0);
    assert_eq!(results_text(&report.conclusion), "unsat\n");
    let text = verification_text(&report);
    let (code, printed) = knn(&["verify", path.to_str().unwrap(), "--box", "x=0.9:1.1,-2.1:-1.9,0.4:0.6", "--quiet"]);
    assert_eq!(code, Some(0));
    // The same line but for the time it took.
    let words = |line: &str| line.split(" (").next().unwrap().to_string();
    assert_eq!(words(&printed), words(&text));
    assert_eq!(words(&text), "holds: the class is 0 on the whole region");
    let (_, json) =
        knn(&["verify", path.to_str().unwrap(), "--box", "x=0.9:1.1,-2.1:-1.9,0.4:0.6", "--output", "json"]);
    let cli: serde_json::Value = serde_json::from_str(&json).unwrap();
    let lib = verification_json(&report);
    for field in ["schema_version", "answer", "class"] {
        assert_eq!(cli[field], lib[field], "{field}: {json} / {lib}");
    }
}

#[test]
fn a_counterexample_replays_on_both_engines_through_the_library() {
    let net = load(repo("examples/mlp.knn")).unwrap();
    let question = class_question(&MIXED.0, &MIXED.1, Claim::ArgmaxIs(0));
    let report = net.verify(&question, VerifyOptions { threads: Some(1), ..VerifyOptions::default() }).unwrap();
    let Conclusion::Violated(c) = &report.conclusion else { panic!("{:?}", report.conclusion) };
    assert_eq!(report.exit_code(), 10);
    assert_eq!((c.expected_class, c.class), (Some(0), Some(1)));
    assert!(c.input.iter().zip(MIXED.0.iter().zip(&MIXED.1)).all(|(x, (lo, hi))| lo <= x && x <= hi), "{c:?}");
    let x = TensorInput { name: "x".into(), shape: vec![3], data: c.input.clone() };
    for engine in [EngineKind::SmallStep, EngineKind::BigStep] {
        let options = RunOptions { engine: Some(engine), ..RunOptions::default() };
        let run = net.run(std::slice::from_ref(&x), &options).unwrap();
        assert!(matches!(run.answer, Answer::Value { value: Observed::Int(1), .. }), "{engine:?}: {run:?}");
    }
    let results = results_text(&report.conclusion);
    assert!(results.starts_with("sat\n((X_0 "), "{results}");
}

#[test]
fn what_the_verifier_cannot_bound_is_unknown_with_its_place() {
    let question = class_question(&[0.0, 0.0], &[1.0, 1.0], Claim::ArgmaxStable);
    // Elements of a computed tensor multiplied together (line 9: `let z[0] = z[0] * z[1]`).
    let net = load(fixture("element_write.knn")).unwrap();
    let report = net.verify(&question, VerifyOptions::default()).unwrap();
    let Conclusion::Unknown(Unknown::Unsupported(unsupported)) = &report.conclusion else {
        panic!("{:?}", report.conclusion)
    };
    assert_eq!(report.exit_code(), 11);
    assert!(unsupported.what.contains("single elements"), "{unsupported:?}");
    let note = verification_note(&report, false).expect("a place to show");
    assert!(note.contains("element_write.knn:9:"), "{note}");
    assert_eq!(verification_json(&report)["reason"], "unsupported");
    assert_eq!(results_text(&report.conclusion), "unknown\n");
}

#[test]
fn a_vnnlib_property_is_answered_on_an_imported_network() {
    let property = read_property(&fixture("fc_unsat.vnnlib")).unwrap();
    for network in ["fc_2-2-3.nnet", "fc_2-2sigmoids-3.onnx"] {
        let net = load(fixture(network)).unwrap();
        let report = net.verify(&Question::Property(property.clone()), VerifyOptions::default()).unwrap();
        assert!(matches!(report.conclusion, Conclusion::Holds { class: None }), "{network}: {:?}", report.conclusion);
    }
    let sat = read_property(&fixture("fc_sat.vnnlib")).unwrap();
    let net = load(fixture("fc_2-2-3.nnet")).unwrap();
    let report = net.verify(&Question::Property(sat), VerifyOptions::default()).unwrap();
    assert!(matches!(report.conclusion, Conclusion::Violated(_)), "{:?}", report.conclusion);
}

#[test]
fn questions_that_do_not_fit_are_the_callers_errors() {
    let net = load(fixture("fc_2-2-3.nnet")).unwrap();
    // Three ranges for a network of two inputs.
    let error =
        net.verify(&class_question(&[0.0; 3], &[1.0; 3], Claim::ArgmaxStable), VerifyOptions::default()).unwrap_err();
    assert_eq!((error.failure, error.fault(), error.exit_code()), (Failure::Usage, Fault::Caller, 1));
    assert!(error.message.contains("has 2 elements, but the region has 3 ranges"), "{error}");
    // The network's input is `x`; the command's flags can name the length's origin.
    let options = VerifyOptions { input_name: Some("y".into()), ..VerifyOptions::default() };
    let error = net.verify(&class_question(&[0.0; 2], &[1.0; 2], Claim::ArgmaxStable), options).unwrap_err();
    assert!(error.message.contains("the network's input is `x`, not `y`"), "{error}");
    // A class the network does not have.
    let error =
        net.verify(&class_question(&[0.0; 2], &[1.0; 2], Claim::ArgmaxIs(3)), VerifyOptions::default()).unwrap_err();
    assert!(error.message.contains("class 3 does not exist"), "{error}");
    // No threads.
    let options = VerifyOptions { threads: Some(0), ..VerifyOptions::default() };
    let error = net.verify(&class_question(&[0.0; 2], &[1.0; 2], Claim::ArgmaxStable), options).unwrap_err();
    assert_eq!(error.failure, Failure::Usage);
    // The published rules have no verifier.
    let published = load_source("p.knn", "x", Semantics::Published).unwrap();
    let error =
        published.verify(&class_question(&[0.0], &[1.0], Claim::ArgmaxStable), VerifyOptions::default()).unwrap_err();
    assert!(error.message.contains("revised rules"), "{error}");
    // A box written backwards.
    assert!(InputBox::from_bounds(&[1.0], &[0.0]).unwrap_err().contains("above the upper bound"));
    assert!(InputBox::from_bounds(&[f64::NAN], &[0.0]).unwrap_err().contains("NaN"));
    assert!(InputBox::from_bounds(&[0.0], &[]).is_err());
}

#[test]
fn a_property_file_knn_cannot_read_is_an_error_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.vnnlib");
    std::fs::write(&path, "(declare-const X_0 Real)\n(assert (<= X_0 oops))\n").unwrap();
    let error = read_property(&path).unwrap_err();
    assert_eq!((error.failure, error.exit_code()), (Failure::Parse, 2));
    let place = error.place.clone().expect("a place");
    assert_eq!(place.line, 2, "{error}");
    assert!(error.render(false).contains("bad.vnnlib:2:"), "{}", error.render(false));
    let missing = read_property(&dir.path().join("none.vnnlib")).unwrap_err();
    assert_eq!(missing.failure, Failure::Io);
}

#[test]
fn a_program_with_several_inputs_names_the_one_to_verify_over() {
    let program = "let y = linear(W, x) in ArgMax(y)";
    let net = load_source("two.knn", program, Semantics::Revised).unwrap();
    let question = class_question(&[0.0, 0.0], &[1.0, 1.0], Claim::ArgmaxStable);
    let error = net.verify(&question, VerifyOptions::default()).unwrap_err();
    assert!(error.message.contains("several free inputs (W, x)"), "{error}");
    let w = TensorInput { name: "W".into(), shape: vec![2, 2], data: vec![1.0, 0.0, 0.0, 1.0] };
    // With W bound, x is the only free name; on [0.5, 1] × [0, 0.25] the class is 0.
    let options = VerifyOptions { fixed: vec![w], ..VerifyOptions::default() };
    let report = net.verify(&class_question(&[0.5, 0.0], &[1.0, 0.25], Claim::ArgmaxStable), options).unwrap();
    assert!(matches!(report.conclusion, Conclusion::Holds { class: Some(0) }), "{:?}", report.conclusion);
}

#[test]
fn a_deep_imported_network_verifies_on_worker_threads() {
    // An imported ACAS Xu network is a chain of a few hundred `let`s (its biases), checked and
    // compiled on the pool's thread when `threads` is given, a default 2 MiB stack: nothing
    // recurses on the program's depth.
    let net = load(repo("data/acasxu/ACASXU_experimental_v2a_1_9.nnet")).unwrap();
    let property = read_property(&repo("data/acasxu/vnnlib/prop_7.vnnlib")).unwrap();
    let options = VerifyOptions { threads: Some(1), ..VerifyOptions::default() };
    let report = net.verify(&Question::Property(property), options).unwrap();
    assert!(matches!(report.conclusion, Conclusion::Violated(_)), "{:?}", report.conclusion);
}

#[test]
fn argmax_stable_claims_the_class_at_the_centre() {
    // y0 = 0.1 − |x − 0.4|, y1 = 0: class 0 exactly when |x − 0.4| ≤ 0.1 (a tie goes to 0). On
    // [−0.2, 1] the centre 0.4 is of class 0 and most of the box of class 1: the claim is
    // "class 0 everywhere", refuted by a point of class 1.
    let program = "let W = initTensor(2, 1) in let W[0, 0] = 1.0 in let W[1, 0] = -1.0 in \
        let z = linear(W, x) in let z[0] = z[0] + -0.4 in let z[1] = z[1] + 0.4 in let h = reluTensor(z) in \
        let V = initTensor(2, 2) in let V[0, 0] = -1.0 in let V[0, 1] = -1.0 in let o = linear(V, h) in \
        let o[0] = o[0] + 0.1 in ArgMax(o)";
    let net = load_source("band.knn", program, Semantics::Revised).unwrap();
    let report = net.verify(&class_question(&[-0.2], &[1.0], Claim::ArgmaxStable), VerifyOptions::default()).unwrap();
    let Conclusion::Violated(c) = &report.conclusion else { panic!("{:?}", report.conclusion) };
    assert_eq!((c.expected_class, c.class), (Some(0), Some(1)), "{c:?}");
    assert!((c.input[0] - 0.4).abs() > 0.1, "{c:?}");
}

#[test]
fn the_search_runs_on_as_many_threads_as_asked() {
    // fc_tie.vnnlib is never decided (fixtures README): the search reports progress until its
    // timeout, from inside the pool it runs in.
    let net = load(fixture("fc_2-2-3.nnet")).unwrap();
    let property = read_property(&fixture("fc_tie.vnnlib")).unwrap();
    for threads in [1, 3] {
        let mut pool_sizes = Vec::new();
        let mut progress = |_: usize, _: knn::CaseProgress| {
            pool_sizes.push(rayon::current_num_threads());
        };
        let options = VerifyOptions {
            threads: Some(threads),
            timeout: Some(std::time::Duration::from_millis(300)),
            progress: Some(&mut progress),
            ..VerifyOptions::default()
        };
        let report = net.verify(&Question::Property(property.clone()), options).unwrap();
        assert!(matches!(report.conclusion, Conclusion::Unknown(Unknown::Timeout)), "{:?}", report.conclusion);
        assert!(!pool_sizes.is_empty() && pool_sizes.iter().all(|&n| n == threads), "{threads}: {pool_sizes:?}");
        // What it took is in the report, and the JSON says why there is no answer.
        let effort = report.effort;
        // The search stops a tenth of a short timeout early, so that the answer is out by it.
        assert!(effort.seconds >= 0.27 && effort.boxes > 0, "{effort:?}");
        let json = verification_json(&report);
        assert_eq!((json["answer"].as_str(), json["reason"].as_str()), (Some("unknown"), Some("timeout")), "{json}");
    }
    let error = net
        .verify(&Question::Property(property), VerifyOptions { threads: Some(5000), ..VerifyOptions::default() })
        .unwrap_err();
    assert_eq!(error.message, "threads=5000: expected 1 to 4096");
}

#[test]
fn an_instance_verifies_within_its_own_timeout_or_the_one_given() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.csv");
    std::fs::write(&list, "fc_2-2-3.nnet,fc_unsat.vnnlib,7.5\n").unwrap();
    let instances = knn::read_instances(&list).unwrap();
    let own = instances[0].options(None, None);
    assert_eq!((own.timeout, own.threads), (Some(std::time::Duration::from_secs_f64(7.5)), None));
    let given = instances[0].options(Some(std::time::Duration::from_secs(2)), Some(3));
    assert_eq!((given.timeout, given.threads), (Some(std::time::Duration::from_secs(2)), Some(3)));
    let report = instances[0].verify(&fixture(""), None, Some(2)).unwrap();
    assert!(matches!(report.conclusion, Conclusion::Holds { .. }), "{:?}", report.conclusion);
}
