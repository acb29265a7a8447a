//! `.npy` arrays of `float64` or `float32`, C order (NumPy's `np.save`).

use std::fmt;
use std::path::{Path, PathBuf};

use npyz::{DType, NpyFile, Order, TypeChar};

/// A dense row-major array of f64 (f32 files are widened exactly).
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

#[derive(Debug)]
pub struct NpyError {
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for NpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for NpyError {}

/// Reads a `.npy` file of float64 or float32 values.
pub fn read_npy(path: &Path) -> Result<Array, NpyError> {
    let fail = |message: String| NpyError { path: path.to_path_buf(), message };
    let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read the file: {e}")))?;
    let npy = NpyFile::new(&bytes[..]).map_err(|e| fail(format!("not a valid .npy file: {e}")))?;
    if npy.order() != Order::C {
        return Err(fail("the array is in Fortran order; save it in C order (np.ascontiguousarray)".into()));
    }
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let width = match npy.dtype() {
        DType::Plain(ts) if ts.type_char() == TypeChar::Float => ts.size_field(),
        other => {
            return Err(fail(format!("the array holds `{}`; knn reads float64 or float32 arrays", other.descr())));
        }
    };
    let data: Vec<f64> = match width {
        8 => npy.into_vec::<f64>(),
        4 => npy.into_vec::<f32>().map(|v| v.into_iter().map(f64::from).collect()),
        _ => {
            return Err(fail(format!("float{} arrays are not supported; use float64 or float32", width * 8)));
        }
    }
    .map_err(|e| fail(format!("the data is truncated or unreadable: {e}")))?;
    let expected: usize = shape.iter().product();
    if data.len() != expected {
        return Err(fail(format!("the header promises {expected} elements but the file holds {}", data.len())));
    }
    Ok(Array { shape, data })
}
