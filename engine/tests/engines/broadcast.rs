//! Ext-8's element-wise tensor arithmetic on every engine, the operands literals (constants)
//! and computed from an input (symbolic in the staged engine): values worked out by hand with
//! NumPy's broadcasting, and each error kind.

use super::*;

fn tensor(source: &str, inputs: &[TensorInput]) -> (Vec<usize>, Vec<f64>) {
    match agree(source, inputs) {
        Verdict::Value(Observed::Tensor(t)) => (t.shape, t.data),
        other => panic!("{source}: {other}"),
    }
}

/// `h = [[1], [2]]` (2, 1), `b = [0.5, 2, -1]` (3), `m = [[1, 2, 3], [4, 5, 6]]` (2, 3); `x` is
/// the input [3, -6, 1.5] (3), symbolic in the staged engine.
const OPERANDS: &str = "let h = initTensor(2, 1)[1.0, 2.0] in let b = initTensor(3)[0.5, 2.0, -1.0] in \
                        let m = initTensor(2, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0] in ";

fn with(program: &str) -> String {
    format!("{OPERANDS}{program}")
}

fn input() -> TensorInput {
    vector("x", &[3.0, -6.0, 1.5])
}

#[test]
fn broadcasting_arithmetic_agrees_on_hand_worked_values() {
    // (2, 1) against (3): (2, 3), row i of h against every element of b.
    assert_eq!(tensor(&with("let z = subTensor(h, b) in z"), &[]), (vec![2, 3], vec![0.5, -1.0, 2.0, 1.5, 0.0, 3.0]));
    assert_eq!(tensor(&with("let z = mulTensor(h, b) in z"), &[]), (vec![2, 3], vec![0.5, 2.0, -1.0, 1.0, 4.0, -2.0]));
    assert_eq!(tensor(&with("let z = divTensor(h, b) in z"), &[]), (vec![2, 3], vec![2.0, 0.5, -1.0, 4.0, 1.0, -2.0]));
    assert_eq!(tensor(&with("let z = addTensor(h, b) in z"), &[]), (vec![2, 3], vec![1.5, 3.0, 0.0, 2.5, 4.0, 1.0]));
    // (2, 3) against (3): b repeated on each row of m; the operands keep their order.
    assert_eq!(
        tensor(&with("let z = subTensor(b, m) in z"), &[]),
        (vec![2, 3], vec![-0.5, 0.0, -4.0, -3.5, -3.0, -7.0])
    );
    // (2, 3) against (2, 1): h's column repeated.
    assert_eq!(tensor(&with("let z = divTensor(m, h) in z"), &[]), (vec![2, 3], vec![1.0, 2.0, 3.0, 2.0, 2.5, 3.0]));
    // Same shapes, every function; a zero divisor of Floats is IEEE's.
    assert_eq!(tensor(&with("let z = mulTensor(m, m) in z"), &[]), (vec![2, 3], vec![1.0, 4.0, 9.0, 16.0, 25.0, 36.0]));
    let zero = "let a = initTensor(2)[1.0, -1.0] in let c = initTensor(1)[0.0] in let z = divTensor(a, c) in z";
    assert_eq!(tensor(zero, &[]), (vec![2], vec![f64::INFINITY, f64::NEG_INFINITY]));
    // Ints stay Ints: 7 / 2 = 3 toward zero.
    let ints = "let a = initTensor(1)[7] in let c = initTensor(2)[2, 7] in let z = divTensor(a, c) in z[0]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Int(3))), "{ints}");
    // Computed from the input: x - b = [2.5, -8, 2.5]; (x - b) / h: rows [2.5, -8, 2.5] and
    // [1.25, -4, 1.25].
    let symbolic = with("let d = subTensor(x, b) in let q = divTensor(d, h) in q");
    assert_eq!(tensor(&symbolic, &[input()]), (vec![2, 3], vec![2.5, -8.0, 2.5, 1.25, -4.0, 1.25]));
    let scaled = with("let q = mulTensor(m, x) in q");
    assert_eq!(tensor(&scaled, &[input()]), (vec![2, 3], vec![3.0, -12.0, 4.5, 12.0, -30.0, 9.0]));
    // A zero dimension against a 1: no element.
    let empty = "let a = initTensor(0) in let c = initTensor(1)[2.0] in let z = mulTensor(a, c) in z";
    assert_eq!(tensor(empty, &[]).0, vec![0]);
}

#[test]
fn broadcasting_arithmetic_agrees_on_every_error_kind() {
    for (program, kind) in [
        ("let z = subTensor(m, h) in let c = initTensor(2) in let w = mulTensor(m, c) in w", "shape-mismatch"),
        ("let c = initTensor(2) in let z = addTensor(m, c) in z", "shape-mismatch"),
        ("let c = initTensor(3, 2) in let z = divTensor(m, c) in z", "shape-mismatch"),
        ("let z = subTensor(1.0, b) in z", "unknown-tensor"),
        ("let s = 2.0 in let z = mulTensor(b, s) in z", "unknown-tensor"),
        ("let z = divTensor(b, nowhere) in z", "unbound-identifier"),
        ("let b = mulTensor(h, b) in b", "aliased-output"),
        ("let a = initTensor(1)[4] in let c = initTensor(2)[1, 0] in let z = divTensor(a, c) in z", "division-by-zero"),
        (
            "let a = initTensor(1)[4611686018427387903] in let c = initTensor(1)[3] in let z = mulTensor(a, c) in z",
            "integer-overflow",
        ),
        ("let h[1] = m in let z = subTensor(h, b) in z", "invalid-operands"),
        ("let m[1] = 5.0 in let z = divTensor(m, b) in z", "too-many-indices"),
    ] {
        let source = with(program);
        match agree(&source, &[input()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
}
