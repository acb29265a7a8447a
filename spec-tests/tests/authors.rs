//! The nine authors' programs reproduce their committed krun output byte for byte under the
//! published profile.

use std::path::PathBuf;

use knn_semantics::config::config_to_string;
use knn_semantics::syntax::parse_program;
use knn_semantics::term::term_of_program;
use knn_semantics::{Config, Outcome, Profile, StepOptions, run};

fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("programs/authors");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("programs/authors exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "knn"))
        .collect();
    files.sort();
    files
}

#[test]
fn all_nine_programs_are_present() {
    assert_eq!(programs().len(), 9);
}

#[test]
fn published_profile_reproduces_krun_output_byte_for_byte() {
    let profile = Profile::published();
    let mut failures = Vec::new();
    for path in programs() {
        let source = std::fs::read_to_string(&path).unwrap();
        let expected = std::fs::read_to_string(path.with_extension("knn.out")).unwrap();
        let program = parse_program(&source, profile.grammar).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let result = run(profile, Config::initial(term_of_program(&program)), StepOptions::default());
        assert!(matches!(result.outcome, Outcome::Value(_)), "{}: {:?}", path.display(), result.outcome);
        let actual = config_to_string(&result.config);
        if actual.trim_end() != expected.trim_end() {
            failures.push(format!("== {}\n-- expected\n{expected}\n-- actual\n{actual}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
