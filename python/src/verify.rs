//! `Network.verify`, `Network.verify_vnnlib` and `knn.verify_vnnlib`: the verifier's answer as
//! a `knn.VerifyResult` (the fields of `knn verify --output json`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use knn::render::{answer_word, failure_text, results_text, verification_json};
use knn::{
    Bounds, Claim, Conclusion, InputBox, Question, Split, Unknown, Verification, VerifyOptions, load, read_property,
};
use pyo3::prelude::*;

use crate::arrays::{read_inputs, read_vector};
use crate::errors::{OrRaise, usage};
use crate::network::Network;

/// A counterexample, confirmed on the small-step reference and the big-step engine.
#[pyclass(module = "knn", frozen, get_all)]
pub struct Counterexample {
    /// Which case of the property (which box of a VNN-LIB disjunction).
    case: usize,
    /// The input (float64 array).
    input: Py<PyAny>,
    /// The outputs the reference computed there (the scores).
    output: Py<PyAny>,
    /// The class there, for class claims and ArgMax programs.
    class_: Option<usize>,
    /// The class that was claimed (argmax=K and argmax-stable).
    expected_class: Option<usize>,
    /// Where the program fails at the input, if it does (`line:col: message [kind]`): a failing
    /// run breaks every claim, and `output` is then empty.
    failure: Option<String>,
    /// The VNN-COMP witness `((X_0 v) … (Y_0 v) …)`.
    witness: String,
}

/// The verifier's answer.
#[pyclass(module = "knn", frozen, get_all)]
pub struct VerifyResult {
    /// `holds`, `violated` or `unknown`.
    answer: &'static str,
    /// The answer column of an instance list's results: `holds`, `violated`, `unknown:REASON`.
    word: &'static str,
    /// Why `unknown`: `timeout`, `limit`, `bug` or `unsupported`.
    reason: Option<&'static str>,
    /// What the reason says (the construct, for `unsupported`).
    detail: Option<String>,
    /// The class on the whole region (`holds` of a class claim).
    class_: Option<usize>,
    counterexample: Option<Py<Counterexample>>,
    seconds: f64,
    /// Boxes that branch and bound examined.
    boxes: u64,
    /// The share of the region's volume proved.
    proved_share: f64,
    /// The exit code of `knn verify`: 0 holds, 10 violated, 11 unknown.
    exit_code: u8,
    /// The JSON report of `knn verify --output json`.
    json: String,
    /// The VNN-COMP results file: `unsat`, `sat` and the witness, `timeout` or `unknown`.
    results: String,
}

#[pymethods]
impl VerifyResult {
    fn __repr__(&self) -> String {
        match (self.answer, self.reason, self.class_) {
            ("holds", _, Some(k)) => format!("<knn.VerifyResult holds (class {k})>"),
            (answer, Some(reason), _) => format!("<knn.VerifyResult {answer} ({reason})>"),
            (answer, _, _) => format!("<knn.VerifyResult {answer}>"),
        }
    }

    fn __bool__(&self) -> bool {
        self.answer == "holds"
    }
}

fn result(py: Python<'_>, report: Verification) -> PyResult<VerifyResult> {
    let effort = report.effort;
    let results = results_text(&report.conclusion);
    let word = answer_word(&report.conclusion);
    let (answer, reason, detail, class_, counterexample) = match &report.conclusion {
        Conclusion::Holds { class } => ("holds", None, None, *class, None),
        Conclusion::Violated(c) => {
            let witness = knn::render::witness(&c.input, &c.output);
            let counterexample = Counterexample {
                case: c.case,
                input: numpy::PyArray1::from_slice(py, &c.input).into_any().unbind(),
                output: numpy::PyArray1::from_slice(py, &c.output).into_any().unbind(),
                class_: c.class,
                expected_class: c.expected_class,
                failure: c.failure.as_ref().map(|e| failure_text(e, &report.source.text)),
                witness,
            };
            ("violated", None, None, None, Some(Py::new(py, counterexample)?))
        }
        Conclusion::Unknown(why) => {
            let (reason, detail) = match why {
                Unknown::Timeout => ("timeout", None),
                Unknown::Limit(d) => ("limit", Some(d.clone())),
                Unknown::Bug(d) => ("bug", Some(d.clone())),
                Unknown::Unsupported(u) => ("unsupported", Some(u.what.clone())),
                Unknown::EmptyRegion(d) => ("empty-region", Some(d.clone())),
            };
            ("unknown", Some(reason), detail, None, None)
        }
    };
    Ok(VerifyResult {
        answer,
        word,
        reason,
        detail,
        class_,
        counterexample,
        seconds: effort.seconds,
        boxes: effort.boxes,
        proved_share: effort.proved_share,
        exit_code: report.exit_code(),
        json: verification_json(&report).to_string(),
        results,
    })
}

fn timeout_of(seconds: Option<f64>) -> PyResult<Option<Duration>> {
    match seconds {
        None => Ok(None),
        Some(t) if t > 0.0 && t <= 1e9 => Ok(Some(Duration::from_secs_f64(t))),
        Some(t) => Err(usage(format!("timeout={t}: expected a positive number of seconds"))),
    }
}

fn split_of(text: &str) -> PyResult<Split> {
    match text {
        "auto" => Ok(Split::Auto),
        "inputs" => Ok(Split::Inputs),
        "relus" => Ok(Split::Relus),
        "refined-relus" => Ok(Split::RefinedRelus),
        other => Err(usage(format!("split={other:?}: expected \"auto\", \"inputs\", \"relus\" or \"refined-relus\""))),
    }
}

/// How the region's bounds are read, as `knn verify --bounds` (docs/verification.md,
/// "Constants as written"): as written, or each as the binary64 number nearest it.
fn bounds_of(text: &str) -> PyResult<Bounds> {
    match text {
        "as-written" => Ok(Bounds::AsWritten),
        "nearest" => Ok(Bounds::Nearest),
        other => Err(usage(format!("bounds={other:?}: expected \"as-written\" or \"nearest\""))),
    }
}

/// Answers `question` about `network` with the GIL released. (The library starts the pool of
/// `options.threads` itself, on the thread it verifies on: a pool entered here would not
/// reach that thread.)
fn answer(
    py: Python<'_>,
    network: &Network,
    question: &Question,
    options: VerifyOptions<'static>,
) -> PyResult<VerifyResult> {
    let report = py.detach(|| network.program.verify(question, options)).or_raise()?;
    result(py, report)
}

#[pymethods]
impl Network {
    /// Proves or refutes `claim` (`argmax-stable`, `argmax=K`, `argmax!=K`) on a box
    /// `box=(lower, upper)` or an L∞ ball `around=centre, eps=E` (cut to `clip=(lo, hi)`).
    /// `bounds="nearest"` reads the ball's computed ends as the binary64 numbers nearest them,
    /// as `knn verify --bounds nearest`; by default they are taken as written.
    #[pyo3(signature = (
        *, r#box = None, around = None, eps = None, clip = None, claim = "argmax-stable", timeout = None,
        threads = None, split = "auto", input_name = None, inputs = None, input_shape = None,
        bounds = "as-written"
    ))]
    #[allow(clippy::too_many_arguments)]
    fn verify(
        &self,
        py: Python<'_>,
        r#box: Option<(Bound<'_, PyAny>, Bound<'_, PyAny>)>,
        around: Option<Bound<'_, PyAny>>,
        eps: Option<f64>,
        clip: Option<(f64, f64)>,
        claim: &str,
        timeout: Option<f64>,
        threads: Option<usize>,
        split: &str,
        input_name: Option<String>,
        inputs: Option<&Bound<'_, PyAny>>,
        input_shape: Option<Vec<usize>>,
        bounds: &str,
    ) -> PyResult<VerifyResult> {
        let started = Instant::now();
        if let Some(shape) = &input_shape
            && (shape.is_empty() || shape.len() > 8 || shape.contains(&0))
        {
            return Err(usage(format!("input_shape={shape:?}: expected 1 to 8 positive lengths")));
        }
        let claim = Claim::parse(claim).map_err(|e| usage(format!("claim={claim:?}: {e}")))?;
        let region = match (r#box, around) {
            (Some((lower, upper)), None) => {
                if eps.is_some() || clip.is_some() {
                    return Err(usage("eps= and clip= go with around=, not box="));
                }
                let (lower, upper) = (read_vector(&lower, "box[0]")?, read_vector(&upper, "box[1]")?);
                InputBox::from_bounds(&lower, &upper).map_err(|e| usage(format!("box: {e}")))?
            }
            (None, Some(centre)) => {
                let centre = read_vector(&centre, "around")?;
                let eps = match eps {
                    Some(e) if e >= 0.0 && e.is_finite() => e,
                    Some(e) => return Err(usage(format!("eps={e}: expected a non-negative number"))),
                    None => return Err(usage("around= needs eps=")),
                };
                if let Some((lo, hi)) = clip
                    && (lo.is_nan() || hi.is_nan() || lo > hi)
                {
                    return Err(usage(format!("clip=({lo:?}, {hi:?}): the range is empty")));
                }
                if let Some(k) = centre.iter().position(|v| !v.is_finite()) {
                    return Err(usage(format!("around[{k}] = {:?}: expected finite numbers", centre[k])));
                }
                InputBox::around(&centre, eps, clip).map_err(|e| usage(format!("around: {e}")))?
            }
            (Some(_), Some(_)) => return Err(usage("give box= or around=, not both")),
            (None, None) => return Err(usage("say where: box=(lower, upper) or around=centre with eps=")),
        };
        let options = VerifyOptions {
            input_name,
            fixed: read_inputs(inputs)?,
            timeout: timeout_of(timeout)?,
            started: Some(started),
            threads,
            split: split_of(split)?,
            input_shape,
            bounds: bounds_of(bounds)?,
            ..VerifyOptions::default()
        };
        answer(py, self, &Question::Class { region, claim }, options)
    }

    /// Proves or refutes a VNN-LIB property (`X_i` the input's elements, `Y_i` the result's),
    /// its input bounds read as `bounds` says (`knn verify --bounds`).
    #[pyo3(signature = (property, *, timeout = None, threads = None, split = "auto", bounds = "as-written"))]
    fn verify_vnnlib(
        &self,
        py: Python<'_>,
        property: PathBuf,
        timeout: Option<f64>,
        threads: Option<usize>,
        split: &str,
        bounds: &str,
    ) -> PyResult<VerifyResult> {
        self.verify_vnnlib_since(py, property, (timeout, threads, split, bounds), Instant::now())
    }
}

impl Network {
    /// [`Network::verify_vnnlib`] with the timeout counted from `started` (reading the
    /// property counts; for [`verify_vnnlib`], loading the network too).
    fn verify_vnnlib_since(
        &self,
        py: Python<'_>,
        property: PathBuf,
        (timeout, threads, split, bounds): (Option<f64>, Option<usize>, &str, &str),
        started: Instant,
    ) -> PyResult<VerifyResult> {
        let property = read_property(&property).or_raise()?;
        let options = VerifyOptions {
            timeout: timeout_of(timeout)?,
            started: Some(started),
            threads,
            split: split_of(split)?,
            bounds: bounds_of(bounds)?,
            ..VerifyOptions::default()
        };
        answer(py, self, &Question::Property(property), options)
    }
}

/// Loads `network` and answers the VNN-LIB `property` about it (a VNN-COMP instance).
/// `bounds="nearest"` reads each of the property's input bounds as the binary64 number
/// nearest it, as `knn verify --bounds nearest`; by default they are taken as written.
#[pyfunction]
#[pyo3(signature = (network, property, *, timeout = None, threads = None, split = "auto", bounds = "as-written"))]
pub fn verify_vnnlib(
    py: Python<'_>,
    network: PathBuf,
    property: PathBuf,
    timeout: Option<f64>,
    threads: Option<usize>,
    split: &str,
    bounds: &str,
) -> PyResult<VerifyResult> {
    // The timeout counts loading the network, as a VNN-COMP harness counts it.
    let started = Instant::now();
    let program = py.detach(|| load(&network)).or_raise()?;
    Network::new(program).verify_vnnlib_since(py, property, (timeout, threads, split, bounds), started)
}

/// The lines of a VNN-COMP instance list: `(network, property, timeout)` with the paths as
/// written and the timeout in seconds.
#[pyfunction]
pub fn read_instances(path: PathBuf) -> PyResult<Vec<(String, String, f64)>> {
    let instances = knn::read_instances(&path).or_raise()?;
    Ok(instances.into_iter().map(|i| (i.network, i.property, i.timeout.as_secs_f64())).collect())
}
