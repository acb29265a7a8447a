//! The regression corpus (`spec-tests/programs/regressions/`): programs the differential tests
//! found once, kept so that the engines keep agreeing on them. A header line
//! `// input: NAME=VALUE` binds an input (the `--input` syntax).

use std::path::PathBuf;

use knn::parse_input;
use knn_differential::check::{Check, engines_agree_on};
use knn_semantics::syntax::{Grammar, parse_program};

#[test]
fn the_engines_agree_on_every_regression_program() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec-tests/programs/regressions");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("the regression corpus") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_none_or(|e| e != "knn") {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("a readable program");
        let inputs: Vec<_> = source
            .lines()
            .filter_map(|line| line.strip_prefix("// input:"))
            .map(|spec| parse_input(spec.trim()).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
            .collect();
        let exp = parse_program(&source, Grammar::Relaxed).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match engines_agree_on(&exp, &inputs, &format!("{}\n{source}", path.display())) {
            Check::Pass => checked += 1,
            other => panic!("{}: {other:?}", path.display()),
        }
    }
    assert!(checked >= 2, "the corpus has its programs ({checked} checked)");
}
