//! docs/semantics.md keeps one row per rule, in step with the inventory and the rule tests.

use knn_semantics::Profile;
use knn_semantics::rules::RuleKind;

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn docs_semantics_has_one_row_per_rule() {
    let docs = read("../docs/semantics.md");
    let tests = read("tests/rules.rs");
    let profile = Profile::published();
    let rows = docs.lines().filter(|l| l.starts_with("| `")).count();
    assert_eq!(rows, profile.rules().len(), "rule rows in docs/semantics.md");
    for rule in profile.rules() {
        let number = if rule.number.is_empty() { "—" } else { rule.number };
        let row = format!("| `{}` | {number} | {} | {} |", rule.id, rule.lines, rule.kind.name());
        let line = docs.lines().find(|l| l.starts_with(&row)).unwrap_or_else(|| panic!("no row `{row}`"));
        if rule.kind != RuleKind::Context {
            let test = format!("rule_{}", rule.id.replace('-', "_"));
            assert!(line.contains(&format!("`{test}`")), "{line}");
            assert!(tests.contains(&format!("fn {test}()")), "tests/rules.rs has no {test}");
        }
    }
}
