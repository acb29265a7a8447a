//! `knn run`.

use knn_semantics::config::config_to_string;
use knn_semantics::engine::{Coverage, Outcome};
use knn_semantics::memory;
use knn_semantics::report::{JSON_ELEMENT_BYTES, check_report_size, check_verdict_report_size, outcome_json};
use knn_semantics::{RunOptions, run as run_engine};
use serde_json::json;

use knn_semantics::engine::{Engine, Verdict};
use knn_semantics::report::verdict_json;

use super::program::{Loaded, load, load_program};
use super::render::{
    check_text_size, error_report, exit_of, exit_of_verdict, explain, memory_limit, observed_text, step_text,
    value_text,
};
use super::{EngineChoice, Exit, OutputFormat, RunArgs, Semantics, profile_of};
use crate::bigstep::{BigStep, Staging};
use crate::tensor::Precision;

pub fn run(args: RunArgs) -> Exit {
    if args.engine() == EngineChoice::BigStep {
        return run_big_step(args);
    }
    if args.fast_math {
        eprintln!("error: --fast-math applies to the big-step engine (--engine big-step)");
        return Exit::Usage;
    }
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
                match value_text(v, &result.config) {
                    Ok(text) => outln!("{text}"),
                    Err(e) => return memory_limit("printing the result", e),
                }
            }
        }
        OutputFormat::Config => {
            let cells = result.config.store.len().saturating_add(result.config.k.len());
            if let Err(e) = check_text_size(cells) {
                return memory_limit("printing the configuration", e);
            }
            out!("{}", config_to_string(&result.config))
        }
        OutputFormat::Json => {
            let trace = memory::bytes_for(result.trace.len() as u64, JSON_ELEMENT_BYTES);
            if let Err(e) = check_report_size(&result.outcome, &result.config).and_then(|()| memory::check(trace)) {
                return memory_limit("the JSON report", e);
            }
            let mut report =
                outcome_json(&result.outcome, &result.config, result.steps, Some(&result.coverage), Some(&source.text));
            if args.trace {
                report["trace"] = json!(result.trace.iter().map(|s| s.rule.id).collect::<Vec<_>>());
            }
            outln!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
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

/// `knn run --engine big-step`: the big-step evaluator on the program and its inputs.
fn run_big_step(args: RunArgs) -> Exit {
    let refuse = |what: &str| {
        eprintln!("error: {what} needs the small-step engine (--engine small-step)");
        Exit::Usage
    };
    if args.program.semantics != Semantics::Revised {
        return refuse("--semantics published");
    }
    if args.program.output == OutputFormat::Config {
        return refuse("--output config");
    }
    if args.trace || args.coverage || args.max_steps.is_some() {
        return refuse("--trace, --coverage and --max-steps");
    }
    let Loaded { source, program, inputs } = match load_program(&args.program, profile_of(args.program.semantics)) {
        Ok(loaded) => loaded,
        Err(exit) => return exit,
    };
    let precision = if args.fast_math { Precision::Fast } else { Precision::Exact };
    let engine = BigStep { staging: Staging::Direct, precision };
    let verdict = match engine.evaluate(&program, &inputs) {
        Ok(verdict) => verdict,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    match (&verdict, args.program.output) {
        (_, OutputFormat::Json) => {
            if let Err(e) = check_verdict_report_size(&verdict) {
                return memory_limit("the JSON report", e);
            }
            outln!("{}", serde_json::to_string_pretty(&verdict_json(&verdict, Some(&source.text))).unwrap_or_default());
        }
        (Verdict::Value(v), _) => match observed_text(v) {
            Ok(text) => outln!("{text}"),
            Err(e) => return memory_limit("printing the result", e),
        },
        (Verdict::Error { kind, detail, span }, _) => eprint!("{}", error_report(*kind, detail, *span, &source)),
        (other, _) => eprintln!("{other}"),
    }
    exit_of_verdict(&verdict)
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
