//! docs/semantics.md keeps one row per rule of both profiles and one row per patch, in step
//! with the inventory and the rule tests.

use knn_semantics::Profile;
use knn_semantics::rules::RuleKind;

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Every `.rs` file of a test crate's directory (`tests/rules/`), one after the other.
fn read_dir(dir: &str) -> String {
    let dir = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    files.sort();
    files.iter().map(|path| std::fs::read_to_string(path).unwrap()).collect()
}

/// Checks that the rule's row exists and names a test that `tests` defines.
fn check_row(docs: &str, tests: &str, rule: &knn_semantics::rules::Rule) {
    let number = if rule.number.is_empty() { "—" } else { rule.number };
    let row = format!("| `{}` | {number} | {} | {} |", rule.id, rule.lines, rule.kind.name());
    let line = docs.lines().find(|l| l.starts_with(&row)).unwrap_or_else(|| panic!("no row `{row}`"));
    if rule.kind != RuleKind::Context {
        let test = format!("rule_{}", rule.id.replace('-', "_"));
        assert!(line.contains(&format!("`{test}`")), "{line}");
        assert!(tests.contains(&format!("fn {test}()")), "no test {test}");
    }
}

#[test]
fn docs_semantics_has_one_row_per_rule() {
    let docs = read("../docs/semantics.md");
    let published = Profile::published();
    let revised = Profile::revised();
    let added: Vec<_> = revised.rules().iter().filter(|r| revised.patch_of(r).is_some()).collect();
    let rows = docs.lines().filter(|l| l.starts_with("| `")).count();
    assert_eq!(rows, published.rules().len() + added.len(), "rule rows in docs/semantics.md");
    let published_tests = read_dir("tests/rules");
    for rule in published.rules() {
        check_row(&docs, &published_tests, rule);
    }
    let revised_tests = read_dir("tests/revised_rules");
    for rule in added {
        check_row(&docs, &revised_tests, rule);
    }
}

#[test]
fn docs_semantics_has_one_deviation_row_per_patch() {
    let docs = read("../docs/semantics.md");
    for patch in &Profile::revised().patches {
        let row = format!("| {} ", patch.name);
        assert!(docs.lines().any(|l| l.starts_with(&row)), "no deviation row for {}", patch.name);
    }
}
