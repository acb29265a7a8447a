//! The JSON report of a run (`--output json`, docs/architecture.md, "The `knn` command"):
//! `{"status", "result", "stuck", "error", "steps", "observables", "rules"}`, fields that do not
//! apply left out. Non-finite floats are the strings `"NaN"`, `"Infinity"`, `"-Infinity"`.

use serde_json::{Map, Value, json};

use crate::config::{Config, kitem_to_string};
use crate::engine::{Coverage, Limit, Observed, Outcome, Verdict};
use crate::errors::ErrorKind;
use crate::memory::{self, TooLarge};
use crate::observables::{DenseTensor, env_tensors, read_tensor, tensor_size};
use crate::syntax::diagnostic::line_col;
use crate::term::{Node, Term};

/// A float as JSON.
pub fn float_json(x: f64) -> Value {
    if x.is_nan() {
        json!("NaN")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(x)
    }
}

fn tensor_json(t: &DenseTensor) -> Value {
    json!({ "shape": t.shape, "data": data_json(t) })
}

fn data_json(t: &DenseTensor) -> Value {
    Value::Array(t.data.iter().map(|x| float_json(*x)).collect())
}

/// The bytes a report is counted for per tensor element: its JSON value, and its text when the
/// report is printed.
pub const JSON_ELEMENT_BYTES: usize = std::mem::size_of::<Value>() + 32;

/// Checks, before a report of `outcome` is built, that its tensors (the result and every
/// observable) fit in the memory budget.
pub fn check_report_size(outcome: &Outcome, config: &Config) -> Result<(), TooLarge> {
    let size_at = |l: i64| match config.store.get(l).map(Term::node) {
        Some(Node::Tensor { loc, len }) => tensor_size(&config.store, *loc, *len),
        _ => Some(0),
    };
    let result = match outcome {
        Outcome::Value(v) if let Node::Tensor { loc, len } = v.node() => tensor_size(&config.store, *loc, *len),
        _ => Some(0),
    };
    let total = config.env.values().fold(result, |sum, &l| sum?.checked_add(size_at(l)?));
    memory::check(total.and_then(|n| memory::bytes_for(n, JSON_ELEMENT_BYTES)))
}

/// [`check_report_size`] for a verdict of the engine contract.
pub fn check_verdict_report_size(verdict: &Verdict) -> Result<(), TooLarge> {
    let elements = match verdict {
        Verdict::Value(Observed::Tensor(t)) => t.data.len() as u64,
        _ => 0,
    };
    memory::check(memory::bytes_for(elements, JSON_ELEMENT_BYTES))
}

/// The `result` object for a value.
pub fn value_json(value: &Term, config: &Config) -> Value {
    match value.node() {
        Node::Float(x) => json!({ "kind": "float", "value": float_json(*x) }),
        Node::Int(n) => json!({ "kind": "int", "value": n }),
        Node::Tensor { loc, len } => {
            let mut object = json!({ "kind": "tensor", "value": value.to_string() });
            match read_tensor(&config.store, *loc, *len) {
                Ok(t) => {
                    object["shape"] = json!(t.shape);
                    object["data"] = data_json(&t);
                }
                Err(e) => object["malformed"] = json!(e.0),
            }
            object
        }
        _ => json!({ "kind": "term", "value": value.to_string() }),
    }
}

/// The `result` object for a value as the engine contract reports it (same shape as
/// [`value_json`]).
pub fn observed_json(value: &Observed) -> Value {
    match value {
        Observed::Float(x) => json!({ "kind": "float", "value": float_json(*x) }),
        Observed::Int(n) => json!({ "kind": "int", "value": n }),
        Observed::Tensor(t) => {
            let mut object = json!({ "kind": "tensor" });
            object["shape"] = json!(t.shape);
            object["data"] = data_json(t);
            object
        }
        Observed::Malformed(why) => json!({ "kind": "tensor", "malformed": why }),
    }
}

/// The report of a verdict of the engine contract (no configuration: no steps, observables or
/// rules). With the program's `source`, errors carry their line and column.
pub fn verdict_json(verdict: &Verdict, source: Option<&str>) -> Value {
    match verdict {
        Verdict::Value(v) => json!({ "status": "done", "result": observed_json(v) }),
        Verdict::Error { kind, span, detail } => {
            let mut error = json!({ "kind": kind.id(), "message": detail });
            if let Some(source) = source {
                let (line, column) = line_col(source, span.start as usize);
                error["line"] = json!(line);
                error["column"] = json!(column);
            }
            // The memory budget is a limit of knn, as on the small-step engine, not the
            // program's error.
            if *kind == ErrorKind::MemoryLimit {
                error["kind"] = json!("memory");
                return json!({ "status": "limit", "limit": error });
            }
            json!({ "status": "error", "error": error })
        }
        Verdict::Stuck(term) => json!({ "status": "stuck", "stuck": term }),
        Verdict::Empty => json!({ "status": "empty" }),
        Verdict::Aborted(reason) => json!({ "status": "error", "error": { "kind": "krun-abort", "message": reason } }),
        Verdict::Limit => json!({ "status": "limit" }),
    }
}

/// Every identifier of `<env>` with its tensor.
pub fn observables_json(config: &Config) -> Value {
    let mut out = Map::new();
    for (name, tensor) in env_tensors(config) {
        let value = match tensor {
            Ok(t) => tensor_json(&t),
            Err(e) => json!({ "malformed": e.0 }),
        };
        out.insert(name, value);
    }
    Value::Object(out)
}

/// Rule ID ↦ count, for the rules that fired.
pub fn rules_json(coverage: &Coverage) -> Value {
    Value::Object(coverage.fired().map(|(rule, n)| (rule.id.to_string(), json!(n))).collect())
}

/// The report of one final state. With the program's `source`, errors carry their line and
/// column.
pub fn outcome_json(
    outcome: &Outcome,
    config: &Config,
    steps: u64,
    coverage: Option<&Coverage>,
    source: Option<&str>,
) -> Value {
    let mut report = json!({ "status": outcome.status() });
    match outcome {
        Outcome::Error { kind, detail, span } => {
            let mut error = json!({ "kind": kind.id(), "message": detail });
            if let Some(source) = source {
                let (line, column) = line_col(source, span.start as usize);
                error["line"] = json!(line);
                error["column"] = json!(column);
            }
            report["error"] = error;
        }
        Outcome::Value(v) => report["result"] = value_json(v, config),
        Outcome::Empty | Outcome::Paused => {}
        Outcome::Stuck(item) => report["stuck"] = json!(kitem_to_string(item)),
        Outcome::Aborted(reason) => report["error"] = json!({ "kind": "krun-abort", "message": reason }),
        Outcome::Limit(Limit::Steps(n)) => report["limit"] = json!({ "kind": "steps", "value": n }),
        Outcome::Limit(Limit::States(n)) => report["limit"] = json!({ "kind": "states", "value": n }),
        Outcome::Limit(Limit::Memory(too_large)) => {
            report["limit"] = json!({
                "kind": "memory", "value": too_large.asked, "budget": too_large.budget, "message": too_large.to_string()
            });
        }
    }
    report["steps"] = json!(steps);
    report["observables"] = observables_json(config);
    if let Some(coverage) = coverage {
        report["rules"] = rules_json(coverage);
    }
    report
}
