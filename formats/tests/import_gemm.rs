//! ONNX `Gemm` beyond a dense layer: two computed values, a constant times a computed matrix,
//! `transA`/`transB`, `alpha`, `beta` and a constant or computed `C` (Ext-15's `matmul`, Ext-6's
//! `transpose`, an element-wise scaling and Ext-8's `addTensor`). The fixtures, made by
//! `tests/data/gemm/make_fixtures.py`, are imported, run on both engines and compared bit for bit
//! with the script's float64 loops in K-NN's order, and with onnxruntime's float64 output within
//! its fused multiply-adds (the script checks that they are the only difference). Graphs built
//! here check the constant path's other flags and the refusals.

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
use onnx_support::{floats, linear, model, node, wide, with_float, with_int};
use prost::Message;

use fixture_support::{Ran, bits, run};

const MODELS: [&str; 3] = ["gemm_two_computed", "gemm_computed_bias", "gemm_constant_left"];

#[test]
fn gemms_of_computed_values_agree_with_the_reference_bit_for_bit_and_with_onnxruntime() {
    for name in MODELS {
        let Ran { result, expected, network, shape } = run("gemm", name);
        assert_eq!(bits(&result), bits(&expected), "{name}");
        let onnxruntime = read_npy(&fixture_support::fixture("gemm", &format!("{name}.onnxruntime.npy"))).unwrap();
        assert_eq!(shape, onnxruntime.shape, "{name}: the output is the Gemm's (M, N)");
        for (k, (&ours, &theirs)) in result.iter().zip(&onnxruntime.data).enumerate() {
            // onnxruntime fuses each multiply-add: a few units in the last place.
            assert!((ours - theirs).abs() <= 1e-13 * (1.0 + ours.abs()), "{name}[{k}]: {ours} vs {theirs}");
        }
        assert!(network.steps.iter().any(|s| matches!(s, Step::MatmulKept { .. })), "{name}: {:?}", network.steps);
    }
}

#[test]
fn the_imported_programs_read_as_the_gemms_they_are() {
    let text = |name: &str| {
        emit(
            &import_file(&fixture_support::fixture("gemm", &format!("{name}.onnx")), None, &ImportOptions::default())
                .unwrap(),
        )
    };
    // transA on a computed (5, 6): one transpose, then the product, `* 0.5`, `+ -1.25 * C`.
    let two = text("gemm_two_computed");
    assert!(two.contains("= transpose(h1, 1, 0) in"), "{two}");
    assert!(two.contains("matmul(h2, h3)"), "{two}");
    assert!(two.contains("* 0.5 +"), "{two}");
    // A constant left operand: its transpose (3, 4) is a literal, the left operand of matmul.
    let left = text("gemm_constant_left");
    assert!(left.contains("// A constant matrix, 3×4\nlet W0 = initTensor(3, 4)["), "{left}");
    assert!(left.contains("matmul(W0, "), "{left}");
    // A computed C: scaled by beta, then added with broadcasting.
    let bias = text("gemm_computed_bias");
    assert!(bias.contains("addTensor("), "{bias}");
    assert!(bias.contains("* 0.75"), "{bias}");
}

#[test]
fn the_element_let_style_gives_the_same_bits() {
    for name in MODELS {
        let path = fixture_support::fixture("gemm", &format!("{name}.onnx"));
        let network = import_file(&path, None, &ImportOptions::default()).unwrap();
        let lets = emit_with(&network, Style::ElementLets);
        assert!(!lets.contains("matmul(") && !lets.contains("initTensor(3, 4)["), "{name}: {lets}");
        let x = read_npy(&fixture_support::fixture("gemm", &format!("{name}.input.npy"))).unwrap();
        let input = [TensorInput { name: network.input.clone(), shape: x.shape.clone(), data: x.data.clone() }];
        let run = |source: &str| {
            let program = parse_program(source, Profile::revised().grammar).unwrap_or_else(|e| panic!("{source}\n{e}"));
            SmallStep::revised().evaluate(&program, &input).unwrap()
        };
        assert!(run(&lets).agrees_with(&run(&emit(&network))), "{name}: {lets}");
    }
}

/// The fixture `name` with its last node (the Gemm) changed by `change`, imported: the error.
fn refused(name: &str, change: impl FnOnce(&mut ModelProto)) -> String {
    let bytes = std::fs::read(fixture_support::fixture("gemm", &format!("{name}.onnx"))).unwrap();
    let mut model = ModelProto::decode(&bytes[..]).unwrap();
    change(&mut model);
    let e = onnx_support::import_bytes(&model.encode_to_vec()).unwrap_err();
    format!("{}: {}", e.location, e.message)
}

#[test]
fn gemms_whose_shapes_do_not_fit_are_refused_naming_the_node() {
    // Without transA, A (5, 6) times B (5, 6): the inner extents 6 and 5 differ.
    let e = refused("gemm_two_computed", |m| {
        let gemm = m.graph.as_mut().unwrap().node.last_mut().unwrap();
        gemm.attribute.retain(|a| a.name != "transA");
    });
    assert_eq!(
        e,
        "node \"gemm3\" (Gemm): A' is 5×6 and B' is 5×6 (after transA = 0, transB = 0): the inner extents differ"
    );
    // C (1, 6) against a product (6, 6) read without transA: C given 7 columns.
    let e = refused("gemm_two_computed", |m| {
        let graph = m.graph.as_mut().unwrap();
        let c = graph.initializer.iter_mut().find(|t| t.dims == [1, 6]).unwrap();
        c.dims = vec![2, 3];
    });
    assert_eq!(e, "node \"gemm3\" (Gemm): C has shape [2, 3], which does not broadcast to [6, 6]");
    // A computed value of rank 3 as A.
    let e = refused("gemm_two_computed", |m| {
        let graph = m.graph.as_mut().unwrap();
        let shape = graph.initializer.iter_mut().find(|t| t.int64_data == [5, 6] || t.dims == [2]).unwrap();
        *shape = onnx_support::ints(&shape.name, &[5, 3, 2]);
    });
    assert!(e.contains("Gemm multiplies matrices (rank 2)"), "{e}");
}

#[test]
fn the_constant_path_takes_every_transposition() {
    // W's six numbers read (2, 3) or (3, 2); x of 3 elements, a row (1, 3) or a column (3, 1).
    let w = [0.5f32, -1.25, 2.0, 0.1, 3.0, -0.75];
    // W read (3, 2), transposed: row j is w[j], w[2 + j], w[4 + j].
    let w32t: Vec<f64> = (0..6).map(|k| f64::from(w[(k % 3) * 2 + k / 3])).collect();
    let x = [1.0, 2.0, -3.0];
    type Case<'c> = (&'c str, [i64; 2], [Option<i64>; 2], [i64; 2], Vec<f64>);
    let cases: [Case; 4] = [
        // A = x (3, 1) with transA: the row x; times B = W (3, 2) as given.
        ("x as A', W as B", [1, 0], [Some(3), Some(1)], [3, 2], linear(&w32t, 3, &x)),
        // A = W (2, 3) times B = x (1, 3) with transB: the column x.
        ("W as A, x as B'", [0, 1], [Some(1), Some(3)], [2, 3], linear(&wide(&w), 3, &x)),
        // A = W (2, 3) times B = x (3, 1).
        ("W as A, x as B", [0, 0], [Some(3), Some(1)], [2, 3], linear(&wide(&w), 3, &x)),
        // A = W (3, 2) with transA times B = x (1, 3) with transB.
        ("W as A', x as B'", [1, 1], [Some(1), Some(3)], [3, 2], linear(&w32t, 3, &x)),
    ];
    for (what, [trans_a, trans_b], input, dims, expected) in cases {
        let operands: [&str; 2] = if what.starts_with('x') { ["input.1", "W"] } else { ["W", "input.1"] };
        let gemm = with_int(with_int(node("Gemm", "g", &operands, "y"), "transA", trans_a), "transB", trans_b);
        let bytes = model(&input, "y", vec![gemm], vec![floats("W", &dims, &w)]);
        let network = onnx_support::import_bytes(&bytes).unwrap();
        assert!(matches!(network.steps[..], [Step::Linear { .. }]), "{what}: one dense layer, {:?}", network.steps);
        assert_eq!(bits(&onnx_support::run(&bytes, &x)), bits(&expected), "{what}");
    }
}

#[test]
fn beta_zero_adds_no_c_and_alpha_scales_the_product() {
    // C holds an infinity: beta · C would be NaN; ONNX runtimes do not read C when beta = 0.
    let w = [0.5f32, -1.25, 2.0, 0.1, 3.0, -0.75];
    let gemm = with_float(
        with_float(with_int(node("Gemm", "g", &["input.1", "W", "C"], "y"), "transB", 1), "beta", 0.0),
        "alpha",
        -2.0,
    );
    let bytes = model(
        &[Some(1), Some(3)],
        "y",
        vec![gemm],
        vec![floats("W", &[2, 3], &w), floats("C", &[2], &[f32::INFINITY, 1.0])],
    );
    let x = [1.0, 2.0, -3.0];
    let expected: Vec<f64> = linear(&wide(&w), 3, &x).iter().map(|v| v * -2.0).collect();
    assert_eq!(bits(&onnx_support::run(&bytes, &x)), bits(&expected));
}

#[test]
fn a_dense_layer_plus_its_own_input_as_c() {
    // y = alpha · x W + beta · x, x (1, 3), W (3, 3): the product by `linear`, then x scaled
    // and added by `addTensor` (each element: (sum · 2) + (x · 0.5), each operation rounded).
    let w = [0.5f32, -1.25, 2.0, 0.1, 3.0, -0.75, 1.5, 0.25, -2.0];
    let gemm = with_float(with_float(node("Gemm", "g", &["input.1", "W", "input.1"], "y"), "alpha", 2.0), "beta", 0.5);
    let bytes = model(&[Some(1), Some(3)], "y", vec![gemm], vec![floats("W", &[3, 3], &w)]);
    let x = [1.0, 0.3, -3.0];
    // x W: column j of W (3, 3) row-major is w[j], w[3 + j], w[6 + j].
    let expected: Vec<f64> =
        (0..3).map(|j| (0..3).fold(0.0, |acc, k| acc + x[k] * f64::from(w[k * 3 + j])) * 2.0 + x[j] * 0.5).collect();
    assert_eq!(bits(&onnx_support::run(&bytes, &x)), bits(&expected));
    let steps = onnx_support::import_bytes(&bytes).unwrap().steps;
    assert!(matches!(steps[..], [Step::Keep(0), Step::Linear { .. }, ..]), "{steps:?}");
    assert!(steps.iter().any(|s| matches!(s, Step::ArithKept { op: None, .. })), "{steps:?}");
}

#[test]
fn a_value_times_its_own_transpose() {
    // Gemm(x, x, transB = 1) of x (2, 3): the Gram matrix x xᵀ, (2, 2), each element from 0.0.
    let gemm = with_int(node("Gemm", "g", &["input.1", "input.1"], "y"), "transB", 1);
    let bytes = model(&[Some(2), Some(3)], "y", vec![gemm], vec![]);
    let x = [1.0, 0.3, -3.0, 0.7, 2.5, 1.0 / 3.0];
    let expected: Vec<f64> =
        (0..4).map(|o| (0..3).fold(0.0, |acc, k| acc + x[(o / 2) * 3 + k] * x[(o % 2) * 3 + k])).collect();
    assert_eq!(bits(&onnx_support::run(&bytes, &x)), bits(&expected));
}
