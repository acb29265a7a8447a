//! Arrays in and out of the library as NumPy `.npy` files: inputs read (a batch's rows, a
//! ball's centre) with their errors sorted by whose fault they are, and a batch's results
//! written as one array.

use std::io::Write;
use std::path::Path;

use knn_semantics::engine::Observed;
use knn_semantics::memory;

use super::batch::RowValues;
use super::error::KnnError;
use knn_engine::bigstep::RowResult;
use knn_formats::npy::{read_npy, write_npy_f32, write_npy_f64, write_npy_i64};

pub use knn_formats::npy::Array;

/// Reads a `.npy` file of float64 or float32 values. A well-formed file larger than the memory
/// budget is a limit (exit code 4); anything else wrong with it a usage error naming the file.
pub fn read_array(path: &Path) -> Result<Array, KnnError> {
    read_npy(path).map_err(|e| match e.too_large {
        Some(too_large) => KnnError::memory(&format!("{}:", path.display()), too_large),
        None => KnnError::usage(e.to_string()),
    })
}

/// The element type of a float array written out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatType {
    Float64,
    /// Each value rounded to the nearest float32.
    Float32,
}

/// A batch's results as one array: one row per input, floats (NaN for a failed row), class
/// indices (-1 for a failed row), or tensors as rows of their elements (NaN for a failed row).
/// Refused when the results are not dense tensors, or the array would not fit in the memory
/// budget.
pub fn results_array(results: &[RowResult]) -> Result<RowValues, KnnError> {
    let first = results.iter().find_map(|r| r.as_ref().ok());
    let width = match first {
        Some(Observed::Tensor(t)) => t.data.len(),
        Some(Observed::Malformed(why)) => {
            return Err(KnnError::usage(format!("the results are not dense tensors ({why})")));
        }
        _ => 1,
    };
    if let Err(e) = memory::check(memory::bytes_for((results.len() as u64).saturating_mul(width as u64), 8)) {
        return Err(KnnError::memory("the output array", e));
    }
    Ok(match first {
        Some(Observed::Int(_)) => {
            RowValues::Ints(results.iter().map(|r| if let Ok(Observed::Int(n)) = r { *n } else { -1 }).collect())
        }
        Some(Observed::Tensor(t)) => {
            let mut shape = vec![results.len()];
            shape.extend(&t.shape);
            let mut data = Vec::with_capacity(results.len() * width);
            for r in results {
                match r {
                    Ok(Observed::Tensor(t)) if t.data.len() == width => data.extend(&t.data),
                    _ => data.extend(std::iter::repeat_n(f64::NAN, width)),
                }
            }
            RowValues::Floats { shape, data }
        }
        _ => RowValues::Floats {
            shape: vec![results.len()],
            data: results.iter().map(|r| if let Ok(Observed::Float(x)) = r { *x } else { f64::NAN }).collect(),
        },
    })
}

impl RowValues {
    /// Writes the array as a `.npy` file: integers as int64, floats as `floats` says.
    pub fn write_npy(&self, out: &mut dyn Write, floats: FloatType) -> std::io::Result<()> {
        match self {
            RowValues::Ints(data) => write_npy_i64(out, &[data.len()], data),
            RowValues::Floats { shape, data } => match floats {
                FloatType::Float64 => write_npy_f64(out, shape, data),
                FloatType::Float32 => {
                    let narrow: Vec<f32> = data.iter().map(|&x| x as f32).collect();
                    write_npy_f32(out, shape, &narrow)
                }
            },
        }
    }
}
