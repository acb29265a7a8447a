//! ONNX classifiers' last operators, made by `tests/data/classifier/make_fixtures.py`: `Softmax`
//! (opset 13), `LogSoftmax` (opset 11: the dimensions from `axis` flattened), a `ReduceMean`
//! over an image's rows and columns (global average pooling), `ReduceMax` then `ReduceMin`, and
//! `ReduceSum` with its axes an input. Imported, run on both engines bit for bit (the fixture
//! support's `run`), and compared with onnxruntime's output within its rounding, class included.

mod fixture_support;

use knn_formats::import::emit::emit;
use knn_formats::import::{ImportOptions, Reduction, Step, import_file};

use fixture_support::{Ran, run};

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
