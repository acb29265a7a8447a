//! ONNX `Add`, `Sub`, `Mul`, `Div` of two computed values whose shapes broadcast, made by
//! `tests/data/arith/make_fixtures.py`: Ext-8's `addTensor`, `subTensor`, `mulTensor`,
//! `divTensor`. Imported, run on both engines and compared bit for bit with the script's
//! float64 arithmetic (each element one IEEE operation); within float32 rounding of
//! onnxruntime, and its class; the element-`let` style gives the same bits.

mod fixture_support;

use knn_formats::import::emit::{Style, emit, emit_with};
use knn_formats::import::{ImportOptions, Step, import_file};
use knn_formats::npy::read_npy;
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, SmallStep};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{TensorOp, parse_program};

use fixture_support::{Ran, bits, run};

fn class(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, k| if v[k] > v[best] { k } else { best })
}

#[test]
fn broadcast_arithmetic_of_two_branches_agrees_bit_for_bit_and_with_onnxruntime() {
    let Ran { result, expected, network, .. } = run("arith", "arith_broadcast");
    assert_eq!(bits(&result), bits(&expected));
    let onnxruntime = read_npy(&fixture_support::fixture("arith", "arith_broadcast.onnxruntime.npy")).unwrap();
    assert_eq!(class(&result), class(&onnxruntime.data), "knn {result:?}, onnxruntime {onnxruntime:?}");
    for (k, (&ours, &theirs)) in result.iter().zip(&onnxruntime.data).enumerate() {
        assert!((ours - theirs).abs() <= 1e-4 * (1.0 + ours.abs()), "[{k}]: {ours} vs {theirs}");
    }
    let ops: Vec<Option<TensorOp>> = network
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::ArithKept { op, .. } => Some(*op),
            _ => None,
        })
        .collect();
    // Mul, Div, Sub broadcast; the Add of two (2, 3) values held as (2, 3) and flat (6) too.
    assert_eq!(ops, [Some(TensorOp::Mul), Some(TensorOp::Div), Some(TensorOp::Sub), None]);
}

#[test]
fn the_element_let_style_gives_the_same_bits() {
    let path = fixture_support::fixture("arith", "arith_broadcast.onnx");
    let network = import_file(&path, None, &ImportOptions::default()).unwrap();
    let text = emit(&network);
    assert!(
        text.contains(" = mulTensor(") && text.contains(" = divTensor(") && text.contains(" = subTensor("),
        "{text}"
    );
    let lets = emit_with(&network, Style::ElementLets);
    assert!(!lets.contains("mulTensor(") && !lets.contains("subTensor("), "{lets}");
    let x = read_npy(&fixture_support::fixture("arith", "arith_broadcast.input.npy")).unwrap();
    let input = [TensorInput { name: network.input.clone(), shape: x.shape.clone(), data: x.data.clone() }];
    let run = |source: &str| {
        let program = parse_program(source, Profile::revised().grammar).unwrap_or_else(|e| panic!("{source}\n{e}"));
        SmallStep::revised().evaluate(&program, &input).unwrap()
    };
    assert!(run(&lets).agrees_with(&run(&text)), "{lets}");
}
