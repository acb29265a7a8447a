//! Helpers of the command-line tests: run the `knn` binary, write input files.
#![allow(dead_code, reason = "each test file uses its own subset")]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

pub fn knn(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_knn"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("knn starts");
    if let Some(text) = stdin {
        // knn may exit before reading its input (a bad flag): a broken pipe is not a failure.
        let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("knn finishes")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn temp_file(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

/// A version 1.0 `.npy` file with the given dtype, shape and raw little-endian data.
pub fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes.extend(data);
    bytes
}

/// A float64 `.npy` file of the given shape.
pub fn npy_f64(shape: &[usize], values: &[f64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    npy_bytes("<f8", &shape, &values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())
}
