//! Helpers shared by the engine's integration tests.
#![allow(dead_code)]

pub mod firing;

use knn_semantics::config::{KItem, config_to_string, kitem_to_string};
use knn_semantics::engine::{Outcome, SearchOptions, SearchResult};
use knn_semantics::syntax::parse_program;
use knn_semantics::term::term_of_program;
use knn_semantics::{Config, Profile, Run, StepOptions, run, search};

pub fn initial(source: &str) -> Config {
    let profile = Profile::published();
    let program = parse_program(source, profile.grammar).unwrap_or_else(|e| panic!("{source}\n{e}"));
    Config::initial(term_of_program(&program))
}

/// The initial configuration of `source` under the revised profile: read with the revised
/// profile's grammar, `<k> $PGM </k>` and empty cells (no static checks).
pub fn revised_initial(source: &str) -> Config {
    let profile = Profile::revised();
    let program = parse_program(source, profile.grammar).unwrap_or_else(|e| panic!("{source}\n{e}"));
    Config::initial(term_of_program(&program))
}

/// Runs `source` under `profile` (parsed with the profile's grammar).
pub fn run_with(profile: &'static Profile, source: &str) -> Run {
    let program = parse_program(source, profile.grammar).unwrap_or_else(|e| panic!("{source}\n{e}"));
    run(profile, Config::initial(term_of_program(&program)), StepOptions { max_steps: Some(10_000_000), trace: false })
}

pub fn published(source: &str) -> Run {
    run(Profile::published(), initial(source), StepOptions { max_steps: Some(1_000_000), trace: true })
}

pub fn search_published(source: &str) -> SearchResult {
    search(Profile::published(), initial(source), SearchOptions::default())
}

/// The `<k>` cell's items, top first, in krun syntax.
pub fn k_items(config: &Config) -> Vec<String> {
    config.k.iter().rev().map(kitem_to_string).collect()
}

/// The printed configuration.
pub fn printed(config: &Config) -> String {
    config_to_string(config)
}

/// A cell's lines from the printed configuration (`env`, `store`, `shape`, `nextLoc`, `k`).
pub fn cell(config: &Config, name: &str) -> Vec<String> {
    let text = config_to_string(config);
    let open = format!("  <{name}>\n");
    let close = format!("  </{name}>\n");
    let start = text.find(&open).unwrap() + open.len();
    let end = text[start..].find(&close).unwrap() + start;
    text[start..end].lines().map(|l| l.trim().to_string()).collect()
}

pub fn value_text(run: &Run) -> String {
    match &run.outcome {
        Outcome::Value(v) => v.to_string(),
        other => panic!("expected a value, got {other:?}"),
    }
}

pub fn stuck_text(run: &Run) -> String {
    match &run.outcome {
        Outcome::Stuck(item) => kitem_to_string(item),
        other => panic!("expected a stuck state, got {other:?}"),
    }
}

pub fn is_frozen(item: &KItem) -> bool {
    matches!(item, KItem::Frozen(_))
}

/// Rule IDs of the trace, in order.
pub fn rule_ids(run: &Run) -> Vec<&'static str> {
    run.trace.iter().map(|s| s.rule.id).collect()
}
