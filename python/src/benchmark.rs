//! `knn.report`: the page of a benchmark run (`knn report`), from its results CSV and other
//! tools' (the library's `knn::benchmark`).

use std::path::PathBuf;

use knn::{BenchmarkReport, write_report};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{OrRaise, usage};

/// Writes `out_dir/index.html` (made if missing; an existing page is kept unless `force`) for
/// knn's results file `results` and `compare`'s tools (name → results file, in the dict's
/// order); gives the page's path.
#[pyfunction]
#[pyo3(signature = (results, out_dir, *, compare = None, force = false))]
pub fn report(
    results: PathBuf,
    out_dir: PathBuf,
    compare: Option<&Bound<'_, PyDict>>,
    force: bool,
) -> PyResult<String> {
    let mut others: Vec<(String, PathBuf)> = Vec::new();
    if let Some(compare) = compare {
        for (name, path) in compare.iter() {
            let name: String = name.extract().map_err(|_| usage("compare: the tools' names must be strings"))?;
            let path: PathBuf =
                path.extract().map_err(|_| usage(format!("compare[{name:?}]: expected the path of a results file")))?;
            others.push((name, path));
        }
    }
    let report = BenchmarkReport::read(&results, &others).or_raise()?;
    let page = write_report(&report, &out_dir, force).or_raise()?;
    Ok(page.display().to_string())
}
