//! One renderer per output format, for every [`Report`]: the value as a user reads it
//! (`--output value`), the final configuration as krun prints it (`--output config`), the JSON
//! report (`--output json`, schema in docs/architecture.md), and the message on standard error
//! that explains an answer without a value; the verifier's answers in `verification.rs`.

use knn_semantics::engine::{Limit, Observed, Step};
use knn_semantics::errors::ErrorKind;
use knn_semantics::memory::{self, TooLarge};
use knn_semantics::observables::DenseTensor;
use knn_semantics::report::{JSON_ELEMENT_BYTES, check_text_size, float_json, rules_json};
use knn_semantics::syntax::print::float_literal;
use serde_json::{Map, Value, json};

use super::error::{Failure, KnnError};
use super::report::{Answer, Report, is_memory_limit};

mod verification;
pub use verification::{
    answer_word, failure_text, number_json, number_text, results_text, verification_json, verification_note,
    verification_text, witness,
};

/// The value as a user reads it — `4.0`, `2`, `[[1.0, 2.0], [3.0, 4.0]]` — or `None` when the
/// answer has no value. A tensor whose text would not fit in the memory budget is a limit.
pub fn value_text(answer: &Answer) -> Result<Option<String>, KnnError> {
    Ok(Some(match answer {
        Answer::Value { value: Observed::Malformed(why), term: Some(term) } => format!("{term} ({why})"),
        Answer::Value { value, .. } => observed_text(value).map_err(|e| KnnError::memory("printing the result", e))?,
        Answer::Term(term) => term.clone(),
        Answer::Empty | Answer::Stuck(_) | Answer::Failed(_) => return Ok(None),
        Answer::Holds { .. } | Answer::Violated(_) | Answer::Unknown(_) => return Ok(None),
    }))
}

/// A value as a user reads it (as [`value_text`]); a tensor whose text would not fit in the
/// memory budget is refused before its text is built.
pub fn observed_text(value: &Observed) -> Result<String, TooLarge> {
    Ok(match value {
        Observed::Float(x) => float_literal(*x),
        Observed::Int(n) => n.to_string(),
        Observed::Tensor(t) => {
            check_text_size(t.data.len())?;
            tensor_text(t)
        }
        Observed::Malformed(why) => format!("a tensor that is not dense ({why})"),
    })
}

/// Nested brackets, row-major, built in one string (a tensor of millions of elements is one
/// buffer, not a string per element).
pub fn tensor_text(t: &DenseTensor) -> String {
    fn level(out: &mut String, shape: &[usize], data: &[f64]) {
        out.push('[');
        match shape {
            [] | [_] => {
                for (k, x) in data.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&float_literal(*x));
                }
            }
            [rows, rest @ ..] => {
                let size: usize = rest.iter().product();
                for r in 0..*rows {
                    if r > 0 {
                        out.push_str(", ");
                    }
                    level(out, rest, data.get(r * size..(r + 1) * size).unwrap_or(&[]));
                }
            }
        }
        out.push(']');
    }
    let mut out = String::new();
    level(&mut out, &t.shape, &t.data);
    out
}

/// The final configuration as krun prints it (a small-step report that kept it).
pub fn config_text(report: &Report) -> Result<String, KnnError> {
    report
        .config
        .clone()
        .ok_or_else(|| KnnError::usage("--output config needs the small-step engine (--engine small-step)"))
}

/// What to tell the user on standard error when the answer has no value (ending with a
/// newline); `color` for a terminal.
pub fn explain(answer: &Answer, color: bool) -> Option<String> {
    match answer {
        Answer::Value { .. } | Answer::Term(_) => None,
        // The verifier's answers are printed whole (`verification_text`).
        Answer::Holds { .. } | Answer::Violated(_) | Answer::Unknown(_) => None,
        Answer::Empty => Some(
            "note: the program ended with an empty <k> cell: no value (a result 0 is erased by \
             `drop-int-zero` under the published rules)\n"
                .to_string(),
        ),
        Answer::Stuck(item) => {
            Some(format!("stuck: no rule applies to `{item}`\n  (see the whole configuration with --output config)\n"))
        }
        Answer::Failed(error) => Some(error.render(color)),
    }
}

/// One trace line: `12 lookup-id`, with the side rules of the step.
pub fn step_text(number: usize, step: &Step) -> String {
    let mut line = format!("{number:>6} {}", step.rule.id);
    for (rule, n) in &step.side {
        if *n == 1 {
            line.push_str(&format!(" +{}", rule.id));
        } else {
            line.push_str(&format!(" +{}x{n}", rule.id));
        }
    }
    line
}

/// The JSON report. Its size is checked against the memory budget before it is built (the
/// observables were checked when the report was made; here the result and the trace).
pub fn report_json(report: &Report) -> Result<Value, KnnError> {
    if let Some(verification) = verification_json(report) {
        return Ok(verification);
    }
    let result_elements = match &report.answer {
        Answer::Value { value: Observed::Tensor(t), .. } => t.data.len() as u64,
        _ => 0,
    };
    let trace_len = report.trace.as_ref().map_or(0, Vec::len) as u64;
    memory::check(result_elements.checked_add(trace_len).and_then(|n| memory::bytes_for(n, JSON_ELEMENT_BYTES)))
        .map_err(|e| KnnError::memory("the JSON report", e))?;
    let mut out = json!({ "status": status(&report.answer) });
    match &report.answer {
        Answer::Value { value, term } => out["result"] = value_json(value, term.as_deref()),
        Answer::Term(term) => out["result"] = json!({ "kind": "term", "value": term }),
        Answer::Empty | Answer::Holds { .. } | Answer::Violated(_) | Answer::Unknown(_) => {}
        Answer::Stuck(item) => out["stuck"] = json!(item),
        Answer::Failed(error) => {
            let (field, object) = error_json(error);
            out[field] = object;
        }
    }
    if let Some(steps) = report.steps {
        out["steps"] = json!(steps);
    }
    if let Some(observables) = &report.observables {
        let mut map = Map::new();
        for (name, tensor) in observables {
            let value = match tensor {
                Ok(t) => json!({ "shape": t.shape, "data": data_json(t) }),
                Err(why) => json!({ "malformed": why }),
            };
            map.insert(name.clone(), value);
        }
        out["observables"] = Value::Object(map);
    }
    if let Some(coverage) = &report.coverage {
        out["rules"] = rules_json(coverage);
    }
    if let Some(trace) = &report.trace {
        out["trace"] = json!(trace.iter().map(|s| s.rule.id).collect::<Vec<_>>());
    }
    Ok(out)
}

/// The `status` field of the JSON report.
pub fn status(answer: &Answer) -> &'static str {
    match answer {
        Answer::Value { .. } | Answer::Term(_) => "done",
        Answer::Empty => "empty",
        Answer::Stuck(_) => "stuck",
        Answer::Holds { .. } => "holds",
        Answer::Violated(_) => "violated",
        Answer::Unknown(_) => "unknown",
        Answer::Failed(error) if is_memory_limit(error) => "limit",
        Answer::Failed(error) => match error.failure {
            Failure::Limit(_) => "limit",
            _ => "error",
        },
    }
}

fn data_json(t: &DenseTensor) -> Value {
    Value::Array(t.data.iter().map(|x| float_json(*x)).collect())
}

/// The `result` object: `kind`, `value` (a tensor's K term when there is one), `shape`,
/// `data`, or `malformed`.
fn value_json(value: &Observed, term: Option<&str>) -> Value {
    match value {
        Observed::Float(x) => json!({ "kind": "float", "value": float_json(*x) }),
        Observed::Int(n) => json!({ "kind": "int", "value": n }),
        Observed::Tensor(t) => {
            let mut object = json!({ "kind": "tensor" });
            if let Some(term) = term {
                object["value"] = json!(term);
            }
            object["shape"] = json!(t.shape);
            object["data"] = data_json(t);
            object
        }
        Observed::Malformed(why) => {
            let mut object = json!({ "kind": "tensor" });
            if let Some(term) = term {
                object["value"] = json!(term);
            }
            object["malformed"] = json!(why);
            object
        }
    }
}

/// The `error` or `limit` field of a failed answer.
fn error_json(error: &KnnError) -> (&'static str, Value) {
    let located = |kind: &str| {
        let mut object = json!({ "kind": kind, "message": error.message });
        if let Some(place) = &error.place {
            object["line"] = json!(place.line);
            object["column"] = json!(place.column);
        }
        object
    };
    match error.failure {
        // The memory budget met by the big-step engine is a limit of knn, as on the small-step
        // engine, not the program's error.
        Failure::Runtime(ErrorKind::MemoryLimit) => ("limit", located("memory")),
        Failure::Runtime(kind) => ("error", located(kind.id())),
        Failure::Aborted => ("error", json!({ "kind": "krun-abort", "message": aborted_reason(error) })),
        Failure::Limit(Some(Limit::Steps(n))) => ("limit", json!({ "kind": "steps", "value": n })),
        Failure::Limit(Some(Limit::States(n))) => ("limit", json!({ "kind": "states", "value": n })),
        Failure::Limit(Some(Limit::Memory(too_large))) => (
            "limit",
            json!({
                "kind": "memory", "value": too_large.asked, "budget": too_large.budget, "message": too_large.to_string()
            }),
        ),
        Failure::Limit(None) => ("limit", json!({ "kind": "limit", "message": error.message })),
        _ => ("error", json!({ "kind": "error", "message": error.message })),
    }
}

/// krun's own words for an abort, without knn's preamble.
fn aborted_reason(error: &KnnError) -> &str {
    error.message.strip_prefix("krun stops here: ").unwrap_or(&error.message)
}
