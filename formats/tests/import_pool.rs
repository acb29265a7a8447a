//! ONNX `MaxPool`, `AveragePool`, the global pools, `Flatten`, `Reshape`, `Transpose`,
//! `Dropout`, `BatchNormalization`, `Mul`, `Div` and `Pad` models made by
//! `tests/data/pool/make_fixtures.py`: imported, run on both engines with their `(C, H, W)`
//! input bound as it is, and compared bit for bit with the script's float64 loops (which
//! follow K-NN's rules' order, and which the script checks against onnxruntime within float32
//! rounding; `batch_norm_float64` against onnxruntime's float64 output, bit for bit).

mod fixture_support;

use std::path::PathBuf;

use knn_formats::import::emit::emit;
use knn_formats::import::{ImportOptions, Step, import_file};

use fixture_support::{Ran, bits, run};

const MODELS: [&str; 18] = [
    "maxpool_stride",
    "maxpool_pads_dilation",
    "maxpool_same_upper",
    "avgpool_stride",
    "avgpool_pads_count0",
    "avgpool_pads_count1",
    "avgpool_same_lower",
    "conv_reshape_flatten",
    "pad_conv",
    "pad_avgpool",
    "pad_zero_maxpool",
    "conv_relu_maxpool_gemm",
    "conv_relu_avgpool_gemm",
    "transpose_channels_last",
    "conv_dropout_gemm",
    "conv_bn_scale_globalpool_gemm",
    "globalmaxpool",
    "batch_norm_float64",
];

fn fixture(name: &str) -> PathBuf {
    fixture_support::fixture("pool", name)
}

fn program_of(name: &str) -> String {
    emit(&import_file(&fixture(&format!("{name}.onnx")), None, &ImportOptions::default()).unwrap())
}

#[test]
fn pool_models_agree_with_the_reference_bit_for_bit_on_both_engines() {
    for name in MODELS {
        let Ran { result, expected, .. } = run("pool", name);
        assert_eq!(bits(&result), bits(&expected), "{name}");
    }
}

#[test]
fn channels_last_images_are_transposed_and_dropout_is_nothing() {
    // (1, 5, 6, 3) to (1, 3, 5, 6): the program's input is the (5, 6, 3) image as stored.
    let text = program_of("transpose_channels_last");
    assert!(text.contains("= transpose(input, 2, 0, 1) in"), "{text}");
    // Back to channels last, (4, 3, 4) to (3, 4, 4), then a row: flatten.
    let transposes = text.matches("transpose(").count();
    assert_eq!(transposes, 2, "{text}");
    assert!(text.contains(", 1, 2, 0) in"), "{text}");
    assert!(text.contains("flatten("), "{text}");
    let text = program_of("conv_dropout_gemm");
    let code: Vec<&str> = text.lines().filter(|l| !l.starts_with("//")).collect();
    assert!(code.iter().all(|l| !l.to_lowercase().contains("dropout")), "Dropout writes nothing: {text}");
    assert!(code.iter().any(|l| l.contains("reluTensor(")) && code.iter().any(|l| l.contains("flatten(")), "{text}");
}

#[test]
fn the_programs_read_like_the_models() {
    let text = program_of("maxpool_pads_dilation");
    assert!(
        text.contains(
            "let output = maxPool2d(input, kernel = [2, 3], strides = [1, 2], pads = [1, 0, 1, 2], dilations = [2, 1]) in"
        ),
        "{text}"
    );
    // (6, 5), a 3×3 window, strides 2: SAME_UPPER pads rows (3 - 1)·2 + 3 - 6 = 1 at the end,
    // columns (3 - 1)·2 + 3 - 5 = 2, one on each side.
    let text = program_of("maxpool_same_upper");
    assert!(text.contains("maxPool2d(input, kernel = [3, 3], strides = [2, 2], pads = [0, 1, 1, 1]) in"), "{text}");
    let text = program_of("avgpool_pads_count1");
    assert!(text.contains("avgPool2d(input, kernel = [3, 3], strides = [2, 2], pads = [1, 1, 1, 0], countPad = 1)"));
    let text = program_of("avgpool_pads_count0");
    assert!(text.contains("avgPool2d(input, kernel = [3, 3], strides = [2, 2], pads = [1, 1, 1, 0]) in"), "{text}");
    // SAME_LOWER, a 2×3 window on (5, 6), stride 1: one row at the top, one column each side.
    let text = program_of("avgpool_same_lower");
    assert!(text.contains("avgPool2d(input, kernel = [2, 3], pads = [1, 1, 0, 1]) in"), "{text}");
    let text = program_of("conv_reshape_flatten");
    assert!(text.contains("let h0 = reshape(z0, 3, 16) in\nlet output = flatten(h0) in"), "{text}");
    // The Pad's (1, 0, 2, 1) added to the Conv's (0, 1, 1, 0), and to the pool's (1, 0, 0, 1).
    let text = program_of("pad_conv");
    assert!(text.contains("= conv2d(input, W0, b0, pads = [1, 1, 3, 1]) in"), "{text}");
    assert!(text.contains("// Layer 0: conv2d 2×5×6 -> 2×7×7"), "{text}");
    let text = program_of("pad_avgpool");
    assert!(text.contains("avgPool2d(input, kernel = [3, 2], strides = [2, 1], pads = [2, 2, 0, 2], countPad = 1)"));
    let text = program_of("pad_zero_maxpool");
    assert!(text.contains("let output = maxPool2d(input, kernel = [2, 2], strides = [2, 2]) in"), "{text}");
    let text = program_of("conv_relu_maxpool_gemm");
    for line in [
        "let h0 = reluTensor(z0) in",
        "// maxPool2d 4×8×8 -> 4×4×4",
        "let h1 = maxPool2d(h0, kernel = [2, 2], strides = [2, 2]) in",
        "let h2 = flatten(h1) in",
        "let W1 = initTensor(5, 64)[",
        "let output = linear(W1, h2) in",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    let network = import_file(&fixture("conv_relu_maxpool_gemm.onnx"), None, &ImportOptions::default()).unwrap();
    assert_eq!(network.layer_shapes(), vec![vec![1, 9, 9], vec![4, 8, 8], vec![4, 4, 4], vec![64], vec![5]]);
    assert!(network.steps.iter().any(|s| matches!(s, Step::Pool(_))));
}
