//! `knn run`.

use knn_semantics::config::config_to_string;
use knn_semantics::engine::{Coverage, Outcome};
use knn_semantics::report::outcome_json;
use knn_semantics::{RunOptions, run as run_engine};
use serde_json::json;

use super::render::{exit_of, explain, step_text, value_text};
use super::{Exit, OutputFormat, RunArgs, profile_of, program::load};

pub fn run(args: RunArgs) -> Exit {
    let profile = profile_of(args.program.semantics);
    let (source, config) = match load(&args.program, profile) {
        Ok(loaded) => loaded,
        Err(exit) => return exit,
    };
    let options = RunOptions { max_steps: args.max_steps, trace: args.trace };
    let result = run_engine(profile, config, options);
    match args.program.output {
        OutputFormat::Value => {
            if let Outcome::Value(v) = &result.outcome {
                println!("{}", value_text(v, &result.config));
            }
        }
        OutputFormat::Config => print!("{}", config_to_string(&result.config)),
        OutputFormat::Json => {
            let mut report =
                outcome_json(&result.outcome, &result.config, result.steps, Some(&result.coverage), Some(&source.text));
            if args.trace {
                report["trace"] = json!(result.trace.iter().map(|s| s.rule.id).collect::<Vec<_>>());
            }
            println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
        }
    }
    if args.program.output != OutputFormat::Json {
        if args.trace {
            for (n, step) in result.trace.iter().enumerate() {
                eprintln!("{}", step_text(n + 1, step));
            }
        }
        if args.coverage {
            print_coverage(&result.coverage);
        }
    }
    if args.program.output != OutputFormat::Json
        && let Some(message) = explain(&result.outcome, &source)
    {
        eprint!("{message}");
    }
    exit_of(&result.outcome)
}

/// Per-rule counts and the rules that never fired, on standard error.
pub fn print_coverage(coverage: &Coverage) {
    eprintln!("rule coverage ({} firings):", coverage.total());
    for (rule, n) in coverage.fired() {
        eprintln!("  {n:>8}  {}", rule.id);
    }
    let never: Vec<&str> = coverage.never_fired().map(|r| r.id).collect();
    eprintln!("  never fired ({}): {}", never.len(), never.join(", "));
}
