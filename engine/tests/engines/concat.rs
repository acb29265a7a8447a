//! Ext-11's `concat` on every engine, its operands a literal (constants) and copied from an
//! input (symbolic in the staged engine): the operands' runs one after another along the axis,
//! the result in its own row-major order (`ext-concat-helper-step`), worked out by hand, and each
//! error kind.

use super::*;

// The operand `x` = [[1, 2, 3], [4, 5, 6]], a literal or copied from an input: reshape's.
use super::reshape::{X_LITERAL, both, input, tensor, x_from_input};

/// `c` = [[7], [8]], a literal.
const C: &str = "let c = initTensor(2, 1)[7.0, 8.0] in ";

#[test]
fn concat_agrees_on_hand_worked_values() {
    // Along axis 1: each row of x, then c's.
    assert_eq!(
        both(&format!("{C}let y = concat(x, c, 1) in y")),
        (vec![2, 4], vec![1.0, 2.0, 3.0, 7.0, 4.0, 5.0, 6.0, 8.0])
    );
    // c first, then x twice: [[7, 1, 2, 3, 1, 2, 3], [8, 4, 5, 6, 4, 5, 6]].
    assert_eq!(
        both(&format!("{C}let y = concat(c, x, x, 1) in y")),
        (vec![2, 7], vec![7.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 8.0, 4.0, 5.0, 6.0, 4.0, 5.0, 6.0])
    );
    // Along axis 0: x's rows, then x's rows again.
    assert_eq!(
        both("let y = concat(x, x, 0) in y"),
        (vec![4, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    // One operand: a copy; an operand of extent 0 adds nothing.
    assert_eq!(both("let y = concat(x, 0) in y"), (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    assert_eq!(
        both("let e = initTensor(2, 0) in let y = concat(e, x, e, 1) in y"),
        (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    // Vectors along axis 0: x flattened, then [9, 10].
    assert_eq!(
        both("let f = flatten(x) in let w = initTensor(2)[9.0, 10.0] in let y = concat(f, w, 0) in y"),
        (vec![8], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 9.0, 10.0])
    );
    // y[1, 3] is c[1, 0] = 8.
    let one = format!("{X_LITERAL}{C}let y = concat(x, c, 1) in y[1, 3]");
    assert!(matches!(agree(&one, &[]), Verdict::Value(Observed::Float(v)) if v == 8.0));
    // A copy: writing y leaves x as it was.
    assert_eq!(
        both("let y = concat(x, x, 0) in let y[0, 1] = 9.0 in x"),
        (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    // Ints stay Ints, next to Floats.
    let ints = "let v = initTensor(1, 2)[2, 3] in let w = initTensor(1, 1)[0.5] in let y = concat(w, v, 1) in y[0, 2]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Int(3))), "{ints}");
    let empty = "let v = initTensor(2, 0) in let y = concat(v, v, 1) in y";
    assert_eq!(tensor(empty, &[]).0, vec![2, 0]);
}

#[test]
fn concat_agrees_on_every_error_kind() {
    for (program, kind) in [
        ("let y = concat(x, x, 2) in y", "invalid-attribute"),
        // The axis is checked against the first operand before the shapes are compared.
        ("let v = initTensor(3) in let y = concat(v, x, 1) in y", "invalid-attribute"),
        ("let c = initTensor(3, 1) in let y = concat(x, c, 1) in y", "shape-mismatch"),
        ("let c = initTensor(2, 1) in let y = concat(x, c, 0) in y", "shape-mismatch"),
        ("let c = initTensor(2, 3, 1) in let y = concat(x, c, 0) in y", "shape-mismatch"),
        ("let y = concat(x, 1.0, 0) in y", "unknown-tensor"),
        ("let s = 1.0 in let y = concat(x, s, 0) in y", "unknown-tensor"),
        ("let y = concat(x, z, 0) in y", "unbound-identifier"),
        // The operands are diagnosed left to right: z (unbound) before 1.0.
        ("let y = concat(z, 1.0, 0) in y", "unbound-identifier"),
        ("let x = concat(x, x, 0) in x", "aliased-output"),
        // Row 1 overwritten by a scalar: x[0, …] are read first, then x[1, 0] is not.
        ("let x[1] = 5.0 in let y = concat(x, x, 0) in y", "too-many-indices"),
        // A header stored as an element is copied as a header: adding to it has no rule.
        ("let u = initTensor(1) in let x[0, 1] = u in let y = concat(x, x, 0) in y[0, 1] + 1.0", "invalid-operands"),
    ] {
        let source = format!("{}{program}", x_from_input());
        match agree(&source, &[input()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
}

/// Operands that are each one run of a buffer (the input, and a concatenation of it): each
/// `concat` is one `Gather` of the plan, with no element-by-element work, and every row, alone
/// and in lane groups, gets the reference's bits (NaN, ±0.0 and ±∞ among the elements).
#[test]
fn concat_of_buffers_is_one_gather_bit_for_bit() {
    use super::fused::{Fused, check_rows, plan_of};
    use knn_engine::bigstep::ops::Op;
    use knn_engine::tensor::LANE_GROUP;
    let source = "let y = concat(x, x, 1) in let z = concat(x, y, 1) in z";
    let program = parse_program(source, Profile::revised().grammar).unwrap();
    let plan = plan_of(&program, &[2, 3]);
    let gathers = plan.ops.iter().filter(|op| matches!(op, Op::Gather { .. })).count();
    assert_eq!(gathers, 2, "{:#?}", plan.ops);
    let specials = [f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, 1e-310];
    let rows: Vec<Vec<f64>> = (0..3 * LANE_GROUP + 1)
        .map(|r| {
            (0..6)
                .map(|k| if (r + k) % 5 == 0 { specials[(r + k) % 6] } else { (r * 6 + k) as f64 * 0.25 - 3.0 })
                .collect()
        })
        .collect();
    let verdicts = check_rows(source, &[2, 3], &rows, Fused::default());
    // z's row 0 is x[0], x[0], x[0]: the first row's element (0, 4) is x[0, 1].
    let Verdict::Value(Observed::Tensor(z)) = &verdicts[1] else { panic!("{:?}", verdicts[1]) };
    assert_eq!(z.shape, vec![2, 9]);
    assert_eq!(z.data[4].to_bits(), rows[1][1].to_bits());
    assert_eq!(z.data[9 + 8].to_bits(), rows[1][5].to_bits(), "row 1 of z ends with x[1, 2]");
}
