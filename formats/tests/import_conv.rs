//! ONNX `Conv` models made by `tests/data/conv/make_fixtures.py` (stride, pads, dilation,
//! groups, no bias, `auto_pad`, Conv→Relu→Conv, a symbolic batch dimension): imported, run on
//! both engines with their `(C, H, W)` input bound as it is, and compared bit for bit with the
//! script's float64 reference (a loop convolution summing in the order of K-NN's rule). The
//! float32 model's class is compared with onnxruntime's.

use std::path::PathBuf;

use knn_engine::bigstep::{BigStep, Staging};
use knn_engine::tensor::Precision;
use knn_formats::import::emit::{emit, skeleton};
use knn_formats::import::{ImportOptions, Step, import_file};
use knn_formats::npy::read_npy;
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{parse_program, parse_program_with_elements};

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
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/conv").join(name);
    assert!(path.is_file(), "missing fixture {} (made by make_fixtures.py beside it)", path.display());
    path
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The model's output on its input, on the small-step engine, the big-step one evaluating
/// directly and the big-step one staged (the input symbolic), which must agree; and the
/// expected array.
fn run(name: &str) -> (Vec<usize>, Vec<f64>, Vec<f64>) {
    let network = import_file(&fixture(&format!("{name}.onnx")), None, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let x = read_npy(&fixture(&format!("{name}.input.npy"))).unwrap();
    let expected = read_npy(&fixture(&format!("{name}.expected.npy"))).unwrap();
    assert_eq!(network.input_shape, x.shape, "{name}: the input is (C, H, W)");
    assert_eq!(network.output_shape(), expected.shape, "{name}");
    assert!(network.steps.iter().any(|s| matches!(s, Step::Conv(_))), "{name}");
    let text = emit(&network);
    let program = parse_program(&text, Profile::revised().grammar).unwrap_or_else(|e| panic!("{text}\n{e}"));
    // The program built in memory (the weights not written as text) is the same program.
    let (skeleton_text, elements) = skeleton(network.clone());
    let built = parse_program_with_elements(&skeleton_text, Profile::revised().grammar, elements)
        .unwrap_or_else(|e| panic!("{skeleton_text}\n{e}"));
    let input = TensorInput { name: network.input.clone(), shape: x.shape.clone(), data: x.data.clone() };
    let inputs = std::slice::from_ref(&input);
    let small = SmallStep::revised().evaluate(&program, inputs).unwrap();
    for staging in [Staging::Direct, Staging::Staged] {
        let engine = BigStep { staging, precision: Precision::Exact };
        for program in [&program, &built] {
            let big = engine.evaluate(program, inputs).unwrap();
            assert!(big.agrees_with(&small), "{name}: {staging:?}\n{text}");
        }
    }
    let Verdict::Value(Observed::Tensor(result)) = small else { panic!("{name}: {small}\n{text}") };
    assert_eq!(result.shape, expected.shape, "{name}");
    (result.shape, result.data, expected.data)
}

#[test]
fn conv_models_agree_with_the_reference_bit_for_bit_on_both_engines() {
    for name in MODELS {
        let (_, result, expected) = run(name);
        assert_eq!(bits(&result), bits(&expected), "{name}");
    }
}

#[test]
fn the_float32_model_has_onnxruntimes_class() {
    let onnxruntime = fixture("conv_relu_conv_f32.onnxruntime.npy");
    let ort = read_npy(&onnxruntime).unwrap();
    let (shape, result, _) = run("conv_relu_conv_f32");
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
