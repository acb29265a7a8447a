//! What the JSON report (`--output json`, rendered by the library crate's `knn::render`,
//! docs/architecture.md) needs from the semantics: floats as JSON (non-finite ones as the strings
//! `"NaN"`, `"Infinity"`, `"-Infinity"`), the rule counts, and the report's size checked
//! against the memory budget before it is built.

use serde_json::{Value, json};

use crate::config::Config;
use crate::engine::{Coverage, Outcome};
use crate::memory::{self, TooLarge};
use crate::observables::tensor_size;
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

/// The bytes a report is counted for per tensor element: its JSON value, and its text when the
/// report is printed.
pub const JSON_ELEMENT_BYTES: usize = std::mem::size_of::<Value>() + 32;

/// The bytes the text of a tensor is counted for per element: the longest float literal
/// (`-2.2250738585072014e-308`) and its separator.
pub const TEXT_ELEMENT_BYTES: usize = 26;

/// Checks, before a tensor is printed, that its text fits in the memory budget.
pub fn check_text_size(elements: usize) -> Result<(), TooLarge> {
    memory::check(memory::bytes_for(elements as u64, TEXT_ELEMENT_BYTES))
}

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

/// Rule ID ↦ count, for the rules that fired.
pub fn rules_json(coverage: &Coverage) -> Value {
    Value::Object(coverage.fired().map(|(rule, n)| (rule.id.to_string(), json!(n))).collect())
}
