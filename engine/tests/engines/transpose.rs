//! Ext-6's `transpose` on every engine, its input a literal (constants) and copied from an input
//! (symbolic in the staged engine): the elements in the result's row-major order, element `I` of
//! the result from element `J` of the operand with `J[Ps[i]] = I[i]`
//! (`ext-transpose-helper-step`), worked out by hand, and each error kind.

use super::*;

// The operand `x` = [[1, 2, 3], [4, 5, 6]], a literal or copied from an input: reshape's.
use super::reshape::{X_LITERAL, both, input, tensor, x_from_input};

#[test]
fn transpose_agrees_on_hand_worked_values() {
    assert_eq!(both("let y = transpose(x, 1, 0) in y"), (vec![3, 2], vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]));
    assert_eq!(both("let y = transpose(x, 0, 1) in y"), (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    // x as (2, 3, 1) channels last, to channels first (1, 2, 3) and back: the same order.
    assert_eq!(
        both("let z = reshape(x, 2, 3, 1) in let y = transpose(z, 2, 0, 1) in y"),
        (vec![1, 2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    // x as (3, 1, 2) (an image of 3 rows, 1 column, 2 channels: pixels [1, 2], [3, 4], [5, 6]),
    // channels first (2, 3, 1): channel 0 is [1, 3, 5], channel 1 [2, 4, 6].
    assert_eq!(
        both("let z = reshape(x, 3, 1, 2) in let y = transpose(z, 2, 0, 1) in y"),
        (vec![2, 3, 1], vec![1.0, 3.0, 5.0, 2.0, 4.0, 6.0])
    );
    // y[2, 0] is x[0, 2] = 3.
    let one = format!("{X_LITERAL}let y = transpose(x, 1, 0) in y[2, 0]");
    assert!(matches!(agree(&one, &[]), Verdict::Value(Observed::Float(v)) if v == 3.0));
    // A copy: writing y leaves x as it was.
    assert_eq!(
        both("let y = transpose(x, 1, 0) in let y[0, 1] = 9.0 in x"),
        (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    );
    // Ints stay Ints, and a zero dimension copies nothing.
    let ints = "let v = initTensor(2, 1)[2, 3] in let y = transpose(v, 1, 0) in y[0, 1]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Int(3))), "{ints}");
    let empty = "let v = initTensor(0, 3) in let y = transpose(v, 1, 0) in y";
    assert_eq!(tensor(empty, &[]).0, vec![3, 0]);
}

#[test]
fn transpose_agrees_on_every_error_kind() {
    for (program, kind) in [
        ("let y = transpose(x, 1, 1) in y", "invalid-attribute"),
        ("let y = transpose(x, 1) in y", "invalid-attribute"),
        ("let y = transpose(x, 0, 1, 2) in y", "invalid-attribute"),
        ("let y = transpose(x, 0, 2) in y", "invalid-attribute"),
        ("let y = transpose(1.0, 0) in y", "unknown-tensor"),
        ("let s = 1.0 in let y = transpose(s, 0) in y", "unknown-tensor"),
        ("let y = transpose(z, 0) in y", "unbound-identifier"),
        ("let x = transpose(x, 1, 0) in x", "aliased-output"),
        // Row 1 overwritten by a scalar: the result's first element, x[0, 0], is read, its
        // second, x[1, 0], is not.
        ("let x[1] = 5.0 in let y = transpose(x, 1, 0) in y", "too-many-indices"),
        // A header stored as an element is copied as a header: adding to it has no rule.
        ("let u = initTensor(1) in let x[0, 1] = u in let y = transpose(x, 1, 0) in y[1, 0] + 1.0", "invalid-operands"),
    ] {
        let source = format!("{}{program}", x_from_input());
        match agree(&source, &[input()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
}
