//! ONNX graphs whose input is a vector that a dense layer and a `Reshape` make an image before
//! convolutions or pools (VNN-COMP 2022's `cifar_biasfield`: `Gemm` 16 → 3072, `Reshape` to
//! (1, 3, 32, 32), eight `Conv`s), made by `tests/data/dense_to_image/make_fixtures.py`.
//! Imported, run on both engines and compared bit for bit with the script's float64 loops;
//! their class is onnxruntime's.

mod fixture_support;
mod onnx_support;

use std::path::PathBuf;

use knn_formats::import::emit::emit;
use knn_formats::import::onnx::proto::ModelProto;
use knn_formats::import::{ImportOptions, Step, import_file};
use knn_formats::npy::read_npy;
use prost::Message;

use fixture_support::{Ran, bits, run};

const MODELS: [&str; 2] = ["dense_reshape_conv", "dense_reshape_maxpool"];

fn fixture(name: &str) -> PathBuf {
    fixture_support::fixture("dense_to_image", name)
}

fn class(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, k| if v[k] > v[best] { k } else { best })
}

#[test]
fn dense_layers_made_images_agree_with_the_reference_bit_for_bit_and_with_onnxruntime_on_the_class() {
    for name in MODELS {
        let Ran { network, result, expected, .. } = run("dense_to_image", name);
        assert_eq!(network.input_shape.len(), 1, "{name}: the input stays a vector");
        assert_eq!(bits(&result), bits(&expected), "{name}");
        let onnxruntime = read_npy(&fixture(&format!("{name}.onnxruntime.npy"))).unwrap();
        assert_eq!(class(&result), class(&onnxruntime.data), "{name}: knn {result:?}, onnxruntime {onnxruntime:?}");
        for (k, (&ours, &theirs)) in result.iter().zip(&onnxruntime.data).enumerate() {
            assert!((ours - theirs).abs() <= 1e-4 * (1.0 + ours.abs()), "{name}[{k}]: {ours} vs {theirs}");
        }
    }
}

#[test]
fn the_reshape_to_an_image_is_a_knn_reshape_without_the_batch_dimension() {
    let network = import_file(&fixture("dense_reshape_conv.onnx"), None, &ImportOptions::default()).unwrap();
    assert_eq!(network.input_shape, [6]);
    let text = emit(&network);
    assert!(text.contains("let z0 = linear(W0, input) in"), "{text}");
    assert!(text.contains("let h0 = reshape(z0, 2, 4, 4) in\n"), "{text}");
    assert!(text.contains("conv2d(h0, W1, b1, pads = [1, 1, 1, 1])"), "{text}");
    // One channel stays an image of one channel: `[-1, 1, 4, 8]` is (1, 4, 8), which the pool reads.
    let network = import_file(&fixture("dense_reshape_maxpool.onnx"), None, &ImportOptions::default()).unwrap();
    assert!(network.steps.contains(&Step::Reshape(vec![1, 4, 8])), "{:?}", network.steps);
    let text = emit(&network);
    assert!(text.contains("maxPool2d("), "{text}");
    assert!(text.contains("kernel = [2, 2], strides = [2, 2])"), "{text}");
}

fn changed(name: &str, change: impl FnOnce(&mut ModelProto)) -> Vec<u8> {
    let bytes = std::fs::read(fixture(&format!("{name}.onnx"))).unwrap();
    let mut model = ModelProto::decode(&bytes[..]).unwrap();
    change(&mut model);
    model.encode_to_vec()
}

#[test]
fn a_convolution_of_a_vector_is_refused_naming_the_node() {
    // The `Reshape` keeps the dense layer's output a (1, 32) vector: the `Conv` reads no image.
    let bytes = changed("dense_reshape_conv", |m| {
        let shape = m.graph.as_mut().unwrap().node.iter_mut().find(|n| n.op_type == "Constant").unwrap();
        let value = shape.attribute[0].t.as_mut().unwrap();
        value.dims = vec![2];
        value.int64_data = vec![1, 32];
        value.raw_data.clear();
    });
    let e = onnx_support::import_bytes(&bytes).unwrap_err();
    assert_eq!(
        format!("{}: {}", e.location, e.message),
        "node \"conv\" (Conv): the input X has shape [1, 32]; knn imports convolutions of (1, C, H, W) images"
    );
}

#[test]
fn a_graph_without_images_keeps_a_reshaped_vector_a_vector() {
    use onnx_support::{ints, model, node};
    // No convolution or pool reads it: the (1, 2, 1, 2) shape writes nothing, as before.
    let nodes = vec![
        node("Reshape", "to4", &["input.1", "shape"], "r"),
        node("Flatten", "flat", &["r"], "f"),
        node("Relu", "relu", &["f"], "y"),
    ];
    let bytes = model(&[Some(1), Some(4)], "y", nodes, vec![ints("shape", &[1, 2, 1, 2])]);
    let network = onnx_support::import_bytes(&bytes).unwrap();
    assert!(!network.steps.iter().any(|s| matches!(s, Step::Reshape(_))), "{:?}", network.steps);
    assert_eq!(onnx_support::run(&bytes, &[-1.0, 2.0, -3.0, 4.0]), [0.0, 2.0, 0.0, 4.0]);
}
