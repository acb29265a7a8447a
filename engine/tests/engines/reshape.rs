//! Ext-5's `reshape` and `flatten` on every engine, their input a literal (constants) and copied
//! from an input (symbolic in the staged engine): the elements in row-major order under the new
//! shape (`ext-reshape-helper-step`), worked out by hand, and each error kind.

use super::*;

/// `v` = [1, …, 6] as an input, copied into `x` = [[1, 2, 3], [4, 5, 6]].
pub(super) fn input() -> TensorInput {
    vector("v", &(1..=6).map(f64::from).collect::<Vec<_>>())
}

pub(super) fn x_from_input() -> String {
    let mut source = "let x = initTensor(2, 3) in ".to_string();
    for k in 0..6 {
        source.push_str(&format!("let x[{}, {}] = v[{k}] in ", k / 3, k % 3));
    }
    source
}

pub(super) const X_LITERAL: &str = "let x = initTensor(2, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0] in ";

pub(super) fn tensor(source: &str, inputs: &[TensorInput]) -> (Vec<usize>, Vec<f64>) {
    match agree(source, inputs) {
        Verdict::Value(Observed::Tensor(t)) => (t.shape, t.data),
        other => panic!("{source}: {other}"),
    }
}

pub(super) fn both(program: &str) -> (Vec<usize>, Vec<f64>) {
    let symbolic = tensor(&format!("{}{program}", x_from_input()), &[input()]);
    let constant = tensor(&format!("{X_LITERAL}{program}"), &[]);
    assert_eq!(symbolic, constant);
    symbolic
}

#[test]
fn reshape_and_flatten_agree_on_hand_worked_values() {
    let elements = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    assert_eq!(both("let y = reshape(x, 3, 2) in y"), (vec![3, 2], elements.clone()));
    assert_eq!(both("let y = reshape(x, 1, 3, 1, 2) in y"), (vec![1, 3, 1, 2], elements.clone()));
    assert_eq!(both("let y = flatten(x) in y"), (vec![6], elements.clone()));
    // y[2, 0] is element 4 in row-major order: x[1, 1] = 5.
    let one = format!("{X_LITERAL}let y = reshape(x, 3, 2) in y[2, 0]");
    assert!(matches!(agree(&one, &[]), Verdict::Value(Observed::Float(v)) if v == 5.0));
    // A copy: writing y leaves x as it was.
    assert_eq!(both("let y = flatten(x) in let y[0] = 9.0 in x"), (vec![2, 3], elements));
    // Ints stay Ints, and a zero dimension copies nothing.
    let ints = "let v = initTensor(2, 1)[2, 3] in let y = flatten(v) in y[1]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Int(3))), "{ints}");
    let empty = "let v = initTensor(0, 3) in let y = reshape(v, 3, 0) in y";
    assert_eq!(tensor(empty, &[]).0, vec![3, 0]);
}

#[test]
fn reshape_and_flatten_agree_on_every_error_kind() {
    for (program, kind) in [
        ("let y = reshape(x, 4, 2) in y", "shape-mismatch"),
        ("let y = reshape(x, 7) in y", "shape-mismatch"),
        ("let y = flatten(1.0) in y", "unknown-tensor"),
        ("let s = 1.0 in let y = reshape(s, 1) in y", "unknown-tensor"),
        ("let y = flatten(z) in y", "unbound-identifier"),
        ("let x = reshape(x, 6) in x", "aliased-output"),
        ("let x[1] = 5.0 in let y = flatten(x) in y", "too-many-indices"),
        // A header stored as an element is copied as a header: adding to it has no rule.
        ("let u = initTensor(1) in let x[0, 1] = u in let y = flatten(x) in y[1] + 1.0", "invalid-operands"),
    ] {
        let source = format!("{}{program}", x_from_input());
        match agree(&source, &[input()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
}
