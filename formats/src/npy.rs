//! `.npy` arrays of `float64` or `float32`, C order (NumPy's `np.save`).

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use knn_semantics::memory::{self, TooLarge};
use knn_semantics::syntax::diagnostic::escape_controls;
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
    /// Set when the file is well formed but its data would not fit in the memory budget.
    pub too_large: Option<TooLarge>,
}

impl fmt::Display for NpyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The dtype and the header come from the file: escaped, they cannot drive the terminal.
        let path = self.path.display().to_string();
        write!(f, "{}: {}", escape_controls(&path), escape_controls(&self.message))
    }
}

impl std::error::Error for NpyError {}

/// Reads a `.npy` file of float64 or float32 values.
///
/// Everything the file declares is checked against the file itself before it is believed: the
/// header's length against the bytes that follow, the shape's element count (with overflow
/// checked) against the data, which must fill the rest of the file exactly (a short file is
/// truncated, a longer one has bytes after the data), and the size against the memory budget.
pub fn read_npy(path: &Path) -> Result<Array, NpyError> {
    let fail = |message: String| NpyError { path: path.to_path_buf(), message, too_large: None };
    let size = std::fs::metadata(path).map_err(|e| fail(format!("cannot read the file: {e}")))?.len();
    // The file is read whole, then widened to f64: up to three times its size.
    if let Err(too_large) = memory::check(size.checked_mul(3)) {
        return Err(NpyError { too_large: Some(too_large), ..fail(format!("reading it {too_large}")) });
    }
    let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read the file: {e}")))?;
    parse_npy(path, &bytes)
}

/// Reads the bytes of a `.npy` file (`path` names it in errors); what [`read_npy`] does once
/// the file is read and its size checked.
pub fn parse_npy(path: &Path, bytes: &[u8]) -> Result<Array, NpyError> {
    let fail = |message: String| NpyError { path: path.to_path_buf(), message, too_large: None };
    let (header_start, data_start) = check_preamble(bytes).map_err(&fail)?;
    check_nesting(&bytes[header_start..data_start]).map_err(&fail)?;
    if let Some(shape) = declared_shape(&bytes[header_start..data_start]) {
        let count = shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
        let Some(count) = count else {
            return Err(fail(format!("the shape {shape:?} has more than 2^64 elements")));
        };
        // The smallest element is 4 bytes: a count the data cannot hold is refused before any
        // allocation sized by it.
        let data_len = (bytes.len() - data_start) as u64;
        if count.checked_mul(4).is_none_or(|least| least > data_len) && count > 0 {
            return Err(fail(format!(
                "the header promises {count} elements (shape {shape:?}) but the file holds {data_len} bytes of data: it is truncated"
            )));
        }
    }
    let npy = NpyFile::new(bytes).map_err(|e| fail(format!("not a valid .npy file: {e}")))?;
    if npy.order() != Order::C {
        return Err(fail("the array is in Fortran order; save it in C order (np.ascontiguousarray)".into()));
    }
    let shape: Vec<usize> = npy.shape().iter().map(|&d| usize::try_from(d).unwrap_or(usize::MAX)).collect();
    let width = match npy.dtype() {
        DType::Plain(ts) if ts.type_char() == TypeChar::Float => ts.size_field(),
        other => {
            return Err(fail(format!("the array holds `{}`; knn reads float64 or float32 arrays", other.descr())));
        }
    };
    if width != 8 && width != 4 {
        return Err(fail(format!("float{} arrays are not supported; use float64 or float32", width * 8)));
    }
    let expected = npy.len();
    let data_len = (bytes.len() - data_start) as u64;
    match expected.checked_mul(width as u64) {
        Some(needed) if needed == data_len => {}
        Some(needed) if needed > data_len => {
            return Err(fail(format!(
                "the data is truncated: the header promises {expected} elements ({needed} bytes) but the file holds {data_len} bytes"
            )));
        }
        Some(needed) => {
            return Err(fail(format!(
                "the file has {} bytes after the data ({expected} elements, {needed} bytes): it is not one array as np.save writes it",
                data_len - needed
            )));
        }
        None => return Err(fail(format!("the shape {shape:?} has more bytes than 2^64"))),
    }
    let data: Vec<f64> = match width {
        8 => npy.into_vec::<f64>(),
        _ => npy.into_vec::<f32>().map(|v| v.into_iter().map(f64::from).collect()),
    }
    .map_err(|e| fail(format!("the data is truncated or unreadable: {e}")))?;
    if data.len() as u64 != expected {
        return Err(fail(format!("the header promises {expected} elements but the file holds {}", data.len())));
    }
    Ok(Array { shape, data })
}

/// The magic string, the version and the header's length (2 bytes in version 1, 4 in versions 2
/// and 3), checked against the file's length: where the header and the data start. npyz would
/// allocate a header of the declared length (up to 4 GiB) before finding the file too short.
fn check_preamble(bytes: &[u8]) -> Result<(usize, usize), String> {
    const MAGIC: &[u8] = b"\x93NUMPY";
    if bytes.len() < 10 || !bytes.starts_with(MAGIC) {
        return Err("not a valid .npy file: it does not start with \\x93NUMPY".to_string());
    }
    let (length, start) = match bytes[6] {
        1 => (u64::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10u64),
        2 | 3 if bytes.len() >= 12 => (u64::from(u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]])), 12),
        2 | 3 => return Err("the file is truncated inside its preamble".to_string()),
        major => return Err(format!("format version {major}.{} is not one knn reads (1, 2 or 3)", bytes[7])),
    };
    let end = start + length;
    if end > bytes.len() as u64 {
        return Err(format!(
            "the header declares {length} bytes but the file has only {} after the preamble: it is truncated",
            bytes.len() as u64 - start
        ));
    }
    Ok((start as usize, end as usize))
}

/// The deepest nesting of brackets in a header that knn reads. A float array's header, as
/// np.save writes it, nests two deep (`{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }`);
/// a structured dtype's descr adds two more (`[('a', '<f8')]`).
const MAX_HEADER_NESTING: usize = 4;

/// Refuses a header that nests brackets deeper than [`MAX_HEADER_NESTING`] before npyz parses
/// it: npyz's parser of Python literals takes time exponential in the nesting of unclosed
/// brackets (23 `[` took 17 s, found by fuzzing), and no array knn reads has such a header.
fn check_nesting(header: &[u8]) -> Result<(), String> {
    let mut depth = 0usize;
    let mut quote = None;
    for &b in header {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b'(' | b'[' | b'{') => {
                depth += 1;
                if depth > MAX_HEADER_NESTING {
                    return Err(format!(
                        "not a valid .npy file: its header nests brackets more than {MAX_HEADER_NESTING} deep, \
                         which no array knn reads has (a float array's header nests two)"
                    ));
                }
            }
            (None, b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The `'shape': (…)` of a header, when it reads as a tuple of integers (else npyz reports the
/// header's error). Read here because npyz multiplies the dimensions unchecked.
fn declared_shape(header: &[u8]) -> Option<Vec<u64>> {
    let text = std::str::from_utf8(header).ok()?;
    let after = &text[text.find("'shape'")? + "'shape'".len()..];
    let tuple = after.trim_start().strip_prefix(':')?.trim_start().strip_prefix('(')?;
    let inner = &tuple[..tuple.find(')')?];
    inner.split(',').map(str::trim).filter(|d| !d.is_empty()).map(|d| d.trim_end_matches('L').parse().ok()).collect()
}

/// Writes a C-order `.npy` array of f64 (`<f8`).
pub fn write_npy_f64(out: &mut dyn Write, shape: &[usize], data: &[f64]) -> std::io::Result<()> {
    write_npy(out, shape, data)
}

/// Writes a C-order `.npy` array of f32 (`<f4`).
pub fn write_npy_f32(out: &mut dyn Write, shape: &[usize], data: &[f32]) -> std::io::Result<()> {
    write_npy(out, shape, data)
}

/// Writes a C-order `.npy` array of i64 (`<i8`).
pub fn write_npy_i64(out: &mut dyn Write, shape: &[usize], data: &[i64]) -> std::io::Result<()> {
    write_npy(out, shape, data)
}

fn write_npy<T: npyz::AutoSerialize + npyz::Serialize>(
    out: &mut dyn Write,
    shape: &[usize],
    data: &[T],
) -> std::io::Result<()> {
    use npyz::WriterBuilder;
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut writer = npyz::WriteOptions::new().default_dtype().shape(&shape).writer(out).begin_nd()?;
    writer.extend(data.iter())?;
    writer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_that_nest_deeper_than_a_float_arrays_are_refused_at_once() {
        let header = |h: &str| {
            let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
            bytes.extend_from_slice(&(h.len() as u16).to_le_bytes());
            bytes.extend_from_slice(h.as_bytes());
            bytes.extend_from_slice(&1.5f64.to_le_bytes());
            bytes
        };
        let path = Path::new("h.npy");
        let plain = parse_npy(path, &header("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }\n")).unwrap();
        assert_eq!(plain.data, vec![1.5]);
        // Brackets inside a quoted string do not count.
        assert!(check_nesting(b"{'descr': '[[[[[[', 'shape': (1,)}").is_ok());
        // The fuzzer's finding: 23 unclosed brackets took npyz 17 s; 40 would take days.
        let deep = format!("{{'descr': '<f8', 'shape': (1,), {}\n", "[".repeat(40));
        let error = parse_npy(path, &header(&deep)).unwrap_err();
        assert!(error.message.contains("nests brackets more than 4 deep"), "{}", error.message);
        let five = format!("{{'descr': '<f8', 'shape': (1,), 'x': {}{}}}\n", "[".repeat(4), "]".repeat(4));
        assert!(parse_npy(path, &header(&five)).is_err());
    }

    #[test]
    fn written_arrays_read_back() {
        let dir = std::env::temp_dir().join(format!("knn-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.npy");
        let write = |path: &Path, f: &dyn Fn(&mut dyn Write) -> std::io::Result<()>| {
            let mut file = std::fs::File::create(path).unwrap();
            f(&mut file).unwrap();
        };
        write(&path, &|w| write_npy_f64(w, &[2, 3], &[1.0, -2.5, 0.0, f64::INFINITY, 5.0, 6.0]));
        let array = read_npy(&path).unwrap();
        assert_eq!(array.shape, vec![2, 3]);
        assert_eq!(array.data, vec![1.0, -2.5, 0.0, f64::INFINITY, 5.0, 6.0]);
        let ints = dir.join("i.npy");
        write(&ints, &|w| write_npy_i64(w, &[3], &[0, 2, -1]));
        assert!(read_npy(&ints).unwrap_err().message.contains("float64 or float32"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
