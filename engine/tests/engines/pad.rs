//! Ext-13's `pad` on every engine, its input a literal (constants) and copied from an input
//! (symbolic in the staged engine): the elements in the result's row-major order, `X[I - Bs]`
//! inside (`ext-pad-helper-copy`), the value in the border (`ext-pad-helper-fill`), worked out by
//! hand; the plan's one `Pad` when the operand is one buffer, row by row and in lane groups; and
//! each error kind.

use knn_engine::bigstep::ops::Op;
use knn_semantics::Profile;

use super::fused::{Fused, Stream, check_rows, plan_of};
use super::*;

// The operand `x` = [[1, 2, 3], [4, 5, 6]], a literal or copied from an input: reshape's.
use super::reshape::{X_LITERAL, both, input, tensor, x_from_input};

const INF: f64 = f64::INFINITY;

#[test]
fn pad_agrees_on_hand_worked_values() {
    // One row above, one column on the right: (3, 4).
    assert_eq!(
        both("let y = pad(x, 0.5, 1, 0, 0, 1) in y"),
        (vec![3, 4], vec![0.5, 0.5, 0.5, 0.5, 1.0, 2.0, 3.0, 0.5, 4.0, 5.0, 6.0, 0.5])
    );
    // Two columns on the left, one row below: (3, 5).
    assert_eq!(
        both("let y = pad(x, -Infinity, 0, 2, 1, 0) in y"),
        (vec![3, 5], [[-INF, -INF, 1.0, 2.0, 3.0], [-INF, -INF, 4.0, 5.0, 6.0], [-INF; 5]].concat())
    );
    assert_eq!(both("let y = pad(x, 9.0, 0, 0, 0, 0) in y"), (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    // y[2, 3] is x[1, 2] = 6 (begins (1, 1)); the border keeps -0.0's sign.
    let one = format!("{X_LITERAL}let y = pad(x, -0.0, 1, 1, 1, 1) in y[2, 3]");
    assert!(matches!(agree(&one, &[]), Verdict::Value(Observed::Float(v)) if v == 6.0));
    let corner = format!("{X_LITERAL}let y = pad(x, -0.0, 1, 1, 1, 1) in y[3, 4]");
    assert!(matches!(agree(&corner, &[]), Verdict::Value(Observed::Float(v)) if v.to_bits() == (-0.0f64).to_bits()));
    let nan = format!("{X_LITERAL}let y = pad(x, NaN, 1, 1, 1, 1) in y[0, 0]");
    assert!(matches!(agree(&nan, &[]), Verdict::Value(Observed::Float(v)) if v.is_nan()));
    // A copy: writing y leaves x as it was.
    assert_eq!(
        both("let y = pad(x, 0.0, 1, 1, 0, 0) in let y[1, 1] = 9.0 in x"),
        (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    // Ints stay Ints, and an empty axis is all border.
    let ints = "let v = initTensor(2, 1)[2, 3] in let y = pad(v, 0.5, 0, 0, 1, 1) in y[1, 0]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Int(3))), "{ints}");
    let empty = "let v = initTensor(0, 2) in let y = pad(v, 1.5, 1, 0, 0, 1) in y";
    assert_eq!(tensor(empty, &[]), (vec![1, 3], vec![1.5, 1.5, 1.5]));
}

#[test]
fn pad_agrees_on_every_error_kind() {
    for (program, kind) in [
        ("let y = pad(x, 0.0, 1, 1) in y", "invalid-attribute"),
        ("let y = pad(x, 0.0, 1, 1, 1, 1, 1, 1) in y", "invalid-attribute"),
        // 3 + 2 · (2^62 - 1), the largest Int literals, is beyond 64 bits.
        ("let y = pad(x, 0.0, 0, 4611686018427387903, 0, 4611686018427387903) in y", "invalid-attribute"),
        ("let y = pad(1.0, 0.0, 1, 1) in y", "unknown-tensor"),
        ("let s = 1.0 in let y = pad(s, 0.0, 1, 1) in y", "unknown-tensor"),
        ("let y = pad(z, 0.0, 1, 1) in y", "unbound-identifier"),
        ("let x = pad(x, 0.0, 1, 1, 1, 1) in x", "aliased-output"),
        // Row 1 overwritten by a scalar: x[0, …] is read, then x[1, 0] is not an element.
        ("let x[1] = 5.0 in let y = pad(x, 0.0, 1, 0, 0, 0) in y", "too-many-indices"),
        // A header stored as an element is copied as a header: adding to it has no rule.
        (
            "let u = initTensor(1) in let x[0, 1] = u in let y = pad(x, 0.0, 0, 0, 0, 0) in y[0, 1] + 1.0",
            "invalid-operands",
        ),
    ] {
        let source = format!("{}{program}", x_from_input());
        match agree(&source, &[input()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
}

/// An input held in one buffer is padded by one `Pad` of the plan, with no element work beside
/// it, and every row (NaN, ±∞ and -0.0 among the elements) gets the reference's bits, alone and
/// in lane groups.
#[test]
fn a_buffer_is_padded_by_one_plan_operation() {
    const DIMS: [usize; 3] = [1, 2, 3];
    let source = "let y = pad(x, -1.5, 0, 1, 0, 1, 2, 1) in y";
    let program = parse_program(source, Profile::revised().grammar).unwrap();
    let plan = plan_of(&program, &DIMS);
    assert_eq!(plan.ops.iter().filter(|op| matches!(op, Op::Pad { .. })).count(), 1, "{:#?}", plan.ops);
    let mut stream = Stream(13);
    let mut rows: Vec<Vec<f64>> = (0..40).map(|_| (0..6).map(|_| stream.next()).collect()).collect();
    rows[0] = vec![f64::NAN, INF, -INF, -0.0, 0.0, 5e-324];
    let verdicts = check_rows(source, &DIMS, &rows, Fused::default());
    // The result (1 + 0 + 1, 2 + 1 + 2, 3 + 0 + 1) = (2, 5, 4), begins (0, 1, 0): element
    // [0, 1, j] (at 4 + j) is x[0, 0, j], [0, 0, 1] and [1, 4, 3] (at 20 + 16 + 3) are border.
    let Verdict::Value(Observed::Tensor(t)) = &verdicts[0] else { panic!("{:?}", verdicts[0]) };
    assert_eq!(t.shape, [2, 5, 4]);
    assert!(t.data[4].is_nan());
    assert_eq!(t.data[5].to_bits(), INF.to_bits());
    assert_eq!(t.data[6].to_bits(), (-INF).to_bits());
    assert_eq!((t.data[1], t.data[7], t.data[39]), (-1.5, -1.5, -1.5));
    assert_eq!(t.data[8 + 1].to_bits(), 0.0f64.to_bits(), "x[0, 1, 1] = 0.0 at [0, 2, 1]");
}
