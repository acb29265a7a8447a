//! The spec corpus (`programs/`), run once under both profiles on the small-step engine and
//! under the revised rules on the big-step engine:
//!
//! * each program's snapshot per profile (`tests/snapshots/<section>__<name>.<profile>.snap`);
//! * the outcomes that headers state (`// expect …`, derived by hand from the rules);
//! * the big-step engine's outcome equals the reference's;
//! * the coverage gate: every rule of both profiles fires, except the dead rules;
//! * the corpus holds every section and every case of docs/semantics.md §3's table, and that
//!   table names, for each case, the programs that show it.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use knn_semantics::Profile;
use knn_spec_tests::coverage::{DEAD_RULES, ProfileCoverage};
use knn_spec_tests::report::{ProfileReport, report};
use knn_spec_tests::run::matches_expectation;
use knn_spec_tests::{Program, SECTIONS, corpus};

struct Entry {
    program: Program,
    reports: Vec<ProfileReport>,
}

/// The corpus, run once for all tests of this file, on two threads.
fn entries() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        let programs = corpus();
        let threads = 2;
        let mut entries: Vec<Entry> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let mine: Vec<Program> = programs.iter().skip(t).step_by(threads).cloned().collect();
                    scope.spawn(move || {
                        mine.into_iter()
                            .map(|program| {
                                let reports = report(&program).unwrap_or_else(|e| panic!("{}: {e}", program.name));
                                Entry { program, reports }
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().expect("a corpus thread")).collect()
        });
        entries.sort_by(|a, b| a.program.name.cmp(&b.program.name));
        entries
    })
}

#[test]
fn every_program_matches_its_snapshots() {
    let mut failed = Vec::new();
    for entry in entries() {
        for report in &entry.reports {
            let name = entry.program.snapshot_name(report.profile.name);
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path("snapshots");
            settings.set_prepend_module_to_snapshot(false);
            settings.set_omit_expression(true);
            settings.set_input_file(&entry.program.path);
            let checked = catch_unwind(AssertUnwindSafe(|| {
                settings.bind(|| insta::assert_snapshot!(name.clone(), report.snapshot));
            }));
            if checked.is_err() {
                failed.push(name);
            }
        }
    }
    assert!(failed.is_empty(), "{} snapshots differ (`cargo insta review`): {failed:?}", failed.len());
}

#[test]
fn outcomes_stated_in_headers_hold() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for entry in entries() {
        for report in &entry.reports {
            if let Some(expected) = entry.program.header.expectation(report.profile.name) {
                checked += 1;
                if !matches_expectation(&report.summary, expected) {
                    wrong.push(format!(
                        "{} ({}): expected `{expected}`, got `{}`",
                        entry.program.name, report.profile.name, report.summary
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked >= 100, "only {checked} stated outcomes");
}

#[test]
fn big_step_engines_reach_the_reference_outcome() {
    let mut differ = Vec::new();
    let mut compared = 0;
    for entry in entries() {
        for report in &entry.reports {
            let Some(reference) = &report.reference else { continue };
            for (engine, got) in &report.big_step {
                compared += 1;
                if got != reference {
                    differ.push(format!(
                        "{} on {engine}:\n  reference: {reference}\n  {engine}: {got}",
                        entry.program.name
                    ));
                }
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert!(compared >= 200, "only {compared} comparisons");
}

#[test]
fn coverage_gate_every_rule_of_both_profiles_fires() {
    let mut coverages = [ProfileCoverage::new(Profile::published()), ProfileCoverage::new(Profile::revised())];
    for entry in entries() {
        for report in &entry.reports {
            let c = coverages.iter_mut().find(|c| c.profile.name == report.profile.name).expect("a profile");
            c.total.merge(&report.coverage);
        }
    }
    let mut problems = Vec::new();
    for c in &coverages {
        println!("{}", c.line());
        let missing = c.missing();
        if !missing.is_empty() {
            problems.push(format!("{}: no corpus program fires {missing:?}", c.profile.name));
        }
        let fired = c.dead_but_fired();
        if !fired.is_empty() {
            problems.push(format!("{}: rules listed as dead fire after all: {fired:?}", c.profile.name));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn docs_list_every_dead_rule_with_its_reason() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/semantics.md")).unwrap();
    let section =
        docs.split("## Rules no program fires").nth(1).expect("docs/semantics.md: \"## Rules no program fires\"");
    let section = section.split("\n## ").next().unwrap_or_default();
    for dead in DEAD_RULES {
        let rule = if dead.profile == "published" { Profile::published() } else { Profile::revised() }.rule(dead.id);
        assert!(rule.is_some(), "dead rule {} is not a rule of the {} profile", dead.id, dead.profile);
        assert!(section.contains(&format!("`{}`", dead.id)), "docs/semantics.md does not list `{}` as dead", dead.id);
    }
}

/// The cases of docs/semantics.md §3's table: the quirks (§3) and the patches' effect on them (§4).
const CASES: &[&str] = &[
    "§3(a)",
    "§3(b) rank 2",
    "§3(b) rank 3 stuck",
    "§3(b) rank 3 wrong layout",
    "§3(c) tanh rank 1",
    "§3(c) tanh rank 2",
    "§3(c) sigmoid",
    "§3(c) chained write",
    "§3(d) all negative",
    "§3(d) tie",
    "§3(d) zero",
    "§3(d) max first",
    "§3(d) let-bound 0",
    "§3(d) let-bound 1",
    "§3(d) after reluTensor",
    "§3(d) rank 2",
    "§3(d) -0.0",
    "§3(e) neighbour read",
    "§3(e) header read",
    "§3(e) past the store",
    "§3(e) header clobbered",
    "§3(e) write past the store",
    "§3(e) row overflow",
    "§3(f) 1 + 2",
    "§3(f) 1 + 2.0",
    "§3(f) let-bound Int",
    "§3(f) let n = 3",
    "§3(f) let n = 0",
    "§3(f) 0",
    "§3(g) relu",
    "§3(g) tanh",
    "§3(g) sigmoid",
    "§3(h) shorter",
    "§3(h) longer",
    "§3(i) scalar shadowing",
    "§3(i) initTensor shadowing",
    "§3(i) reluTensor onto itself",
    "§3(i) scalar then tensor",
    "§3(i) tensor then scalar",
    "§3(i) escaped u",
    "§3(j) sigmoid",
    "§3(j) tanh overflow rank 1",
    "§3(j) tanh overflow rank 2",
    "§3(k) initTensor(0)",
    "§3(k) ArgMax of initTensor(0)",
    "§3(k) initTensor 2 by 0",
    "§3(k) initTensor 0 by 3",
    "§3(l) scalar",
    "§3(l) tensor",
    "§3(m) chain",
    "§3(m) two linear layers",
    "§4(a)",
    "§4(b) rank 2",
    "§4(b) rank 3",
    "§4(c)",
    "§4(d) all negative",
    "§4(d) tie",
    "§4(d) zero",
    "§4(d) max first",
    "§4(e)",
    "§4(f) 1 + 2",
    "§4(f) 1 + 2.0",
    "§4(f) let n = 0",
    "§4(g)",
    "§4(h)",
    "§4(i) scalar shadowing",
    "§4(i) initTensor shadowing",
    "§4(i) escaped u",
    "§4(k)",
    "§4(l)",
    "§4(m)",
];

#[test]
fn corpus_holds_every_section_and_every_case() {
    let entries = entries();
    for section in SECTIONS {
        assert!(entries.iter().any(|e| e.program.section() == *section), "no program in programs/{section}/");
    }
    for entry in entries {
        assert!(SECTIONS.contains(&entry.program.section()), "{}: not in a known section", entry.program.name);
    }
    let covered: BTreeSet<&str> =
        entries.iter().flat_map(|e| e.program.header.cases.iter().map(String::as_str)).collect();
    let missing: Vec<&&str> = CASES.iter().filter(|c| !covered.contains(**c)).collect();
    assert!(missing.is_empty(), "no program shows {missing:?}");
    let unknown: Vec<&&str> = covered.iter().filter(|c| !CASES.contains(c)).collect();
    assert!(unknown.is_empty(), "unknown cases in headers: {unknown:?}");
}

/// docs/semantics.md §3's table has a row per program that shows a case, the row's first cell
/// listing exactly the program's cases: the page a reader follows and the corpus that checks
/// it cannot drift apart.
#[test]
fn docs_name_the_programs_of_every_case() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/semantics.md"))
        .expect("docs/semantics.md is readable");
    let section = docs
        .split("## §3 Quirks of the published rules")
        .nth(1)
        .expect("docs/semantics.md: \"## §3 Quirks of the published rules\"");
    let section = section.split("\n## ").next().unwrap_or_default();
    let mut problems = Vec::new();
    for program in corpus().iter().filter(|p| !p.header.cases.is_empty()) {
        let name = format!("| `{}` |", program.name);
        let Some(row) = section.lines().find(|l| l.contains(&name)) else {
            problems.push(format!("no row for {}", program.name));
            continue;
        };
        let listed: BTreeSet<&str> = row.split('|').nth(1).unwrap_or_default().split(',').map(str::trim).collect();
        let cases: BTreeSet<&str> = program.header.cases.iter().map(String::as_str).collect();
        if listed != cases {
            problems.push(format!("{}: the row lists {listed:?}, the header {cases:?}", program.name));
        }
    }
    assert!(problems.is_empty(), "docs/semantics.md §3:\n{}", problems.join("\n"));
}

#[test]
fn published_search_is_snapshotted_where_the_rules_are_nondeterministic() {
    let nondeterministic: Vec<&str> = entries()
        .iter()
        .filter(|e| e.reports.iter().any(|r| r.nondeterministic))
        .map(|e| e.program.name.as_str())
        .collect();
    // §2.10: rank-2 tanh (clamped and unclamped results) and every helper write (raw terms
    // stored by `let-index-assign`) make `search` find more than `run`.
    assert!(nondeterministic.contains(&"tanh/rank2-clamped.knn"), "{nondeterministic:?}");
    assert!(nondeterministic.contains(&"relu/rank1-copies.knn"), "{nondeterministic:?}");
}

/// `knn coverage` over the corpus reports what the gate reports: every rule fires but the dead
/// ones.
#[test]
fn knn_coverage_over_the_corpus_reports_exactly_the_dead_rules() {
    use knn::coverage::{CoverageOptions, collect, expand};
    let files = expand(&[knn_spec_tests::programs_dir()]).expect("the corpus");
    for (profile, search) in [(Profile::published(), Some(3_000)), (Profile::revised(), None)] {
        let collected = collect(&files, profile, &[], CoverageOptions { search, max_steps: 1_000_000 });
        let report = collected.json();
        let never: BTreeSet<&str> =
            report["never_fired"].as_array().expect("a list").iter().filter_map(|v| v.as_str()).collect();
        let dead: BTreeSet<&str> = DEAD_RULES.iter().filter(|d| d.profile == profile.name).map(|d| d.id).collect();
        assert_eq!(never, dead, "{}", profile.name);
        assert_eq!(report["programs"].as_array().map(Vec::len), Some(files.len()));
    }
}
