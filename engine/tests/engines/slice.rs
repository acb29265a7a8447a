//! Ext-12's `slice` on every engine, its operand a literal (constants) and copied from an input
//! (symbolic in the staged engine): the elements at `B, B + S, …` below `E` along the axis, the
//! result in its own row-major order (`ext-slice-helper-step`), worked out by hand, and each
//! error kind; an operand held in one buffer is one `Gather` of the plan.

use super::*;

// The operand `x` = [[1, 2, 3], [4, 5, 6]], a literal or copied from an input: reshape's.
use super::reshape::{X_LITERAL, both, input, tensor, x_from_input};

#[test]
fn slice_agrees_on_hand_worked_values() {
    assert_eq!(both("let y = slice(x, 1, 1, 3) in y"), (vec![2, 2], vec![2.0, 3.0, 5.0, 6.0]));
    assert_eq!(both("let y = slice(x, 1, 0, 3, 2) in y"), (vec![2, 2], vec![1.0, 3.0, 4.0, 6.0]));
    assert_eq!(both("let y = slice(x, 0, 1, 2) in y"), (vec![1, 3], vec![4.0, 5.0, 6.0]));
    // A step past the end takes the start alone.
    assert_eq!(both("let y = slice(x, 1, 1, 3, 5) in y"), (vec![2, 1], vec![2.0, 5.0]));
    assert_eq!(both("let y = slice(x, 0, 0, 2) in y"), (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    // y[1, 0] is x[1, 2] = 6.
    let one = format!("{X_LITERAL}let y = slice(x, 1, 2, 3) in y[1, 0]");
    assert!(matches!(agree(&one, &[]), Verdict::Value(Observed::Float(v)) if v == 6.0));
    // A copy: writing y leaves x as it was.
    assert_eq!(
        both("let y = slice(x, 0, 0, 1) in let y[0, 1] = 9.0 in x"),
        (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    // Ints stay Ints; an empty range copies nothing.
    let ints = "let v = initTensor(3)[2, 3, 4] in let y = slice(v, 0, 1, 3) in y[1]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Int(4))), "{ints}");
    let empty = format!("{X_LITERAL}let y = slice(x, 1, 2, 2) in y");
    assert_eq!(tensor(&empty, &[]).0, vec![2, 0]);
}

#[test]
fn slice_agrees_on_every_error_kind() {
    for (program, kind) in [
        ("let y = slice(x, 2, 0, 1) in y", "invalid-attribute"),
        ("let y = slice(x, 1, 0, 4) in y", "invalid-attribute"),
        ("let y = slice(x, 1, 2, 1) in y", "invalid-attribute"),
        ("let y = slice(x, 1, 0, 3, 0) in y", "invalid-attribute"),
        ("let y = slice(1.0, 0, 0, 1) in y", "unknown-tensor"),
        ("let s = 1.0 in let y = slice(s, 0, 0, 1) in y", "unknown-tensor"),
        ("let y = slice(z, 0, 0, 1) in y", "unbound-identifier"),
        ("let x = slice(x, 0, 0, 1) in x", "aliased-output"),
        // Row 1 overwritten by a scalar: row 0 is copied, x[1, 0] is not.
        ("let x[1] = 5.0 in let y = slice(x, 1, 0, 2) in y", "too-many-indices"),
    ] {
        let source = format!("{}{program}", x_from_input());
        match agree(&source, &[input()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
}

/// The input held in one buffer: each `slice` is one `Gather` of the plan, with no element work,
/// and every row, alone and in lane groups, gets the reference's bits.
#[test]
fn slice_of_a_buffer_is_one_gather_bit_for_bit() {
    use super::fused::{Fused, check_rows, plan_of};
    use knn_engine::bigstep::ops::Op;
    use knn_engine::tensor::LANE_GROUP;
    let source = "let y = slice(x, 1, 1, 3) in let z = slice(y, 0, 1, 2) in z";
    let program = parse_program(source, Profile::revised().grammar).unwrap();
    let plan = plan_of(&program, &[2, 3]);
    let gathers = plan.ops.iter().filter(|op| matches!(op, Op::Gather { .. })).count();
    assert_eq!(gathers, 2, "{:#?}", plan.ops);
    let specials = [f64::NAN, -0.0, f64::INFINITY, f64::NEG_INFINITY, 5e-324];
    let rows: Vec<Vec<f64>> = (0..3 * LANE_GROUP + 1)
        .map(|r| {
            (0..6).map(|k| if (r + k) % 4 == 0 { specials[(r + k) % 5] } else { (r * 6 + k) as f64 * 0.5 }).collect()
        })
        .collect();
    let verdicts = check_rows(source, &[2, 3], &rows, Fused::default());
    // An empty range of a buffer: a Gather of nothing, a tensor of shape (2, 0), and the
    // program goes on.
    let empty = "let y = slice(x, 1, 2, 2) in let z = slice(x, 1, 0, 1) in z";
    let plan = plan_of(&parse_program(empty, Profile::revised().grammar).unwrap(), &[2, 3]);
    assert_eq!(plan.ops.iter().filter(|op| matches!(op, Op::Gather { from, .. } if from.is_empty())).count(), 1);
    check_rows(empty, &[2, 3], &rows, Fused::default());
    // z = [[x[1, 1], x[1, 2]]].
    let Verdict::Value(Observed::Tensor(z)) = &verdicts[2] else { panic!("{:?}", verdicts[2]) };
    assert_eq!(z.shape, vec![1, 2]);
    assert_eq!((z.data[0].to_bits(), z.data[1].to_bits()), (rows[2][4].to_bits(), rows[2][5].to_bits()));
}
