//! The JSON report of a run (`--output json`, schema in docs/cli.md), described once as a
//! [`Serialize`] view of the [`Report`]: [`report_json`] builds it as a `serde_json::Value` (for
//! the library, the tests, the bindings) and [`write_report_json`] streams the same bytes to a
//! writer. A tensor of 20 million elements is then written element by element instead of as
//! 20 million `Value`s and one string of 220 MB (issue 26; docs/performance.md, "Large reports").

use std::collections::HashMap;
use std::io::Write;

use knn_semantics::engine::{Limit, Observed, Step};
use knn_semantics::errors::ErrorKind;
use knn_semantics::memory;
use knn_semantics::observables::DenseTensor;
use knn_semantics::report::{JSON_ELEMENT_BYTES, rules_json};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value, json};

use super::status;
use crate::error::{Failure, KnnError};
use crate::report::{Answer, Report};

/// The JSON report as a value. Its size is checked against the memory budget before it is
/// built (the observables were checked when the report was made; here the result and the trace).
pub fn report_json(report: &Report) -> Result<Value, KnnError> {
    check_report_json(report)?;
    // Serializing into a `Value` fails only for a map key that is not a string; every key here
    // is one.
    Ok(serde_json::to_value(JsonReport::of(report)).unwrap_or(Value::Null))
}

/// Checks that the JSON report of `report` fits in the memory budget, as [`report_json`] does
/// before building it. The streamed report ([`write_report_json`]) builds nothing that large,
/// but it is refused alike, so that a run gives the same answer whichever way it is printed.
pub fn check_report_json(report: &Report) -> Result<(), KnnError> {
    let result_elements = match &report.answer {
        Answer::Value { value: Observed::Tensor(t), .. } => t.data.len() as u64,
        _ => 0,
    };
    let trace_len = report.trace.as_ref().map_or(0, Vec::len) as u64;
    memory::check(result_elements.checked_add(trace_len).and_then(|n| memory::bytes_for(n, JSON_ELEMENT_BYTES)))
        .map_err(|e| KnnError::memory("the JSON report", e))
}

/// Writes the JSON report of `report` as `serde_json::to_string_pretty(&report_json(report)?)`
/// writes it, byte for byte, without a final newline; its size is not checked
/// ([`check_report_json`] does that).
pub fn write_report_json(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(out, &JsonReport::of(report)).map_err(std::io::Error::from)
}

/// A report as JSON, with the `row` of a batch appended when there is one.
pub struct JsonReport<'a> {
    report: &'a Report,
    row: Option<usize>,
}

impl<'a> JsonReport<'a> {
    pub fn of(report: &'a Report) -> JsonReport<'a> {
        JsonReport { report, row: None }
    }

    /// The report of row `row` of a batch (`"row": N` last, as `knn batch --output json`
    /// prints it).
    pub fn of_row(report: &'a Report, row: usize) -> JsonReport<'a> {
        JsonReport { report, row: Some(row) }
    }
}

impl Serialize for JsonReport<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let report = self.report;
        // The fields in the order of the schema (docs/cli.md, "The JSON report").
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("status", status(&report.answer))?;
        match &report.answer {
            Answer::Value { value, term } => {
                map.serialize_entry("result", &ValueJson { value, term: term.as_deref() })?
            }
            Answer::Term(term) => map.serialize_entry("result", &json!({ "kind": "term", "value": term }))?,
            Answer::Empty => {}
            Answer::Stuck(item) => map.serialize_entry("stuck", item)?,
            Answer::Failed(error) => {
                let (field, object) = error_json(error);
                map.serialize_entry(field, &object)?;
            }
        }
        if let Some(steps) = report.steps {
            map.serialize_entry("steps", &steps)?;
        }
        if let Some(observables) = &report.observables {
            map.serialize_entry("observables", &Observables(observables))?;
        }
        if let Some(coverage) = &report.coverage {
            map.serialize_entry("rules", &rules_json(coverage))?;
        }
        if let Some(trace) = &report.trace {
            map.serialize_entry("trace", &Trace(trace))?;
        }
        if let Some(row) = self.row {
            map.serialize_entry("row", &row)?;
        }
        map.end()
    }
}

/// The trace: the rule of every step, in order.
struct Trace<'a>(&'a [Step]);

impl Serialize for Trace<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|s| s.rule.id))
    }
}

/// A float as JSON: a number, or the strings `"NaN"`, `"Infinity"`, `"-Infinity"`, as
/// [`knn_semantics::report::float_json`] writes it.
struct Float(f64);

impl Serialize for Float {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            x if x.is_nan() => serializer.serialize_str("NaN"),
            f64::INFINITY => serializer.serialize_str("Infinity"),
            f64::NEG_INFINITY => serializer.serialize_str("-Infinity"),
            x => serializer.serialize_f64(x),
        }
    }
}

/// A tensor's elements, row-major.
struct Data<'a>(&'a [f64]);

impl Serialize for Data<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|x| Float(*x)))
    }
}

/// The `observables` object: each name with its tensor's `shape` and `data`, or `malformed`.
struct Observables<'a>(&'a [(String, Result<DenseTensor, String>)]);

impl Serialize for Observables<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // A name bound twice keeps its first place and its last value, as a JSON object built by
        // insertion does.
        let mut last: Vec<(&str, &Result<DenseTensor, String>)> = Vec::with_capacity(self.0.len());
        let mut place: HashMap<&str, usize> = HashMap::with_capacity(self.0.len());
        for (name, tensor) in self.0 {
            match place.get(name.as_str()) {
                Some(&k) => last[k].1 = tensor,
                None => {
                    place.insert(name, last.len());
                    last.push((name, tensor));
                }
            }
        }
        let mut map = serializer.serialize_map(Some(last.len()))?;
        for (name, tensor) in last {
            match tensor {
                Ok(t) => map.serialize_entry(name, &TensorJson(t))?,
                Err(why) => map.serialize_entry(name, &json!({ "malformed": why }))?,
            }
        }
        map.end()
    }
}

/// `{"shape": […], "data": […]}`.
struct TensorJson<'a>(&'a DenseTensor);

impl Serialize for TensorJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("shape", &self.0.shape)?;
        map.serialize_entry("data", &Data(&self.0.data))?;
        map.end()
    }
}

/// The `result` object: `kind`, `value` (a tensor's K term when there is one), `shape`,
/// `data`, or `malformed`.
struct ValueJson<'a> {
    value: &'a Observed,
    term: Option<&'a str>,
}

impl Serialize for ValueJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.value {
            Observed::Float(x) => {
                map.serialize_entry("kind", "float")?;
                map.serialize_entry("value", &Float(*x))?;
            }
            Observed::Int(n) => {
                map.serialize_entry("kind", "int")?;
                map.serialize_entry("value", n)?;
            }
            Observed::Tensor(t) => {
                map.serialize_entry("kind", "tensor")?;
                if let Some(term) = self.term {
                    map.serialize_entry("value", term)?;
                }
                map.serialize_entry("shape", &t.shape)?;
                map.serialize_entry("data", &Data(&t.data))?;
            }
            Observed::Malformed(why) => {
                map.serialize_entry("kind", "tensor")?;
                if let Some(term) = self.term {
                    map.serialize_entry("value", term)?;
                }
                map.serialize_entry("malformed", why)?;
            }
        }
        map.end()
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
