//! ONNX graphs that branch, made by `tests/data/residual/make_fixtures.py`: a ResNet basic
//! block, a block with a 1×1 convolution on its skip path, and a value read three times (with a
//! `Sub` of two computed values). Imported, run on both engines and compared bit for bit with
//! the script's float64 loops; their class is onnxruntime's. Graphs whose nodes are out of
//! order, and sums of values of different shapes, are refused naming the node.

mod fixture_support;
mod onnx_support;

use std::path::PathBuf;

use knn_formats::import::emit::{Style, emit, emit_with};
use knn_formats::import::onnx::proto::ModelProto;
use knn_formats::import::{ImportOptions, Step, import_file};
use knn_formats::npy::read_npy;
use prost::Message;

use fixture_support::{Ran, bits, run};

const MODELS: [&str; 3] = ["resnet_block", "resnet_block_projection", "value_used_three_times"];

fn fixture(name: &str) -> PathBuf {
    fixture_support::fixture("residual", name)
}

fn program_of(name: &str) -> String {
    emit(&import_file(&fixture(&format!("{name}.onnx")), None, &ImportOptions::default()).unwrap())
}

fn class(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, k| if v[k] > v[best] { k } else { best })
}

#[test]
fn residual_models_agree_with_the_reference_bit_for_bit_and_with_onnxruntime_on_the_class() {
    for name in MODELS {
        let Ran { result, expected, .. } = run("residual", name);
        assert_eq!(bits(&result), bits(&expected), "{name}");
        let onnxruntime = read_npy(&fixture(&format!("{name}.onnxruntime.npy"))).unwrap();
        assert_eq!(class(&result), class(&onnxruntime.data), "{name}: knn {result:?}, onnxruntime {onnxruntime:?}");
        for (k, (&ours, &theirs)) in result.iter().zip(&onnxruntime.data).enumerate() {
            assert!((ours - theirs).abs() <= 1e-4 * (1.0 + ours.abs()), "{name}[{k}]: {ours} vs {theirs}");
        }
    }
}

#[test]
fn a_basic_block_adds_its_input_to_the_second_convolution_with_add_tensor() {
    let text = program_of("resnet_block");
    // conv → relu → conv, then the sum with the block's input (ONNX's order: conv first).
    assert!(
        text.contains("let z0 = conv2d(input, W0, b0, pads = [1, 1, 1, 1]) in\nlet h0 = reluTensor(z0) in"),
        "{text}"
    );
    assert!(text.contains("let z1 = conv2d(h0, W1, b1, pads = [1, 1, 1, 1]) in"), "{text}");
    assert!(text.contains("\n// The sum of two branches: z1 + input (2×5×5)\nlet h1 = addTensor(z1, input) in\nlet h2 = reluTensor(h1) in"), "{text}");
    assert!(text.contains("let output = linear(W2, h3) in"), "{text}");
    let network = import_file(&fixture("resnet_block.onnx"), None, &ImportOptions::default()).unwrap();
    // The input is read twice: kept before the first conv, added after the second.
    assert_eq!(network.steps[0], Step::Keep(0));
    assert!(network.steps.contains(&Step::AddKept { slot: 0, kept_first: false }));
    assert!(
        !network.steps.iter().any(|s| matches!(s, Step::Resume(_))),
        "the sum reads the kept input, no branch is resumed"
    );
}

#[test]
fn a_projection_block_resumes_the_kept_value_for_its_skip_path() {
    let text = program_of("resnet_block_projection");
    // The main path (two convs) first, then the 1×1 conv of stride 2 reads the kept h0 again.
    assert!(text.contains("let z3 = conv2d(h0, W3, b3, strides = [2, 2]) in"), "{text}");
    assert!(text.contains("let h2 = addTensor(z2, z3) in"), "{text}");
    let network = import_file(&fixture("resnet_block_projection.onnx"), None, &ImportOptions::default()).unwrap();
    let branch: Vec<&Step> =
        network.steps.iter().filter(|s| matches!(s, Step::Keep(_) | Step::Resume(_) | Step::AddKept { .. })).collect();
    // h0 kept when the main path reads it; the main path's end kept when the skip path
    // resumes h0; the sum of the two, the kept main path first.
    let [Step::Keep(h0), Step::Keep(main_end), Step::Resume(resumed), Step::AddKept { slot, kept_first: true }] =
        branch[..]
    else {
        panic!("{branch:?}")
    };
    assert_eq!((resumed, slot), (h0, main_end));
    assert_eq!(network.output_shape(), [5]);
}

#[test]
fn a_value_read_three_times_is_never_written_in_place() {
    let text = program_of("value_used_three_times");
    // The scaling of the kept h0 writes a copy of it; the subtraction negates the kept value's
    // copy and adds it to the sum, (a + b) + (-1 · h0) = (a + b) - h0 exactly.
    assert!(text.contains("let t1 = reshape(h0, 2, 4, 4) in\nlet t1[0, 0, 0] = t1[0, 0, 0] * 0.5 in"), "{text}");
    assert!(text.contains("let z2 = conv2d(t1, W2, b2) in"), "{text}");
    assert!(!text.contains("let h0["), "{text}");
    assert!(text.contains("let h2 = addTensor(z1, z2) in"), "{text}");
    assert!(text.contains("let t3 = reshape(h0, 2, 4, 4) in\nlet t3[0, 0, 0] = t3[0, 0, 0] * -1.0 in"), "{text}");
    assert!(text.contains("let h4 = addTensor(h2, t3) in\nlet h5 = flatten(h4) in"), "{text}");
}

#[test]
fn the_element_style_writes_the_sum_element_by_element() {
    let network = import_file(&fixture("resnet_block.onnx"), None, &ImportOptions::default()).unwrap();
    let text = emit_with(&network, Style::ElementLets);
    assert!(!text.contains("addTensor"), "{text}");
    assert!(
        text.contains("let h1 = initTensor(2, 5, 5) in\nlet h1[0, 0, 0] = z1[0, 0, 0] + input[0, 0, 0] in"),
        "{text}"
    );
    assert!(text.contains("let h1[1, 4, 4] = z1[1, 4, 4] + input[1, 4, 4] in\nlet h2 = reluTensor(h1) in"), "{text}");
}

/// The fixture `name` with its graph changed by `change`, as bytes.
fn changed(name: &str, change: impl FnOnce(&mut ModelProto)) -> Vec<u8> {
    let bytes = std::fs::read(fixture(&format!("{name}.onnx"))).unwrap();
    let mut model = ModelProto::decode(&bytes[..]).unwrap();
    change(&mut model);
    model.encode_to_vec()
}

fn error_of(bytes: &[u8]) -> String {
    let e = onnx_support::import_bytes(bytes).unwrap_err();
    format!("{}: {}", e.location, e.message)
}

#[test]
fn graphs_out_of_order_and_sums_of_different_shapes_are_refused_naming_the_node() {
    // The block's sum moved before the conv that computes one of its operands.
    let unsorted = changed("resnet_block", |m| {
        let nodes = &mut m.graph.as_mut().unwrap().node;
        let add = nodes.iter().position(|n| n.op_type == "Add").unwrap();
        let moved = nodes.remove(add);
        nodes.insert(0, moved);
    });
    let e = error_of(&unsorted);
    assert!(
        e.starts_with("node \"add3\" (Add): it reads `conv2`, which node \"conv2\" (Conv) computes: the nodes are not in topological order"),
        "{e}"
    );
    // A cycle: the first conv reads the relu after it.
    let cycle = changed("resnet_block", |m| m.graph.as_mut().unwrap().node[0].input[0] = "relu1".into());
    let e = error_of(&cycle);
    assert!(e.starts_with("node \"conv0\" (Conv): it reads `relu1`, which node \"relu1\" (Relu) computes"), "{e}");
    let own = changed("resnet_block", |m| m.graph.as_mut().unwrap().node[1].input[0] = "relu1".into());
    let e = error_of(&own);
    assert!(e.starts_with("node \"relu1\" (Relu): it reads `relu1`, which itself (a cycle) computes"), "{e}");
    // The projection block's sum of the main path (4×3×3) and the block's first relu (3×6×6).
    let mismatched = changed("resnet_block_projection", |m| {
        let add = m.graph.as_mut().unwrap().node.iter_mut().find(|n| n.op_type == "Add").unwrap();
        add.input[1] = "relu1".into();
    });
    let e = error_of(&mismatched);
    assert_eq!(
        e,
        "node \"add6\" (Add): it adds computed values of shapes [1, 4, 3, 3] and [1, 3, 6, 6], which do not broadcast (NumPy's rule)"
    );
}

/// Imports `bytes` (a model of a `(1, 1, 3, 3)` image), runs it on both engines with `x` and
/// returns the result's elements.
fn run_image(bytes: &[u8], x: &[f64]) -> Vec<f64> {
    use knn_engine::bigstep::{BigStep, Staging};
    use knn_engine::tensor::Precision;
    use knn_semantics::Profile;
    use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
    use knn_semantics::inputs::TensorInput;
    let network = onnx_support::import_bytes(bytes).unwrap_or_else(|e| panic!("{e}"));
    let text = emit(&network);
    let program = knn_semantics::syntax::parse_program(&text, Profile::revised().grammar).unwrap();
    let input = TensorInput { name: network.input.clone(), shape: vec![1, 3, 3], data: x.to_vec() };
    let small = SmallStep::revised().evaluate(&program, std::slice::from_ref(&input)).unwrap();
    let big = BigStep { staging: Staging::Staged, precision: Precision::Exact }.evaluate(&program, &[input]).unwrap();
    assert!(big.agrees_with(&small), "{text}");
    let Verdict::Value(Observed::Tensor(result)) = small else { panic!("{small}\n{text}") };
    result.data
}

#[test]
fn a_pad_is_folded_into_its_own_reader_when_another_branch_comes_between() {
    use onnx_support::{floats, model, node, with_ints};
    // p = Pad(x) one row of zeros on top; a = Conv(x, 2.0) (1×1); b = Conv(p, [1, 1]) (2×1,
    // reading the padding); y = a + b. So y[i, j] = 2·x[i, j] + (x[i - 1, j] + x[i, j]), with
    // x[-1, j] = 0: the padding belongs to b's conv, not to a's, which comes between.
    let pads = onnx_support::ints("pads", &[0, 0, 1, 0, 0, 0, 0, 0]);
    let nodes = vec![
        node("Pad", "pad", &["input.1", "pads"], "p"),
        with_ints(node("Conv", "a", &["input.1", "K1"], "a"), "kernel_shape", &[1, 1]),
        with_ints(node("Conv", "b", &["p", "K2"], "b"), "kernel_shape", &[2, 1]),
        node("Add", "sum", &["a", "b"], "y"),
    ];
    let inits = vec![pads, floats("K1", &[1, 1, 1, 1], &[2.0]), floats("K2", &[1, 1, 2, 1], &[1.0, 1.0])];
    let bytes = model(&[Some(1), Some(1), Some(3), Some(3)], "y", nodes, inits);
    let x = [1.0, 2.0, 3.0, 10.0, 20.0, 30.0, 100.0, 200.0, 300.0];
    let expected: Vec<f64> = (0..9).map(|k| 3.0 * x[k] + if k >= 3 { x[k - 3] } else { 0.0 }).collect();
    assert_eq!(bits(&run_image(&bytes, &x)), bits(&expected));
}
