//! Ext-15's `matmul` on every engine, the operands literals (constants) and computed from an
//! input (symbolic in the staged engine): values worked out by hand, the order of the sum, and
//! each error kind.

use super::*;

fn tensor(source: &str, inputs: &[TensorInput]) -> (Vec<usize>, Vec<f64>) {
    match agree(source, inputs) {
        Verdict::Value(Observed::Tensor(t)) => (t.shape, t.data),
        other => panic!("{source}: {other}"),
    }
}

/// `m = [[1, 2, 3], [4, 5, 6]]` (2, 3), `n = [[1, 0], [0, 1], [2, -1]]` (3, 2), `p` the rows of
/// `m` as a batch (2, 1, 3); `x` is the input [3, -6, 1.5] (3), symbolic in the staged engine.
const OPERANDS: &str = "let m = initTensor(2, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0] in \
                        let n = initTensor(3, 2)[1.0, 0.0, 0.0, 1.0, 2.0, -1.0] in \
                        let p = initTensor(2, 1, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0] in ";

fn with(program: &str) -> String {
    format!("{OPERANDS}{program}")
}

fn input() -> TensorInput {
    vector("x", &[3.0, -6.0, 1.5])
}

#[test]
fn matmul_agrees_on_hand_worked_values() {
    // (2, 3) by (3, 2): [[1 + 0 + 6, 0 + 2 - 3], [4 + 0 + 12, 0 + 5 - 6]].
    assert_eq!(tensor(&with("let c = matmul(m, n) in c"), &[]), (vec![2, 2], vec![7.0, -1.0, 16.0, -1.0]));
    // (3, 2) by (2, 3): [[1, 2, 3], [4, 5, 6], [2 - 4, 4 - 5, 6 - 6]].
    assert_eq!(
        tensor(&with("let c = matmul(n, m) in c"), &[]),
        (vec![3, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -2.0, -1.0, 0.0])
    );
    // A batch (2, 1, 3) by (3, 2): each row of m on its own, (2, 1, 2).
    assert_eq!(tensor(&with("let c = matmul(p, n) in c"), &[]), (vec![2, 1, 2], vec![7.0, -1.0, 16.0, -1.0]));
    // The input as a column: m x = [3 - 12 + 4.5, 12 - 30 + 9]; as a row: x n = [3 + 3, -6 - 1.5].
    assert_eq!(tensor(&with("let c = matmul(m, x) in c"), &[input()]), (vec![2], vec![-4.5, -9.0]));
    assert_eq!(tensor(&with("let c = matmul(x, n) in c"), &[input()]), (vec![2], vec![6.0, -7.5]));
    // Two vectors: (1), 9 + 36 + 2.25.
    assert_eq!(tensor(&with("let c = matmul(x, x) in c"), &[input()]), (vec![1], vec![47.25]));
    // Both operands computed: relu(x) = [3, 0, 1.5], relu(x)·x = 9 + 0 + 2.25; the rows of
    // m scaled by x, [[3, -12, 4.5], [12, -30, 9]], by x: [9 + 72 + 6.75, 36 + 180 + 13.5].
    let both = with("let r = reluTensor(x) in let c = matmul(r, x) in c");
    assert_eq!(tensor(&both, &[input()]), (vec![1], vec![11.25]));
    let scaled = with("let q = mulTensor(m, x) in let c = matmul(q, x) in c");
    assert_eq!(tensor(&scaled, &[input()]), (vec![2], vec![87.75, 229.5]));
    // The sum from 0.0 in increasing order: ((0 + 1) + 1e16) - 1e16 = 0 (from the other end: 1).
    let ones = "let o = initTensor(3)[1.0, 1.0, 1.0] in let c = matmul(a, o) in c";
    let order = vector("a", &[1.0, 1e16, -1e16]);
    assert_eq!(tensor(ones, std::slice::from_ref(&order)), (vec![1], vec![0.0]));
    // An inner extent of 0: every element is 0.0.
    let empty = "let a = initTensor(2, 0) in let b = initTensor(0, 2) in let c = matmul(a, b) in c";
    assert_eq!(tensor(empty, &[]), (vec![2, 2], vec![0.0; 4]));
    // Int elements: the products are Ints, the sums from 0.0 Floats: [1, 2]·[3, 4] = 11.0.
    let ints = "let a = initTensor(2)[1, 2] in let b = initTensor(2)[3, 4] in let c = matmul(a, b) in c[0]";
    assert!(matches!(agree(ints, &[]), Verdict::Value(Observed::Float(v)) if v == 11.0), "{ints}");
}

#[test]
fn matmul_agrees_on_every_error_kind() {
    for (program, kind) in [
        ("let c = matmul(m, m) in c", "shape-mismatch"),
        ("let c = matmul(x, m) in c", "shape-mismatch"),
        ("let q = initTensor(3, 3, 2) in let c = matmul(p, q) in c", "shape-mismatch"),
        ("let c = matmul(1.0, n) in c", "unknown-tensor"),
        ("let s = 2.0 in let c = matmul(m, s) in c", "unknown-tensor"),
        ("let c = matmul(m, nowhere) in c", "unbound-identifier"),
        ("let n = matmul(m, n) in n", "aliased-output"),
        (
            "let a = initTensor(1)[4611686018427387903] in let b = initTensor(1)[3] in let c = matmul(a, b) in c",
            "integer-overflow",
        ),
        ("let m[1, 1] = 5.0 in let n[2] = m in let c = matmul(m, n) in c", "invalid-operands"),
        ("let n[2] = 5.0 in let c = matmul(m, n) in c", "too-many-indices"),
    ] {
        let source = with(program);
        match agree(&source, &[input()]) {
            Verdict::Error { kind: k, .. } => assert_eq!(k.id(), kind, "{program}"),
            other => panic!("{program}: {other}"),
        }
    }
}

/// With the input in one buffer, `matmul` is one `MatMul` of the plan, with the other operand
/// the input itself, another computed tensor, or a constant (Floats and Ints), on either side:
/// the reference's bits on random rows with the generator's awkward values (NaN, ±Infinity,
/// 1e16 beside 1, -0.0), alone and in groups of lanes.
#[test]
fn matmul_of_an_input_is_one_plan_operation_bit_for_bit() {
    use super::fused::{Fused, Stream, check_rows, plan_of};
    use knn_engine::bigstep::ops::Op;
    use knn_engine::tensor::LANE_GROUP;
    let mut stream = Stream(15);
    let mut rows: Vec<Vec<f64>> =
        (0..2 * LANE_GROUP + 3).map(|_| (0..6).map(|_| stream.next() * 8.0).collect()).collect();
    rows[1][2] = f64::NAN;
    rows[2][0] = f64::INFINITY;
    rows[3] = vec![1.0, 1e16, -1e16, -0.0, 0.0, -0.0];
    let w = "let w = initTensor(3, 2)[0.5, -1.0, 1e16, 2, -1e16, 0.0] in let v = initTensor(2)[3, -0.25] in ";
    for tail in [
        "let y = matmul(x, w) in y",
        "let y = matmul(v, x) in y",
        "let r = reshape(x, 6) in let y = matmul(r, r) in y",
        "let t = transpose(x, 1, 0) in let y = matmul(x, t) in y",
        "let t = transpose(x, 1, 0) in let y = matmul(t, x) in y",
        "let r = reshape(x, 2, 1, 3) in let y = matmul(r, w) in y",
        "let r = reshape(x, 6) in let s = reshape(x, 6, 1) in let y = matmul(r, s) in y",
    ] {
        let source = format!("{w}{tail}");
        let program = parse_program(&source, Profile::revised().grammar).unwrap();
        let plan = plan_of(&program, &[2, 3]);
        let count = plan.ops.iter().filter(|op| matches!(op, Op::MatMul { .. })).count();
        assert_eq!(count, 1, "{source}: {:#?}", plan.ops);
        let copies = usize::from(tail.contains("reshape")) * (1 + usize::from(tail.contains("let s")));
        check_rows(&source, &[2, 3], &rows, Fused { copy: copies, ..Fused::default() });
    }
}
