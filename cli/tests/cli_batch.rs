//! `knn batch` and `knn run --engine big-step`: each row's result is what `knn run` gives for
//! that row; results go to standard output or to a `.npy` file; failed rows are reported with
//! their row number and the exit code says some failed.

mod common;

use std::path::PathBuf;

use common::{knn, npy_f64, stderr, stdout, temp_file};
use knn_formats::npy::read_npy;
use serde_json::Value;

fn mlp() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/mlp.knn").to_string_lossy().into_owned()
}

/// The example MLP's rows: two documented classes, a NaN (relu has no rule for it), and more.
const ROWS: [[f64; 3]; 6] =
    [[1.0, -2.0, 0.5], [0.0, 1.0, 0.0], [f64::NAN, 0.0, 0.0], [3.5, 0.25, -1.0], [-0.0, 0.0, 2.0], [1e300, 1e300, 1.0]];

fn inline(row: &[f64]) -> String {
    let items: Vec<String> = row.iter().map(|v| if v.is_nan() { "NaN".into() } else { format!("{v:?}") }).collect();
    format!("x=[{}]", items.join(", "))
}

#[test]
fn each_row_gets_what_run_gives_it() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = temp_file(dir.path(), "x.npy", &npy_f64(&[ROWS.len(), 3], &ROWS.concat()));
    let out = knn(&["batch", &mlp(), "--input", &format!("x={inputs}")], None);
    assert_eq!(out.status.code(), Some(3), "one row fails: {}", stderr(&out));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), ROWS.len());
    for (k, row) in ROWS.iter().enumerate() {
        let single = knn(&["run", &mlp(), "--input", &inline(row)], None);
        match single.status.code() {
            Some(0) => assert_eq!(lines[k], stdout(&single).trim_end(), "row {k}"),
            Some(3) => {
                assert_eq!(lines[k], "error: invalid-operands (row 2)", "row {k}");
                assert!(stderr(&out).contains(&format!("row {k}: Error: {}:15:1", mlp())), "{}", stderr(&out));
            }
            other => panic!("row {k}: run exited with {other:?}: {}", stderr(&single)),
        }
    }
    assert_eq!(&lines[..2], ["0", "1"], "the classes examples/mlp.knn documents");
    assert!(stderr(&out).contains("1 of 6 rows failed"), "{}", stderr(&out));
}

#[test]
fn results_go_to_an_npy_file_and_existing_files_need_force() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = temp_file(dir.path(), "x.npy", &npy_f64(&[2, 3], &ROWS[..2].concat()));
    let out_file = dir.path().join("classes.npy");
    let out_path = out_file.to_string_lossy().into_owned();
    let args = ["batch", &mlp(), "--input", &format!("x={inputs}"), "-o", &out_path];
    let first = knn(&args, None);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let written = std::fs::read(&out_file).unwrap();
    let npy = npyz::NpyFile::new(&written[..]).unwrap();
    assert_eq!(npy.shape(), [2]);
    assert_eq!(npy.into_vec::<i64>().unwrap(), [0, 1]);

    std::fs::write(&out_file, b"keep me").unwrap();
    let refused = knn(&args, None);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
    assert_eq!(std::fs::read(&out_file).unwrap(), b"keep me", "nothing is overwritten unasked");
    let forced = knn(&[&args[..], &["--force"]].concat(), None);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert_ne!(std::fs::read(&out_file).unwrap(), b"keep me");
}

#[test]
fn tensor_results_are_rows_of_the_output_file_and_failed_rows_are_nan() {
    let dir = tempfile::tempdir().unwrap();
    let program = temp_file(dir.path(), "relu.knn", b"let h = reluTensor(x) in h");
    let inputs = temp_file(dir.path(), "x.npy", &npy_f64(&[3, 2], &[1.5, -2.0, f64::NAN, 1.0, -0.0, 4.0]));
    let out_file = dir.path().join("h.npy");
    let out = knn(&["batch", &program, "--input", &format!("x={inputs}"), "-o", out_file.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("row 1: Error:"), "{}", stderr(&out));
    let written = read_npy(&out_file).unwrap();
    assert_eq!(written.shape, [3, 2]);
    let bits: Vec<u64> = written.data.iter().map(|v| v.to_bits()).collect();
    let expected = [1.5, 0.0, f64::NAN, f64::NAN, -0.0, 4.0].map(f64::to_bits);
    assert_eq!(bits[..2], expected[..2]);
    assert!(written.data[2].is_nan() && written.data[3].is_nan(), "the failed row");
    assert_eq!(bits[4..], expected[4..], "relu keeps -0.0 (max-left)");
}

#[test]
fn json_lists_every_row_with_its_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = temp_file(dir.path(), "x.npy", &npy_f64(&[3, 3], &ROWS[..3].concat()));
    let out = knn(&["batch", &mlp(), "--input", &format!("x={inputs}"), "--output", "json"], None);
    assert_eq!(out.status.code(), Some(3));
    let report: Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert_eq!(report["rows"], 3);
    assert_eq!(report["failed"], 1);
    let results = report["results"].as_array().unwrap();
    assert_eq!(results[0]["result"]["value"], 0);
    assert_eq!(results[1]["result"]["value"], 1);
    assert_eq!(results[2]["status"], "error");
    assert_eq!(results[2]["error"]["kind"], "invalid-operands");
    assert_eq!(results[2]["error"]["line"], 15);
    assert_eq!(results[2]["row"], 2);
}

#[test]
fn bound_inputs_fast_math_and_threads() {
    let dir = tempfile::tempdir().unwrap();
    let program = temp_file(dir.path(), "affine.knn", b"let y = linear(W, x) in y[0] + y[1]");
    let inputs = temp_file(dir.path(), "x.npy", &npy_f64(&[2, 2], &[1.0, 2.0, -1.0, 0.5]));
    let input = format!("x={inputs}");
    for extra in [&[][..], &["--fast-math"], &["--threads", "1"]] {
        let args =
            [&["batch", &program, "--input", &input, "--bind", "W=[[1.0, 2.0], [3.0, 4.0]]"][..], extra].concat();
        let out = knn(&args, None);
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", stderr(&out));
        // Row 0: (1 + 4) + (3 + 8) = 16; row 1: (-1 + 1) + (-3 + 2) = -1.
        assert_eq!(stdout(&out), "16.0\n-1.0\n", "{extra:?}");
    }
}

#[test]
fn bad_batches_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let vector = temp_file(dir.path(), "v.npy", &npy_f64(&[3], &[1.0, 2.0, 3.0]));
    let matrix = temp_file(dir.path(), "m.npy", &npy_f64(&[1, 3], &[1.0, 2.0, 3.0]));
    let cases: [(Vec<String>, &str); 4] = [
        (vec![format!("x={vector}")], "rank 2 or more"),
        (vec!["x".into()], "expected NAME=INPUTS.npy"),
        (vec![format!("x={}", dir.path().join("missing.npy").display())], "there is no file"),
        (vec![format!("x={matrix}"), "--bind".into(), "x=[1.0]".into()], "both the batched input and a --bind"),
    ];
    for (args, message) in cases {
        let mut all = vec!["batch".to_string(), mlp(), "--input".into()];
        all.extend(args);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let out = knn(&all, None);
        assert_eq!(out.status.code(), Some(1), "{all:?}");
        assert!(stderr(&out).contains(message), "{all:?}: {}", stderr(&out));
    }
}

#[test]
fn run_defaults_to_big_step_unless_an_option_needs_the_rewriting_engine() {
    // A step count is only reported by the rewriting engine.
    let steps = |args: &[&str]| -> bool {
        let out = knn(&[&["run", "-", "--output", "json"][..], args].concat(), Some("1.0 + 2.0"));
        serde_json::from_str::<Value>(&stdout(&out)).unwrap().get("steps").is_some()
    };
    assert!(!steps(&[]), "revised: big-step by default");
    assert!(steps(&["--semantics", "published"]));
    assert!(steps(&["--coverage"]));
    assert!(steps(&["--max-steps", "100"]));
    assert!(steps(&["--engine", "small-step"]));
    let refused = knn(&["run", "-", "--engine", "big-step", "--trace"], Some("1.0"));
    assert_eq!(refused.status.code(), Some(1), "an explicit big-step with --trace is a usage error");
}

#[test]
fn run_on_the_big_step_engine_agrees_with_the_reference() {
    for row in ROWS {
        let reference =
            knn(&["run", &mlp(), "--input", &inline(&row), "--output", "json", "--engine", "small-step"], None);
        let big = knn(&["run", &mlp(), "--input", &inline(&row), "--output", "json", "--engine", "big-step"], None);
        assert_eq!(big.status.code(), reference.status.code(), "{row:?}: {}", stderr(&big));
        let (r, b): (Value, Value) =
            (serde_json::from_str(&stdout(&reference)).unwrap(), serde_json::from_str(&stdout(&big)).unwrap());
        assert_eq!(b["status"], r["status"], "{row:?}");
        assert_eq!(b["result"], r["result"], "{row:?}");
        assert_eq!(b["error"]["kind"], r["error"]["kind"], "{row:?}");
    }
}

#[test]
fn dtype_float32_rounds_each_result_to_the_nearest_float32() {
    let dir = tempfile::tempdir().unwrap();
    // x * 0.1 in binary64, then rounded to float32: 0.1f64 * 3.0 = 0.30000000000000004, whose
    // nearest float32 is 0.3f32; 1e300 overflows float32 to +inf.
    let program =
        temp_file(dir.path(), "scale.knn", b"let y = initTensor(2) in let y[0] = x[0] * 0.1 in let y[1] = x[1] in y");
    let inputs = temp_file(dir.path(), "x.npy", &npy_f64(&[2, 2], &[3.0, 1e300, -0.5, 16777217.0]));
    let out_file = dir.path().join("y.npy");
    let out_path = out_file.to_string_lossy().into_owned();
    let out = knn(&["batch", &program, "--input", &format!("x={inputs}"), "-o", &out_path, "--dtype", "float32"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read(&out_file).unwrap();
    let npy = npyz::NpyFile::new(&written[..]).unwrap();
    assert_eq!(npy.shape(), [2, 2]);
    assert_eq!(npy.into_vec::<f32>().unwrap(), [0.3f32, f32::INFINITY, -0.05f32, 16777216.0f32]);

    let wrong = knn(&["batch", &program, "--input", &format!("x={inputs}"), "-o", &out_path, "--dtype", "f16"], None);
    assert_eq!(wrong.status.code(), Some(1), "{}", stderr(&wrong));
}

#[test]
fn networks_run_and_batch_straight_from_nnet_and_onnx_as_imported() {
    // `knn run NET.nnet` and `knn batch NET.onnx` give what the imported program gives.
    let dir = tempfile::tempdir().unwrap();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    for (network, input) in [("data/small/fc_2-2-3.nnet", "x"), ("data/small/fc_2-2sigmoids-3.onnx", "dense_2_input")] {
        let path = repo.join(network).to_string_lossy().into_owned();
        let program = dir.path().join("imported.knn").to_string_lossy().into_owned();
        let import = knn(&["import", &path, "-o", &program, "--force"], None);
        assert_eq!(import.status.code(), Some(0), "{}", stderr(&import));
        let x = format!("{input}=[0.25, -0.5]");
        let direct = knn(&["run", &path, "--input", &x], None);
        let via = knn(&["run", &program, "--input", &x], None);
        assert_eq!(direct.status.code(), Some(0), "{network}: {}", stderr(&direct));
        assert_eq!(stdout(&direct), stdout(&via), "{network}");
        let inputs = temp_file(dir.path(), "x.npy", &npy_f64(&[2, 2], &[0.25, -0.5, 1.0, 0.0]));
        let direct = knn(&["batch", &path, "--input", &format!("{input}={inputs}")], None);
        let via = knn(&["batch", &program, "--input", &format!("{input}={inputs}")], None);
        assert_eq!(direct.status.code(), Some(0), "{network}: {}", stderr(&direct));
        assert_eq!(stdout(&direct), stdout(&via), "{network}");
    }
}

/// Many failing rows: the first ten with the whole error, the next forty one line each, then a
/// count of the rest; every row still has its line on standard output.
#[test]
fn many_failed_rows_are_reported_in_full_then_listed_then_counted() {
    let dir = tempfile::tempdir().unwrap();
    let program = temp_file(dir.path(), "relu.knn", b"let h = reluTensor(x) in h");
    let rows: Vec<f64> = (0..70).flat_map(|k| if k % 10 == 9 { [1.0, 2.0] } else { [f64::NAN, 1.0] }).collect();
    let inputs = temp_file(dir.path(), "x.npy", &npy_f64(&[70, 2], &rows));
    let out = knn(&["batch", &program, "--input", &format!("x={inputs}")], None);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 70);
    let err = stderr(&out);
    // 63 rows fail (all but rows 9, 19, …, 69): 10 in full, 40 listed, 13 counted.
    assert_eq!(err.matches(": Error:").count(), 10, "{err}");
    assert_eq!(
        err.lines().filter(|l| l.starts_with("row ") && l.contains(": error: invalid-operands")).count(),
        40,
        "{err}"
    );
    assert!(err.contains("row 54: error: invalid-operands\n… and 13 more failed rows\n"), "{err}");
    assert!(err.contains("63 of 70 rows failed"), "{err}");
}

#[test]
fn a_batch_of_images_binds_each_row_as_an_image() {
    // A 1×2×2 image through a 1×1 convolution by 2 and a 2×2 max pool: each row's result is
    // twice its largest pixel; rows are (N, 1, 2, 2).
    let dir = tempfile::tempdir().unwrap();
    let program = temp_file(
        dir.path(),
        "cnn.knn",
        b"let w = initTensor(1, 1, 1, 1)[2.0] in let c = conv2d(x, w) in let p = maxPool2d(c, kernel = [2, 2]) in let f = flatten(p) in f",
    );
    let rows = temp_file(dir.path(), "x.npy", &npy_f64(&[2, 1, 2, 2], &[1.0, 4.0, -2.0, 3.0, -1.0, -5.0, -0.5, -3.0]));
    let out = knn(&["batch", &program, "--input", &format!("x={rows}")], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The result is `f`, a vector of one element.
    assert_eq!(stdout(&out), "[8.0]\n[-1.0]\n");
}
