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

/// Writes a C-order `.npy` array of f64 (`<f8`).
pub fn write_npy_f64(path: &Path, shape: &[usize], data: &[f64]) -> Result<(), NpyError> {
    write_npy(path, shape, data)
}

/// Writes a C-order `.npy` array of f32 (`<f4`).
pub fn write_npy_f32(path: &Path, shape: &[usize], data: &[f32]) -> Result<(), NpyError> {
    write_npy(path, shape, data)
}

/// Writes a C-order `.npy` array of i64 (`<i8`).
pub fn write_npy_i64(path: &Path, shape: &[usize], data: &[i64]) -> Result<(), NpyError> {
    write_npy(path, shape, data)
}

fn write_npy<T: npyz::AutoSerialize + npyz::Serialize>(
    path: &Path,
    shape: &[usize],
    data: &[T],
) -> Result<(), NpyError> {
    use npyz::WriterBuilder;
    let fail = |e: std::io::Error| NpyError { path: path.to_path_buf(), message: format!("cannot write: {e}") };
    let file = std::fs::File::create(path).map_err(fail)?;
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&shape)
        .writer(std::io::BufWriter::new(file))
        .begin_nd()
        .map_err(fail)?;
    writer.extend(data.iter()).map_err(fail)?;
    writer.finish().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_arrays_read_back() {
        let dir = std::env::temp_dir().join(format!("knn-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.npy");
        write_npy_f64(&path, &[2, 3], &[1.0, -2.5, 0.0, f64::INFINITY, 5.0, 6.0]).unwrap();
        let array = read_npy(&path).unwrap();
        assert_eq!(array.shape, vec![2, 3]);
        assert_eq!(array.data, vec![1.0, -2.5, 0.0, f64::INFINITY, 5.0, 6.0]);
        let ints = dir.join("i.npy");
        write_npy_i64(&ints, &[3], &[0, 2, -1]).unwrap();
        assert!(read_npy(&ints).unwrap_err().message.contains("float64 or float32"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
