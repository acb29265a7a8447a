//! Ext-9 (`expTensor`, `logTensor`, `softmax`, `logSoftmax`) and Ext-10 (the reductions) on every
//! engine, the operand a literal (constants) and copied from an input (symbolic in the staged
//! engine). The values were worked out with Python's `mpmath` at 200 bits rounded to binary64
//! (correctly rounded `exp` and `log`, as `expFloat` and `logFloat` are), in the rules' order:
//! for a slice, `M` its max, `S = 0.0 + exp(y0 - M) + …`, then `exp(yk - M) / S` or
//! `(yk - M) - log(S)`.

use super::*;

// The operand `x` = [[1, 2, 3], [4, 5, 6]], a literal or copied from an input: reshape's.
use super::reshape::{X_LITERAL, both, input, tensor, x_from_input};

/// Each row of `x` along axis 1: `y - M` is `-2, -1, 0`, `S = 1.5032147244080551`.
const ROW: [f64; 3] = [0.09003057317038046, 0.24472847105479764, 0.6652409557748218];
const LOG_ROW: [f64; 3] = [-2.4076059644443806, -1.4076059644443804, -0.4076059644443804];

#[test]
fn exp_log_and_softmax_agree_on_hand_worked_values() {
    // exp(1) and log(2) correctly rounded are the constants `E` and `LN_2`.
    let exp = [
        std::f64::consts::E,
        7.38905609893065,
        20.085536923187668,
        54.598150033144236,
        148.4131591025766,
        403.4287934927351,
    ];
    assert_eq!(both("let y = expTensor(x) in y"), (vec![2, 3], exp.to_vec()));
    let log =
        [0.0, std::f64::consts::LN_2, 1.0986122886681098, 1.3862943611198906, 1.6094379124341003, 1.791759469228055];
    assert_eq!(both("let y = logTensor(x) in y"), (vec![2, 3], log.to_vec()));
    let rows: Vec<f64> = ROW.iter().chain(&ROW).copied().collect();
    assert_eq!(both("let y = softmax(x, 1) in y"), (vec![2, 3], rows));
    let log_rows: Vec<f64> = LOG_ROW.iter().chain(&LOG_ROW).copied().collect();
    assert_eq!(both("let y = logSoftmax(x, 1) in y"), (vec![2, 3], log_rows));
    // Along axis 0, each column [k, k + 3]: `exp(-3) / S`, `1 / S` with `S = 0.0 + exp(-3) + 1`.
    let (low, high) = (0.04742587317756679, 0.9525741268224334);
    assert_eq!(both("let y = softmax(x, 0) in y"), (vec![2, 3], vec![low, low, low, high, high, high]));
    // A copy: writing y leaves x as it was.
    assert_eq!(both("let y = softmax(x, 1) in let y[0, 0] = 9.0 in x").1, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
}

#[test]
fn softmax_of_infinities_is_nan_as_ieee_says() {
    for (literal, axis) in [("[-Infinity, -Infinity]", 0), ("[Infinity, 0.0]", 0)] {
        for f in ["softmax", "logSoftmax"] {
            let source = format!("let v = initTensor(2){literal} in let y = {f}(v, {axis}) in y");
            let (_, data) = tensor(&source, &[]);
            assert!(data.iter().all(|v| v.is_nan()), "{source}: {data:?}");
        }
    }
    // One `-Infinity` among finite elements is an exponential of 0.
    let (_, data) = tensor("let v = initTensor(2)[-Infinity, 0.0] in let y = softmax(v, 0) in y", &[]);
    assert_eq!(data, [0.0, 1.0]);
    // `log(0)` is `-Infinity`, `log(-1)` NaN.
    let (_, data) = tensor("let v = initTensor(2)[0.0, -1.0] in let y = logTensor(v) in y", &[]);
    assert!(data[0] == f64::NEG_INFINITY && data[1].is_nan(), "{data:?}");
}

#[test]
fn reductions_agree_on_hand_worked_values() {
    assert_eq!(both("let y = reduceSum(x, 0) in y"), (vec![3], vec![5.0, 7.0, 9.0]));
    assert_eq!(both("let y = reduceSum(x, 1) in y"), (vec![2], vec![6.0, 15.0]));
    assert_eq!(both("let y = reduceSum(x, 1, 0) in y"), (vec![1], vec![21.0]));
    assert_eq!(both("let y = reduceMean(x, 1) in y"), (vec![2], vec![2.0, 5.0]));
    assert_eq!(both("let y = reduceMean(x, 0, 1) in y"), (vec![1], vec![3.5]));
    assert_eq!(both("let y = reduceMax(x, 0) in y"), (vec![3], vec![4.0, 5.0, 6.0]));
    assert_eq!(both("let y = reduceMin(x, 1) in y"), (vec![2], vec![1.0, 4.0]));
    // Ties: `max` keeps the earlier element (`max-left`), `min` takes the later (`min-right`).
    let zeros = |f: &str| tensor(&format!("let v = initTensor(2)[-0.0, 0.0] in let y = {f}(v, 0) in y"), &[]).1[0];
    assert_eq!(zeros("reduceMax").to_bits(), (-0.0f64).to_bits());
    assert_eq!(zeros("reduceMin").to_bits(), 0.0f64.to_bits());
    // Int elements sum to a Float; an axis of extent 0 is -Infinity, 0.0, NaN.
    let ints = "let v = initTensor(2)[1, 2] in let y = reduceSum(v, 0) in y[0]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Float(v)) if v == 3.0), "{ints}");
    let empty = |f: &str| tensor(&format!("let v = initTensor(2, 0) in let y = {f}(v, 1) in y"), &[]).1;
    assert_eq!(empty("reduceMax"), [f64::NEG_INFINITY; 2]);
    assert_eq!(empty("reduceSum"), [0.0; 2]);
    assert!(empty("reduceMean").iter().all(|v| v.is_nan()));
}

#[test]
fn tensor_math_agrees_on_every_error_kind() {
    for (program, kind) in [
        ("let y = softmax(x, 2) in y", "invalid-attribute"),
        ("let y = logSoftmax(x, 5) in y", "invalid-attribute"),
        ("let y = reduceSum(x, 0, 0) in y", "invalid-attribute"),
        ("let y = reduceMax(x, 2) in y", "invalid-attribute"),
        ("let y = expTensor(1.0) in y", "unknown-tensor"),
        ("let s = 1.0 in let y = reduceMean(s, 0) in y", "unknown-tensor"),
        ("let y = softmax(z, 0) in y", "unbound-identifier"),
        ("let x = logTensor(x) in x", "aliased-output"),
        // A NaN in a slice has no `max`, nor in a reduction's group.
        ("let x[1, 2] = NaN in let y = softmax(x, 1) in y", "invalid-operands"),
        ("let x[0, 0] = NaN in let y = reduceMin(x, 0) in y", "invalid-operands"),
        // Int elements: no `expItem`, no `max`.
        ("let v = initTensor(2)[1, 2] in let y = expTensor(v) in y", "invalid-operands"),
        ("let v = initTensor(2)[1, 2] in let y = logSoftmax(v, 0) in y", "invalid-operands"),
        ("let v = initTensor(2)[1, 2] in let y = reduceMax(v, 0) in y", "invalid-operands"),
        // Row 1 overwritten by a scalar.
        ("let x[1] = 5.0 in let y = softmax(x, 0) in y", "too-many-indices"),
        ("let x[1] = 5.0 in let y = reduceSum(x, 1) in y", "too-many-indices"),
    ] {
        let source = format!("{}{program}", x_from_input());
        match agree(&source, &[input()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
        let constant = format!("{X_LITERAL}{program}");
        assert!(matches!(agree(&constant, &[]), Verdict::Error { .. }), "{constant}");
    }
}

#[test]
fn softmax_of_an_input_is_one_plan_operation_bit_for_bit() {
    use super::fused::{Fused, Stream, check_rows, plan_of, tally};
    use knn_engine::bigstep::ops::Op;
    use knn_engine::tensor::LANE_GROUP;
    // x = [[1, 2, 3], [4, 5, 6]] as the input: each row along axis 1 is ROW.
    let x = TensorInput { name: "x".into(), shape: vec![2, 3], data: (1..=6).map(f64::from).collect() };
    let rows: Vec<f64> = ROW.iter().chain(&ROW).copied().collect();
    assert_eq!(tensor("let y = softmax(x, 1) in y", std::slice::from_ref(&x)), (vec![2, 3], rows));
    // Random rows, one with a NaN (invalid-operands at the slice's max), one of -Infinity (NaN
    // everywhere), one with a +Infinity: one `Softmax` of the plan, the reference's bits, span
    // and detail, alone and in groups of lanes.
    let mut stream = Stream(9);
    let mut rows: Vec<Vec<f64>> =
        (0..2 * LANE_GROUP + 3).map(|_| (0..6).map(|_| stream.next() * 40.0).collect()).collect();
    rows[1][4] = f64::NAN;
    rows[2] = vec![f64::NEG_INFINITY; 6];
    rows[3][0] = f64::INFINITY;
    for source in ["let y = softmax(x, 1) in y", "let y = logSoftmax(x, 0) in y"] {
        let program = parse_program(source, Profile::revised().grammar).unwrap();
        let plan = plan_of(&program, &[2, 3]);
        assert_eq!(plan.ops.iter().filter(|op| matches!(op, Op::Softmax { .. })).count(), 1, "{:#?}", plan.ops);
        let verdicts = check_rows(source, &[2, 3], &rows, Fused::default());
        assert_eq!(tally(&verdicts, "invalid-operands"), (rows.len() - 1, 1), "{source}");
    }
}
