//! numpy arrays in and out. An aligned C-ordered float64 array is read in place; float32 is
//! widened (exactly) and other layouts are copied in row-major order, by numpy. Integer,
//! complex, object and boolean arrays are refused, as are NaNs: a NaN input is almost always a
//! bug upstream, and the message names its place.

use knn::{DenseTensor, Observed, RowValues, TensorInput, first_nan};
use numpy::ndarray::{ArrayD, IxDyn};
use numpy::{
    IntoPyArray, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt};

use crate::errors::usage;

/// An input array: its shape and its elements (row-major).
pub struct Input<'py> {
    pub shape: Vec<usize>,
    /// The caller's own array when it is aligned float64 in C order, or numpy's row-major
    /// float64 copy of it.
    data: PyReadonlyArrayDyn<'py, f64>,
}

impl Input<'_> {
    /// The elements, row-major.
    pub fn values(&self) -> &[f64] {
        // `read_rows` keeps only arrays whose slice it has taken.
        self.data.as_slice().unwrap_or(&[])
    }
}

/// Reads `value` (a numpy array, or anything `numpy.asarray` takes) named `what` in messages,
/// refusing a NaN with its place.
pub fn read_array<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<Input<'py>> {
    let input = read_rows(value, what)?;
    if let Some(k) = first_nan(input.values()) {
        return Err(nan_error(what, k, &input.shape));
    }
    Ok(input)
}

/// The error for a NaN at the `k`-th element (row-major) of `what`, an array of `shape`.
pub fn nan_error(what: &str, k: usize, shape: &[usize]) -> PyErr {
    usage(format!("{what}{} is NaN", index_text(k, shape)))
}

/// [`read_array`] without the check for NaNs, for rows that the batch checks group by group as
/// it runs them (`ValuesOptions::refuse_nan`).
pub fn read_rows<'py>(value: &Bound<'py, PyAny>, what: &str) -> PyResult<Input<'py>> {
    let py = value.py();
    let array = match value.cast::<PyUntypedArray>() {
        Ok(array) => array.clone(),
        Err(_) => {
            let converted = py
                .import("numpy")?
                .getattr("asarray")?
                .call1((value,))
                .map_err(|e| usage(format!("{what} is not an array of numbers: {}", e.value(py))))?;
            converted.cast_into::<PyUntypedArray>().map_err(|_| usage(format!("{what} is not an array")))?
        }
    };
    let shape = array.shape().to_vec();
    let dtype = array.dtype();
    let is_f64 = dtype.is_equiv_to(&numpy::dtype::<f64>(py));
    if !is_f64 && !dtype.is_equiv_to(&numpy::dtype::<f32>(py)) {
        return Err(usage(format!(
            "{what} has dtype {}: expected float64 or float32 (convert with .astype(numpy.float64))",
            dtype.str()?
        )));
    }
    let in_place = |a: &Bound<'py, PyUntypedArray>| -> PyResult<Option<PyReadonlyArrayDyn<'py, f64>>> {
        let typed = a.cast::<PyArrayDyn<f64>>().map_err(|_| usage(format!("{what}: not a float64 array")))?;
        let readonly = typed.try_readonly().map_err(|e| usage(format!("{what}: {e}")))?;
        // A slice needs C order and aligned elements (a block Dask received may be unaligned).
        Ok((typed.is_c_contiguous() && readonly.as_slice().is_ok()).then_some(readonly))
    };
    let readonly = match is_f64.then(|| in_place(&array)).transpose()?.flatten() {
        Some(readonly) => readonly,
        None => {
            // float32 widened exactly, other layouts copied in row-major order, by numpy.
            let copy = py
                .import("numpy")?
                .getattr("require")?
                .call1((&array, "float64", ("C", "A")))?
                .cast_into::<PyUntypedArray>()
                .map_err(|_| usage(format!("{what} is not an array")))?;
            in_place(&copy)?.ok_or_else(|| usage(format!("{what}: numpy gave no aligned row-major copy")))?
        }
    };
    Ok(Input { shape, data: readonly })
}

/// A vector of bounds or a centre: floats, or integers (converted when exact, as a written
/// bound `0` is), named `what` in messages.
pub fn read_vector(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<f64>> {
    let py = value.py();
    let array = py
        .import("numpy")?
        .getattr("asarray")?
        .call1((value,))
        .map_err(|e| usage(format!("{what} is not an array of numbers: {}", e.value(py))))?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    if shape.len() != 1 {
        return Err(usage(format!("{what} has shape {shape:?}: expected a vector")));
    }
    if kind == "i" || kind == "u" {
        let ints: Vec<i128> = array.call_method0("tolist")?.extract()?;
        const EXACT: i128 = 1 << 53;
        return ints
            .into_iter()
            .enumerate()
            .map(|(k, n)| {
                if (-EXACT..=EXACT).contains(&n) {
                    Ok(n as f64)
                } else {
                    Err(usage(format!("{what}[{k}] = {n} is not exactly a float64: give it as a float")))
                }
            })
            .collect();
    }
    Ok(read_array(&array, what)?.values().to_vec())
}

/// `[i, j]` of the `k`-th element (row-major) of an array of `shape`.
fn index_text(mut k: usize, shape: &[usize]) -> String {
    let mut index = vec![0; shape.len()];
    for (slot, &d) in index.iter_mut().zip(shape).rev() {
        if d > 0 {
            *slot = k % d;
            k /= d;
        }
    }
    let parts: Vec<String> = index.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// The `inputs={name: array}` of a call, as the engine's inputs.
pub fn read_inputs(inputs: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<TensorInput>> {
    let Some(inputs) = inputs else { return Ok(Vec::new()) };
    let dict = inputs.cast::<pyo3::types::PyDict>().map_err(|_| usage("inputs: expected a dict of name to array"))?;
    let mut out = Vec::with_capacity(dict.len());
    for (name, value) in dict.iter() {
        let name: String = name.extract().map_err(|_| usage("inputs: the names must be strings"))?;
        let input = read_array(&value, &format!("inputs[{name:?}]"))?;
        if input.shape.is_empty() {
            return Err(usage(format!("inputs[{name:?}] is a scalar: knn binds tensors (wrap it: [{name}])")));
        }
        let data = input.values().to_vec();
        out.push(TensorInput { name, shape: input.shape, data });
    }
    Ok(out)
}

/// A dense tensor as a float64 array of its shape (no copy of the elements).
pub fn tensor_array<'py>(py: Python<'py>, tensor: DenseTensor) -> PyResult<Bound<'py, PyAny>> {
    let array = ArrayD::from_shape_vec(IxDyn(&tensor.shape), tensor.data)
        .map_err(|e| usage(format!("a tensor whose shape does not fit its elements: {e}")))?;
    Ok(array.into_pyarray(py).into_any())
}

/// A value as Python: a float, an int, or an array.
pub fn observed<'py>(py: Python<'py>, value: &Observed) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(Some(match value {
        Observed::Float(x) => PyFloat::new(py, *x).into_any(),
        Observed::Int(n) => PyInt::new(py, *n).into_any(),
        Observed::Tensor(t) => tensor_array(py, t.clone())?,
        Observed::Malformed(_) => return Ok(None),
    }))
}

/// Every row's value as one array, without copying the elements: `(n, *shape)` float64 or
/// `(n,)` of classes (int64) or floats; for one row given as a vector (`single`), its value
/// alone (a float, an int, or an array of the row's shape).
pub fn rows_array(py: Python<'_>, values: RowValues, single: bool) -> PyResult<Bound<'_, PyAny>> {
    match values {
        RowValues::Ints(classes) if single && !classes.is_empty() => Ok(PyInt::new(py, classes[0]).into_any()),
        RowValues::Ints(classes) => Ok(classes.into_pyarray(py).into_any()),
        RowValues::Floats { shape, data } if single && !data.is_empty() && shape.len() == 1 => {
            Ok(PyFloat::new(py, data[0]).into_any())
        }
        RowValues::Floats { mut shape, data } => {
            if single && !data.is_empty() {
                shape.remove(0);
            }
            tensor_array(py, DenseTensor { shape, data })
        }
    }
}
