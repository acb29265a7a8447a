//! `knn search`: every distinct final state.

use knn_semantics::config::config_to_string;
use knn_semantics::engine::{Final, Limit, Outcome, SearchOptions, search as search_engine};
use knn_semantics::profile::Priorities;
use knn_semantics::report::{check_report_size, outcome_json};
use serde_json::json;

use super::render::{explain, memory_limit, value_text};
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
    // A final value too large to print within the memory budget ends the search with a limit.
    let mut too_large = None;
    match args.program.output {
        OutputFormat::Json => {
            if let Some(e) = result.finals.iter().find_map(|f| check_report_size(&f.outcome, &f.config).err()) {
                return memory_limit("the report", e);
            }
            let outcomes: Vec<_> = result
                .finals
                .iter()
                .map(|f| outcome_json(&f.outcome, &f.config, f.depth, None, Some(&source.text)))
                .collect();
            let mut report = json!({ "outcomes": outcomes, "states": result.states });
            match result.limit {
                Some(Limit::States(n)) => report["limit"] = json!({ "kind": "states", "value": n }),
                Some(Limit::Memory(e)) => {
                    report["limit"] = json!({ "kind": "memory", "value": e.asked, "budget": e.budget });
                }
                _ => {}
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
                    Outcome::Value(v) => match value_text(v, &f.config) {
                        Ok(text) => format!("value {text}"),
                        Err(e) => {
                            too_large = Some(e);
                            format!("a value too large to print: it {e}")
                        }
                    },
                    other => explain(other, &source).unwrap_or_default().lines().next().unwrap_or_default().to_string(),
                };
                outln!("solution {}: {line}", n + 1);
            }
        }
    }
    if args.program.output != OutputFormat::Json {
        eprintln!("{}; {} states explored", summary(&result.finals), result.states);
    }
    match result.limit.or(too_large.map(Limit::Memory)) {
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
            Outcome::Value(v) => Some(value_text(v, &f.config).unwrap_or_else(|e| e.to_string())),
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
