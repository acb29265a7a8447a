//! ONNX graphs built here, operator by operator: each supported operator computes what ONNX
//! defines (checked against plain arithmetic written in the test), and each unsupported graph
//! is refused with a message that names the node.

mod onnx_support;

use knn_engine::bigstep::{BigStep, Staging};
use knn_engine::tensor::Precision;
use knn_formats::import::Step;
use knn_formats::import::emit::emit;
use knn_formats::import::onnx::proto::{AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto};
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::parse_program;
use onnx_support::*;
use prost::Message;

#[test]
fn gemm_with_transposed_weights_and_a_bias_then_relu() {
    // PyTorch's export: Gemm(x, W, b) with transB = 1, W of shape (out, in).
    let w = [0.5f32, -1.25, 2.0, 0.1, 3.0, -0.75];
    let b = [0.3f32, -10.0];
    let gemm = with_int(node("Gemm", "fc1", &["input.1", "W", "B"], "z"), "transB", 1);
    let bytes = model(
        &[None, Some(3)],
        "y",
        vec![gemm, node("Relu", "relu1", &["z"], "y")],
        vec![floats("W", &[2, 3], &w), floats("B", &[2], &b)],
    );
    let x = [1.0, 2.0, -3.0];
    let z = linear(&wide(&w), 3, &x);
    let expected: Vec<f64> =
        z.iter().zip(wide(&b)).map(|(z, b)| z + b).map(|v| if v < 0.0 { 0.0 } else { v }).collect();
    assert_eq!(bits(&run(&bytes, &x)), bits(&expected));
    assert_eq!(expected[1], 0.0, "the relu clamps one element");
}

#[test]
fn gemm_with_alpha_beta_and_every_transposition() {
    // Gemm(x, B) = alpha · x'B' + beta · C: the product, then `* alpha`, then `+ beta·C`
    // (computed exactly when importing: a product of two float32 values is a binary64 one).
    let w = [0.5f32, -1.25, 2.0, 0.1, 3.0, -0.75]; // (2, 3) for transB = 1, else read as (3, 2)
    let c = [0.3f32, -10.0];
    let x = [1.0, 2.0, -3.0];
    for trans_b in [0, 1] {
        let wt: Vec<f64> = if trans_b == 1 {
            wide(&w)
        } else {
            // (3, 2) read row-major: the weights are its transpose.
            (0..6).map(|k| f64::from(w[(k % 3) * 2 + k / 3])).collect()
        };
        let dims: &[i64] = if trans_b == 1 { &[2, 3] } else { &[3, 2] };
        let gemm = with_float(
            with_float(with_int(node("Gemm", "g", &["input.1", "W", "C"], "y"), "transB", trans_b), "alpha", 0.375),
            "beta",
            -1.5,
        );
        let bytes = model(&[Some(1), Some(3)], "y", vec![gemm], vec![floats("W", dims, &w), floats("C", &[2], &c)]);
        let z = linear(&wt, 3, &x);
        let expected: Vec<f64> = z.iter().zip(wide(&c)).map(|(z, c)| z * 0.375 + -1.5 * c).collect();
        assert_eq!(bits(&run(&bytes, &x)), bits(&expected), "transB = {trans_b}");
    }
    // transA = 1 with the vector as A: A of shape (K, 1).
    let gemm = with_int(with_int(node("Gemm", "g", &["input.1", "W"], "y"), "transA", 1), "transB", 1);
    let bytes = model(&[Some(3), Some(1)], "y", vec![gemm], vec![floats("W", &[2, 3], &w)]);
    assert_eq!(bits(&run(&bytes, &x)), bits(&linear(&wide(&w), 3, &x)));
    // The vector as B: A'(M, K) x(K, 1), transA = 1 transposing the constant.
    let gemm = with_int(node("Gemm", "g", &["W", "input.1"], "y"), "transA", 1);
    let bytes = model(&[Some(2), Some(1)], "y", vec![gemm], vec![floats("W", &[2, 3], &w)]);
    let at: Vec<f64> = (0..6).map(|k| f64::from(w[(k % 2) * 3 + k / 2])).collect(); // Aᵀ, (3, 2)
    let x2 = [1.5, -2.0];
    assert_eq!(bits(&run(&bytes, &x2)), bits(&linear(&at, 2, &x2)));
}

#[test]
fn a_conv_then_an_added_bias_and_a_relu_are_written_element_by_element_at_rank_3() {
    // Conv without B, then Add of a (2, 1, 1) constant (some exporters write the bias so),
    // then Relu: the additions are element writes `z0[c, i, j] = z0[c, i, j] + b` in place.
    let k = [1.0f32, -2.0, 0.5, 0.25, -1.0, 1.5, 2.0, -0.5]; // (2, 1, 2, 2)
    let b = [0.75f32, -3.0];
    let input = [Some(1), Some(1), Some(2), Some(3)];
    let graph = GraphProto {
        name: "conv".into(),
        node: vec![
            with_string(
                with_ints(node("Conv", "c", &["input.1", "K"], "z"), "pads", &[0, 0, 0, 0]),
                "auto_pad",
                "VALID",
            ),
            node("Add", "bias", &["z", "B"], "s"),
            node("Relu", "r", &["s"], "y"),
        ],
        initializer: vec![floats("K", &[2, 1, 2, 2], &k), floats("B", &[2, 1, 1], &b)],
        input: vec![value_info("input.1", &input)],
        output: vec![value_info("y", &[Some(1), Some(2), Some(1), Some(2)])],
    };
    let bytes = ModelProto { ir_version: 7, graph: Some(graph), ..Default::default() }.encode_to_vec();
    let network = import_bytes(&bytes).unwrap();
    assert_eq!(network.input_shape, vec![1, 2, 3]);
    let text = emit(&network);
    assert!(text.contains("let z0[1, 0, 1] = z0[1, 0, 1] + -3.0 in"), "{text}");
    let program = parse_program(&text, Profile::revised().grammar).unwrap();
    let x = [1.0, 2.0, -3.0, 0.5, 4.0, -1.5];
    let input = TensorInput { name: network.input.clone(), shape: vec![1, 2, 3], data: x.to_vec() };
    let small = SmallStep::revised().evaluate(&program, std::slice::from_ref(&input)).unwrap();
    let big = BigStep { staging: Staging::Staged, precision: Precision::Exact }.evaluate(&program, &[input]);
    assert!(big.unwrap().agrees_with(&small), "{text}");
    let Verdict::Value(Observed::Tensor(t)) = small else { panic!("{text}") };
    assert_eq!(t.shape, vec![2, 1, 2]);
    let mut expected = Vec::new();
    for m in 0..2 {
        for j in 0..2 {
            let mut s = 0.0;
            for ki in 0..2 {
                for kj in 0..2 {
                    s += x[ki * 3 + j + kj] * f64::from(k[m * 4 + ki * 2 + kj]);
                }
            }
            let v = s + f64::from(b[m]);
            expected.push(if v > 0.0 { v } else { 0.0 });
        }
    }
    assert_eq!(bits(&t.data), bits(&expected));
}

#[test]
fn gemm_without_transpose_and_matmul_plus_add() {
    // Gemm(x, B) with B of shape (in, out): the weights are Bᵀ. Then MatMul(h, M) + c.
    let bm = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]; // (3, 2)
    let m = [0.5f32, -0.5, 0.25, 1.5]; // (2, 2)
    let c = [0.125f32, -0.0625];
    let bytes = model(
        &[Some(1), Some(3)],
        "out",
        vec![
            node("Gemm", "g", &["input.1", "Bm"], "h"),
            node("MatMul", "mm", &["h", "M"], "p"),
            node("Add", "add", &["p", "C"], "out"),
        ],
        vec![floats("Bm", &[3, 2], &bm), floats("M", &[2, 2], &m), floats("C", &[1, 2], &c)],
    );
    let x = [0.5, -1.0, 2.0];
    let bt = [1.0, 3.0, 5.0, 2.0, 4.0, 6.0];
    let h = linear(&bt, 3, &x);
    let mt = [0.5, 0.25, -0.5, 1.5];
    let p = linear(&mt, 2, &h);
    let expected: Vec<f64> = p.iter().zip(wide(&c)).map(|(p, c)| p + c).collect();
    assert_eq!(bits(&run(&bytes, &x)), bits(&expected));
}

#[test]
fn constants_flatten_reshape_identity_sub_and_activations() {
    // Input (1, 1, 2, 2) → Sub(x, mean) → Flatten → Reshape([-1]) → Identity → MatMul(A, v)
    // with A from a Constant node → Sub(k, v) → Tanh → Sigmoid.
    let mean = [1.0f32, 2.0, 3.0, 4.0];
    let a = [1.0f32, 0.0, -1.0, 0.5, 0.25, 0.25, 0.25, 0.25]; // (2, 4)
    let constant = NodeProto {
        op_type: "Constant".into(),
        name: "A_const".into(),
        output: vec!["A".into()],
        attribute: vec![AttributeProto {
            name: "value".into(),
            r#type: 4,
            t: Some(floats("A", &[2, 4], &a)),
            ..Default::default()
        }],
        ..Default::default()
    };
    let bytes = model(
        &[Some(1), Some(1), Some(2), Some(2)],
        "s",
        vec![
            node("Sub", "center", &["input.1", "mean"], "c"),
            node("Flatten", "flat", &["c"], "f"),
            node("Reshape", "vec", &["f", "shape"], "r"),
            node("Identity", "same", &["r"], "i"),
            constant,
            node("MatMul", "mm", &["A", "i"], "m"),
            node("Sub", "flip", &["k", "m"], "d"),
            node("Tanh", "t", &["d"], "th"),
            node("Sigmoid", "sg", &["th"], "s"),
        ],
        vec![floats("mean", &[2, 2], &mean), ints("shape", &[-1]), floats("k", &[1], &[0.5])],
    );
    let x = [2.0, 0.0, 5.0, 4.5];
    let centred: Vec<f64> = x.iter().zip(wide(&mean)).map(|(x, m)| x + -m).collect();
    let m = linear(&wide(&a), 4, &centred);
    let d: Vec<f64> = m.iter().map(|v| -1.0 * v + 0.5).collect();
    let expected: Vec<f64> = d.iter().map(|v| 1.0 / (1.0 + (-v.tanh()).exp())).collect();
    let got = run(&bytes, &x);
    assert_eq!(got.len(), 2);
    for (g, e) in got.iter().zip(&expected) {
        // tanh and the sigmoid follow K's formulas (Rev-13), not libm's: a few ulps apart.
        assert!((g - e).abs() < 1e-12, "{got:?} vs {expected:?}");
    }
}

/// ONNX `Div` by a constant that is not a power of two is Ext-7's `/`, element by element:
/// ERAN's MNIST normalisation `(x - 0.1307) / 0.3081`, the constants float32. The expected
/// values are computed here in binary64 from the widened constants: `x + -m`, then `/ s`.
#[test]
fn a_division_by_a_constant_is_a_division() {
    let bytes = model(
        &[Some(1), Some(1), Some(2), Some(2)],
        "f",
        vec![
            node("Sub", "center", &["input.1", "mean"], "c"),
            node("Div", "scale", &["c", "std"], "d"),
            node("Flatten", "flat", &["d"], "f"),
        ],
        vec![floats("mean", &[1], &[0.1307]), floats("std", &[1], &[0.3081])],
    );
    let (m, s) = (f64::from(0.1307f32), f64::from(0.3081f32));
    // 1.28125 is one of the inputs whose quotient and product by the reciprocal differ.
    let x = [0.0, 1.0, 1.28125, -0.25];
    let expected: Vec<f64> = x.iter().map(|v| (v + -m) / s).collect();
    assert_eq!(bits(&run(&bytes, &x)), bits(&expected));
    // x / 0.3081 and x · (1 / 0.3081) differ in the last bit for some x: the division is kept.
    assert!(x.iter().any(|v| (v + -m) / s != (v + -m) * (1.0 / s)), "a case where the two roundings differ");
    // A power of two is still a scaling by its exact reciprocal.
    let half = model(
        &[Some(1), Some(1), Some(2), Some(2)],
        "f",
        vec![node("Div", "half", &["input.1", "two"], "d"), node("Flatten", "flat", &["d"], "f")],
        vec![floats("two", &[1], &[2.0])],
    );
    assert_eq!(import_bytes(&half).unwrap().steps[0], Step::Mul(vec![0.5; 4]));
    assert_eq!(run(&half, &x), vec![0.0, 0.5, 0.640625, -0.125]);
}

fn error_of(bytes: &[u8]) -> String {
    let e = import_bytes(bytes).expect_err("the model is refused");
    format!("{}: {}", e.location, e.message)
}

#[test]
fn unsupported_graphs_are_refused_naming_the_node() {
    let w = floats("W", &[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let one = |nodes: Vec<NodeProto>, inits: Vec<TensorProto>| model(&[Some(1), Some(2)], "y", nodes, inits);

    let image = |nodes: Vec<NodeProto>, inits: Vec<TensorProto>| {
        model(&[Some(1), Some(1), Some(3), Some(3)], "y", nodes, inits)
    };
    let lrn = image(vec![node("LRN", "norm1", &["input.1"], "y")], vec![]);
    let e = error_of(&lrn);
    assert!(e.starts_with("node \"norm1\" (LRN): operator `LRN` is not supported"), "{e}");
    assert!(e.contains("Conv, MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool, Gemm, MatMul, Add, Sub"), "{e}");

    let unnamed = one(vec![node("LRN", "", &["input.1"], "y")], vec![]);
    assert!(error_of(&unnamed).starts_with("node #0 (LRN)"), "{}", error_of(&unnamed));

    // Conv: its input must be a (1, C, H, W) image, its attributes ONNX's.
    let conv = one(vec![node("Conv", "conv1", &["input.1", "W"], "y")], vec![w.clone()]);
    let e = error_of(&conv);
    assert!(e.starts_with("input \"input.1\": the graph convolves its input, which has shape [1, 2]"), "{e}");
    let k = floats("K", &[2, 1, 2, 2], &[1.0; 8]);
    let conv = |node: NodeProto| error_of(&image(vec![node], vec![k.clone()]));
    let plain = || node("Conv", "c", &["input.1", "K"], "y");
    let e = conv(with_ints(plain(), "kernel_shape", &[3, 3]));
    assert!(e.starts_with("node \"c\" (Conv): kernel_shape = [3, 3] is not the shape of W's kernels, [2, 2]"), "{e}");
    let e = conv(with_string(with_ints(plain(), "pads", &[1, 1, 1, 1]), "auto_pad", "SAME_UPPER"));
    assert!(e.contains("pads and auto_pad are both given"), "{e}");
    let e = conv(with_string(plain(), "auto_pad", "SAME"));
    assert!(e.contains("auto_pad = \"SAME\" is not NOTSET, VALID, SAME_UPPER or SAME_LOWER"), "{e}");
    let e = conv(with_int(plain(), "group", 2));
    assert!(e.contains("do not fit an input of 1 channels in 2 groups"), "{e}");
    let e = conv(with_ints(plain(), "strides", &[2]));
    assert!(e.contains("strides = [2]: knn imports 2-D convolutions"), "{e}");
    let e = conv(with_ints(plain(), "dilations", &[3, 3]));
    assert!(e.contains("the 2×2 kernel (dilations [3, 3]) does not fit the 3×3 image"), "{e}");
    let e = conv(with_ints(plain(), "pads", &[0, -1, 0, 0]));
    assert!(e.contains("pads = [0, -1, 0, 0]"), "{e}");
    // `linear` reads vectors: an image must be flattened first.
    let gemm = image(vec![plain(), node("MatMul", "mm", &["y0", "W"], "y")], vec![k.clone(), w.clone()]);
    let mut gemm = ModelProto::decode(&gemm[..]).unwrap();
    gemm.graph.as_mut().unwrap().node[0].output = vec!["y0".into()];
    let e = error_of(&gemm.encode_to_vec());
    assert!(e.starts_with("node \"mm\" (MatMul): "), "{e}");

    // Graphs that branch import (tests/import_residual.rs has residual blocks): a node whose
    // value nothing reads, the input read again after it; a value added to itself; the
    // difference of two computed values, `a + (-1.0 · b)`, which is `a - b` exactly.
    let b = floats("B", &[2], &[0.5, -4.0]);
    let dead = one(vec![node("Relu", "a", &["input.1"], "r"), node("Add", "b", &["input.1", "B"], "y")], vec![b]);
    assert_eq!(bits(&run(&dead, &[-1.0, 3.0])), bits(&[-0.5, -1.0]));
    let doubled = one(vec![node("Relu", "a", &["input.1"], "r"), node("Add", "sum", &["r", "r"], "y")], vec![]);
    assert_eq!(bits(&run(&doubled, &[-1.0, 3.0])), bits(&[0.0, 6.0]));
    let difference = one(vec![node("Relu", "a", &["input.1"], "r"), node("Sub", "d", &["r", "input.1"], "y")], vec![]);
    assert_eq!(bits(&run(&difference, &[-1.0, 3.0])), bits(&[1.0, 0.0]));
    let mismatched = one(
        vec![node("MatMul", "m", &["input.1", "W3"], "r"), node("Add", "s", &["r", "input.1"], "y")],
        vec![floats("W3", &[2, 3], &[1.0; 6])],
    );
    assert_eq!(
        error_of(&mismatched),
        "node \"s\" (Add): it adds computed values of shapes [1, 3] and [1, 2], which do not broadcast (NumPy's rule)"
    );

    let wrong_width = one(vec![node("MatMul", "mm", &["input.1", "W3"], "y")], vec![floats("W3", &[3, 2], &[0.0; 6])]);
    assert!(error_of(&wrong_width).contains("the matrix expects 3 inputs"), "{}", error_of(&wrong_width));

    let missing = one(vec![node("Relu", "a", &["input.1"], "r")], vec![]);
    assert!(error_of(&missing).contains("output \"y\": no node computes the output"), "{}", error_of(&missing));

    let mut external = w.clone();
    external.data_location = 1;
    let e = error_of(&one(vec![node("MatMul", "mm", &["input.1", "W"], "y")], vec![external]));
    assert!(e.starts_with("initializer \"W\": its data is stored in an external file"), "{e}");

    let half = TensorProto { data_type: 10, ..w.clone() };
    let e = error_of(&one(vec![node("MatMul", "mm", &["input.1", "W"], "y")], vec![half]));
    assert!(e.contains("FLOAT16"), "{e}");

    let broadcast = one(vec![node("Add", "add", &["input.1", "W"], "y")], vec![w]);
    assert!(error_of(&broadcast).contains("does not broadcast"), "{}", error_of(&broadcast));

    let mut two_inputs = ModelProto::decode(&one(vec![], vec![])[..]).unwrap();
    two_inputs.graph.as_mut().unwrap().input.push(value_info("other", &[Some(2)]));
    let e = error_of(&two_inputs.encode_to_vec());
    assert!(e.contains("the graph has 2 inputs (`input.1`, `other`)"), "{e}");

    assert!(error_of(&ModelProto::default().encode_to_vec()).contains("the model has no graph"));
}
