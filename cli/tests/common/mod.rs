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

/// Runs knn with its address space limited to `kib` KiB (`ulimit -v`), as on a small machine or
/// a container: an allocation knn did not check first then aborts the process. `None` when knn
/// did not finish within `seconds` (it is then killed): a hang.
pub fn knn_limited(args: &[&str], kib: u64, seconds: u64) -> Option<Output> {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{}'", a.replace('\'', r"'\''"))).collect();
    let script = format!("ulimit -v {kib} && exec '{}' {}", env!("CARGO_BIN_EXE_knn"), quoted.join(" "));
    let child = Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    wait_for(child, seconds)
}

/// Runs knn, killing it after `seconds`: `None` for a hang.
pub fn knn_timed(args: &[&str], seconds: u64) -> Option<Output> {
    let child = Command::new(env!("CARGO_BIN_EXE_knn"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("knn starts");
    wait_for(child, seconds)
}

fn wait_for(mut child: std::process::Child, seconds: u64) -> Option<Output> {
    use std::io::Read;
    // The pipes are drained while knn runs: a child blocked on a full pipe is not a hang.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait works") {
            break Some(status);
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    status.map(|status| Output { status, stdout, stderr })
}
