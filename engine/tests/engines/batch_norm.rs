//! Ext-14's `batchNorm` on every engine, its input a literal (constants) and copied from an
//! input (symbolic in the staged engine): each element, `((X[I] - M[c]) / sqrt(V[c] + E)) *
//! S[c] + B[c]` in row-major order (`ext-batch-norm-helper-step`, `ext-sqrt-item`), worked out
//! by hand; a variance read from the input (the root taken when the plan runs); the plan's copy
//! and one `Elementwise` when the input is one buffer and the parameters constants, row by row
//! and in lane groups; and each error kind.

use knn_engine::bigstep::ops::{ElementStep, Op};
use knn_engine::bigstep::{Binding, InputData, compile};
use knn_semantics::Profile;

use super::fused::{Fused, Stream, check_rows, plan_of};
use super::*;

// The operand `x` = [[1, 2, 3], [4, 5, 6]] (two channels of three), a literal or copied from an
// input: reshape's.
use super::reshape::{X_LITERAL, both, input, tensor, x_from_input};

/// Scale `[2, 0.5]`, bias `[0.5, -1]`, mean `[1, 5]`, variance `[3, 15]`: with epsilon `1` the
/// divisors are `sqrt(4) = 2` and `sqrt(16) = 4`.
const PARAMETERS: &str = "let s = initTensor(2)[2.0, 0.5] in let b = initTensor(2)[0.5, -1.0] in \
    let m = initTensor(2)[1.0, 5.0] in let v = initTensor(2)[3.0, 15.0] in ";

#[test]
fn batch_norm_agrees_on_hand_worked_values() {
    // Channel 0: ((1 - 1) / 2) * 2 + 0.5 = 0.5, then 1.5, 2.5; channel 1: ((4 - 5) / 4) * 0.5 - 1
    // = -1.125, then ((5 - 5) / 4) * 0.5 - 1 = -1.0, ((6 - 5) / 4) * 0.5 - 1 = -0.875.
    assert_eq!(
        both(&format!("{PARAMETERS}let y = batchNorm(x, s, b, m, v, epsilon = 1.0) in y")),
        (vec![2, 3], vec![0.5, 1.5, 2.5, -1.125, -1.0, -0.875])
    );
    // A variance of -3 with epsilon 1: the root of -2 is NaN, and so is channel 0; no error.
    let negative = "let s = initTensor(2)[1.0, 1.0] in let z = initTensor(2)[0.0, 0.0] in \
        let v = initTensor(2)[-3.0, 3.0] in let y = batchNorm(x, s, z, z, v, epsilon = 1.0) in y";
    // (NaN is not equal to itself: the two inputs are compared apart.)
    let (shape, data) = tensor(&format!("{}{negative}", x_from_input()), &[input()]);
    let constant = tensor(&format!("{X_LITERAL}{negative}"), &[]).1;
    assert_eq!(shape, [2, 3]);
    assert!(data.iter().zip(&constant).all(|(a, b)| a.to_bits() == b.to_bits()));
    assert!(data[..3].iter().all(|e| e.is_nan()), "{data:?}");
    // Channel 1: (x / sqrt(3 + 1)) * 1 + 0 = x / 2.
    assert_eq!(data[3..], [2.0, 2.5, 3.0]);
    // A copy: writing y leaves x as it was.
    assert_eq!(
        both(&format!("{PARAMETERS}let y = batchNorm(x, s, b, m, v) in let y[0, 0] = 9.0 in x")),
        (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    // Ints: 3 - 1 is the Int 2, divided by the Float sqrt(1 + 3.0) = 2.0: 1.0 * 1 + 1 = 2.0; then
    // (2 - 1) / 2.0 * 1 + 1 = 1.5.
    let ints = "let u = initTensor(2)[3, 2] in let p = initTensor(2)[1, 1] in \
        let y = batchNorm(u, p, p, p, p, epsilon = 3.0) in y";
    assert_eq!(tensor(ints, &[]), (vec![2], vec![2.0, 1.5]));
    let empty = "let u = initTensor(2, 0) in let p = initTensor(2) in let y = batchNorm(u, p, p, p, p) in y";
    assert_eq!(tensor(empty, &[]).0, vec![2, 0]);
}

/// The variance read from the input: its elements are known when the plan runs, so the root is
/// an operation of the plan (`Item { Sqrt }`), computed as the reference computes it.
#[test]
fn a_variance_computed_from_the_input_is_rooted_when_the_plan_runs() {
    // v = [1, …, 6]: the variance [v[2], v[5]] = [3, 6]; epsilon 1: divisors 2 and sqrt(7).
    let source = format!(
        "{}let q = initTensor(2) in let q[0] = v[2] in let q[1] = v[5] in let s = initTensor(2)[1.0, 1.0] in \
         let z = initTensor(2)[0.0, 0.0] in let y = batchNorm(x, s, z, z, q, epsilon = 1.0) in y",
        x_from_input()
    );
    let (shape, data) = tensor(&source, &[input()]);
    assert_eq!(shape, [2, 3]);
    assert_eq!(data[..3], [0.5, 1.0, 1.5]);
    // 4 / sqrt(7), by Python: 4.0 / math.sqrt(7.0) = 1.5118578920369088.
    assert_eq!(data[3], 1.5118578920369088);
    let program = parse_program(&source, Profile::revised().grammar).unwrap();
    let v = Binding { name: "v".into(), shape: vec![6], data: InputData::Symbolic };
    let plan = compile(&program, &[v]);
    let roots = plan.ops.iter().filter(|op| matches!(op, Op::Item { .. })).count();
    assert_eq!(roots, 6, "one root per element, as the rules take it: {:#?}", plan.ops);
}

#[test]
fn batch_norm_agrees_on_every_error_kind() {
    for (program, kind) in [
        ("let w = initTensor(3) in let y = batchNorm(x, s, b, w, v) in y", "shape-mismatch"),
        ("let w = initTensor(2, 1) in let y = batchNorm(x, w, b, m, v) in y", "shape-mismatch"),
        ("let y = batchNorm(x, s, b, 1.0, v) in y", "unknown-tensor"),
        ("let c = 1.0 in let y = batchNorm(x, s, c, m, v) in y", "unknown-tensor"),
        ("let y = batchNorm(x, s, b, m, z) in y", "unbound-identifier"),
        ("let m = batchNorm(x, s, b, m, v) in m", "aliased-output"),
        // Row 1 overwritten by a scalar: x[0, …] is computed, then x[1, 0] is not an element.
        ("let x[1] = 5.0 in let y = batchNorm(x, s, b, m, v) in y", "too-many-indices"),
        // A header stored as an element: `-` has no rule for it.
        ("let u = initTensor(1) in let x[0, 1] = u in let y = batchNorm(x, s, b, m, v) in y", "invalid-operands"),
        ("let u = initTensor(1) in let v[1] = u in let y = batchNorm(x, s, b, m, v) in y", "invalid-operands"),
        // -2^63 minus the Int mean 1 does not fit in 64 bits.
        (
            "let x[0, 0] = (0 - 4611686018427387903) * 2 - 2 in let m[0] = 1 in let y = batchNorm(x, s, b, m, v) in y",
            "integer-overflow",
        ),
    ] {
        let source = format!("{}{PARAMETERS}{program}", x_from_input());
        match agree(&source, &[input()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
}

/// An input held in one buffer with constant parameters is one copy and one `Elementwise` of
/// the plan, with no element work beside them: each element's steps `[Sub(M[c]), Div(d),
/// Mul(S[c]), Add(B[c])]`, `d` the root computed once; every row (NaN, ±∞ and -0.0 among the
/// elements) gets the reference's bits, alone and in lane groups.
#[test]
fn a_buffer_with_constant_parameters_is_one_elementwise() {
    const DIMS: [usize; 2] = [2, 3];
    let source = format!("{PARAMETERS}let y = batchNorm(x, s, b, m, v, epsilon = 1.0) in y");
    let program = parse_program(&source, Profile::revised().grammar).unwrap();
    let plan = plan_of(&program, &DIMS);
    let steps: Vec<&Vec<Vec<ElementStep>>> = plan
        .ops
        .iter()
        .filter_map(|op| if let Op::Elementwise { steps, .. } = op { Some(steps) } else { None })
        .collect();
    assert_eq!(steps.len(), 1, "{:#?}", plan.ops);
    let channel = |m, d, s, b| vec![ElementStep::Sub(m), ElementStep::Div(d), ElementStep::Mul(s), ElementStep::Add(b)];
    let (c0, c1) = (channel(1.0, 2.0, 2.0, 0.5), channel(5.0, 4.0, 0.5, -1.0));
    assert_eq!(*steps[0], [c0.clone(), c0.clone(), c0, c1.clone(), c1.clone(), c1]);
    let mut stream = Stream(29);
    let mut rows: Vec<Vec<f64>> = (0..40).map(|_| (0..6).map(|_| stream.next()).collect()).collect();
    rows[0] = vec![f64::NAN, f64::INFINITY, -f64::INFINITY, -0.0, 0.0, 5e-324];
    rows[1] = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let verdicts = check_rows(&source, &DIMS, &rows, Fused { copy: 1, ..Fused::default() });
    let Verdict::Value(Observed::Tensor(t)) = &verdicts[1] else { panic!("{:?}", verdicts[1]) };
    assert_eq!(t.data, [0.5, 1.5, 2.5, -1.125, -1.0, -0.875]);
    let Verdict::Value(Observed::Tensor(t)) = &verdicts[0] else { panic!("{:?}", verdicts[0]) };
    // ((∞ - 1) / 2) * 2 + 0.5 = ∞; ((-0.0 - 5) / 4) * 0.5 - 1 = -1.625.
    assert!(t.data[0].is_nan());
    assert_eq!((t.data[1], t.data[2], t.data[3]), (f64::INFINITY, -f64::INFINITY, -1.625));
}
