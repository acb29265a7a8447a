//! The attribute forms of ONNX operators that changed across opsets 9 to 21, in graphs built
//! here: `Pad`'s `axes` input (opset 18), `Softmax`'s default axis (1 before opset 13, -1 from
//! it), and `Reshape`'s `allowzero` (opset 14). (`Conv`, `MaxPool`, `AveragePool` with
//! `auto_pad` and `ceil_mode`: `import_conv.rs`, `import_pool.rs`, `import_pool_ceil.rs`;
//! `Gemm`'s flags: `import_onnx.rs`, `import_gemm.rs`; `Slice` and the reductions' attributes and
//! inputs: `import_slice.rs`, `import_classifier.rs`; `Flatten`'s axis and `Reshape`'s 0 and -1:
//! `import_pool_refusals.rs`, `import_pool.rs`.)

mod onnx_support;

use knn_formats::import::Step;
use knn_formats::import::onnx::proto::{ModelProto, NodeProto, OperatorSetIdProto, TensorProto};
use onnx_support::*;
use prost::Message;

/// A graph of `nodes` on an input of shape `input`, at opset `version`.
fn at_opset(input: &[Option<i64>], nodes: Vec<NodeProto>, inits: Vec<TensorProto>, version: i64) -> Vec<u8> {
    let mut m = ModelProto::decode(&model(input, "y", nodes, inits)[..]).unwrap();
    m.opset_import = vec![OperatorSetIdProto { domain: String::new(), version }];
    m.encode_to_vec()
}

#[test]
fn pad_with_an_axes_input_pads_those_axes_only() {
    // (1, 4) padded along axis -1 (the last) by one before and two after, with 0.5.
    let pad = node("Pad", "pad", &["input.1", "pads", "value", "axes"], "y");
    let inits = vec![ints("pads", &[1, 2]), floats("value", &[], &[0.5]), ints("axes", &[-1])];
    let bytes = at_opset(&[Some(1), Some(4)], vec![pad], inits, 18);
    let x = [1.0, -2.0, 3.5, 0.0];
    assert_eq!(bits(&run(&bytes, &x)), bits(&[0.5, 1.0, -2.0, 3.5, 0.0, 0.5, 0.5]));
    // The pads must be two per listed axis.
    let pad = node("Pad", "pad", &["input.1", "pads", "value", "axes"], "y");
    let inits = vec![ints("pads", &[1, 2, 0, 0]), floats("value", &[], &[0.5]), ints("axes", &[1])];
    let e = import_bytes(&at_opset(&[Some(1), Some(4)], vec![pad], inits, 18)).unwrap_err();
    assert_eq!(
        format!("{}: {}", e.location, e.message),
        "node \"pad\" (Pad): pads = [1, 2, 0, 0]: expected 2 values (a begin and an end per axis)"
    );
}

#[test]
fn softmax_reads_its_default_axis_by_opset() {
    // Softmax of a (1, 2, 3) input, then Flatten to a vector.
    let graph = |version: i64| {
        let nodes = vec![node("Softmax", "sm", &["input.1"], "s"), node("Flatten", "f", &["s"], "y")];
        at_opset(&[Some(1), Some(2), Some(3)], nodes, vec![], version)
    };
    // Opset 13: along the last axis: the rows of the (2, 3) tensor.
    let steps = import_bytes(&graph(13)).unwrap().steps;
    assert_eq!(steps, [Step::Reshape(vec![2, 3]), Step::Softmax { axis: 1, log: false }, Step::Reshape(vec![6])]);
    // Opset 12: axis 1, every dimension from it flattened: one softmax of the 6 elements.
    assert_eq!(import_bytes(&graph(12)).unwrap().steps, [Step::Softmax { axis: 0, log: false }]);
    let x = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
    let whole = run(&graph(12), &x);
    assert!((whole.iter().sum::<f64>() - 1.0).abs() < 1e-15, "{whole:?}");
    let rows = run(&graph(13), &x);
    assert!((rows[..3].iter().sum::<f64>() - 1.0).abs() < 1e-15, "{rows:?}");
    assert_eq!(bits(&rows[..3]), bits(&rows[3..]), "each row a softmax of 0, 1, 2 shifted");
}

#[test]
fn reshape_with_allowzero_reads_a_zero_as_an_extent() {
    let reshape = |shape: &[i64], allow_zero: i64| {
        let r = with_int(node("Reshape", "r", &["input.1", "shape"], "y"), "allowzero", allow_zero);
        at_opset(&[Some(1), Some(6)], vec![r], vec![ints("shape", shape)], 14)
    };
    // allowzero = 0: the 0 copies the input's first dimension, 1.
    assert!(import_bytes(&reshape(&[0, -1], 0)).is_ok());
    let e = import_bytes(&reshape(&[0, 6], 1)).unwrap_err();
    assert_eq!(
        format!("{}: {}", e.location, e.message),
        "node \"r\" (Reshape): allowzero = 1 makes the 0 in the target shape [0, 6] an extent of 0: no element, where the input has 6"
    );
    assert!(import_bytes(&reshape(&[1, 1, 6], 1)).is_ok(), "without a 0, allowzero changes nothing");
}
