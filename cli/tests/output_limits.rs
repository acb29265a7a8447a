//! Outputs that would not fit in the memory budget are limits, named and refused before they
//! are built: a batch's results (both of `Batch`'s calls) and the configuration's text.

mod common;

use common::{knn, stderr, temp_file};
use knn::{Failure, Semantics, ValuesOptions, load_source};
use knn_semantics::memory;

#[test]
fn a_batch_whose_results_do_not_fit_is_refused_before_any_row() {
    // 40,000 rows of four floats: 1.28 MB of values, over a budget of 1 MiB. (The budget is the
    // process's: this file has no other test that runs under it.)
    let program = load_source("id.knn", "let y = reluTensor(x) in y", Semantics::Revised).unwrap();
    let batch = program.batch("x", 4, &[]).unwrap();
    let rows = vec![0.5; 4 * 40_000];
    memory::set_budget(1 << 20);
    let values = batch.run_values(&rows, ValuesOptions::default());
    let collected = batch.run(&rows, false, |_| {});
    memory::set_budget(0);
    let failure = values.unwrap_err();
    assert_eq!(failure.row, None);
    assert!(matches!(failure.error.failure, Failure::Limit(_)), "{:?}", failure.error.failure);
    assert!(failure.error.message.starts_with("the results of the batch need"), "{}", failure.error.message);
    assert!(failure.error.message.ends_with("(raise it with --max-memory BYTES)"), "{}", failure.error.message);
    let error = collected.unwrap_err();
    assert!(error.message.starts_with("the results of the batch need"), "{}", error.message);
    // Within the budget the same rows run.
    assert!(batch.run_values(&rows[..4 * 1000], ValuesOptions::default()).is_ok());
}

#[test]
fn a_configuration_whose_text_does_not_fit_is_a_limit() {
    let dir = tempfile::tempdir().unwrap();
    let program = temp_file(dir.path(), "big.knn", b"let t = initTensor(200, 200) in 1.0");
    let out = knn(&["run", &program, "--engine", "small-step", "--output", "config", "--max-memory", "1M"], None);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("limit: printing the configuration needs"), "{}", stderr(&out));
    // With room, the same run prints it.
    let fits = knn(&["run", &program, "--engine", "small-step", "--output", "config", "--max-memory", "16M"], None);
    assert_eq!(fits.status.code(), Some(0), "{}", stderr(&fits));
}
