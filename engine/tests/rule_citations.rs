//! Every rule of the revised profile (`Profile::revised()`) has a named twin in the big-step
//! engine: the item that implements it cites the rule's ID in a comment, as the small-step
//! rules' own files do, so that a search for an ID (`git grep rev-fill-step`) finds both. A rule
//! the big-step engine has no twin of is listed below with the reason.

mod sources;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use knn_semantics::profile::Profile;
use sources::sources;

/// Rules of the revised profile with no big-step twin, and why.
const NOT_APPLICABLE: &[(&str, &str)] = &[
    (
        "rev-skip",
        "`#skip` is the unit a small-step helper leaves on `<k>` after each element it writes; the big-step helpers are loops and leave nothing to drop",
    ),
    (
        "rev-alloc-negative",
        "no program reaches it: the parser refuses a negative dimension (`differential/tests/coverage.rs` lists the rule as unreachable from source), so the big-step engine has no case for one",
    ),
];

/// Whether `text` names `id` as a whole ID, not as part of a longer one: `mul-float` is not
/// cited by `rev-mul-float-int`, nor `heat-max-2` by `rev-heat-max-2`.
fn cites(text: &str, id: &str) -> bool {
    let part_of_an_id = |c: char| c.is_ascii_alphanumeric() || c == '-';
    text.match_indices(id).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + id.len()..].chars().next();
        !before.is_some_and(part_of_an_id) && !after.is_some_and(part_of_an_id)
    })
}

/// The big-step engine's sources: the evaluator and the kernels it runs. The rest of
/// `library/src/` names rule IDs for other reasons (the coverage report's tests, the
/// verifier's notes), which are not twins.
fn big_step_sources() -> BTreeMap<PathBuf, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found: BTreeMap<PathBuf, String> =
        ["bigstep", "tensor"].iter().flat_map(|dir| sources(&src.join(dir))).collect();
    assert!(
        found.keys().any(|p| p.ends_with("bigstep/interpret.rs")),
        "the sources were not found in {}",
        src.display()
    );
    found
}

#[test]
fn every_rule_of_the_revised_profile_is_cited_or_has_no_twin() {
    let sources = big_step_sources();
    let cited = |id: &str| sources.values().any(|text| cites(text, id));
    let not_applicable = |id: &str| NOT_APPLICABLE.iter().any(|(rule, _)| *rule == id);
    let rules = Profile::revised().rules();
    assert!(rules.len() > 100, "the revised profile has {} rules", rules.len());
    let missing: Vec<&str> = rules.iter().map(|r| r.id).filter(|&id| !cited(id) && !not_applicable(id)).collect();
    assert!(
        missing.is_empty(),
        "rules of the revised profile that no item of the big-step engine (engine/src/bigstep/, \
         engine/src/tensor/) cites: cite each on the item that implements it, or list it in \
         NOT_APPLICABLE with the reason: {missing:?}"
    );
}

#[test]
fn rules_without_a_twin_are_rules_of_the_profile_and_cited_nowhere() {
    let sources = big_step_sources();
    for (id, reason) in NOT_APPLICABLE {
        assert!(Profile::revised().rule(id).is_some(), "`{id}` is not a rule of the revised profile");
        assert!(!reason.is_empty(), "`{id}` needs the reason it has no big-step twin");
        let citing: Vec<_> = sources.iter().filter(|(_, text)| cites(text, id)).map(|(path, _)| path).collect();
        assert!(citing.is_empty(), "`{id}` is listed as having no big-step twin, but {citing:?} cite it");
    }
}

#[test]
fn a_citation_is_a_whole_id() {
    assert!(cites("/// `rev-fill-step` and `rev-fill-done`.", "rev-fill-done"));
    assert!(cites("(heat-add-1, rev-heat-add-2)", "heat-add-1"));
    assert!(!cites("`rev-mul-float-int`", "mul-float"));
    assert!(!cites("`rev-heat-max-2`", "heat-max-2"));
    assert!(!cites("`max-left2`", "max-left"));
}
