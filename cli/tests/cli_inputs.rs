//! Inputs on the command line: `--input` lists and `.npy` files bind exactly what the
//! equivalent `let`s would, at every rank, and malformed files are clear errors.

mod common;

use std::path::PathBuf;

use common::{knn, npy_bytes, stderr, stdout, temp_file};

fn authors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec-tests/programs/authors")
}

#[test]
fn an_input_binds_exactly_what_the_equivalent_lets_would() {
    let expected = std::fs::read_to_string(authors().join("argmax.knn.out")).unwrap();
    let out = knn(
        &["run", "-", "--semantics", "published", "--output", "config", "--input", "t=[4.0, 3.0, 7.0, 6.0]"],
        Some("ArgMax(t)"),
    );
    assert_eq!(stdout(&out).trim_end(), expected.trim_end());

    for semantics in ["published", "revised"] {
        let by_lets = knn(
            &["run", "-", "--semantics", semantics, "--output", "config"],
            Some(
                "let W = initTensor(3, 2) in let W[0, 0] = 1.0 in let W[0, 1] = -1.0 in let W[1, 0] = 2.0 in \
                 let W[1, 1] = 3.0 in let W[2, 0] = -1.0 in let W[2, 1] = 2.0 in W[2, 1]",
            ),
        );
        let by_input = knn(
            &["run", "-", "--semantics", semantics, "--output", "config", "--input", "W=[[1, -1], [2, 3], [-1, 2]]"],
            Some("W[2, 1]"),
        );
        assert_eq!(by_lets.status.code(), Some(0), "{semantics}");
        assert_eq!(stdout(&by_input), stdout(&by_lets), "{semantics}");
    }
}

#[test]
fn npy_inputs_in_f64_and_f32_match_inline_lists() {
    let dir = tempfile::tempdir().unwrap();
    let values = [4.0f64, 3.0, 7.0, 6.0];
    let f64_data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let f32_data: Vec<u8> = values.iter().flat_map(|v| (*v as f32).to_le_bytes()).collect();
    let f64_file = temp_file(dir.path(), "a.npy", &npy_bytes("<f8", "(4,)", &f64_data));
    let f32_file = temp_file(dir.path(), "b.npy", &npy_bytes("<f4", "(2, 2)", &f32_data));
    let expected = std::fs::read_to_string(authors().join("argmax.knn.out")).unwrap();
    let out = knn(
        &["run", "-", "--semantics", "published", "--output", "config", "--input", &format!("t={f64_file}")],
        Some("ArgMax(t)"),
    );
    assert_eq!(stdout(&out).trim_end(), expected.trim_end(), "{}", stderr(&out));
    let matrix = knn(&["run", "-", "--input", &format!("m={f32_file}")], Some("m[1, 0]"));
    assert_eq!(stdout(&matrix), "7.0\n", "{}", stderr(&matrix));
}

/// A convolution reads a rank-3 input: bound from a `.npy` file or a nested list, on both
/// engines; a shape the program does not expect is the program's error, and the published
/// rules (whose rank-3 tensors are broken) refuse the binding.
#[test]
fn rank_three_inputs_run_on_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let program = "let w = initTensor(1, 2, 2, 2)[1.0, 2.0, 3.0, 4.0, 0.5, 0.25, -1.0, 2.0] in\n\
                   let b = initTensor(1)[0.5] in\n\
                   let y = conv2d(x, w, b, pads = [1, 0, 0, 1]) in\ny";
    let values: Vec<f64> = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 1.0, 2.0, 3.0];
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let file = temp_file(dir.path(), "x.npy", &npy_bytes("<f8", "(2, 2, 3)", &data));
    let list = "x=[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [1, 2, 3]]]";
    let expected = "[[[20.5, 28.5, 0.5], [46.0, 57.75, 23.0]]]\n";
    for input in [format!("x={file}"), list.to_string()] {
        for engine in ["big-step", "small-step"] {
            let out = knn(&["run", "-", "--engine", engine, "--input", &input], Some(program));
            assert_eq!(stdout(&out), expected, "{engine} {input}: {}", stderr(&out));
        }
    }
    let matrix = knn(&["run", "-", "--input", "x=[[1, 2, 3], [4, 5, 6]]"], Some(program));
    assert_eq!(matrix.status.code(), Some(3), "{}", stderr(&matrix));
    assert!(
        stderr(&matrix).contains("the input x must be C×H×W, but it is 2×3 [shape-mismatch]"),
        "{}",
        stderr(&matrix)
    );
    let ragged = knn(&["run", "-", "--input", "x=[[[1, 2]], [[3]]]"], Some(program));
    assert_eq!(ragged.status.code(), Some(1));
    assert!(stderr(&ragged).contains("rows have different lengths (2 and 1)"), "{}", stderr(&ragged));
    let published = knn(
        &["run", "-", "--semantics", "published", "--engine", "small-step", "--input", &format!("x={file}")],
        Some("x[0, 0, 0]"),
    );
    assert_eq!(published.status.code(), Some(1), "{}", stderr(&published));
    assert!(
        stderr(&published).contains("has rank 3; under the published rules inputs must be vectors or matrices"),
        "{}",
        stderr(&published)
    );
}

#[test]
fn malformed_npy_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let truncated = temp_file(dir.path(), "t.npy", &npy_bytes("<f8", "(4,)", &[0u8; 12]));
    let ints = temp_file(dir.path(), "i.npy", &npy_bytes("<i8", "(1,)", &[0u8; 8]));
    let rank9 = temp_file(dir.path(), "r.npy", &npy_bytes("<f8", "(1, 1, 1, 1, 1, 1, 1, 1, 1)", &[0u8; 8]));
    let garbage = temp_file(dir.path(), "g.npy", b"not an npy file at all");
    for (file, message) in [
        (truncated, "truncated"),
        (ints, "float64 or float32"),
        (rank9, "rank 9; inputs have rank 1 to 8"),
        (garbage, "not a valid .npy file"),
    ] {
        let out = knn(&["run", "-", "--input", &format!("x={file}")], Some("1.0"));
        assert_eq!(out.status.code(), Some(1), "{file}");
        assert!(stderr(&out).contains(message), "{file}: {}", stderr(&out));
    }
}
