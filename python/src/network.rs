//! `knn.Network`: a program loaded once (`knn.load`), run on numpy arrays (`Network.run`) and
//! verified (`Network.verify`, `Network.verify_vnnlib`). The engines run with the GIL released.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use knn::{Batch, ImportOptions, Program, Semantics, TensorInput, ValuesOptions, load_with};
use pyo3::prelude::*;

use crate::arrays::{nan_error, read_inputs, read_rows, rows_array};
use crate::errors::{OrRaise, to_py, usage};
use crate::pools::{check_threads, in_pool};

/// A network or program, loaded and checked once.
#[pyclass(module = "knn", frozen)]
pub struct Network {
    pub(crate) program: Program,
    /// Compiled batches by (input, width), for calls without fixed inputs.
    batches: Mutex<HashMap<(String, usize), Arc<Batch>>>,
    /// The input a call without `input_name` or fixed inputs runs over, found once (finding it
    /// walks the whole program).
    default_input: OnceLock<String>,
}

impl Network {
    pub fn new(program: Program) -> Network {
        Network { program, batches: Mutex::new(HashMap::new()), default_input: OnceLock::new() }
    }

    /// The input that varies: `asked`, or the program's own (found once when nothing is fixed).
    fn open_input(&self, asked: Option<&str>, fixed: &[TensorInput]) -> PyResult<String> {
        if asked.is_some() || !fixed.is_empty() {
            return self.program.open_input(asked, fixed).or_raise();
        }
        if let Some(name) = self.default_input.get() {
            return Ok(name.clone());
        }
        let name = self.program.open_input(None, fixed).or_raise()?;
        Ok(self.default_input.get_or_init(|| name).clone())
    }

    /// The batch for rows of `width` elements of `input`, compiled once per width when no
    /// input is fixed.
    fn batch(&self, input: &str, width: usize, fixed: &[TensorInput]) -> PyResult<Arc<Batch>> {
        if !fixed.is_empty() {
            return Ok(Arc::new(self.program.batch(input, width, fixed).or_raise()?));
        }
        let key = (input.to_string(), width);
        let mut cache = self.batches.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(batch) = cache.get(&key) {
            return Ok(batch.clone());
        }
        let batch = Arc::new(self.program.batch(input, width, fixed).or_raise()?);
        cache.insert(key, batch.clone());
        Ok(batch)
    }
}

/// Loads a `.knn` program (revised rules), or a `.nnet`/`.onnx` network imported as `knn
/// import` does (`normalize=True` folds the .nnet input normalisation into the program).
#[pyfunction]
#[pyo3(signature = (path, *, normalize = false))]
pub fn load(py: Python<'_>, path: PathBuf, normalize: bool) -> PyResult<Network> {
    let options = ImportOptions { normalize, ..ImportOptions::default() };
    let program = py.detach(|| load_with(&path, Semantics::Revised, &options)).or_raise()?;
    Ok(Network::new(program))
}

#[pymethods]
impl Network {
    /// The input's name, when the file declares it (.nnet and ONNX networks).
    #[getter]
    fn input_name(&self) -> Option<String> {
        self.program.declared_input().map(|(name, _)| name.to_string())
    }

    /// The input's length, when the file declares it.
    #[getter]
    fn input_len(&self) -> Option<usize> {
        self.program.declared_input().map(|(_, len)| len)
    }

    /// The file the network came from.
    #[getter]
    fn source_name(&self) -> String {
        self.program.source().name.clone()
    }

    /// The program's text (an imported network's, as `knn import` writes it).
    #[getter]
    fn source(&self) -> String {
        self.program.source().text.clone()
    }

    /// Runs the network on every row of `x`, on the big-step engine, with the bits of the
    /// reference semantics.
    #[pyo3(signature = (x, *, input_name = None, inputs = None, threads = None, fast_math = false))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        input_name: Option<String>,
        inputs: Option<&Bound<'py, PyAny>>,
        threads: Option<usize>,
        fast_math: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fixed = read_inputs(inputs)?;
        let name = self.open_input(input_name.as_deref(), &fixed)?;
        // NaNs are refused group by group as the rows run (below), not in a pass of their own.
        let input = read_rows(x, "x")?;
        let (single, width) = match input.shape.as_slice() {
            [width] => (true, *width),
            [_, width] => (false, *width),
            shape => {
                return Err(usage(format!(
                    "x has {} dimensions (shape {shape:?}): expected one row (d,) or rows (n, d)",
                    shape.len()
                )));
            }
        };
        if let Some((declared, len)) = self.program.declared_input()
            && len != width
        {
            return Err(usage(format!(
                "x has rows of {width} elements, but the network's input `{declared}` has {len}"
            )));
        }
        let batch = self.batch(&name, width, &fixed)?;
        let rows = input.values();
        check_threads(threads).or_raise()?;
        // One row has nothing to share: it runs on this thread, not handed to a pool and back.
        let threads = if rows.len() <= width { None } else { threads };
        let options = ValuesOptions { fast_math, refuse_nan: true };
        let values = py.detach(|| in_pool(threads, || batch.run_values(rows, options))).or_raise()?;
        let values = values.map_err(|failure| {
            if let (Some(row), Some(element)) = (failure.row, failure.nan_element) {
                return nan_error("x", row * width + element, &input.shape);
            }
            let mut error = failure.error;
            if let (Some(row), false) = (failure.row, single) {
                error.message = format!("row {row}: {}", error.message);
            }
            to_py(error)
        })?;
        rows_array(py, values, single)
    }

    fn __repr__(&self) -> String {
        match self.program.declared_input() {
            Some((name, len)) => format!("<knn.Network {} ({name}: {len} inputs)>", self.program.source().name),
            None => format!("<knn.Network {}>", self.program.source().name),
        }
    }
}
