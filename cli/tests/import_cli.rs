//! `knn import` on the command line: from a model file to `knn run` and `knn batch`, the output
//! file rules (`-o -`, `--force`), renames, and exit code 1 with a located message for every
//! malformed model, never a panic.

mod common;
#[path = "../../formats/tests/import_support/mod.rs"]
mod import_support;

use std::path::Path;

use common::{knn, npy_f64, stderr, stdout, temp_file};
use import_support::{Reference, Stream, data, read_data};
use knn_formats::import::{Format, ImportOptions, import_file};
use knn_formats::npy::read_npy;

fn path_str(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[test]
fn an_acas_network_goes_from_nnet_to_batch() {
    let dir = tempfile::tempdir().unwrap();
    let model = data("acasxu/ACASXU_experimental_v2a_2_3.nnet");
    let net = dir.path().join("acas.knn");
    let imported = knn(&["import", &path_str(&model), "-o", &path_str(&net)], None);
    assert_eq!(imported.status.code(), Some(0), "{}", stderr(&imported));
    assert!(stderr(&imported).contains("5 -> 50 -> 50 -> 50 -> 50 -> 50 -> 50 -> 5"), "{}", stderr(&imported));
    let text = std::fs::read_to_string(&net).unwrap();
    assert!(text.starts_with("// Imported by `knn import` from "), "{text:.200}");

    let reference = Reference::read(&model);
    let mut stream = Stream(9);
    let rows: Vec<Vec<f64>> = (0..4).map(|_| reference.normalise(&reference.raw_input(&mut stream))).collect();
    let inputs = temp_file(dir.path(), "points.npy", &npy_f64(&[4, 5], &rows.concat()));
    let scores = dir.path().join("scores.npy");
    let batch = knn(&["batch", &path_str(&net), "--input", &format!("x={inputs}"), "-o", &path_str(&scores)], None);
    assert_eq!(batch.status.code(), Some(0), "{}", stderr(&batch));
    let written = read_npy(&scores).unwrap();
    assert_eq!(written.shape, vec![4, 5]);
    for (k, row) in rows.iter().enumerate() {
        let expected: Vec<u64> = reference.dense(row).iter().map(|v| v.to_bits()).collect();
        let got: Vec<u64> = written.data[5 * k..5 * k + 5].iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, expected, "row {k}");
    }

    // One input with `knn run`, on each engine: the same vector.
    let inline = format!("x=[{}]", rows[0].iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", "));
    let big = knn(&["run", &path_str(&net), "--input", &inline], None);
    let small = knn(&["run", &path_str(&net), "--input", &inline, "--engine", "small-step"], None);
    assert_eq!(big.status.code(), Some(0), "{}", stderr(&big));
    assert_eq!(stdout(&big), stdout(&small));
    assert!(stdout(&big).starts_with('['), "{}", stdout(&big));
}

#[test]
fn existing_files_are_kept_unless_forced_and_dash_is_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let model = path_str(&data("small/fc_2-2-3.nnet"));
    let net = temp_file(dir.path(), "net.knn", b"keep me");
    let refused = knn(&["import", &model, "-o", &net], None);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("exists; pass --force"), "{}", stderr(&refused));
    assert_eq!(std::fs::read(&net).unwrap(), b"keep me");

    let forced = knn(&["import", &model, "-o", &net, "--force"], None);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    let text = std::fs::read_to_string(&net).unwrap();
    let to_stdout = knn(&["import", &model, "-o", "-"], None);
    assert_eq!(to_stdout.status.code(), Some(0));
    assert_eq!(stdout(&to_stdout), text);

    // fc_2-2-3: relu(x0 + x1), relu(-x0 - x1), then [2a - b, -a + b, a - b].
    let run = knn(&["run", &net, "--input", "x=[1.0, 2.0]"], None);
    assert_eq!(stdout(&run).trim(), "[6.0, -3.0, 3.0]", "{}", stderr(&run));
}

#[test]
fn names_can_be_chosen() {
    let model = path_str(&data("small/fc_2-2sigmoids-3.onnx"));
    let out = knn(&["import", &model, "-o", "-"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("linear(W0, dense_2_input)"), "the graph's input name");
    let renamed = knn(&["import", &model, "-o", "-", "--input-name", "x", "--output-name", "scores"], None);
    let text = stdout(&renamed);
    assert!(text.contains("linear(W0, x)") && text.trim_end().ends_with("\nscores"), "{text}");
    for (flags, message) in [
        (["--input-name", "let"], "not a K-NN identifier"),
        (["--input-name", "W0"], "taken by the program's own tensors"),
        (["--output-name", "dense_2_input"], "both named `dense_2_input`"),
    ] {
        let bad = knn(&[&["import", model.as_str(), "-o", "-"][..], &flags].concat(), None);
        assert_eq!(bad.status.code(), Some(1), "{flags:?}");
        assert!(stderr(&bad).contains(message), "{flags:?}: {}", stderr(&bad));
    }
}

#[test]
fn malformed_models_are_located_errors_with_exit_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let small = String::from_utf8(read_data("small/fc_2-2-3.nnet")).expect("fc_2-2-3.nnet is text");
    let bad_number = temp_file(dir.path(), "bad.nnet", small.replace("2.0,-1.0,", "2.0,x1,").as_bytes());
    let cut = temp_file(dir.path(), "cut.nnet", &small.as_bytes()[..small.len() / 2]);
    let onnx = read_data("acasxu/ACASXU_experimental_v2a_1_1.onnx");
    let cut_onnx = temp_file(dir.path(), "cut.onnx", &onnx[..onnx.len() / 2]);
    let garbage = temp_file(dir.path(), "garbage.onnx", b"\x08\x07 this is not protobuf \xff\xff\xff");
    let text = temp_file(dir.path(), "model.txt", b"7,5,5,fifty");
    let cases = [
        (
            bad_number.clone(),
            vec![],
            format!("{bad_number}:13:5: `x1` is not a number (the weights of layer 1, neuron 0)"),
        ),
        (cut.clone(), vec![], format!("{cut}:")),
        (cut_onnx, vec![], "not a valid ONNX model".into()),
        (garbage, vec![], "not a valid ONNX model".into()),
        (text.clone(), vec![], "unknown model format".into()),
        (text, vec!["--format", "nnet"], "is not a non-negative integer".into()),
        (path_str(&dir.path().join("missing.nnet")), vec![], "cannot read the file".into()),
        (
            path_str(&data("small/fc_2-2sigmoids-3.onnx")),
            vec!["--normalize"],
            "--normalize applies to .nnet files only".into(),
        ),
    ];
    for (model, flags, message) in cases {
        let out = knn(&[&["import", model.as_str(), "-o", "-"][..], &flags].concat(), None);
        assert_eq!(out.status.code(), Some(1), "{model}: {}", stderr(&out));
        assert!(stderr(&out).contains(&message), "{model}: expected `{message}` in {}", stderr(&out));
        assert!(stdout(&out).is_empty());
    }
}

#[test]
fn no_prefix_of_a_model_file_panics() {
    let dir = tempfile::tempdir().unwrap();
    for (name, format) in [("small/fc_2-2-3.nnet", Format::Nnet), ("small/fc_2-2sigmoids-3.onnx", Format::Onnx)] {
        let bytes = read_data(name);
        let path = dir.path().join("prefix");
        let mut imported = 0;
        for end in 0..bytes.len() {
            std::fs::write(&path, &bytes[..end]).unwrap();
            // A prefix either fails with a message or (for a cut that happens to be a
            // complete message) imports; it never panics.
            match import_file(&path, Some(format), &ImportOptions::default()) {
                Ok(_) => imported += 1,
                Err(e) => assert!(!e.message.is_empty()),
            }
        }
        assert!(imported < bytes.len() / 4, "{name}: most prefixes are refused ({imported})");
        let mut flipped = bytes.clone();
        for k in (0..flipped.len()).step_by(7) {
            flipped[k] ^= 0x5a;
            std::fs::write(&path, &flipped).unwrap();
            let _ = import_file(&path, Some(format), &ImportOptions::default());
        }
    }
}

/// An ONNX convolutional network (formats/tests/data/conv): imported, then run with its
/// `(C, H, W)` input from a `.npy` file on both engines, bit for bit the script's reference.
#[test]
fn a_conv_network_goes_from_onnx_to_run_with_a_rank_3_input() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../formats/tests/data/conv");
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("conv.knn");
    let model = fixtures.join("conv_relu_conv.onnx");
    let imported = knn(&["import", &path_str(&model), "-o", &path_str(&net)], None);
    assert_eq!(imported.status.code(), Some(0), "{}", stderr(&imported));
    assert!(stderr(&imported).contains("2×8×8 -> 4×8×8 -> 3×3×3"), "{}", stderr(&imported));
    let input = format!("input={}", path_str(&fixtures.join("conv_relu_conv.input.npy")));
    let expected = read_npy(&fixtures.join("conv_relu_conv.expected.npy")).unwrap();
    for engine in ["big-step", "small-step"] {
        let out = knn(&["run", &path_str(&net), "--engine", engine, "--input", &input], None);
        assert_eq!(out.status.code(), Some(0), "{engine}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.starts_with("[[["), "{text}");
        let printed: Vec<u64> = text
            .split(|c: char| matches!(c, '[' | ']' | ',') || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse::<f64>().unwrap().to_bits())
            .collect();
        let bits: Vec<u64> = expected.data.iter().map(|x| x.to_bits()).collect();
        assert_eq!(printed, bits, "{engine}");
    }
    // A vector where the program expects an image is the program's shape error.
    let flat = temp_file(dir.path(), "flat.npy", &npy_f64(&[128], &[0.5; 128]));
    let out = knn(&["run", &path_str(&net), "--input", &format!("input={flat}")], None);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("shape-mismatch"), "{}", stderr(&out));
}
