//! The library's renderers and error texts on what the other tests do not print: tensors of
//! rank 2 and 3 as text, krun's abort in the JSON report, an error's place, and the count of
//! diagnostics not shown.

use std::sync::Arc;

use knn::render::{report_json, value_text};
use knn::{Failure, KnnError, RunOptions, Semantics, Source, load_source};

fn value_of(text: &str) -> String {
    let program = load_source("t.knn", text, Semantics::Revised).unwrap();
    value_text(&program.run(&[], &RunOptions::default()).unwrap().answer).unwrap().unwrap()
}

#[test]
fn tensors_of_rank_2_and_3_print_as_nested_lists() {
    // By hand: row-major, each level in brackets.
    let matrix = "let t = initTensor(2, 3) in let t[0, 1] = 1.5 in let t[1, 2] = -2.0 in t";
    assert_eq!(value_of(matrix), "[[0.0, 1.5, 0.0], [0.0, 0.0, -2.0]]");
    let cube = "let t = initTensor(2, 2, 2) in let t[1, 0, 1] = 3.0 in let t[0, 1, 0] = 0.5 in t";
    assert_eq!(value_of(cube), "[[[0.0, 0.0], [0.5, 0.0]], [[0.0, 3.0], [0.0, 0.0]]]");
}

#[test]
fn krun_s_abort_is_reported_in_its_own_words() {
    // §3(i): the second `initTensor` of `t` is a duplicate key of `<shape>` under the published
    // rules, where krun aborts.
    let text = "let t = initTensor(2) in let t = initTensor(3) in 1.0";
    let program = load_source("abort.knn", text, Semantics::Published).unwrap();
    let report = program.run(&[], &RunOptions::default()).unwrap();
    let json = report_json(&report).unwrap();
    assert_eq!(json["status"], "error");
    assert_eq!(json["error"]["kind"], "krun-abort");
    assert_eq!(json["error"]["message"], "duplicate keys in map concatenation: <shape> already has the key t");
    assert_eq!(report.exit_code(), 3);
}

#[test]
fn an_error_names_its_place_and_counts_what_it_does_not_show() {
    let program = load_source("oob.knn", "let t = initTensor(2) in\n  t[5]", Semantics::Revised).unwrap();
    let report = program.run(&[], &RunOptions::default()).unwrap();
    let knn::Answer::Failed(error) = report.answer else { panic!("{:?}", report.answer) };
    assert_eq!(error.to_string(), "oob.knn:2:3: index 5 is out of bounds for a dimension of length 2");
    let one = error.render(false);
    assert!(one.contains("oob.knn:2:3") && !one.contains("more errors"), "{one}");

    // Static errors: every one shown up to the cap, the rest counted.
    let many: String = (0..3).map(|k| format!("let a{k} = b{k} in ")).collect::<String>() + "1.0";
    let error = load_source("unbound.knn", &many, Semantics::Revised).unwrap().check(&[]).unwrap_err();
    assert_eq!((error.diagnostics.len(), error.diagnostic_count), (3, 3));
    assert!(!error.render(false).contains("more errors"), "{}", error.render(false));

    // A located error without a diagnostic (a caller's mistake) still says what it is.
    let source = Arc::new(Source { name: "x.knn".into(), text: "1.0".into() });
    let bare = KnnError::located(Failure::Static, &source, Vec::new(), 0);
    assert_eq!(bare.render(false), "error: \n");
}
