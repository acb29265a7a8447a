//! ONNX `MatMul` of two computed values, made by `tests/data/matmul/make_fixtures.py`: two
//! branches of the input meet in a product (Ext-15's `matmul`), alone and batched. Imported, run
//! on both engines and compared bit for bit with the script's float64 loops (each element from
//! 0.0, its products in increasing order); within float32 rounding of onnxruntime, and its
//! class. Products whose shapes do not fit are refused naming the node.

mod fixture_support;
mod onnx_support;

use knn_formats::import::emit::{Style, emit, emit_with};
use knn_formats::import::onnx::proto::ModelProto;
use knn_formats::import::{ImportOptions, Step, import_file};
use knn_formats::npy::read_npy;
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, SmallStep};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::parse_program;
use prost::Message;

use fixture_support::{Ran, bits, run};

const MODELS: [&str; 2] = ["matmul_branches", "matmul_batched"];

fn class(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, k| if v[k] > v[best] { k } else { best })
}

#[test]
fn products_of_two_branches_agree_with_the_reference_bit_for_bit_and_with_onnxruntime() {
    for name in MODELS {
        let Ran { result, expected, network, .. } = run("matmul", name);
        assert_eq!(bits(&result), bits(&expected), "{name}");
        let onnxruntime = read_npy(&fixture_support::fixture("matmul", &format!("{name}.onnxruntime.npy"))).unwrap();
        assert_eq!(class(&result), class(&onnxruntime.data), "{name}: knn {result:?}, onnxruntime {onnxruntime:?}");
        for (k, (&ours, &theirs)) in result.iter().zip(&onnxruntime.data).enumerate() {
            assert!((ours - theirs).abs() <= 1e-4 * (1.0 + ours.abs()), "{name}[{k}]: {ours} vs {theirs}");
        }
        assert!(network.steps.iter().any(|s| matches!(s, Step::MatmulKept { .. })), "{name}: {:?}", network.steps);
    }
}

#[test]
fn the_product_is_one_matmul_and_its_element_lets_give_the_same_bits() {
    let path = fixture_support::fixture("matmul", "matmul_branches.onnx");
    let network = import_file(&path, None, &ImportOptions::default()).unwrap();
    let text = emit(&network);
    // knn holds the input flat: relu(x) is read as (2, 3), x as (3, 2), then multiplied.
    assert!(
        text.contains("let h0 = reluTensor(input) in\nlet h1 = reshape(h0, 2, 3) in\nlet h2 = reshape(input, 3, 2) in"),
        "{text}"
    );
    assert!(text.contains("// The product of two branches: h1 times h2 (2×2)\nlet h3 = matmul(h1, h2) in"), "{text}");
    // The element-`let` style writes each product: the same bits on the reference.
    let lets = emit_with(&network, Style::ElementLets);
    assert!(!lets.contains("matmul("), "{lets}");
    // Element (0, 1): from 0.0, h1[0, p] * h2[p, 1] for p = 0, 1, 2 in order.
    assert!(lets.contains("let h3[0, 1] = h3[0, 1] + h1[0, 0] * h2[0, 1] in\nlet h3[0, 1] = h3[0, 1] + h1[0, 1] * h2[1, 1] in\nlet h3[0, 1] = h3[0, 1] + h1[0, 2] * h2[2, 1] in"), "{lets}");
    let x = read_npy(&fixture_support::fixture("matmul", "matmul_branches.input.npy")).unwrap();
    let input = [TensorInput { name: network.input.clone(), shape: x.shape.clone(), data: x.data.clone() }];
    let run = |source: &str| {
        let program = parse_program(source, Profile::revised().grammar).unwrap_or_else(|e| panic!("{source}\n{e}"));
        SmallStep::revised().evaluate(&program, &input).unwrap()
    };
    assert!(run(&lets).agrees_with(&run(&text)), "{lets}");
}

#[test]
fn products_whose_shapes_do_not_fit_are_refused_naming_the_node() {
    // relu(x) (1, 2, 3) times itself: the inner extents 3 and 2 differ.
    let bytes = std::fs::read(fixture_support::fixture("matmul", "matmul_branches.onnx")).unwrap();
    let mut model = ModelProto::decode(&bytes[..]).unwrap();
    let matmul = model.graph.as_mut().unwrap().node.iter_mut().find(|n| n.op_type == "MatMul").unwrap();
    matmul.input[1] = "relu0".into();
    let e = onnx_support::import_bytes(&model.encode_to_vec()).unwrap_err();
    let e = format!("{}: {}", e.location, e.message);
    assert_eq!(
        e,
        "node \"matmul2\" (MatMul): it multiplies values of shapes [1, 2, 3] and [1, 2, 3], which do not fit (NumPy's matmul)"
    );
}
