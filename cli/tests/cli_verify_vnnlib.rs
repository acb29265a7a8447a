//! `knn verify --vnnlib` with `--results` (the VNN-COMP results format) and `--instances`
//! (instance lists and results CSVs), on the fixtures of `tests/fixtures/verify/` (their
//! README and comments say why each answer is what it is).

mod common;
mod verify_cli_support;

use std::path::{Path, PathBuf};

use common::temp_file;
use verify_cli_support::{fc_relu, fixture, read_witness, verify_exit};

fn copy_fixture(dir: &Path, name: &str) {
    std::fs::copy(fixture(name), dir.join(name)).unwrap();
}

#[test]
fn a_property_that_holds_writes_unsat() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.txt");
    let results = results.to_str().unwrap();
    for network in ["fc_2-2-3.nnet", "fc_2-2sigmoids-3.onnx"] {
        let args = [&fixture(network), "--vnnlib", &fixture("fc_unsat.vnnlib"), "--results", results, "--quiet"];
        let (out, _) = verify_exit(&args, 0);
        assert!(out.starts_with("holds: no input of the region reaches an unsafe output"), "{network}: {out}");
        assert_eq!(std::fs::read_to_string(results).unwrap(), "unsat\n", "{network}");
    }
}

#[test]
fn a_violated_property_writes_sat_and_a_witness() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.txt");
    let results = results.to_str().unwrap();
    let args = [&fixture("fc_2-2-3.nnet"), "--vnnlib", &fixture("fc_sat.vnnlib"), "--results", results];
    let (out, _) = verify_exit(&args, 10);
    assert!(out.starts_with("violated: the output is unsafe (case 0;"), "{out}");
    let text = std::fs::read_to_string(results).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("sat"));
    let witness: Vec<&str> = lines.collect();
    // One pair a line: ((X_0 …) / (X_1 …) / (Y_0 …) … (Y_2 …)).
    assert_eq!(witness.len(), 5, "{text}");
    assert!(witness[0].starts_with("((X_0 ") && witness[1].starts_with(" (X_1 "), "{text}");
    assert!(witness[4].starts_with(" (Y_2 ") && witness[4].ends_with("))"), "{text}");
    let (x, y) = read_witness(&witness.join("\n"));
    assert!(x.iter().all(|v| (-1.0..=1.0).contains(v)), "{text}");
    assert_eq!(y, fc_relu([x[0], x[1]]), "{text}");
    assert!(y[1] >= y[0] && y[1] >= 0.5, "{text}");
}

#[test]
fn a_timeout_writes_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.txt");
    let results = results.to_str().unwrap();
    let args =
        [&fixture("fc_2-2-3.nnet"), "--vnnlib", &fixture("fc_tie.vnnlib"), "--timeout", "1", "--results", results];
    let (out, _) = verify_exit(&args, 11);
    assert!(out.starts_with("unknown: timeout"), "{out}");
    assert_eq!(std::fs::read_to_string(results).unwrap(), "timeout\n");
}

#[test]
fn vnnlib_syntax_errors_name_their_place_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    // Line 2 opens a parenthesis that the file never closes.
    let unclosed = temp_file(dir.path(), "unclosed.vnnlib", b"(declare-const X_0 Real)\n(assert (<= X_0 1.0)\n");
    let results = dir.path().join("results.txt");
    let results = results.to_str().unwrap();
    let (_, err) = verify_exit(&[&fixture("fc_2-2-3.nnet"), "--vnnlib", &unclosed, "--results", results], 2);
    assert!(err.contains("unclosed.vnnlib:2:1"), "{err}");
    assert!(!Path::new(results).exists(), "no answer, no results file");
    // `<==` starts at column 10 of line 3.
    let operator = temp_file(
        dir.path(),
        "operator.vnnlib",
        b"(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<== X_0 1.0))\n",
    );
    let (_, err) = verify_exit(&[&fixture("fc_2-2-3.nnet"), "--vnnlib", &operator], 2);
    assert!(err.contains("operator.vnnlib:3:10") && err.contains("<=="), "{err}");
    let (_, err) = verify_exit(&[&fixture("fc_2-2-3.nnet"), "--vnnlib", "missing.vnnlib"], 1);
    assert!(err.contains("cannot read missing.vnnlib"), "{err}");
}

#[test]
fn a_property_that_does_not_fit_the_network_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let two_outputs = temp_file(
        dir.path(),
        "two.vnnlib",
        b"(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n\
          (assert (>= X_0 0.0))\n(assert (<= X_0 1.0))\n(assert (>= X_1 0.0))\n(assert (<= X_1 1.0))\n\
          (assert (>= Y_0 Y_1))\n",
    );
    let (_, err) = verify_exit(&[&fixture("fc_2-2-3.nnet"), "--vnnlib", &two_outputs], 1);
    assert!(err.contains("the property has 2 outputs but the program's result has 3"), "{err}");
    let one_input = temp_file(
        dir.path(),
        "one.vnnlib",
        b"(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (>= X_0 0.0))\n(assert (<= X_0 1.0))\n\
          (assert (>= Y_0 0.0))\n",
    );
    let (_, err) = verify_exit(&[&fixture("fc_2-2-3.nnet"), "--vnnlib", &one_input], 1);
    assert!(err.contains("has 2 elements, but") && err.contains("one.vnnlib declares 1 inputs X_i"), "{err}");
}

/// A folder with the fixtures in `nets/` and `props/` and an instance list naming them.
fn instance_folder(list: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (sub, names) in [
        ("nets", &["fc_2-2-3.nnet", "fc_2-2sigmoids-3.onnx", "element_write.knn"][..]),
        ("props", &["fc_unsat.vnnlib", "fc_sat.vnnlib"][..]),
    ] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
        for name in names {
            copy_fixture(&dir.path().join(sub), name);
        }
    }
    temp_file(dir.path(), "instances.csv", list.as_bytes());
    dir
}

const LIST: &str = "# network,property,timeout\n\
    nets/fc_2-2-3.nnet,props/fc_unsat.vnnlib,10\n\
    nets/fc_2-2sigmoids-3.onnx,props/fc_sat.vnnlib,10\n\
    nets/element_write.knn,props/fc_sat.vnnlib,10\n";

/// The answer column of a results CSV, after checking its header and its other columns.
fn answers(csv: &str, instances: &[(&str, &str)]) -> Vec<String> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("network,property,answer,seconds,proved_share"), "{csv}");
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), instances.len(), "{csv}");
    for (row, (network, property)) in rows.iter().zip(instances) {
        assert_eq!(row.len(), 5, "{csv}");
        assert_eq!((row[0], row[1]), (*network, *property), "{csv}");
        assert!(row[3].parse::<f64>().is_ok_and(|s| s >= 0.0), "{csv}");
        // The proved share: a fraction, or nothing when the instance could not be run.
        let share_ok = match row[2] {
            "error" => row[4].is_empty(),
            _ => row[4].parse::<f64>().is_ok_and(|s| (0.0..=1.0).contains(&s)),
        };
        assert!(share_ok, "{csv}");
    }
    rows.iter().map(|row| row[2].to_string()).collect()
}

#[test]
fn instance_lists_give_a_results_csv_and_a_summary() {
    let dir = instance_folder(LIST);
    let list = dir.path().join("instances.csv");
    let out = dir.path().join("results.csv");
    let (stdout, err) = verify_exit(&["--instances", list.to_str().unwrap(), "-o", out.to_str().unwrap()], 0);
    assert_eq!(stdout, "");
    let instances = [
        ("nets/fc_2-2-3.nnet", "props/fc_unsat.vnnlib"),
        ("nets/fc_2-2sigmoids-3.onnx", "props/fc_sat.vnnlib"),
        ("nets/element_write.knn", "props/fc_sat.vnnlib"),
    ];
    let csv = std::fs::read_to_string(&out).unwrap();
    assert_eq!(answers(&csv, &instances), ["holds", "violated", "unknown:unsupported"]);
    // The summary: a line per property and the total (holds, violated, unknown, errors).
    let summary: Vec<Vec<&str>> = err.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(summary[0][..5], ["property", "holds", "violated", "unknown", "errors"], "{err}");
    assert_eq!(summary[1][..5], ["props/fc_sat.vnnlib", "0", "1", "1", "0"], "{err}");
    assert_eq!(summary[2][..5], ["props/fc_unsat.vnnlib", "1", "0", "0", "0"], "{err}");
    assert_eq!(summary[3][..5], ["total", "1", "1", "1", "0"], "{err}");

    // An existing results file is kept unless --force is given.
    std::fs::write(&out, "precious\n").unwrap();
    let (_, err) = verify_exit(&["--instances", list.to_str().unwrap(), "-o", out.to_str().unwrap()], 1);
    assert!(err.contains("exists; pass --force"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious\n");
    verify_exit(&["--instances", list.to_str().unwrap(), "-o", out.to_str().unwrap(), "--force"], 0);
    assert_eq!(answers(&std::fs::read_to_string(&out).unwrap(), &instances).len(), 3);

    // Without -o the CSV goes to standard output.
    let (stdout, _) = verify_exit(&["--instances", list.to_str().unwrap()], 0);
    assert_eq!(answers(&stdout, &instances), ["holds", "violated", "unknown:unsupported"]);
}

#[test]
fn instance_paths_may_be_relative_to_another_root() {
    let dir = tempfile::tempdir().unwrap();
    let list = temp_file(dir.path(), "list.csv", b"fc_2-2-3.nnet,fc_sat.vnnlib,10\nfc_2-2-3.nnet,fc_unsat.vnnlib,10\n");
    let root = fixture("");
    let (stdout, _) = verify_exit(&["--instances", &list, "--root", &root], 0);
    let instances = [("fc_2-2-3.nnet", "fc_sat.vnnlib"), ("fc_2-2-3.nnet", "fc_unsat.vnnlib")];
    assert_eq!(answers(&stdout, &instances), ["violated", "holds"]);
}

#[test]
fn instances_that_cannot_run_are_errors_and_the_list_exits_11() {
    let dir = instance_folder(
        "nets/fc_2-2-3.nnet,props/fc_unsat.vnnlib,10\nnets/missing.nnet,props/fc_unsat.vnnlib,10\n\
         nets/fc_2-2-3.nnet,props/missing.vnnlib,10\n",
    );
    let list = dir.path().join("instances.csv");
    let (stdout, err) = verify_exit(&["--instances", list.to_str().unwrap()], 11);
    let instances = [
        ("nets/fc_2-2-3.nnet", "props/fc_unsat.vnnlib"),
        ("nets/missing.nnet", "props/fc_unsat.vnnlib"),
        ("nets/fc_2-2-3.nnet", "props/missing.vnnlib"),
    ];
    assert_eq!(answers(&stdout, &instances), ["holds", "error", "error"]);
    assert!(err.contains("error: nets/missing.nnet,props/fc_unsat.vnnlib:"), "{err}");
    assert!(err.contains("error: nets/fc_2-2-3.nnet,props/missing.vnnlib: cannot read"), "{err}");
    // Errors are counted as errors, not as unknowns.
    let total: Vec<&str> = err.lines().last().unwrap().split_whitespace().collect();
    assert_eq!(total[..5], ["total", "1", "0", "0", "2"], "{err}");
}

#[test]
fn an_instance_out_of_time_is_unknown_and_its_seconds_are_summed() {
    // fc_tie.vnnlib is never decided (fixtures README): each instance runs out of its 0.3 s.
    let dir =
        instance_folder("nets/fc_2-2-3.nnet,props/fc_tie.vnnlib,0.3\nnets/fc_2-2-3.nnet,props/fc_tie.vnnlib,0.3\n");
    copy_fixture(&dir.path().join("props"), "fc_tie.vnnlib");
    let list = dir.path().join("instances.csv");
    let (stdout, err) = verify_exit(&["--instances", list.to_str().unwrap()], 0);
    let instances = [("nets/fc_2-2-3.nnet", "props/fc_tie.vnnlib"); 2];
    assert_eq!(answers(&stdout, &instances), ["unknown:timeout", "unknown:timeout"]);
    let total: Vec<&str> = err.lines().last().unwrap().split_whitespace().collect();
    assert_eq!(total[..5], ["total", "0", "0", "2", "0"], "{err}");
    let seconds: f64 = total[5].parse().unwrap();
    // Each search stops a tenth of its 0.3 s early, so that the answer is out by then.
    assert!((0.54..60.0).contains(&seconds), "two instances of 0.3 s: {err}");
}

#[test]
fn malformed_instance_lists_name_the_line() {
    for (list, message) in [
        (
            "nets/fc_2-2-3.nnet,props/fc_sat.vnnlib,10\nnets/fc_2-2-3.nnet,props/fc_sat.vnnlib\n",
            ":2: expected network,property,timeout",
        ),
        ("\n# a comment\nnets/fc_2-2-3.nnet,props/fc_sat.vnnlib,soon\n", ":3: `soon` is not a timeout in seconds"),
        ("nets/fc_2-2-3.nnet,props/fc_sat.vnnlib,0\n", ":1: `0` is not a timeout in seconds"),
    ] {
        let dir = instance_folder(list);
        let path = dir.path().join("instances.csv");
        let out = dir.path().join("results.csv");
        let (_, err) = verify_exit(&["--instances", path.to_str().unwrap(), "-o", out.to_str().unwrap()], 1);
        assert!(err.contains(&format!("instances.csv{message}")), "{err}");
        assert!(!out.exists());
    }
    let (_, err) = verify_exit(&["--instances", "missing.csv"], 1);
    assert!(err.contains("cannot read missing.csv"), "{err}");
    let (_, err) = verify_exit(&["--instances", "missing.csv", &fixture("fc_2-2-3.nnet")], 1);
    assert!(err.contains("give no NET"), "{err}");
}

#[test]
fn a_residual_network_is_verified_both_ways() {
    // formats/tests/data/residual/resnet_block.onnx (conv → relu → conv, plus the block's
    // input): around its fixture input, whose class (onnxruntime's expected output's largest)
    // stays the same on a box of ±1e-6, and is not any other class at the input itself.
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../formats/tests/data/residual");
    let x = knn_formats::npy::read_npy(&data.join("resnet_block.input.npy")).unwrap().data;
    let y = knn_formats::npy::read_npy(&data.join("resnet_block.expected.npy")).unwrap().data;
    let class = (0..y.len()).fold(0, |best, k| if y[k] > y[best] { k } else { best });
    let property = |radius: f64, unsafe_when: String| {
        let mut text = String::new();
        for (i, v) in x.iter().enumerate() {
            text += &format!(
                "(declare-const X_{i} Real)\n(assert (>= X_{i} {:?}))\n(assert (<= X_{i} {:?}))\n",
                v - radius,
                v + radius
            );
        }
        for k in 0..y.len() {
            text += &format!("(declare-const Y_{k} Real)\n");
        }
        text + &format!("(assert {unsafe_when})\n")
    };
    let others: Vec<String> =
        (0..y.len()).filter(|&k| k != class).map(|k| format!("(and (>= Y_{k} Y_{class}))")).collect();
    let wins: Vec<String> = (0..y.len()).filter(|&k| k != class).map(|k| format!("(>= Y_{class} Y_{k})")).collect();
    let dir = tempfile::tempdir().unwrap();
    let model = data.join("resnet_block.onnx");
    for (name, text, code, answer) in [
        ("robust.vnnlib", property(1e-6, format!("(or {})", others.join(" "))), 0, "unsat"),
        ("class.vnnlib", property(1e-9, format!("(and {})", wins.join(" "))), 10, "sat"),
    ] {
        let vnnlib = temp_file(dir.path(), name, text.as_bytes());
        let results = dir.path().join(format!("{name}.txt"));
        let args = [model.to_str().unwrap(), "--vnnlib", &vnnlib, "--results", results.to_str().unwrap()];
        let (out, _) = verify_exit(&args, code);
        let written = std::fs::read_to_string(results).unwrap();
        assert_eq!(written.lines().next(), Some(answer), "{name}: {out}");
    }
}
