//! ONNX `Conv` models made by `tests/data/conv/make_fixtures.py` (stride, pads, dilation,
//! groups, no bias, `auto_pad`, Conv→Relu→Conv, a symbolic batch dimension): imported, run on
//! both engines with their `(C, H, W)` input bound as it is, and compared bit for bit with the
//! script's float64 reference (a loop convolution summing in the order of K-NN's rule). The
//! float32 model's class is compared with onnxruntime's.

mod fixture_support;

use std::path::PathBuf;

use knn_formats::import::emit::emit;
use knn_formats::import::{ImportOptions, Step, import_file};
use knn_formats::npy::read_npy;

use fixture_support::{Ran, bits, run};

const MODELS: [&str; 9] = [
    "conv_stride2_pads",
    "conv_dilation",
    "conv_group2_nobias",
    "conv_same_upper",
    "conv_same_lower",
    "conv_valid",
    "conv_relu_conv",
    "conv_batch_symbolic",
    "conv_relu_conv_f32",
];

fn fixture(name: &str) -> PathBuf {
    fixture_support::fixture("conv", name)
}

#[test]
fn conv_models_agree_with_the_reference_bit_for_bit_on_both_engines() {
    for name in MODELS {
        let Ran { network, result, expected, .. } = run("conv", name);
        assert!(network.steps.iter().any(|s| matches!(s, Step::Conv(_))), "{name}");
        assert_eq!(bits(&result), bits(&expected), "{name}");
    }
}

#[test]
fn the_float32_model_has_onnxruntimes_class() {
    let onnxruntime = fixture("conv_relu_conv_f32.onnxruntime.npy");
    let ort = read_npy(&onnxruntime).unwrap();
    let Ran { shape, result, .. } = run("conv", "conv_relu_conv_f32");
    assert_eq!(ort.shape, shape);
    let argmax = |v: &[f64]| (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
    assert_eq!(argmax(&result), argmax(&ort.data));
    // float32 rounding apart, the same numbers.
    for (k, (a, b)) in result.iter().zip(&ort.data).enumerate() {
        assert!((a - b).abs() <= 1e-4 * (1.0 + a.abs()), "element {k}: knn {a}, onnxruntime {b}");
    }
}

#[test]
fn the_program_reads_like_the_model() {
    let network = import_file(&fixture("conv_same_upper.onnx"), None, &ImportOptions::default()).unwrap();
    let text = emit(&network);
    // (6, 5) with a 4×3 kernel, strides (2, 1): SAME_UPPER pads rows 1 above, 1 below (total 2
    // from (3 - 1)·2 + 4 - 6), columns 1 and 1.
    assert!(text.contains("let W0 = initTensor(2, 3, 4, 3)["), "{text}");
    assert!(text.contains("let b0 = initTensor(2)["), "{text}");
    assert!(text.contains("let output = conv2d(input, W0, b0, strides = [2, 1], pads = [1, 1, 1, 1]) in"), "{text}");
    assert!(text.contains("// Input: `input`, a tensor of shape (3, 6, 5)"), "{text}");
    let lower = emit(&import_file(&fixture("conv_same_lower.onnx"), None, &ImportOptions::default()).unwrap());
    // (5, 6), kernel 2×3, strides (1, 2), dilations (2, 1): rows need 2 (1 and 1), columns
    // (3 - 1)·2 + 3 - 6 = 1, which SAME_LOWER puts at the beginning.
    assert!(lower.contains("pads = [1, 1, 1, 0], dilations = [2, 1]"), "{lower}");
    let group = emit(&import_file(&fixture("conv_group2_nobias.onnx"), None, &ImportOptions::default()).unwrap());
    assert!(group.contains("= conv2d(input, W0, group = 2) in"), "{group}");
}
