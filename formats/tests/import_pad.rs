//! ONNX `Pad` in its `constant` mode as K-NN's `pad` (Ext-13) where it does not fold into the
//! `Conv` or `AveragePool` that reads it: opset 11's form (pads and value as inputs) and opset 2's
//! (attributes), on an image and on a vector, each run on both engines against the padding
//! worked out by hand; a zero padding before a max pool, which skips its own padding, is a `pad`
//! of zeros and then the pool.

mod onnx_support;

use knn_engine::bigstep::{BigStep, Staging};
use knn_engine::tensor::Precision;
use knn_formats::import::Step;
use knn_formats::import::emit::emit;
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::parse_program;
use onnx_support::*;

/// [`run`] for a program whose input is the image `x` of shape `shape`, staged as well.
fn run_image(bytes: &[u8], shape: &[usize], x: &[f64]) -> Vec<f64> {
    let text = emit(&import_bytes(bytes).unwrap());
    let program = parse_program(&text, Profile::revised().grammar).unwrap_or_else(|e| panic!("{text}\n{e}"));
    let input = [TensorInput { name: "input_1".into(), shape: shape.to_vec(), data: x.to_vec() }];
    let small = SmallStep::revised().evaluate(&program, &input).unwrap();
    for staging in [Staging::Direct, Staging::Staged] {
        let big = BigStep { staging, precision: Precision::Exact }.evaluate(&program, &input).unwrap();
        assert!(big.agrees_with(&small), "{text}\n{staging:?}: {big}, reference {small}");
    }
    match small {
        Verdict::Value(Observed::Tensor(t)) => t.data,
        other => panic!("{text}\n{other}"),
    }
}

/// A `(1, 2, 2, 2)` image `[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]` padded with 1.5 by one row
/// above and one column on the right (opset 11: `pads` and `constant_value` inputs), then
/// flattened: each channel `[[a, b], [c, d]]` becomes `[[v, v, v], [a, b, v], [c, d, v]]`.
#[test]
fn an_image_padded_with_a_constant_is_one_pad() {
    let pad = node("Pad", "pad", &["input.1", "P", "V"], "padded");
    let bytes = model(
        &[Some(1), Some(2), Some(2), Some(2)],
        "y",
        vec![pad, node("Flatten", "flat", &["padded"], "y")],
        vec![ints("P", &[0, 0, 1, 0, 0, 0, 0, 1]), floats("V", &[], &[1.5])],
    );
    let network = import_bytes(&bytes).unwrap();
    assert!(
        network.steps.contains(&Step::Pad { value: 1.5, pads: vec![0, 1, 0, 0, 0, 1], output: vec![2, 3, 3] }),
        "{:?}",
        network.steps
    );
    assert!(emit(&network).contains("= pad(h0, 1.5, 0, 1, 0, 0, 0, 1) in"), "{}", emit(&network));
    let x: Vec<f64> = (1..=8).map(f64::from).collect();
    let v = 1.5;
    let expected = [[v, v, v, 1.0, 2.0, v, 3.0, 4.0, v], [v, v, v, 5.0, 6.0, v, 7.0, 8.0, v]].concat();
    assert_eq!(bits(&run(&bytes, &x)), bits(&expected));
}

/// Opset 2's attributes on a `(1, 4)` vector: `pads = [0, 1, 0, 2]` (the batch axis not padded),
/// `value = -2`: `[-2, x0, x1, x2, x3, -2, -2]`.
#[test]
fn a_vector_padded_by_the_attributes_of_opset_2() {
    let pad = with_float(with_ints(node("Pad", "pad", &["input.1"], "y"), "pads", &[0, 1, 0, 2]), "value", -2.0);
    let bytes = model(&[Some(1), Some(4)], "y", vec![pad], vec![]);
    let network = import_bytes(&bytes).unwrap();
    assert_eq!(network.steps, [Step::Pad { value: -2.0, pads: vec![1, 2], output: vec![7] }]);
    let x = [0.5, -0.0, f64::INFINITY, 3.0];
    let expected = [-2.0, 0.5, -0.0, f64::INFINITY, 3.0, -2.0, -2.0];
    assert_eq!(bits(&run(&bytes, &x)), bits(&expected));
}

/// A max pool skips its padding, where a `Pad` node's zeros are elements: the zeros are a `pad`,
/// then the pool. `(1, 1, 2, 2)` = `[[-1, -2], [-3, -4]]` padded by one column on the left is
/// `[[0, -1, -2], [0, -3, -4]]`; a 2×2 window, stride 1, gives `[max(0, -1, 0, -3), max(-1, -2,
/// -3, -4)]` = `[0, -1]`.
#[test]
fn a_zero_padding_a_max_pool_reads_is_a_pad_then_the_pool() {
    let pad = node("Pad", "pad", &["input.1", "P"], "padded");
    let pool = with_ints(node("MaxPool", "m", &["padded"], "pooled"), "kernel_shape", &[2, 2]);
    let bytes = model(
        &[Some(1), Some(1), Some(2), Some(2)],
        "y",
        vec![pad, pool, node("Flatten", "flat", &["pooled"], "y")],
        vec![ints("P", &[0, 0, 0, 1, 0, 0, 0, 0])],
    );
    let network = import_bytes(&bytes).unwrap();
    let pad_then_pool = network.steps.windows(2).any(|w| {
        matches!(w, [Step::Pad { value, pads, .. }, Step::Pool(_)] if value.to_bits() == 0 && pads == &[0, 0, 1, 0, 0, 0])
    });
    assert!(pad_then_pool, "{:?}", network.steps);
    assert_eq!(bits(&run_image(&bytes, &[1, 2, 2], &[-1.0, -2.0, -3.0, -4.0])), bits(&[0.0, -1.0]));
}
