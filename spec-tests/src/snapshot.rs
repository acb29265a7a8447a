//! The text snapshotted for a program under one profile: readable, stable, one section per
//! fact, so that a change of the language shows up as a small diff in `cargo insta review`.
//!
//! ```text
//! program: relu/rank1-copies.knn (published)
//! let t = initTensor(3) in …
//! outcome: -2.0
//! == report
//! { "status": "done", "result": …, "steps": 42, "observables": … }
//! == configuration
//! <T> … </T>                       krun's format
//! == static errors                 revised rules, when the checks reject the program
//! == trace (42 steps)              runs under 200 steps
//! == rules (1234 steps)            longer runs: how often each rule fired
//! == search                        published rules: every outcome of `search`
//! ```
//!
//! A program the profile's grammar rejects is snapshotted as its rendered diagnostic.

use std::fmt::Write;
use std::sync::Arc;

use knn::render::report_json;
use knn::{Report, Source};
use knn_semantics::config::config_to_string;
use knn_semantics::engine::Step;

use crate::Program;
use crate::run::{ProfileRun, Ran, TRACE_LIMIT, summary};

/// The snapshot text of `program` run under a profile.
pub fn snapshot_text(program: &Program, profile: &str, run: &ProfileRun) -> String {
    let mut out = format!("program: {} ({profile})\n", program.name);
    for line in code_lines(&program.source) {
        let _ = writeln!(out, "  {line}");
    }
    match run {
        ProfileRun::ParseError(diagnostic) => {
            out.push_str("outcome: parse-error\n== diagnostic\n");
            out.push_str(diagnostic);
        }
        ProfileRun::Ran(ran) => ran_text(&mut out, program, ran),
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The program without its header.
fn code_lines(source: &str) -> impl Iterator<Item = &str> {
    source.lines().skip_while(|l| l.trim_start().starts_with("//")).filter(|l| !l.trim().is_empty())
}

fn ran_text(out: &mut String, program: &Program, ran: &Ran) {
    let _ = writeln!(out, "outcome: {}", summary(&ran.outcome, &ran.config));
    for input in &program.header.inputs {
        let _ = writeln!(out, "input: {input}");
    }
    // The report `knn run --output json` prints, through the same renderer.
    let source = Arc::new(Source { name: program.name.clone(), text: program.source.clone() });
    let report = Report::of_final_state(ran.outcome.clone(), ran.config.clone(), ran.steps, &source)
        .and_then(|report| report_json(&report))
        .unwrap_or_else(|e| serde_json::json!({ "report": e.to_string() }));
    let _ = writeln!(out, "== report\n{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    let _ = write!(out, "== configuration\n{}", config_to_string(&ran.config));
    if !ran.static_errors.is_empty() {
        out.push_str("== static errors\n");
        for e in &ran.static_errors {
            out.push_str(e);
        }
    }
    match &ran.trace {
        Some(trace) => {
            let _ = writeln!(out, "== trace ({} steps)", trace.len());
            for (n, step) in trace.iter().enumerate() {
                let _ = writeln!(out, "{}", step_line(n + 1, step));
            }
        }
        None => {
            let _ = writeln!(out, "== rules ({} steps, no trace at {TRACE_LIMIT} steps or more)", ran.steps);
            for (rule, n) in ran.coverage.fired() {
                let _ = writeln!(out, "{n:>8} {}", rule.id);
            }
        }
    }
    if let Some(search) = &ran.search {
        let run_summary = summary(&ran.outcome, &ran.config);
        let _ = write!(out, "== search: {} final state(s), {} states explored", search.finals, search.states);
        match search.limit {
            Some(n) => {
                let _ = writeln!(out, ", stopped at the limit of {n} states (the outcomes below are partial)");
            }
            None => out.push('\n'),
        }
        if search.is_nondeterministic(&run_summary) {
            for (outcome, n) in &search.outcomes {
                let _ = writeln!(out, "{n:>6} × {outcome}");
            }
        } else {
            out.push_str("  deterministic here: every final state is run's outcome\n");
        }
    }
}

/// One trace line: `    12 cool-index-1 +index-tensor-anywhere`.
fn step_line(number: usize, step: &Step) -> String {
    let mut line = format!("{number:>6} {}", step.rule.id);
    for (rule, n) in &step.side {
        let _ = if *n == 1 { write!(line, " +{}", rule.id) } else { write!(line, " +{}×{n}", rule.id) };
    }
    line
}
