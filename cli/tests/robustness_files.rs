//! Files that lie about themselves, and files knn writes (issue 15): a `.npy` whose shape, header
//! or length does not fit its data, a model whose declared input would make a huge program or
//! whose weights are NaN, and outputs that must be written whole, never over an input, and to
//! standard output for `-o -`.

mod common;

use common::{knn, knn_limited, npy_bytes, npy_f64, stderr, stdout, temp_file};
use knn_formats::import::onnx::proto::{
    Dimension, GraphProto, ModelProto, NodeProto, TensorShapeProto, TensorTypeProto, TypeProto, ValueInfoProto,
};
use prost::Message;

/// 2 GB of address space: an allocation knn did not check first aborts the process.
const SMALL_MACHINE_KIB: u64 = 2_000_000;

const ONE_ELEMENT: &str = "let y = initTensor(1) in let y[0] = 1.5 in y";

fn small_nnet() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/small/fc_2-2-3.nnet");
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn a_shape_whose_element_count_overflows_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let prog = temp_file(dir.path(), "p.knn", ONE_ELEMENT.as_bytes());
    // 2^61 × 8 = 2^64 elements, and no data: once accepted as 0 elements, then a panic.
    let file = temp_file(dir.path(), "x.npy", &npy_bytes("<f8", "(2305843009213693952, 8)", &[]));
    let out = knn(&["run", &prog, "--input", &format!("x={file}")], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("has more than 2^64 elements"), "{}", stderr(&out));
    let out = knn(&["batch", &prog, "--input", &format!("x={file}")], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn a_header_longer_than_the_file_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let prog = temp_file(dir.path(), "p.knn", ONE_ELEMENT.as_bytes());
    let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
    bytes.extend(0xFFFF_FFF0u32.to_le_bytes());
    bytes.extend(b"{'descr': '<f8'}");
    let file = temp_file(dir.path(), "x.npy", &bytes);
    let out = knn_limited(&["run", &prog, "--input", &format!("x={file}")], SMALL_MACHINE_KIB, 60).expect("no hang");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("the header declares 4294967280 bytes but the file has only 16"), "{}", stderr(&out));
}

#[test]
fn bytes_after_the_data_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let prog = temp_file(dir.path(), "p.knn", ONE_ELEMENT.as_bytes());
    let mut bytes = npy_f64(&[2], &[1.0, 2.0]);
    bytes.extend(b"junk");
    let file = temp_file(dir.path(), "x.npy", &bytes);
    let out = knn(&["run", &prog, "--input", &format!("x={file}")], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("the file has 4 bytes after the data"), "{}", stderr(&out));
}

#[test]
fn rows_of_no_element_are_still_rows() {
    let dir = tempfile::tempdir().unwrap();
    let prog = temp_file(dir.path(), "p.knn", ONE_ELEMENT.as_bytes());
    let rows = temp_file(dir.path(), "x.npy", &npy_bytes("<f8", "(3, 0)", &[]));
    let out = knn(&["batch", &prog, "--input", &format!("x={rows}")], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "[1.5]\n[1.5]\n[1.5]\n");
}

#[test]
fn batch_output_dash_is_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let prog = temp_file(dir.path(), "p.knn", b"let y = initTensor(2) in let y[1] = x[0] in y[1]");
    let rows = temp_file(dir.path(), "x.npy", &npy_f64(&[2, 1], &[3.0, 4.0]));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_knn"))
        .current_dir(dir.path())
        .args(["batch", &prog, "--input", &format!("x={rows}"), "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!dir.path().join("-").exists(), "no file named `-`");
    // The .npy bytes themselves: a float64 vector of the two rows' results.
    let written = temp_file(dir.path(), "out.npy", &out.stdout);
    let array = knn_formats::npy::read_npy(written.as_ref()).unwrap();
    assert_eq!((array.shape, array.data), (vec![2], vec![3.0, 4.0]));
}

#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let prog = temp_file(dir.path(), "p.knn", ONE_ELEMENT.as_bytes());
    let original = npy_f64(&[2, 1], &[3.0, 4.0]);
    let rows = temp_file(dir.path(), "x.npy", &original);
    let linked = dir.path().join("same.npy");
    std::fs::hard_link(&rows, &linked).unwrap();
    let dotted = dir.path().join(".").join("x.npy");
    for out_path in [rows.clone(), linked.to_string_lossy().into_owned(), dotted.to_string_lossy().into_owned()] {
        let out = knn(&["batch", &prog, "--input", &format!("x={rows}"), "-o", &out_path, "--force"], None);
        assert_eq!(out.status.code(), Some(1), "{out_path}: {}", stderr(&out));
        assert!(stderr(&out).contains("is also an input of this command"), "{}", stderr(&out));
        assert_eq!(std::fs::read(&rows).unwrap(), original, "{out_path}: the input is untouched");
    }
    let model = temp_file(dir.path(), "net.nnet", small_nnet().as_bytes());
    let out = knn(&["import", &model, "-o", &model, "--force"], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&model).unwrap(), small_nnet());
    let out = knn(&["verify", &model, "--box", "x=0:1,0:1", "--results", &model], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&model).unwrap(), small_nnet());
}

#[test]
fn a_forced_output_replaces_the_old_file_whole_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let prog = temp_file(dir.path(), "p.knn", ONE_ELEMENT.as_bytes());
    let rows = temp_file(dir.path(), "x.npy", &npy_f64(&[2, 1], &[3.0, 4.0]));
    let target = temp_file(dir.path(), "out.npy", b"old contents");
    let out = knn(&["batch", &prog, "--input", &format!("x={rows}"), "-o", &target, "--force"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let array = knn_formats::npy::read_npy(target.as_ref()).unwrap();
    assert_eq!(array.shape, vec![2, 1]);
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.ends_with(".knn-tmp")), "{names:?}");
}

fn value_info(name: &str, dims: &[i64]) -> ValueInfoProto {
    let dim = dims.iter().map(|&d| Dimension { dim_value: Some(d), dim_param: None }).collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto { elem_type: 1, shape: Some(TensorShapeProto { dim }) }),
        }),
    }
}

#[test]
fn an_onnx_input_of_400_million_elements_is_a_memory_limit() {
    let identity = NodeProto {
        op_type: "Identity".into(),
        input: vec!["x".into()],
        output: vec!["y".into()],
        ..Default::default()
    };
    let graph = GraphProto {
        node: vec![identity],
        input: vec![value_info("x", &[400_000_000])],
        output: vec![value_info("y", &[400_000_000])],
        ..Default::default()
    };
    let bytes = ModelProto { ir_version: 7, graph: Some(graph), ..Default::default() }.encode_to_vec();
    assert!(bytes.len() < 100, "a tiny file: {} bytes", bytes.len());
    let dir = tempfile::tempdir().unwrap();
    let model = temp_file(dir.path(), "huge.onnx", &bytes);
    let out = knn_limited(&["import", &model, "-o", "-"], SMALL_MACHINE_KIB, 60).expect("no hang");
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("the program for this network needs"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
}

#[test]
fn nan_weights_and_a_zero_range_are_warned_about_or_refused_with_strict() {
    let dir = tempfile::tempdir().unwrap();
    let text = small_nnet();
    // The first weight of layer 1 (row 0, column 0: the line `2.0,-1.0,`) NaN; the range of input
    // 1 zero.
    let nan = temp_file(dir.path(), "nan.nnet", text.replacen("2.0,-1.0,", "nan,-1.0,", 1).as_bytes());
    let zero = temp_file(dir.path(), "zero.nnet", text.replacen("1.0,1.0,1.0,", "1.0,0.0,1.0,", 1).as_bytes());
    let out = knn(&["import", &nan, "-o", "-"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warning: ")
            && stderr(&out).contains("layer 1: 1 weight is not finite, the first W[0, 0] = NaN"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("NaN"), "the program is still written");
    let out = knn(&["import", &nan, "-o", "-", "--strict"], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    let out = knn(&["import", &zero, "-o", "-", "--normalize"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("the input scaling (1 / range: a range of 0?)"), "{}", stderr(&out));
    let out = knn(&["import", &zero, "-o", "-", "--normalize", "--strict"], None);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // Without --normalize the ranges are not in the program: nothing to say.
    let out = knn(&["import", &zero, "-o", "-", "--strict"], None);
    assert_eq!((out.status.code(), stderr(&out).contains("warning")), (Some(0), false), "{}", stderr(&out));
}

#[test]
fn a_centre_file_larger_than_the_memory_budget_is_a_limit_for_verify_as_for_run() {
    let dir = tempfile::tempdir().unwrap();
    let net = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/small/fc_2-2-3.nnet");
    // 100,000 points of two elements: 1.6 MB of data, over a budget of 1 MB (read and widened,
    // the file counts three times its size).
    let data: Vec<f64> = (0..200_000).map(|i| f64::from(i) * 1e-6).collect();
    let points = temp_file(dir.path(), "points.npy", &npy_f64(&[100_000, 2], &data));
    let net = net.to_str().unwrap();
    let around = format!("x={points}");
    let verify = ["verify", net, "--around", &around, "--row", "0", "--eps", "0.01", "--max-memory", "1M"];
    let out = knn(&verify, None);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("limit: "), "{}", stderr(&out));
    let prog = temp_file(dir.path(), "p.knn", ONE_ELEMENT.as_bytes());
    let out = knn(&["run", &prog, "--input", &around, "--max-memory", "1M"], None);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
}
