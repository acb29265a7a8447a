//! Unit tests of `branches.rs` and `combine.rs`: plans whose tensors branch are read as a
//! chain that computes the engine's bits, and what cannot be bounded is refused by name.

use knn_engine::bigstep::{Binding, ExecOptions, InputData, compile, run_rows};
use knn_semantics::engine::Observed;
use knn_semantics::syntax::{Grammar, parse_program};

use super::*;
use crate::judge::PointResult;

/// The plan of `source` with `x` of `shape` symbolic.
fn plan(source: &str, shape: &[usize]) -> Plan {
    let program = parse_program(source, Grammar::Relaxed).expect("the test program parses");
    compile(&program, &[Binding { name: "x".into(), shape: shape.to_vec(), data: InputData::Symbolic }])
}

fn describe(net: &Network) -> Vec<String> {
    net.layers.iter().map(|layer| layer.describe()).collect()
}

/// Inputs of every sign, zeros, and values whose sums round.
fn inputs(n: usize) -> Vec<Vec<f64>> {
    let pool = [0.3, -0.7, 1.25, -2.5, 0.0, -0.0, 1e-300, -3.0e10, 0.1, 7.0];
    (0..12).map(|k| (0..n).map(|i| pool[(3 * k + 7 * i) % pool.len()]).collect()).collect()
}

/// The chain of `source` computes the engine's result at every point of [`inputs`]: the same
/// bits (signed zeros included: a quotient by a computed tensor tells them apart; NaN as NaN)
/// or the same class.
fn computes_the_engines_results(source: &str, n: usize) -> Network {
    let plan = plan(source, &[n]);
    let net = Network::from_plan(&plan).unwrap_or_else(|refused| panic!("{source}: {refused}"));
    let points = inputs(n);
    let rows: Vec<Vec<&[f64]>> = points.iter().map(|x| vec![x.as_slice()]).collect();
    for (x, result) in points.iter().zip(run_rows(&plan, &rows, ExecOptions::default())) {
        let chain = net.result_at(x);
        match (result, chain) {
            (Ok(Observed::Tensor(engine)), PointResult::Outputs(y)) => {
                let same =
                    engine.data.iter().zip(&y).all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
                assert!(same && y.len() == engine.data.len(), "{source} at {x:?}: {y:?} against {:?}", engine.data);
            }
            (Ok(Observed::Int(class)), PointResult::Class { class: found, .. }) => {
                assert_eq!(found as i64, class, "{source} at {x:?}");
            }
            (Err(_), PointResult::Failed(_)) => {}
            (engine, chain) => panic!("{source} at {x:?}: the engine gives {engine:?}, the chain {chain:?}"),
        }
    }
    net
}

const DENSE: &str = "let W = initTensor(2, 2)[1.5, -2.0, 0.25, 3.0] in ";

#[test]
fn residual_sums_are_read_and_compute_the_engines_bits() {
    for source in [
        // The skip after the relu (never negative: carried as it is).
        format!("{DENSE}let h = linear(W, x) in let r = reluTensor(h) in let o = linear(W, r) in let y = addTensor(o, r) in y"),
        // The skip before the relu (carried as a sign pair), and the input itself.
        format!("{DENSE}let h = linear(W, x) in let r = reluTensor(h) in let o = linear(W, r) in let y = subTensor(o, h) in y"),
        format!("{DENSE}let r = reluTensor(x) in let o = linear(W, r) in let y = addTensor(x, o) in let z = reluTensor(y) in z"),
        // One tensor read by two products, and the same tensor twice.
        format!("{DENSE}let r = reluTensor(x) in let a = linear(W, r) in let b = linear(W, a) in let y = addTensor(a, b) in y"),
        "let r = reluTensor(x) in let y = addTensor(r, r) in y".to_string(),
        // A computed [1] broadcast against a vector.
        "let V = initTensor(1, 2)[1.0, -1.0] in let r = reluTensor(x) in let v = linear(V, r) in let y = subTensor(r, v) in y"
            .to_string(),
        // The class of a residual network.
        format!("{DENSE}let h = linear(W, x) in let r = reluTensor(h) in let y = addTensor(r, h) in ArgMax(y)"),
    ] {
        computes_the_engines_results(&source, 2);
    }
}

#[test]
fn a_kept_tensor_that_may_be_negative_crosses_a_relu_as_a_sign_pair() {
    let source = format!("{DENSE}let h = linear(W, x) in let r = reluTensor(h) in let y = addTensor(r, h) in y");
    let net = computes_the_engines_results(&source, 2);
    let layers = describe(&net);
    assert!(layers.iter().any(|l| l.contains("(s, -s)")), "{layers:?}");
    assert!(layers.iter().any(|l| l.contains("relu(s) - relu(-s)")), "{layers:?}");
    // After the relu the skip is never negative: no pair.
    let after = format!(
        "{DENSE}let h = linear(W, x) in let r = reluTensor(h) in let o = linear(W, r) in let s = reluTensor(o) in let y = addTensor(s, r) in y"
    );
    let layers = describe(&computes_the_engines_results(&after, 2));
    assert!(!layers.iter().any(|l| l.contains("(s, -s)")), "{layers:?}");
}

#[test]
fn element_wise_functions_of_a_constant_are_per_element_layers() {
    let c = "let C = initTensor(2)[0.5, -4.0] in ";
    for (body, expected) in [
        ("addTensor(r, C)", vec!["Bias [Some(0.5), Some(-4.0)]"]),
        ("addTensor(C, r)", vec!["Bias [Some(0.5), Some(-4.0)]"]),
        ("subTensor(r, C)", vec!["Bias [Some(-0.5), Some(4.0)]"]),
        ("subTensor(C, r)", vec!["Scale by [Some(-1.0), Some(-1.0)]", "Bias [Some(0.5), Some(-4.0)]"]),
        ("mulTensor(C, r)", vec!["Scale by [Some(0.5), Some(-4.0)]"]),
        ("divTensor(r, C)", vec!["Divide by [Some(0.5), Some(-4.0)]"]),
    ] {
        let source = format!("{c}let r = reluTensor(x) in let y = {body} in y");
        let net = computes_the_engines_results(&source, 2);
        assert_eq!(describe(&net)[1..], expected, "{body}");
    }
}

#[test]
fn products_quotients_and_softmaxes_of_computed_tensors_are_layers_bounded_by_ranges() {
    // Both operands computed from the input, one of them kept for later or not: element for
    // element the engine's bits (at the points of `inputs`, signed zeros, infinities and NaN
    // among them), read as one layer over the vector.
    for (body, layer) in [
        ("mulTensor(r, x)", "Products of 2 pairs"),
        ("divTensor(r, x)", "Quotients of 2 pairs"),
        ("divTensor(x, r)", "Quotients of 2 pairs"),
        ("mulTensor(x, x)", "Products of 2 pairs"),
        ("matmul(r, x)", "Matmul of computed tensors: 1 outputs of 2 products"),
        ("softmax(r, 0)", "Softmax [2] along 0"),
        ("logSoftmax(x, 0)", "LogSoftmax [2] along 0"),
    ] {
        let source = format!("let r = reluTensor(x) in let y = {body} in let z = addTensor(y, y) in z");
        let net = computes_the_engines_results(&source, 2);
        let layers = describe(&net);
        assert!(layers.iter().any(|l| l.contains(layer)), "{body}: {layers:?}");
    }
}

#[test]
fn what_no_operator_bounds_is_refused_by_name() {
    for (body, what) in [
        ("divTensor(r, Z)", "`divTensor` of a computed tensor by 0, ±∞ or NaN"),
        ("divTensor(C, r)", "`divTensor` of a constant by a computed tensor"),
    ] {
        let source = format!(
            "let C = initTensor(2)[3.0, 2.0] in let Z = initTensor(2)[3.0, -0.0] in let r = reluTensor(x) in let y = {body} in y"
        );
        let refused = Network::from_plan(&plan(&source, &[2])).expect_err(body);
        assert!(refused.what.contains(what), "{body}: {refused}");
        assert!(refused.span.is_some(), "{body}: the refusal points at the function");
    }
}

#[test]
fn monotone_activations_across_a_branch_act_on_their_segment_only() {
    // tanh, sigmoid, exp, log of one tensor while the input is kept for the sum: the kept
    // segment passes through the identity, element for element the engine's values.
    for f in ["tanhTensor", "sigmoidTensor", "expTensor", "logTensor"] {
        let source = format!("let t = {f}(x) in let y = addTensor(t, x) in y");
        let net = computes_the_engines_results(&source, 2);
        let layers = describe(&net);
        assert!(layers.iter().any(|l| l.contains(" on 2..4")), "{f}: {layers:?}");
    }
}

#[test]
fn a_tensor_changed_in_place_after_it_was_read_is_read_with_its_old_value_where_it_was() {
    // `h` is computed from `x` before the bias changes `x`: the result is `relu(x)` as it was.
    let net = computes_the_engines_results("let h = reluTensor(x) in let x[0] = x[0] + 1.0 in h", 2);
    assert_eq!(net.outputs.len(), 2);
    // And the bias is read where it is: `x + b` after `relu(x)` was taken from it.
    computes_the_engines_results("let h = reluTensor(x) in let x[0] = x[0] + 1.0 in let y = addTensor(h, x) in y", 2);
}

#[test]
fn a_result_or_class_of_an_earlier_tensor_is_read_where_it_is() {
    computes_the_engines_results("let h = reluTensor(x) in x", 2);
    computes_the_engines_results("let h = reluTensor(x) in ArgMax(x)", 3);
    // The class of one row of a 2×2 tensor: two of its four elements.
    for row in ["h[0]", "h[1]"] {
        let source = format!("let h = reluTensor(x) in let r = {row} in ArgMax(r)");
        let plan = plan(&source, &[2, 2]);
        let net = Network::from_plan(&plan).unwrap_or_else(|refused| panic!("{row}: {refused}"));
        assert_eq!(net.outputs.len(), 2, "{row}");
    }
}

#[test]
fn an_imported_residual_block_is_read_and_computes_the_engines_bits() {
    // formats/tests/data/residual/resnet_block.onnx: conv → relu → conv, plus the block's input.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../formats/tests/data/residual/resnet_block.onnx");
    let options = knn_formats::import::ImportOptions::default();
    let network = knn_formats::import::import_file(std::path::Path::new(path), None, &options).unwrap();
    let text = knn_formats::import::emit::emit(&network);
    let program = parse_program(&text, Grammar::Relaxed).expect("the imported program parses");
    let target = crate::Target::new(program, "input", vec![2, 5, 5], Vec::new())
        .unwrap_or_else(|refused| panic!("the residual block is not read: {refused}"));
    let points: Vec<Vec<f64>> =
        (0..8).map(|k| (0..50).map(|i| ((i * 7 + k * 13) % 11) as f64 / 5.0 - 1.0).collect()).collect();
    let rows: Vec<Vec<&[f64]>> = points.iter().map(|x| vec![x.as_slice()]).collect();
    for (x, result) in points.iter().zip(run_rows(&target.plan, &rows, ExecOptions::default())) {
        let Ok(Observed::Tensor(engine)) = result else { panic!("{result:?}") };
        assert_eq!(target.net.eval(x), engine.data, "at {x:?}");
    }
}
