//! Unit tests of `network.rs`: which plans read as a chain, and that the chain computes the
//! engine's bits.

use knn_semantics::syntax::{Grammar, parse_program};

use std::sync::Arc;

use super::*;
use knn_engine::tensor::Matrix;
use knn_semantics::engine::Observed;

use knn_engine::bigstep::{Binding, ExecOptions, InputData, compile, run_rows};

/// The plan of `source` with `x` of `shape` symbolic.
fn plan(source: &str, shape: &[usize]) -> Plan {
    let program = parse_program(source, Grammar::Relaxed).expect("the test program parses");
    compile(&program, &[Binding { name: "x".into(), shape: shape.to_vec(), data: InputData::Symbolic }])
}

fn refusal(plan: &Plan) -> String {
    match Network::from_plan(plan) {
        Ok(net) => panic!("read as a chain: {:?}", describe(&net)),
        Err(unsupported) => unsupported.what,
    }
}

/// The layers, in a form tests can compare.
fn describe(net: &Network) -> Vec<String> {
    net.layers.iter().map(|layer| layer.describe()).collect()
}

#[test]
fn a_bias_on_part_of_the_last_vector_is_a_layer_of_its_own() {
    // Bias `let`s after an activation are not fused into a product: each run of them is an
    // `AddBias` at some offset, which must land on the same elements of the chain's vector.
    // From the start, in the middle, up to the end, and with a gap (`at = 2`, three values
    // on five elements).
    for (len, lets, expected) in [
        (3, "let h[0] = h[0] + 0.5 in", "Bias [Some(0.5), None, None]"),
        (3, "let h[1] = h[1] + 0.5 in", "Bias [None, Some(0.5), None]"),
        (3, "let h[2] = h[2] + 0.5 in", "Bias [None, None, Some(0.5)]"),
        (5, "let h[2] = h[2] + 0.5 in let h[4] = h[4] + 0.25 in", "Bias [None, None, Some(0.5), None, Some(0.25)]"),
    ] {
        let net = Network::from_plan(&plan(&format!("let h = sigmoidTensor(x) in {lets} h"), &[len]))
            .unwrap_or_else(|u| panic!("{lets}: {u}"));
        assert_eq!(describe(&net), ["Sigmoid", expected], "{lets}");
        assert_eq!(net.outputs, (0..len).collect::<Vec<_>>());
        assert_eq!(net.result, ResultKind::Tensor(vec![len]));
    }
}

#[test]
fn the_chain_computes_the_engines_bits() {
    // `eval` stands in for the engine where the engine gives only a class (an `ArgMax`
    // program's scores decide the smallest boxes point by point), so every layer must
    // compute what the plan computes: a product with a fused bias and relu, a bias layer of
    // its own, tanh, sigmoid, and a bias on part of a vector after an activation.
    let source = "let W = initTensor(3, 2) in let W[0, 0] = 1.5 in let W[0, 1] = -2.0 in \
                  let W[1, 0] = 0.25 in let W[2, 1] = 3.0 in \
                  let z = linear(W, x) in let z[0] = z[0] + 0.1 in let z[2] = z[2] + -0.3 in \
                  let h = reluTensor(z) in let t = tanhTensor(h) in let s = sigmoidTensor(t) in \
                  let s[1] = s[1] + 0.5 in let s[2] = s[2] + -0.75 in s";
    let plan = plan(source, &[2]);
    let net = Network::from_plan(&plan).unwrap();
    assert_eq!(
        describe(&net),
        ["Dense 3x2 [Some(0.1), None, Some(-0.3)]", "Relu", "Tanh", "Sigmoid", "Bias [None, Some(0.5), Some(-0.75)]"]
    );
    let inputs = [[0.3, -0.7], [-1.25, 0.5], [2.0, 0.125], [0.0, 0.0]];
    let rows: Vec<Vec<&[f64]>> = inputs.iter().map(|x| vec![&x[..]]).collect();
    for (x, result) in inputs.iter().zip(run_rows(&plan, &rows, ExecOptions::default())) {
        let Ok(Observed::Tensor(engine)) = result else { panic!("{result:?}") };
        let chain = net.eval(x);
        let bits = |v: &[f64]| v.iter().map(|y| y.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&chain), bits(&engine.data), "at {x:?}: {chain:?} against {:?}", engine.data);
    }
}

#[test]
fn a_linear_layer_on_part_of_the_last_vector_is_unsupported() {
    // No program makes this plan today (`linear` takes a named vector, and every named
    // vector computed from the input is a whole buffer), so it is made by hand: a product
    // that reads the first two of the three inputs. Read as a chain, its layer would get
    // the whole vector.
    let mut plan = plan("let W = initTensor(2, 3) in let W[0, 0] = 1.0 in let o = linear(W, x) in o", &[3]);
    let Some(Op::MatVec { w, .. }) = plan.ops.first_mut() else { panic!("a product: {:?}", plan.ops) };
    *w = Arc::new(Matrix::new(2, 2, vec![1.0, 0.0, 0.0, 1.0]));
    assert_eq!(refusal(&plan), "a linear layer on part of a vector, or on a vector other than the last one computed");
    // Each condition alone: the whole width but from the second element on, and the whole
    // width of a vector that is not the last one computed (the product's own output).
    let why = "a linear layer on part of a vector, or on a vector other than the last one computed";
    for mismatch in ["offset", "vector"] {
        let mut made = self::plan("let W = initTensor(2, 3) in let W[0, 0] = 1.0 in let o = linear(W, x) in o", &[3]);
        let Some(Op::MatVec { out, x, x_at, .. }) = made.ops.first_mut() else { panic!("a product: {:?}", made.ops) };
        match mismatch {
            "offset" => *x_at = 1,
            _ => *x = *out,
        }
        assert_eq!(refusal(&made), why, "{mismatch}");
    }
}

#[test]
fn an_activation_on_part_of_the_last_vector_is_unsupported() {
    // `r` is one row of the 2×2 input (its first, then its second): an `Activate` of two of
    // the four elements, at offset 0 and at offset 2.
    for row in ["x[0]", "x[1]"] {
        let source = format!("let r = initTensor(1, 2) in let r[0] = {row} in let h = tanhTensor(r) in h");
        let plan = plan(&source, &[2, 2]);
        assert!(matches!(plan.ops[..], [Op::Activate { len: 2, .. }]), "{:?}", plan.ops);
        assert_eq!(
            refusal(&plan),
            "an activation on part of a vector, or on a vector other than the last one computed",
            "{row}"
        );
    }
}

#[test]
fn an_int_result_other_than_the_argmax_is_unsupported() {
    // No program makes this plan today (an Int register other than the ArgMax's comes from
    // an operation refused before), so the result is changed by hand.
    let mut plan = plan("let h = tanhTensor(x) in ArgMax(h)", &[2]);
    assert_eq!(plan.result, ResultSpec::Int(IOperand::Reg(0)));
    plan.result = ResultSpec::Int(IOperand::Reg(1));
    assert_eq!(refusal(&plan), "a result that is not a tensor or the ArgMax of one");
}

#[test]
fn a_result_element_past_the_end_of_the_last_vector_is_unsupported() {
    // No program makes this plan (a slot is inside its buffer), so the result is changed by
    // hand: element 2 of a vector of two would be read out of bounds.
    let mut plan = plan("let h = tanhTensor(x) in h", &[2]);
    let ResultSpec::Tensor { leaves, .. } = &mut plan.result else { panic!("{:?}", plan.result) };
    let Leaf::Slot(buf, _) = leaves[1] else { panic!("{leaves:?}") };
    leaves[1] = Leaf::Slot(buf, 2);
    assert_eq!(refusal(&plan), "a result element that is not part of a tensor computed from the input");
}

#[test]
fn a_result_element_that_is_a_constant_is_unsupported() {
    // A 2×2 result whose first row is `tanh(x)` and second the zeros of `initTensor`.
    let plan = plan("let h = tanhTensor(x) in let r = initTensor(2, 2) in let r[0] = h in r", &[2]);
    assert_eq!(refusal(&plan), "a result element that does not depend on the input");
}

#[test]
fn a_malformed_result_is_unsupported_with_why() {
    // An Int among the result's elements.
    let plan = plan("let h = tanhTensor(x) in let r = initTensor(2) in let r[0] = 3 in r", &[2]);
    let ResultSpec::Malformed(why) = &plan.result else { panic!("{:?}", plan.result) };
    assert_eq!(refusal(&plan), format!("a malformed result ({why})"));
}

#[test]
fn a_failed_result_is_unsupported_as_failing() {
    // The compiler ends a failing plan with a `Raise`, which is refused first with its
    // detail; a failed result without one is refused as failing all the same.
    let with_raise = plan("let h = tanhTensor(x) in h[5]", &[2]);
    assert_eq!(with_raise.result, ResultSpec::Failed);
    assert!(refusal(&with_raise).starts_with("the program fails on every input: "), "{}", refusal(&with_raise));
    let mut without = plan("let h = tanhTensor(x) in h", &[2]);
    without.result = ResultSpec::Failed;
    assert_eq!(refusal(&without), "the program fails on every input");
}

#[test]
fn exp_and_log_are_layers_and_softmax_a_layer_or_the_scores_of_its_argmax() {
    // A softmax or exp of a tensor written element by element (not one buffer) is element
    // operations: refused by its `expItem`.
    let scattered = "let t = initTensor(2) in let t[0] = x[1] in let t[1] = x[0] in ";
    for f in ["softmax(t, 0)", "expTensor(t)"] {
        assert!(refusal(&plan(&format!("{scattered}let p = {f} in p"), &[2])).contains("`expItem`"), "{f}");
    }
    // Ext-9 after a dense layer: `expTensor`, `logTensor` are the plan's `Activate` of the whole
    // vector, read as Exp and Log layers computing the engine's values; a softmax is a layer
    // bounded by ranges, but right before its ArgMax the class is read from the scores.
    let dense = "let W = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in let h = linear(W, x) in ";
    for (f, layer) in [("expTensor(h)", "Exp"), ("logTensor(h)", "Log")] {
        let net = Network::from_plan(&plan(&format!("{dense}let p = {f} in p"), &[2])).unwrap();
        assert_eq!(describe(&net), ["Dense 2x2 [None, None]", layer], "{f}");
        for x in [[1.0, -2.0], [300.0, 100.0], [0.25, 0.0]] {
            let h: [f64; 2] = [x[0] + 2.0 * x[1], 3.0 * x[0] + 4.0 * x[1]];
            let by_hand: Vec<f64> = h.iter().map(|v| if layer == "Exp" { v.exp() } else { v.ln() }).collect();
            let computed = net.eval(&x);
            for (c, e) in computed.iter().zip(&by_hand) {
                // std's exp and ln are within an ulp of the correctly rounded values.
                assert!(
                    c == e || (c - e).abs() <= e.abs() * 4.0 * f64::EPSILON || c.is_nan() && e.is_nan(),
                    "{f} at {x:?}"
                );
            }
        }
    }
    for (f, layer) in [("softmax(h, 0)", "Softmax [2] along 0"), ("logSoftmax(h, 0)", "LogSoftmax [2] along 0")] {
        let net = Network::from_plan(&plan(&format!("{dense}let p = {f} in p"), &[2])).unwrap();
        assert_eq!(describe(&net), ["Dense 2x2 [None, None]", layer], "{f}");
        // h = (1, 3) at x = (1, 0): the max 3, the sum 0.0 + e^-2 + e^0, by hand.
        let sum = (0.0 + (-2.0f64).exp()) + 1.0;
        let by_hand = if layer.starts_with("Log") {
            [-2.0 - sum.ln(), 0.0 - sum.ln()]
        } else {
            [(-2.0f64).exp() / sum, 1.0 / sum]
        };
        let computed = net.eval(&[1.0, 0.0]);
        for (c, e) in computed.iter().zip(&by_hand) {
            assert!((c - e).abs() <= e.abs() * 4.0 * f64::EPSILON, "{f}: {computed:?} against {by_hand:?}");
        }
        let before_argmax = plan(&format!("{dense}let p = {f} in ArgMax(p)"), &[2]);
        let net = Network::from_plan(&before_argmax).unwrap_or_else(|u| panic!("{f} then ArgMax: {u}"));
        assert_eq!(net.result, ResultKind::SoftmaxArgMax { log: f.starts_with("log") });
    }
}

#[test]
fn sums_means_maxima_and_minima_are_read() {
    // Ext-10's reduceSum and reduceMean of the computed vector: the plan's `Reduce`, read as
    // window sums (weights 1) and the division by the count; reduceMax and reduceMin as a max
    // pool over the groups; computing the values by hand, signed zeros included.
    let dense = "let W = initTensor(2, 3)[1.0, 2.0, 3.0, 4.0, -1.0, 0.5] in let h = linear(W, x) in \
        let m = reshape(h, 1, 2) in ";
    let (sum, mean) = (format!("{dense}let p = reduceSum(m, 1) in p"), format!("{dense}let p = reduceMean(m, 1) in p"));
    let (sum, mean) = (Network::from_plan(&plan(&sum, &[3])).unwrap(), Network::from_plan(&plan(&mean, &[3])).unwrap());
    assert_eq!(describe(&sum)[1..], ["reduceSum 1x2 (2 terms)"]);
    assert_eq!(describe(&mean)[1..], ["reduceMean 1x2 (2 terms)", "Divide by [Some(2.0)]"]);
    for x in [[1.0, -2.0, 0.5], [0.1, 0.2, 0.3], [1e308, 1e308, 1e308]] {
        let h = [(0.0 + x[0]) + 2.0 * x[1] + 3.0 * x[2], (0.0 + 4.0 * x[0]) - x[1] + 0.5 * x[2]];
        assert_eq!(sum.eval(&x), [(0.0 + h[0]) + h[1]], "{x:?}");
        assert_eq!(mean.eval(&x), [((0.0 + h[0]) + h[1]) / 2.0], "{x:?}");
    }
    let (max, min) = (format!("{dense}let p = reduceMax(m, 1) in p"), format!("{dense}let p = reduceMin(m, 1) in p"));
    let (max, min) = (Network::from_plan(&plan(&max, &[3])).unwrap(), Network::from_plan(&plan(&min, &[3])).unwrap());
    assert_eq!(describe(&max)[1..], ["ReduceMax of 1 groups"]);
    assert_eq!(describe(&min)[1..], ["ReduceMin of 1 groups"]);
    for x in [[1.0, -2.0, 0.5], [0.1, 0.2, 0.3], [-1e308, -1e308, -1e308]] {
        let h = [(0.0 + x[0]) + 2.0 * x[1] + 3.0 * x[2], (0.0 + 4.0 * x[0]) - x[1] + 0.5 * x[2]];
        assert_eq!(max.eval(&x), [if h[1] > h[0] { h[1] } else { h[0] }], "{x:?}");
        assert_eq!(min.eval(&x), [if h[1] <= h[0] { h[1] } else { h[0] }], "{x:?}");
    }
    // A NaN reaching the reduction is the engine's error, worded as the scalar `max`'s.
    let failure = max.result_at(&[f64::NAN, 0.0, 0.0]);
    assert!(format!("{failure:?}").contains("`max` cannot compute with"), "{failure:?}");
}

#[test]
fn subtractions_of_constants_are_bias_layers_and_divisions_divide_layers() {
    // Ext-7's `- c` and `/ c` on the elements of a computed vector: the engine fuses each
    // element's chain into one `Elementwise` operation. `x - c` is read as the bias `x + (-c)`
    // (the same IEEE operation), `/ c` as a Divide layer; `/ 0.0` is refused naming the step.
    let dense = "let W = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in let h = linear(W, x) in ";
    let sub = plan(&format!("{dense}let h[0] = h[0] - 0.5 in let h[1] = h[1] - -Infinity in h"), &[2]);
    let added = plan(&format!("{dense}let h[0] = h[0] + -0.5 in let h[1] = h[1] + Infinity in h"), &[2]);
    let (sub, added) = (Network::from_plan(&sub).unwrap(), Network::from_plan(&added).unwrap());
    // The `+` chain is the product's bias; the `-` chain a bias layer after it: the same sums.
    assert_eq!(describe(&sub), ["Dense 2x2 [None, None]", "Bias [Some(-0.5), Some(inf)]"]);
    for x in [[1.0, -2.0], [0.0, -0.0], [f64::MAX, 1.0], [f64::NAN, 3.0]] {
        let bits = |v: Vec<f64>| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(sub.eval(&x)), bits(added.eval(&x)), "{x:?}");
    }
    let div = plan(&format!("{dense}let h[0] = h[0] / 3.0 in let h[1] = (h[1] - 1.0) / -0.1 in h"), &[2]);
    let div = Network::from_plan(&div).unwrap();
    assert_eq!(
        describe(&div),
        [
            "Dense 2x2 [None, None]",
            "Divide by [Some(3.0), None]",
            "Bias [None, Some(-1.0)]",
            "Divide by [None, Some(-0.1)]"
        ]
    );
    for x in [[1.0, -2.0], [0.1, 0.7], [f64::MAX, 1e-310]] {
        let by_hand = [(x[0] + 2.0 * x[1]) / 3.0, ((3.0 * x[0] + 4.0 * x[1]) - 1.0) / -0.1];
        assert_eq!(div.eval(&x), by_hand, "{x:?}");
    }
    let zero = format!("{dense}let h[0] = h[0] / 0.0 in h");
    assert!(refusal(&plan(&zero, &[2])).contains("division by 0 (`/ c` with c 0"), "{}", refusal(&plan(&zero, &[2])));
}

#[test]
fn slices_and_concatenations_are_gathers_computing_the_engines_bits() {
    // Ext-12 of the computed vector, and Ext-11 of it alone: a Gather of its elements, each at
    // most once, read as a layer that computes the engine's bits; Ext-11 of two branches (the
    // input and a product, two products) a gather over both segments.
    let dense = "let W = initTensor(4, 2)[1.0, 2.0, 3.0, 4.0, -1.0, 0.5, 0.25, -2.0] in let h = linear(W, x) in ";
    let sources = [
        format!("{dense}let r = reluTensor(h) in let p = slice(r, 0, 1, 4, 2) in let q = concat(p, 0) in q"),
        format!("{dense}let p = concat(x, h, 0) in p"),
        format!("{dense}let r = reluTensor(h) in let p = concat(h, x, r, 0) in let q = reluTensor(p) in q"),
    ];
    for (n, source) in sources.iter().enumerate() {
        let sliced = plan(source, &[2]);
        let net = Network::from_plan(&sliced).unwrap();
        let layers = describe(&net);
        if n == 0 {
            assert_eq!(layers[2..], ["Gather [1, 3] of 4", "Gather [0, 1] of 2"], "{layers:?}");
        }
        let inputs = [[0.3, -0.7], [-1.25, 0.5], [2.0, 0.125], [-0.0, 1e308]];
        let rows: Vec<Vec<&[f64]>> = inputs.iter().map(|x| vec![&x[..]]).collect();
        for (x, result) in inputs.iter().zip(run_rows(&sliced, &rows, ExecOptions::default())) {
            let Ok(Observed::Tensor(engine)) = result else { panic!("{result:?}") };
            // Bit for bit, signed zeros included: a relu's kept pair sums back `−0` as `−0`.
            let bits = |v: &[f64]| v.iter().map(|y| y.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&net.eval(x)), bits(&engine.data), "{source} at {x:?}: {layers:?}");
        }
    }
    // One vector twice: refused by name, never bounded.
    let refused = refusal(&plan(&format!("{dense}let p = concat(h, h, 0) in p"), &[2]));
    assert!(refused.contains("`concat`") && refused.contains("with itself"), "{refused}");
    // With a constant operand the copy is element by element: refused as single elements.
    let constant = format!("{dense}let c = initTensor(1)[0.5] in let p = concat(h, c, 0) in p");
    assert!(refusal(&plan(&constant, &[2])).contains("single elements"));
    // An empty slice leaves nothing of the input: refused.
    let empty = refusal(&plan(&format!("{dense}let p = slice(h, 0, 1, 1) in let q = reluTensor(p) in q"), &[2]));
    assert!(empty.contains("empty `slice`"), "{empty}");
}

#[test]
fn matmul_by_a_constant_is_a_sparse_layer_and_of_two_computed_tensors_a_product() {
    // Ext-15 of two computed tensors (bilinear), on either side of a dense layer's output: a
    // layer bounded by ranges, its products summed from 0.0 in increasing P, worked by hand.
    let dense = "let W = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in let h = linear(W, x) in ";
    for f in ["matmul(h, h)", "matmul(h, x)"] {
        let net = Network::from_plan(&plan(&format!("{dense}let p = {f} in p"), &[2])).unwrap();
        for x in [[1.0, -2.0], [0.1, 1e16], [3.0, 0.25]] {
            let h = [x[0] + 2.0 * x[1], 3.0 * x[0] + 4.0 * x[1]];
            let other = if f.ends_with("h)") { h } else { x };
            assert_eq!(net.eval(&x), [(0.0 + h[0] * other[0]) + h[1] * other[1]], "{f} at {x:?}");
        }
    }
    // By a constant on either side: the products in increasing P from 0.0, worked by hand.
    let w = [[1.0, 2.0], [3.0, 4.0]];
    type ByHand = fn([f64; 2], [[f64; 2]; 2]) -> [f64; 2];
    let cases: [(&str, ByHand); 2] = [
        ("matmul(W, h)", |h, w| [(0.0 + w[0][0] * h[0]) + w[0][1] * h[1], (0.0 + w[1][0] * h[0]) + w[1][1] * h[1]]),
        ("matmul(h, W)", |h, w| [(0.0 + h[0] * w[0][0]) + h[1] * w[1][0], (0.0 + h[0] * w[0][1]) + h[1] * w[1][1]]),
    ];
    for (f, by_hand) in cases {
        let net = Network::from_plan(&plan(&format!("{dense}let p = {f} in p"), &[2])).unwrap();
        assert_eq!(describe(&net), ["Dense 2x2 [None, None]", "MatMul 2x2 (4 terms)"], "{f}");
        for x in [[1.0, -2.0], [0.1, 1e16], [f64::MAX, 1.0]] {
            let h = [x[0] + 2.0 * x[1], 3.0 * x[0] + 4.0 * x[1]];
            assert_eq!(net.eval(&x), by_hand(h, w), "{f} at {x:?}");
        }
    }
    // A batch of rows by a constant: (2, 2) input times (2, 1), four products in all.
    let batched = "let C = initTensor(2, 1)[0.5, -3.0] in let p = matmul(x, C) in p";
    let net = Network::from_plan(&plan(batched, &[2, 2])).unwrap();
    assert_eq!(describe(&net), ["MatMul 2x4 (4 terms)"]);
    assert_eq!(net.eval(&[1.0, 2.0, 3.0, 4.0]), [0.5 - 6.0, 1.5 - 12.0]);
}

#[test]
fn batch_normalisation_is_read_as_its_four_steps() {
    // Ext-14 of a computed vector with constant parameters: the engine copies it and fuses
    // `((x − m) / sqrt(v + e)) · s + b` into one `Elementwise`; read as the bias `−m`, the
    // division, the scaling and the bias, each the engine's IEEE operation.
    let source = "let W = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in let h = linear(W, x) in \
        let S = initTensor(2)[2.0, -0.5] in let B = initTensor(2)[0.5, 0.0] in \
        let M = initTensor(2)[1.0, -3.0] in let V = initTensor(2)[3.0, 0.25] in \
        let y = batchNorm(h, S, B, M, V, epsilon = 1.0) in y";
    let net = Network::from_plan(&plan(source, &[2])).unwrap();
    assert_eq!(
        describe(&net),
        [
            "Dense 2x2 [None, None]",
            "Bias [Some(-1.0), Some(3.0)]",
            "Divide by [Some(2.0), Some(1.118033988749895)]",
            "Scale by [Some(2.0), Some(-0.5)]",
            "Bias [Some(0.5), Some(0.0)]"
        ]
    );
    for x in [[1.0, -2.0], [0.1, 0.7], [1e300, 1e300]] {
        let h = [x[0] + 2.0 * x[1], 3.0 * x[0] + 4.0 * x[1]];
        let by_hand = [((h[0] - 1.0) / 2.0) * 2.0 + 0.5, ((h[1] + 3.0) / 1.25f64.sqrt()) * -0.5 + 0.0];
        assert_eq!(net.eval(&x), by_hand, "{x:?}");
    }
    // A negative variance makes the divisor NaN: refused by name, not read.
    let nan = source.replace("[3.0, 0.25]", "[3.0, -2.0]");
    assert!(refusal(&plan(&nan, &[2])).contains("division by NaN"), "{}", refusal(&plan(&nan, &[2])));
}
