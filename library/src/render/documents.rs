//! The JSON documents of many reports, streamed as they are made: a batch's rows
//! (`knn batch --output json`) and a search's final states (`knn search --output json`), each
//! report as `run --output json` prints it (schema in docs/cli.md).

use knn_semantics::engine::{Limit, Observed};
use knn_semantics::memory;
use knn_semantics::report::JSON_ELEMENT_BYTES;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value, json};

use super::json::{JsonReport, check_report_json};
use crate::batch::Batch;
use crate::error::KnnError;
use crate::program::Searched;
use crate::report::Report;
use knn_engine::bigstep::RowResult;

/// The JSON document of a batch, `{"rows": N, "failed": F, "results": […]}`, each result the
/// report of its row with `"row"` last. Refused (a limit) when the document would not fit in
/// the memory budget; each row's report is made when it is written.
pub fn batch_json<'a>(batch: &'a Batch, results: &'a [RowResult]) -> Result<BatchJson<'a>, KnnError> {
    let elements: usize = results
        .iter()
        .map(|r| match r {
            Ok(Observed::Tensor(t)) => t.data.len().saturating_add(1),
            _ => 1,
        })
        .fold(0, usize::saturating_add);
    if let Err(e) = memory::check(memory::bytes_for(elements as u64, JSON_ELEMENT_BYTES)) {
        return Err(KnnError::memory("the JSON report", e));
    }
    let failed = results.iter().filter(|r| r.is_err()).count();
    Ok(BatchJson { batch, results, failed })
}

/// [`batch_json`]'s document.
pub struct BatchJson<'a> {
    batch: &'a Batch,
    results: &'a [RowResult],
    failed: usize,
}

impl Serialize for BatchJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("rows", &self.results.len())?;
        map.serialize_entry("failed", &self.failed)?;
        map.serialize_entry("results", &Rows(self))?;
        map.end()
    }
}

/// The results of a batch, each row's report made when it is written.
struct Rows<'a>(&'a BatchJson<'a>);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let BatchJson { batch, results, .. } = self.0;
        serializer.collect_seq(results.iter().enumerate().map(|(row, result)| Row { batch, result, row }))
    }
}

struct Row<'a> {
    batch: &'a Batch,
    result: &'a RowResult,
    row: usize,
}

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        JsonReport::of_row(&self.batch.report(self.result), self.row).serialize(serializer)
    }
}

/// The JSON document of a search, `{"outcomes": […], "states": N, "limit": …}` (`limit` only
/// when one stopped it). Every report is checked against the memory budget first, then the
/// document is streamed.
pub fn search_json(searched: &Searched) -> Result<SearchJson<'_>, KnnError> {
    searched.finals.iter().try_for_each(check_report_json)?;
    let limit = match searched.limit {
        Some(Limit::States(n)) => Some(json!({ "kind": "states", "value": n })),
        Some(Limit::Memory(e)) => Some(json!({ "kind": "memory", "value": e.asked, "budget": e.budget })),
        _ => None,
    };
    Ok(SearchJson { finals: &searched.finals, states: searched.states, limit })
}

/// [`search_json`]'s document.
pub struct SearchJson<'a> {
    finals: &'a [Report],
    states: usize,
    limit: Option<Value>,
}

impl Serialize for SearchJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("outcomes", &Outcomes(self.finals))?;
        map.serialize_entry("states", &self.states)?;
        if let Some(limit) = &self.limit {
            map.serialize_entry("limit", limit)?;
        }
        map.end()
    }
}

struct Outcomes<'a>(&'a [Report]);

impl Serialize for Outcomes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(JsonReport::of))
    }
}
