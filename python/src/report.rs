//! `knn.run_source`: a program's text run on either engine under either semantics, with what
//! `knn run --output json` reports: the answer, the steps, the `<env>` observables, the trace,
//! the rule counts, the final configuration.

use knn::render::{report_json, status};
use knn::{Answer, EngineKind, KnnError, Report as RunReport, RunOptions, Semantics, load_source};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{observed, read_inputs, tensor_array};
use crate::errors::{OrRaise, exception, usage};

/// What a run gave.
#[pyclass(module = "knn", frozen, get_all)]
pub struct Report {
    /// `done`, `empty`, `stuck`, `error` or `limit` (the JSON report's `status`).
    status: &'static str,
    /// The result: a float, an int or a numpy array (`None` without one).
    value: Option<Py<PyAny>>,
    /// The result as K writes it (`tensor(12, 2)`), from the small-step engine.
    term: Option<String>,
    /// The item no rule applies to (published rules).
    stuck: Option<String>,
    /// Why there is no value: a `knn.KnnError` (not raised; `raise_for_status` raises it).
    error: Option<Py<PyAny>>,
    /// `small-step` or `big-step`.
    engine: &'static str,
    /// Rewrite steps (small-step engine).
    steps: Option<u64>,
    /// The final `<env>`'s tensors by name (with observables=True).
    observables: Option<Py<PyDict>>,
    /// The rules applied, in order (with trace=True).
    trace: Option<Vec<String>>,
    /// How often each rule fired (small-step engine).
    coverage: Option<Py<PyDict>>,
    /// The final configuration as krun prints it (with config=True).
    config: Option<String>,
    /// The exit code of `knn run`.
    exit_code: u8,
    /// The JSON report of `knn run --output json`.
    json: String,
}

#[pymethods]
impl Report {
    /// Raises the run's error, if it has one.
    fn raise_for_status(&self, py: Python<'_>) -> PyResult<()> {
        match &self.error {
            Some(error) => Err(PyErr::from_value(error.bind(py).clone())),
            None => Ok(()),
        }
    }

    fn __repr__(&self) -> String {
        format!("<knn.Report {}>", self.status)
    }
}

fn engine_of(text: Option<&str>) -> PyResult<Option<EngineKind>> {
    match text {
        None => Ok(None),
        Some("small-step") => Ok(Some(EngineKind::SmallStep)),
        Some("big-step") => Ok(Some(EngineKind::BigStep)),
        Some(other) => Err(usage(format!("engine={other:?}: expected \"small-step\" or \"big-step\""))),
    }
}

fn semantics_of(text: &str) -> PyResult<Semantics> {
    match text {
        "revised" => Ok(Semantics::Revised),
        "published" => Ok(Semantics::Published),
        other => Err(usage(format!("semantics={other:?}: expected \"revised\" or \"published\""))),
    }
}

/// The library's report of a run as Python's, with its JSON rendered.
fn report(py: Python<'_>, run: RunReport, json: String) -> PyResult<Report> {
    let (value, term, stuck, error) = match &run.answer {
        Answer::Value { value, term } => (observed(py, value)?.map(Bound::unbind), term.clone(), None, None),
        Answer::Term(term) => (None, Some(term.clone()), None, None),
        Answer::Stuck(item) => (None, None, Some(item.clone()), None),
        Answer::Failed(e) => (None, None, None, Some(exception(py, e)?.unbind())),
        _ => (None, None, None, None),
    };
    let observables = match &run.observables {
        Some(list) => {
            let dict = PyDict::new(py);
            for (name, tensor) in list {
                match tensor {
                    Ok(t) => dict.set_item(name, tensor_array(py, t.clone())?)?,
                    Err(why) => dict.set_item(name, format!("not a dense tensor: {why}"))?,
                }
            }
            Some(dict.unbind())
        }
        None => None,
    };
    let coverage = match &run.coverage {
        Some(counts) => {
            let dict = PyDict::new(py);
            for (rule, n) in counts.fired() {
                dict.set_item(rule.id, n)?;
            }
            for rule in counts.never_fired() {
                dict.set_item(rule.id, 0)?;
            }
            Some(dict.unbind())
        }
        None => None,
    };
    Ok(Report {
        status: status(&run.answer),
        value,
        term,
        stuck,
        error,
        engine: match run.engine {
            EngineKind::SmallStep => "small-step",
            EngineKind::BigStep => "big-step",
        },
        steps: run.steps,
        observables,
        exit_code: run.exit_code(),
        trace: run.trace.as_ref().map(|t| t.iter().map(|step| step.rule.id.to_string()).collect()),
        coverage,
        config: run.config,
        json,
    })
}

/// Parses and runs `source`. Parse and static errors, bad inputs and options raise; the
/// program's own run-time error is the report's `error` (status `error`).
#[pyfunction]
#[pyo3(signature = (
    source, *, inputs = None, semantics = "revised", engine = None, trace = false, coverage = false,
    observables = false, config = false, max_steps = None, fast_math = false, name = "<source>"
))]
#[allow(clippy::too_many_arguments)]
pub fn run_source(
    py: Python<'_>,
    source: &str,
    inputs: Option<&Bound<'_, PyAny>>,
    semantics: &str,
    engine: Option<&str>,
    trace: bool,
    coverage: bool,
    observables: bool,
    config: bool,
    max_steps: Option<u64>,
    fast_math: bool,
    name: &str,
) -> PyResult<Report> {
    let semantics = semantics_of(semantics)?;
    let options = RunOptions { engine: engine_of(engine)?, max_steps, trace, config, coverage, observables, fast_math };
    options.check(semantics).or_raise()?;
    let inputs = read_inputs(inputs)?;
    // The run and its JSON on a thread without the GIL; the report crosses back whole.
    let (run, json) = py
        .detach(|| -> Result<(RunReport, String), KnnError> {
            let run = load_source(name, source, semantics)?.run(&inputs, &options)?;
            let json = report_json(&run)?.to_string();
            Ok((run, json))
        })
        .or_raise()?;
    report(py, run, json)
}
