//! ONNX classifiers' last operators, made by `tests/data/classifier/make_fixtures.py`: `Softmax`
//! (opset 13), `LogSoftmax` (opset 11: the dimensions from `axis` flattened), a `ReduceMean`
//! over an image's rows and columns (global average pooling), `ReduceMax` then `ReduceMin`, and
//! `ReduceSum` with its axes an input. Imported, run on both engines bit for bit (the fixture
//! support's `run`), and compared with onnxruntime's output within its rounding, class included.

mod fixture_support;
mod onnx_support;

use knn_formats::import::emit::emit;
use knn_formats::import::onnx::proto::{ModelProto, OperatorSetIdProto};
use knn_formats::import::{ImportOptions, Reduction, Step, import_file};

use fixture_support::{Ran, run};
use onnx_support::{import_bytes, ints, model, node, with_int, with_ints};
use prost::Message;

fn class(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, k| if v[k] > v[best] { k } else { best })
}

/// Model `name`: knn's output against onnxruntime's (float64 unless `tolerance` says float32),
/// and the steps it was imported as.
fn check(name: &str, tolerance: f64) -> Vec<Step> {
    let Ran { network, result, expected, .. } = run("classifier", name);
    assert_eq!(result.len(), expected.len(), "{name}");
    for (k, (&ours, &theirs)) in result.iter().zip(&expected).enumerate() {
        assert!((ours - theirs).abs() <= tolerance * (1.0 + theirs.abs()), "{name}[{k}]: {ours} vs {theirs}");
    }
    assert_eq!(class(&result), class(&expected), "{name}");
    network.steps
}

#[test]
fn softmax_of_the_last_layer_is_onnxruntimes() {
    let steps = check("mlp_softmax", 1e-12);
    assert_eq!(steps.last(), Some(&Step::Softmax { axis: 0, log: false }));
    // The probabilities sum to 1 within rounding.
    let Ran { result, .. } = run("classifier", "mlp_softmax");
    assert!((result.iter().sum::<f64>() - 1.0).abs() < 1e-15, "{result:?}");
}

#[test]
fn log_softmax_of_opset_11_is_onnxruntimes() {
    let steps = check("mlp_log_softmax_opset11", 1e-12);
    assert_eq!(steps.last(), Some(&Step::Softmax { axis: 0, log: true }));
}

#[test]
fn a_mean_over_rows_and_columns_is_a_global_average_pool() {
    let steps = check("cnn_reduce_mean", 1e-4);
    assert!(steps.contains(&Step::Reduce { kind: Reduction::Mean, axes: vec![1, 2], output: vec![3] }), "{steps:?}");
    let network =
        import_file(&fixture_support::fixture("classifier", "cnn_reduce_mean.onnx"), None, &ImportOptions::default())
            .unwrap();
    let text = emit(&network);
    assert!(text.contains("= reduceMean(h0, 1, 2) in"), "{text}");
    assert!(text.contains("= softmax("), "{text}");
}

#[test]
fn reductions_with_their_axes_as_attributes_or_an_input() {
    let steps = check("reduce_max_min", 1e-12);
    assert!(steps.contains(&Step::Reshape(vec![3, 4])), "the vector input is given its rows: {steps:?}");
    assert!(steps.contains(&Step::Reduce { kind: Reduction::Max, axes: vec![0], output: vec![4] }), "{steps:?}");
    assert!(steps.contains(&Step::Reduce { kind: Reduction::Min, axes: vec![0], output: vec![1] }), "{steps:?}");
    let steps = check("reduce_sum_axes_input", 1e-12);
    assert!(steps.contains(&Step::Reduce { kind: Reduction::Sum, axes: vec![1], output: vec![3] }), "{steps:?}");
}

/// A one-node graph on a `(1, 2)` input, at opset `version`.
fn one_node(
    node: knn_formats::import::onnx::proto::NodeProto,
    inits: Vec<knn_formats::import::onnx::proto::TensorProto>,
    version: i64,
) -> Vec<u8> {
    let bytes = model(&[Some(1), Some(2)], "y", vec![node], inits);
    let mut m = ModelProto::decode(&bytes[..]).unwrap();
    m.opset_import = vec![OperatorSetIdProto { domain: String::new(), version }];
    m.encode_to_vec()
}

fn refusal(bytes: &[u8]) -> String {
    let e = import_bytes(bytes).expect_err("the model is refused");
    format!("{}: {}", e.location, e.message)
}

#[test]
fn softmaxes_and_reductions_that_do_not_fit_are_refused_naming_the_node() {
    // Opset 13's axis 0 is the batch: every probability would be 1.
    let batch = one_node(with_int(node("Softmax", "sm", &["input.1"], "y"), "axis", 0), vec![], 13);
    assert_eq!(refusal(&batch), "node \"sm\" (Softmax): a softmax along the batch axis (every element is 1)");
    // Before opset 13, axis 0 flattens everything from the batch on: one softmax of the vector.
    let old = one_node(with_int(node("Softmax", "sm", &["input.1"], "y"), "axis", 0), vec![], 11);
    assert_eq!(import_bytes(&old).unwrap().steps, [Step::Softmax { axis: 0, log: false }]);
    let far = one_node(with_int(node("LogSoftmax", "ls", &["input.1"], "y"), "axis", 2), vec![], 13);
    assert_eq!(refusal(&far), "node \"ls\" (LogSoftmax): the axis 2 is not an axis of a value of rank 2");
    let twice = one_node(with_ints(node("ReduceMax", "rm", &["input.1"], "y"), "axes", &[1, -1]), vec![], 13);
    assert_eq!(refusal(&twice), "node \"rm\" (ReduceMax): the axes [1, -1] name an axis twice");
    let computed_axes = one_node(node("ReduceSum", "rs", &["input.1", "input.1"], "y"), vec![], 13);
    assert_eq!(refusal(&computed_axes), "node \"rs\" (ReduceSum): the axes must be a constant int64 tensor");
    // Its axes a constant input: the vector's one axis, the batch left out.
    let sum = one_node(node("ReduceSum", "rs", &["input.1", "axes"], "y"), vec![ints("axes", &[1])], 13);
    let steps = import_bytes(&sum).unwrap().steps;
    assert_eq!(steps, [Step::Reduce { kind: Reduction::Sum, axes: vec![0], output: vec![1] }]);
}
