//! The Python package `knn` (`python/knn/`): the library API of the `knn` crate (library/) for numpy
//! users — `load` and `Network.run` (arrays in and out), `Network.verify` and `verify_vnnlib`,
//! `run_source` with the full report, `report` for the page of a benchmark run — with errors as the exceptions of `knn.errors`. No logic
//! of its own: every answer is the library's, as the `knn` command prints it.

mod arrays;
mod benchmark;
mod errors;
mod network;
mod pools;
mod report;
mod verify;

use pyo3::prelude::*;

#[pymodule]
fn _knn(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<network::Network>()?;
    module.add_class::<report::Report>()?;
    module.add_class::<verify::VerifyResult>()?;
    module.add_class::<verify::Counterexample>()?;
    module.add_function(wrap_pyfunction!(network::load, module)?)?;
    module.add_function(wrap_pyfunction!(report::run_source, module)?)?;
    module.add_function(wrap_pyfunction!(verify::verify_vnnlib, module)?)?;
    module.add_function(wrap_pyfunction!(verify::read_instances, module)?)?;
    module.add_function(wrap_pyfunction!(benchmark::report, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
