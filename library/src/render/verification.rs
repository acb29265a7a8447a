//! The verifier's answers in every output format: the line `knn verify` prints, the note on
//! standard error for a construct the verifier cannot bound, the JSON report (schema_version 1,
//! docs/cli.md), the VNN-COMP results file and witness, and the answer column of an instance
//! list's results.

use knn_semantics::syntax::diagnostic::{line_col, render_report};
use serde_json::{Value, json};

use crate::report::{Effort, Verification};
use knn_verify::judge::RunError;
use knn_verify::{Conclusion, Counterexample, Unknown};

/// A value written so that it reads back as the same binary64 value wherever it is read:
/// the shortest decimal that does for a finite value, and `Infinity`, `-Infinity`, `NaN`
/// otherwise — the words that Python's `float`, JavaScript's `Number` and Rust's `parse` all
/// read (Rust's own `inf` is not JavaScript's).
pub fn number_text(v: f64) -> String {
    match v {
        v if v.is_nan() => "NaN".to_string(),
        f64::INFINITY => "Infinity".to_string(),
        f64::NEG_INFINITY => "-Infinity".to_string(),
        v => format!("{v:?}"),
    }
}

/// A value in JSON: a number when finite; JSON has no infinity or NaN, so those are the
/// strings of [`number_text`] (`null` would lose which).
pub fn number_json(v: f64) -> Value {
    if v.is_finite() { json!(v) } else { json!(number_text(v)) }
}

/// Values printed so that they read back as the same binary64 values.
fn vector(values: &[f64]) -> String {
    let items: Vec<String> = values.iter().map(|&v| number_text(v)).collect();
    format!("[{}]", items.join(", "))
}

/// Where a failed run failed, as `line:col` in the program's source.
pub fn failure_text(error: &RunError, source: &str) -> String {
    let (line, col) = line_col(source, error.span.start as usize);
    format!("{line}:{col}: {error}")
}

/// The answer as `knn verify` prints it on standard output (`holds: …`, `violated: …` with the
/// counterexample, `unknown: …`).
pub fn verification_text(report: &Verification) -> String {
    let effort = report.effort;
    let stats = format!("{:.3} s, {} boxes", effort.seconds, effort.boxes);
    match &report.conclusion {
        Conclusion::Holds { class: Some(k) } => format!("holds: the class is {k} on the whole region ({stats})"),
        Conclusion::Holds { class: None } => {
            format!("holds: no input of the region reaches an unsafe output ({stats})")
        }
        Conclusion::Violated(c) => {
            let what = match (&c.failure, c.class, c.expected_class) {
                (Some(_), _, _) => "the program fails there".to_string(),
                (None, Some(found), Some(expected)) => format!("the class is {found}, not {expected}"),
                (None, Some(found), None) => format!("the class is {found}"),
                _ => "the output is unsafe".to_string(),
            };
            let result = match &c.failure {
                Some(error) => format!("error  = {}", failure_text(error, &report.source.text)),
                None => format!("output = {}", vector(&c.output)),
            };
            format!(
                "violated: {what} (case {}; confirmed on the small-step reference and the big-step engine; {stats})\n  input  = {}\n  {result}\n  witness: {}",
                c.case,
                vector(&c.input),
                witness(&c.input, &c.output).replace("\n ", " ")
            )
        }
        Conclusion::Unknown(Unknown::Timeout) => {
            format!("unknown: timeout ({stats}; {:.1}% of the region's volume proved)", 100.0 * effort.proved_share)
        }
        Conclusion::Unknown(Unknown::Limit(why)) => format!("unknown: limit: {why} ({stats})"),
        Conclusion::Unknown(Unknown::Bug(why)) => format!("unknown: bug: {why} ({stats}); please report it"),
        Conclusion::Unknown(Unknown::Unsupported(u)) => format!("unknown: unsupported: {}", u.what),
        Conclusion::Unknown(Unknown::EmptyRegion(why)) => format!("unknown: empty region: {why}"),
    }
}

/// For a construct the verifier cannot bound, the place in the program, rendered like a
/// compiler's message (`color` for a terminal).
pub fn verification_note(report: &Verification, color: bool) -> Option<String> {
    let Conclusion::Unknown(Unknown::Unsupported(u)) = &report.conclusion else { return None };
    let source = &report.source;
    u.span.map(|span| {
        let message = format!("unsupported: {}", u.what);
        render_report(&source.name, &source.text, span, &message, "the verifier cannot bound this", None, color)
    })
}

/// The JSON report of a verification (schema_version 1, docs/cli.md).
pub fn verification_json(report: &Verification) -> Value {
    let Effort { seconds, boxes, proved_share } = report.effort;
    let mut object = json!({ "schema_version": 1, "seconds": seconds, "boxes": boxes, "proved_share": proved_share });
    let fields = match &report.conclusion {
        Conclusion::Holds { class } => json!({"answer": "holds", "class": class}),
        Conclusion::Violated(c) => json!({
            "answer": "violated",
            "counterexample": counterexample_json(c, &report.source.text),
        }),
        Conclusion::Unknown(Unknown::Unsupported(u)) => json!({
            "answer": "unknown",
            "reason": "unsupported",
            "detail": u.what,
            "span": u.span.map(|s| json!({"start": s.start, "end": s.end})),
        }),
        Conclusion::Unknown(u) => {
            let (reason, detail) = match u {
                Unknown::Timeout => ("timeout", String::new()),
                Unknown::Limit(why) => ("limit", why.clone()),
                Unknown::Bug(why) => ("bug", why.clone()),
                Unknown::EmptyRegion(why) => ("empty-region", why.clone()),
                Unknown::Unsupported(_) => unreachable!("answered above"),
            };
            json!({"answer": "unknown", "reason": reason, "detail": detail})
        }
    };
    if let (Value::Object(o), Value::Object(f)) = (&mut object, fields) {
        o.extend(f);
    }
    object
}

/// A counterexample in the JSON report: non-finite outputs as [`number_json`] writes them, and
/// `failure` (kind, message, place) where the run fails there.
fn counterexample_json(c: &Counterexample, source: &str) -> Value {
    let failure = c.failure.as_ref().map(|e| {
        let (line, column) = line_col(source, e.span.start as usize);
        json!({"kind": e.kind.id(), "message": e.detail, "line": line, "column": column,
               "span": {"start": e.span.start, "end": e.span.end}})
    });
    json!({
        "case": c.case,
        "input": c.input.iter().map(|&v| number_json(v)).collect::<Vec<_>>(),
        "output": c.output.iter().map(|&v| number_json(v)).collect::<Vec<_>>(),
        "class": c.class,
        "expected_class": c.expected_class,
        "failure": failure,
        "witness": witness(&c.input, &c.output),
    })
}

/// The VNN-COMP witness: `((X_0 v) (X_1 v) … (Y_0 v) …)`, one pair a line, the values as
/// [`number_text`] writes them (no `Y` where the run failed).
pub fn witness(input: &[f64], output: &[f64]) -> String {
    let pairs: Vec<String> = input
        .iter()
        .enumerate()
        .map(|(i, &v)| format!("(X_{i} {})", number_text(v)))
        .chain(output.iter().enumerate().map(|(i, &v)| format!("(Y_{i} {})", number_text(v))))
        .collect();
    format!("({})", pairs.join("\n "))
}

/// The VNN-COMP results file: `sat` and the witness, `unsat`, `timeout` or `unknown`.
pub fn results_text(conclusion: &Conclusion) -> String {
    match conclusion {
        Conclusion::Holds { .. } => "unsat\n".into(),
        Conclusion::Violated(c) => format!("sat\n{}\n", witness(&c.input, &c.output)),
        Conclusion::Unknown(Unknown::Timeout) => "timeout\n".into(),
        Conclusion::Unknown(_) => "unknown\n".into(),
    }
}

/// The answer column of an instance list's results: `holds`, `violated`, `unknown:REASON`
/// (`timeout`, `limit`, `bug`, `unsupported`, `empty-region`).
pub fn answer_word(conclusion: &Conclusion) -> &'static str {
    match conclusion {
        Conclusion::Holds { .. } => "holds",
        Conclusion::Violated(_) => "violated",
        Conclusion::Unknown(Unknown::Timeout) => "unknown:timeout",
        Conclusion::Unknown(Unknown::Limit(_)) => "unknown:limit",
        Conclusion::Unknown(Unknown::Bug(_)) => "unknown:bug",
        Conclusion::Unknown(Unknown::Unsupported(_)) => "unknown:unsupported",
        Conclusion::Unknown(Unknown::EmptyRegion(_)) => "unknown:empty-region",
    }
}
