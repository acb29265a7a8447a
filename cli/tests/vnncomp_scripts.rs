//! The VNN-COMP tool interface (`vnncomp_scripts/`): `prepare_instance.sh` and
//! `run_instance.sh` run as the competition's harness runs them, on the fixtures of
//! `tests/fixtures/verify/`, with this build's `knn` passed in `KNN_BIN`.

mod common;
mod verify_cli_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{stderr, stdout};
use verify_cli_support::{fc_relu, fixture, read_witness};

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vnncomp_scripts").join(name)
}

/// Runs a script directly (as the harness does: its executable bit must be set), with
/// decompressed files kept in `work`.
fn run_script(name: &str, args: &[&str], work: &Path) -> Output {
    Command::new(script(name))
        .args(args)
        .env("KNN_BIN", env!("CARGO_BIN_EXE_knn"))
        .env("KNN_VNNCOMP_WORK", work)
        .output()
        .unwrap_or_else(|e| panic!("{name} starts: {e}"))
}

/// `run_instance.sh v1 test NETWORK PROPERTY RESULTS TIMEOUT`: the results file's text.
fn run_instance(network: &str, property: &str, timeout: &str) -> (String, Output) {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.txt");
    let args = ["v1", "test", network, property, results.to_str().unwrap(), timeout];
    let out = run_script("run_instance.sh", &args, dir.path());
    assert_eq!(out.status.code(), Some(0), "{args:?}\nstdout: {}\nstderr: {}", stdout(&out), stderr(&out));
    (std::fs::read_to_string(&results).expect("a results file"), out)
}

fn gzip(from: &str, to: &Path) {
    let out = Command::new("gzip").arg("-c").arg(from).output().expect("gzip runs");
    assert!(out.status.success());
    std::fs::write(to, out.stdout).unwrap();
}

#[test]
fn run_instance_writes_unsat() {
    let (results, _) = run_instance(&fixture("fc_2-2-3.nnet"), &fixture("fc_unsat.vnnlib"), "60");
    assert_eq!(results, "unsat\n");
}

#[test]
fn run_instance_writes_sat_and_the_witness() {
    let (results, _) = run_instance(&fixture("fc_2-2-3.nnet"), &fixture("fc_sat.vnnlib"), "60");
    let witness = results.strip_prefix("sat\n").unwrap_or_else(|| panic!("{results}"));
    let (x, y) = read_witness(witness);
    assert!(x.iter().all(|v| (-1.0..=1.0).contains(v)), "{results}");
    assert_eq!(y, fc_relu([x[0], x[1]]), "{results}");
    assert!(y[1] >= y[0] && y[1] >= 0.5, "{results}");
}

#[test]
fn run_instance_reads_onnx_and_gzipped_files() {
    let dir = tempfile::tempdir().unwrap();
    let network = dir.path().join("fc_2-2sigmoids-3.onnx.gz");
    let property = dir.path().join("fc_sat.vnnlib.gz");
    gzip(&fixture("fc_2-2sigmoids-3.onnx"), &network);
    gzip(&fixture("fc_sat.vnnlib"), &property);
    let (network, property) = (network.to_str().unwrap(), property.to_str().unwrap());
    let prepared = run_script("prepare_instance.sh", &["v1", "test", network, property], dir.path());
    assert_eq!(prepared.status.code(), Some(0), "{}", stderr(&prepared));
    let (results, _) = run_instance(network, property, "60");
    // The sigmoid network's outputs are (3σ(s) − 1, 1 − 2σ(s), 2σ(s) − 1), s = X_0 + X_1.
    let (x, y) = read_witness(results.strip_prefix("sat\n").unwrap_or_else(|| panic!("{results}")));
    assert!(x.iter().all(|v| (-1.0..=1.0).contains(v)), "{results}");
    assert!(y[1] >= y[0] && y[1] >= 0.5, "{results}");
    let sigma = 1.0 / (1.0 + (-(x[0] + x[1])).exp());
    let expected = [3.0 * sigma - 1.0, 1.0 - 2.0 * sigma, 2.0 * sigma - 1.0];
    assert!(y.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-12), "{y:?} vs {expected:?}");
}

#[test]
fn run_instance_writes_timeout() {
    let (results, _) = run_instance(&fixture("fc_2-2-3.nnet"), &fixture("fc_tie.vnnlib"), "1");
    assert_eq!(results, "timeout\n");
}

#[test]
fn run_instance_writes_unknown_for_unsupported_programs_and_errors() {
    let (results, _) = run_instance(&fixture("element_write.knn"), &fixture("fc_sat.vnnlib"), "60");
    assert_eq!(results, "unknown\n");
    // knn cannot run these: the answer is unknown and knn's message is on standard error.
    let (results, out) = run_instance(&fixture("fc_2-2-3.nnet"), &fixture("missing.vnnlib"), "60");
    assert_eq!(results, "unknown\n");
    assert!(stderr(&out).contains("cannot read") && stderr(&out).contains("missing.vnnlib"), "{}", stderr(&out));
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.onnx.gz");
    std::fs::write(&garbage, "not gzip").unwrap();
    let (results, out) = run_instance(garbage.to_str().unwrap(), &fixture("fc_sat.vnnlib"), "60");
    assert_eq!(results, "unknown\n");
    assert!(stderr(&out).contains("cannot decompress"), "{}", stderr(&out));
}

#[test]
fn prepare_instance_accepts_what_knn_reads() {
    let dir = tempfile::tempdir().unwrap();
    let property = fixture("fc_sat.vnnlib");
    for network in ["fc_2-2-3.nnet", "fc_2-2sigmoids-3.onnx", "element_write.knn"] {
        let out = run_script("prepare_instance.sh", &["v1", "any_category", &fixture(network), &property], dir.path());
        assert_eq!(out.status.code(), Some(0), "{network}: {}", stderr(&out));
    }
    let torch = dir.path().join("net.pt");
    std::fs::write(&torch, "").unwrap();
    let broken = dir.path().join("broken.onnx");
    std::fs::write(&broken, "not a model").unwrap();
    let nnet = fixture("fc_2-2-3.nnet");
    for (args, message) in [
        (["v1", "test", torch.to_str().unwrap(), &property], "knn reads .onnx, .nnet and .knn networks"),
        (["v1", "test", broken.to_str().unwrap(), &property], "knn cannot import this network"),
        (["v1", "test", "missing.onnx", &property], "missing.onnx: no such file"),
        (["v1", "test", &nnet, "missing.vnnlib"], "missing.vnnlib: no such file"),
        (["v2", "test", &nnet, &property], "expected the version string 'v1'"),
    ] {
        let out = run_script("prepare_instance.sh", &args, dir.path());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn the_scripts_check_their_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_script("install_tool.sh", &["v0"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("expected the version string 'v1'"), "{}", stderr(&out));
    let out = run_script("run_instance.sh", &["v1", "test", "net.onnx"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("usage: run_instance.sh"), "{}", stderr(&out));
}
