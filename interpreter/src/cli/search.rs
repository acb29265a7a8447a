//! `knn search`: every distinct final state.

use knn_semantics::config::config_to_string;
use knn_semantics::engine::{Final, Limit, Outcome, SearchOptions, search as search_engine};
use knn_semantics::profile::Priorities;
use knn_semantics::report::outcome_json;
use serde_json::json;

use super::render::{explain, value_text};
use super::{Exit, OutputFormat, PriorityChoice, SearchArgs, profile_of, program::load};

pub fn search(args: SearchArgs) -> Exit {
    let profile = profile_of(args.program.semantics);
    let (source, config) = match load(&args.program, profile) {
        Ok(loaded) => loaded,
        Err(exit) => return exit,
    };
    let priorities = match args.priorities {
        PriorityChoice::Krun => Priorities::Krun,
        PriorityChoice::FlatCooling => Priorities::FlatCooling,
    };
    let result = search_engine(profile, config, SearchOptions { max_states: args.max_states, priorities });
    match args.program.output {
        OutputFormat::Json => {
            let outcomes: Vec<_> = result
                .finals
                .iter()
                .map(|f| outcome_json(&f.outcome, &f.config, f.depth, None, Some(&source.text)))
                .collect();
            let mut report = json!({ "outcomes": outcomes, "states": result.states });
            if let Some(Limit::States(n)) = result.limit {
                report["limit"] = json!({ "kind": "states", "value": n });
            }
            outln!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
        }
        OutputFormat::Config => {
            for (n, f) in result.finals.iter().enumerate() {
                outln!("Solution {}", n + 1);
                out!("{}", config_to_string(&f.config));
            }
        }
        OutputFormat::Value => {
            for (n, f) in result.finals.iter().enumerate() {
                let line = match &f.outcome {
                    Outcome::Value(v) => format!("value {}", value_text(v, &f.config)),
                    other => explain(other, &source).unwrap_or_default().lines().next().unwrap_or_default().to_string(),
                };
                outln!("solution {}: {line}", n + 1);
            }
        }
    }
    if args.program.output != OutputFormat::Json {
        eprintln!("{}; {} states explored", summary(&result.finals), result.states);
    }
    match result.limit {
        Some(limit) => {
            if args.program.output != OutputFormat::Json {
                eprint!("{}", explain(&Outcome::Limit(limit), &source).unwrap_or_default());
            }
            Exit::Limit
        }
        None => Exit::Result,
    }
}

/// The final states by kind, values first: `48 final states: 8 values (2 distinct), 40 stuck`.
/// Under the published rules most final states of a search are stuck paths `krun` never takes
/// (docs/semantics.md §2.10): the counts say so before the reader scrolls through them.
fn summary(finals: &[Final]) -> String {
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let count = |status: &str| finals.iter().filter(|f| f.outcome.status() == status).count();
    let mut values: Vec<String> = finals
        .iter()
        .filter_map(|f| match &f.outcome {
            Outcome::Value(v) => Some(value_text(v, &f.config)),
            _ => None,
        })
        .collect();
    let value_count = values.len();
    values.sort();
    values.dedup();
    let mut kinds = Vec::new();
    if value_count > 0 {
        kinds.push(format!("{} ({} distinct)", plural(value_count, "value", "values"), values.len()));
    }
    for (status, one, many) in [("empty", "empty", "empty"), ("stuck", "stuck", "stuck"), ("error", "error", "errors")]
    {
        if count(status) > 0 {
            kinds.push(plural(count(status), one, many));
        }
    }
    let total = plural(finals.len(), "final state", "final states");
    if kinds.is_empty() { total } else { format!("{total}: {}", kinds.join(", ")) }
}
