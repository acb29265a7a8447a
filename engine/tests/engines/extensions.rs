//! The extensions on every engine: Ext-1's `addTensor` and Ext-2's tensor literals, on their
//! values and their errors.

use super::*;

/// Ext-1's `addTensor` on constants and on symbolic inputs, at ranks 1 to 3, with Int and
/// mixed elements, and each of its errors; the sums are worked out by hand.
#[test]
fn add_tensor_agrees_on_values_and_errors() {
    let x = vector("x", &[0.5, -1.5, 2.0]);
    let m = matrix("m", 2, &[1.0, -2.0, 3.0, 0.25, -0.0, 7.0]);
    let tensor = |source: &str, inputs: &[TensorInput]| match agree(source, inputs) {
        Verdict::Value(Observed::Tensor(t)) => (t.shape, t.data),
        other => panic!("{source}: {other}"),
    };
    // x + b with b = [0.5, 0.0, -2.0]: [1.0, -1.5, 0.0].
    let bias = "let b = initTensor(3) in let b[0] = 0.5 in let b[2] = -2.0 in let z = addTensor(x, b) in z";
    assert_eq!(tensor(bias, std::slice::from_ref(&x)), (vec![3], vec![1.0, -1.5, 0.0]));
    // m + m: every element doubled, -0.0 + -0.0 stays -0.0.
    let (shape, data) = tensor("let z = addTensor(m, m) in z", std::slice::from_ref(&m));
    assert_eq!(shape, [2, 3]);
    assert_eq!(
        data.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        [2.0, -4.0, 6.0, 0.5, -0.0, 14.0].map(f64::to_bits)
    );
    // A layer: relu(W x + b), W = [[1, 0, 0], [0, 0, 1]]: W x = [0.5, 2.0], + [-1.0, 1 (an Int)]
    // = [-0.5, 3.0].
    let layer = "let W = initTensor(2, 3) in let W[0, 0] = 1.0 in let W[1, 2] = 1.0 in \
                 let b = initTensor(2) in let b[0] = -1.0 in let b[1] = 1 in \
                 let h = linear(W, x) in let z = addTensor(h, b) in let a = reluTensor(z) in a";
    assert_eq!(tensor(layer, std::slice::from_ref(&x)), (vec![2], vec![0.0, 3.0]));
    // Rank 3, constants: z[1, 0, 1] = 3.0 + 0.5.
    let rank3 = "let h = initTensor(2, 1, 2) in let b = initTensor(2, 1, 2) in let h[1, 0, 1] = 3.0 in \
                 let b[1, 0, 1] = 0.5 in let z = addTensor(h, b) in z[1, 0, 1]";
    assert!(matches!(agree(rank3, &[]), Verdict::Value(Observed::Float(v)) if v == 3.5));
    // Ints add as Ints.
    let ints = "let h = initTensor(1) in let b = initTensor(1) in let h[0] = 2 in let b[0] = 3 in \
                let z = addTensor(h, b) in z[0]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Int(5))));
    for (program, kind) in [
        // Shapes that do not broadcast (Ext-8: `(3)` and `(2, 3)` or `(1, 3)` do).
        ("let b = initTensor(2) in let z = addTensor(x, b) in z", "shape-mismatch"),
        ("let b = initTensor(3, 2) in let z = addTensor(m, b) in z", "shape-mismatch"),
        ("let z = addTensor(x, 1.0) in z", "unknown-tensor"),
        ("let s = 1.0 in let z = addTensor(s, x) in z", "unknown-tensor"),
        ("let z = addTensor(x, c) in z", "unbound-identifier"),
        ("let x = addTensor(x, x) in x", "aliased-output"),
        ("let u = initTensor(1) in let x[1] = u in let z = addTensor(x, x) in z", "invalid-operands"),
        ("let m[1] = 1.0 in let z = addTensor(m, m) in z", "too-many-indices"),
    ] {
        match agree(program, &[x.clone(), m.clone()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
}

#[test]
fn tensor_literals_agree_on_values_and_errors() {
    let x = vector("x", &[0.5, -1.5, 2.0]);
    // A layer from literals: W x = [0.5 + 2.0, -1.5 * -1.0] = [2.5, 1.5], + b = [2.5, 1.5 + 2 (an Int)].
    let layer = "let W = initTensor(2, 3)[1.0, 0.0, 1.0, 0.0, -1.0, 0.0] in let h = linear(W, x) in \
                 let b = initTensor(2)[0.0, 2] in let z = addTensor(h, b) in z";
    match agree(layer, std::slice::from_ref(&x)) {
        Verdict::Value(Observed::Tensor(t)) => assert_eq!((t.shape, t.data), (vec![2], vec![2.5, 3.5])),
        other => panic!("{other}"),
    }
    // Special values are stored as written: -0.0 stays -0.0, an Int stays an Int.
    assert!(
        matches!(agree("let t = initTensor(3)[1.0, -0.0, NaN] in t[1]", &[]), Verdict::Value(Observed::Float(v)) if v.to_bits() == (-0f64).to_bits())
    );
    assert!(matches!(agree("let t = initTensor(1, 2)[7, 1.5] in t[0, 0]", &[]), Verdict::Value(Observed::Int(7))));
    // The big-step store keeps a literal's Floats in the literal's array: a write into it is
    // seen by reads, by an alias and by `linear` (whose weights are then no longer the array).
    let written = "let W = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in let V = W in let V[1, 0] = 10.0 in \
                   let y = linear(W, x) in let z = initTensor(3) in let z[0] = y[0] in let z[1] = y[1] in \
                   let z[2] = W[1, 0] + V[0, 1] in z";
    let x2 = vector("x", &[0.5, -1.5]);
    match agree(written, std::slice::from_ref(&x2)) {
        // y = [0.5 - 3.0, 5.0 - 6.0]; W[1, 0] + V[0, 1] = 10 + 2.
        Verdict::Value(Observed::Tensor(t)) => assert_eq!(t.data, vec![-2.5, -1.0, 12.0]),
        other => panic!("{other}"),
    }
    // Rank 3 and a zero dimension, read back element by element.
    let rank3 = "let t = initTensor(2, 0)[] in let u = initTensor(2, 2, 2)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0] in \
                 u[1, 0, 1] * 10.0 + u[0, 1, 0]";
    assert!(matches!(agree(rank3, &[]), Verdict::Value(Observed::Float(v)) if v == 63.0));
    // Errors after a literal: out of bounds, a NaN element into relu.
    assert!(matches!(agree("let t = initTensor(2)[1.0, 2.0] in t[2]", &[]), Verdict::Error { .. }));
    assert!(matches!(
        agree("let t = initTensor(2)[NaN, 2.0] in let r = reluTensor(t) in r", &[]),
        Verdict::Error { .. }
    ));
}

#[test]
fn a_literal_built_without_the_parser_fails_alike_on_every_engine() {
    use knn_semantics::syntax::{Elements, Exp, ExpKind, Func, FuncKind, Span};
    let span = Span::default();
    let id = |name: &str| Box::new(Exp::new(ExpKind::Id(name.into()), span));
    // Three elements for a shape of four, and a negative dimension: the parser never makes
    // these, an importer could.
    for (dims, count, kind) in [(vec![2, 2], 3, "shape-mismatch"), (vec![-1], 0, "negative-dimension")] {
        let func = Func { kind: FuncKind::TensorLiteral(dims, Elements::floats(vec![1.0; count])), span };
        let program = Exp::new(ExpKind::LetFunc { target: id("t"), func, body: id("t") }, span);
        let reference = SmallStep::revised().observe(&program, &[]).unwrap();
        let Verdict::Error { kind: got, .. } = &reference.verdict else { panic!("{}", reference.verdict) };
        assert_eq!(got.to_string(), kind);
        for engine in engines() {
            let verdict = engine.observe(&program, &[]).unwrap();
            assert!(
                verdict.agrees_with(&reference),
                "{}: {} against {}",
                engine.name(),
                verdict.verdict,
                reference.verdict
            );
            assert_eq!(verdict.verdict.to_string(), reference.verdict.to_string(), "{}", engine.name());
        }
    }
}
