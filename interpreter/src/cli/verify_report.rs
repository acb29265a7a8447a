//! What `knn verify` prints: the answer as text or JSON (schema_version 1, docs/cli.md), the
//! VNN-COMP results file, and the files it writes.

use clap::ValueEnum;
use std::io::IsTerminal;
use std::path::Path;

use knn_semantics::syntax::diagnostic::render_report;
use serde_json::{Value, json};

use super::Exit;
use super::program::Source;
use crate::verify::network::Unsupported;
use crate::verify::{Answer, Unknown};

/// How `knn verify` prints its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyFormat {
    Text,
    /// One JSON object (docs/cli.md).
    Json,
}

/// What is printed.
pub(super) struct Report<'a> {
    pub answer: Option<&'a Answer>,
    pub unsupported: Option<&'a Unsupported>,
    pub seconds: f64,
    pub boxes: u64,
    pub proved_share: f64,
}

/// Prints the report and returns the exit code of the answer.
pub(super) fn print_report(format: VerifyFormat, report: &Report, source: &Source) -> Exit {
    let exit = match report.answer {
        Some(Answer::Holds { .. }) => Exit::Result,
        Some(Answer::Violated(_)) => Exit::Violated,
        Some(Answer::Unknown(_)) | None => Exit::Unknown,
    };
    match format {
        VerifyFormat::Json => outln!("{}", report_json(report)),
        VerifyFormat::Text => {
            if let Some(u) = report.unsupported {
                outln!("unknown: unsupported: {}", u.what);
                if let Some(span) = u.span {
                    eprint!(
                        "{}",
                        render_report(
                            &source.name,
                            &source.text,
                            span,
                            &format!("unsupported: {}", u.what),
                            "the verifier cannot bound this",
                            None,
                            std::io::stderr().is_terminal()
                        )
                    );
                }
            }
            if let Some(answer) = report.answer {
                outln!("{}", answer_text(answer, report));
            }
        }
    }
    exit
}

/// Values printed so that they read back as the same binary64 values.
fn vector(values: &[f64]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[{}]", items.join(", "))
}

fn answer_text(answer: &Answer, report: &Report) -> String {
    let stats = format!("{:.3} s, {} boxes", report.seconds, report.boxes);
    match answer {
        Answer::Holds { class: Some(k) } => format!("holds: the class is {k} on the whole region ({stats})"),
        Answer::Holds { class: None } => format!("holds: no input of the region reaches an unsafe output ({stats})"),
        Answer::Violated(c) => {
            let what = match (c.class, c.expected_class) {
                (Some(found), Some(expected)) => format!("the class is {found}, not {expected}"),
                (Some(found), None) => format!("the class is {found}"),
                _ => "the output is unsafe".to_string(),
            };
            format!(
                "violated: {what} (case {}; confirmed on the small-step reference and the big-step engine; {stats})\n  input  = {}\n  output = {}\n  witness: {}",
                c.case,
                vector(&c.input),
                vector(&c.output),
                witness(&c.input, &c.output).replace("\n ", " ")
            )
        }
        Answer::Unknown(Unknown::Timeout) => {
            format!("unknown: timeout ({stats}; {:.1}% of the region's volume proved)", 100.0 * report.proved_share)
        }
        Answer::Unknown(Unknown::Limit(why)) => format!("unknown: limit: {why} ({stats})"),
        Answer::Unknown(Unknown::Bug(why)) => format!("unknown: bug: {why} ({stats}); please report it"),
    }
}

fn report_json(report: &Report) -> Value {
    let mut object = json!({
        "schema_version": 1,
        "seconds": report.seconds,
        "boxes": report.boxes,
        "proved_share": report.proved_share,
    });
    let fields: Value = match (report.answer, report.unsupported) {
        (_, Some(u)) => json!({
            "answer": "unknown",
            "reason": "unsupported",
            "detail": u.what,
            "span": u.span.map(|s| json!({"start": s.start, "end": s.end})),
        }),
        (Some(Answer::Holds { class }), _) => json!({"answer": "holds", "class": class}),
        (Some(Answer::Violated(c)), _) => json!({
            "answer": "violated",
            "counterexample": {
                "case": c.case,
                "input": c.input,
                "output": c.output,
                "class": c.class,
                "expected_class": c.expected_class,
                "witness": witness(&c.input, &c.output),
            }
        }),
        (Some(Answer::Unknown(u)), _) => {
            let (reason, detail) = match u {
                Unknown::Timeout => ("timeout", String::new()),
                Unknown::Limit(why) => ("limit", why.clone()),
                Unknown::Bug(why) => ("bug", why.clone()),
            };
            json!({"answer": "unknown", "reason": reason, "detail": detail})
        }
        (None, None) => json!({"answer": "unknown"}),
    };
    if let (Value::Object(o), Value::Object(f)) = (&mut object, fields) {
        o.extend(f);
    }
    object
}

/// The VNN-COMP witness: `((X_0 v) (X_1 v) … (Y_0 v) …)`, one pair a line.
pub(super) fn witness(input: &[f64], output: &[f64]) -> String {
    let pairs: Vec<String> = input
        .iter()
        .enumerate()
        .map(|(i, v)| format!("(X_{i} {v:?})"))
        .chain(output.iter().enumerate().map(|(i, v)| format!("(Y_{i} {v:?})")))
        .collect();
    format!("({})", pairs.join("\n "))
}

/// The VNN-COMP results file: `sat` and the witness, `unsat`, `timeout` or `unknown`.
pub(super) fn results_text(answer: &Answer) -> String {
    match answer {
        Answer::Holds { .. } => "unsat\n".into(),
        Answer::Violated(c) => format!("sat\n{}\n", witness(&c.input, &c.output)),
        Answer::Unknown(Unknown::Timeout) => "timeout\n".into(),
        Answer::Unknown(_) => "unknown\n".into(),
    }
}

/// The results file when the verifier cannot bound the program.
pub(super) const UNKNOWN_RESULT: &str = "unknown\n";

/// Writes `bytes` to a temporary file beside `path`, then renames it into place: a reader
/// never sees a partial file, and an interrupted run leaves the old file as it was.
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    super::output::write_file(path, true, |w| w.write_all(bytes))
}
