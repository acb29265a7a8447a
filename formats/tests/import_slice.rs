//! ONNX `Slice` as Ext-12's `slice` and `Concat` as Ext-11's `concat`, made by
//! `tests/data/slice/make_fixtures.py`: the odd elements of a hidden layer (opset 13: constant
//! inputs, a negative axis, an `INT_MAX` end, a step of 2), a channel and three columns of an
//! image (opset 9: attributes, a negative end), and two branches of a hidden layer joined.
//! Imported, run on both engines bit for bit (the fixture support's `run`), and compared with
//! onnxruntime's output within its rounding, class included; the slices that do not fit are
//! refused naming the node.

mod fixture_support;
mod onnx_support;

use knn_formats::import::Step;
use knn_formats::import::onnx::proto::{ModelProto, OperatorSetIdProto};

use fixture_support::{Ran, run};
use onnx_support::{import_bytes, ints, model, node, with_ints};
use prost::Message;

fn class(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, k| if v[k] > v[best] { k } else { best })
}

/// Model `name`: knn's output against onnxruntime's, and the steps it was imported as.
fn check(name: &str) -> Vec<Step> {
    let Ran { network, result, expected, .. } = run("slice", name);
    assert_eq!(result.len(), expected.len(), "{name}");
    for (k, (&ours, &theirs)) in result.iter().zip(&expected).enumerate() {
        assert!((ours - theirs).abs() <= 1e-12 * (1.0 + theirs.abs()), "{name}[{k}]: {ours} vs {theirs}");
    }
    assert_eq!(class(&result), class(&expected), "{name}");
    network.steps
}

#[test]
fn a_slice_with_a_step_and_an_int_max_end_is_onnxruntimes() {
    let steps = check("mlp_slice_step");
    // Elements 1, 3, 5, 7 of the 8: ONNX's INT_MAX end clamped to 8, the axis -1 the vector's.
    assert!(steps.contains(&Step::Slice { axis: 0, begin: 1, end: 8, step: 2, output: vec![4] }), "{steps:?}");
}

#[test]
fn a_slice_of_an_image_by_attributes_is_onnxruntimes() {
    let steps = check("image_slice_opset9");
    // (2, 4, 5): channel 1 (axis 0 of the K-NN tensor), then columns 1 … 3 (end -1 is 4).
    assert!(steps.contains(&Step::Slice { axis: 0, begin: 1, end: 2, step: 1, output: vec![1, 4, 5] }), "{steps:?}");
    assert!(steps.contains(&Step::Slice { axis: 2, begin: 1, end: 4, step: 1, output: vec![1, 4, 3] }), "{steps:?}");
}

#[test]
fn a_concat_of_two_branches_is_onnxruntimes() {
    let steps = check("mlp_concat_branches");
    // The hidden layer kept, the first branch computed and kept, the second computed from the
    // hidden layer taken up again, then both joined: the kept one (the first) first.
    assert!(
        steps.iter().any(|s| matches!(s, Step::ConcatKept { kept_first: true, axis: 0, output, .. } if output == &[5])),
        "{steps:?}"
    );
    assert_eq!(steps.iter().filter(|s| matches!(s, Step::Keep(_))).count(), 2, "{steps:?}");
}

/// A one-node graph on a `(1, 4)` input, at opset `version`.
fn one_node(
    node: knn_formats::import::onnx::proto::NodeProto,
    inits: Vec<knn_formats::import::onnx::proto::TensorProto>,
    version: i64,
) -> Vec<u8> {
    let bytes = model(&[Some(1), Some(4)], "y", vec![node], inits);
    let mut m = ModelProto::decode(&bytes[..]).unwrap();
    m.opset_import = vec![OperatorSetIdProto { domain: String::new(), version }];
    m.encode_to_vec()
}

fn refusal(bytes: &[u8]) -> String {
    let e = import_bytes(bytes).expect_err("the model is refused");
    format!("{}: {}", e.location, e.message)
}

#[test]
fn slices_that_do_not_fit_are_refused_naming_the_node() {
    let bounds = |starts: &[i64], ends: &[i64]| vec![ints("starts", starts), ints("ends", ends), ints("axes", &[1])];
    // Computed bounds: the starts are the input itself.
    let computed = one_node(node("Slice", "sl", &["input.1", "input.1", "ends"], "y"), vec![ints("ends", &[2])], 13);
    assert_eq!(refusal(&computed), "node \"sl\" (Slice): its starts (input `input.1`) must be a constant int64 tensor");
    // Backwards.
    let mut inits = bounds(&[3], &[0]);
    inits.push(ints("steps", &[-1]));
    let backwards = one_node(node("Slice", "sl", &["input.1", "starts", "ends", "axes", "steps"], "y"), inits, 13);
    assert_eq!(refusal(&backwards), "node \"sl\" (Slice): a step of -1 along axis 1: knn slices forward only");
    // The batch axis.
    let batch =
        one_node(with_ints(with_ints(node("Slice", "sl", &["input.1"], "y"), "starts", &[0]), "ends", &[0]), vec![], 9);
    assert_eq!(refusal(&batch), "node \"sl\" (Slice): a slice of the batch axis (knn imports a batch of one)");
    // Opset 10's inputs: elements 1 and 2 of the 4, the bounds clamped (-3 is 1, 3 stays 3).
    let fits = one_node(node("Slice", "sl", &["input.1", "starts", "ends", "axes"], "y"), bounds(&[-3], &[3]), 10);
    let steps = import_bytes(&fits).unwrap().steps;
    assert_eq!(steps, [Step::Slice { axis: 0, begin: 1, end: 3, step: 1, output: vec![2] }]);
    // The whole vector: nothing to do.
    let whole =
        one_node(node("Slice", "sl", &["input.1", "starts", "ends", "axes"], "y"), bounds(&[0], &[i64::MAX]), 13);
    assert!(import_bytes(&whole).unwrap().steps.is_empty());
}

#[test]
fn concats_that_do_not_fit_are_refused_naming_the_node() {
    let with_axis = |n, axis| knn_formats::import::onnx::proto::NodeProto {
        attribute: vec![knn_formats::import::onnx::proto::AttributeProto {
            name: "axis".into(),
            i: axis,
            r#type: 2,
            ..Default::default()
        }],
        ..n
    };
    // With a constant.
    let constant = one_node(with_axis(node("Concat", "cc", &["input.1", "c"], "y"), 1), vec![ints("c", &[1])], 13);
    assert_eq!(
        refusal(&constant),
        "node \"cc\" (Concat): a concatenation with a constant; knn imports a Concat of two computed values"
    );
    // Along the batch axis.
    let batch = one_node(with_axis(node("Concat", "cc", &["input.1", "input.1"], "y"), 0), vec![], 13);
    assert_eq!(
        refusal(&batch),
        "node \"cc\" (Concat): a concatenation along the batch axis (knn imports a batch of one)"
    );
    // The input with itself along its axis: concat(x, x, 0) of the vector.
    let twice = one_node(with_axis(node("Concat", "cc", &["input.1", "input.1"], "y"), -1), vec![], 13);
    let steps = import_bytes(&twice).unwrap().steps;
    assert!(steps.iter().any(|s| matches!(s, Step::ConcatKept { axis: 0, output, .. } if output == &[8])), "{steps:?}");
}
