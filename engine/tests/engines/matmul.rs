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

/// `matmul(x, W)` with `x` computed and `W` a constant of rank 2 or more runs each row of the
/// result on the tensor core's `MatVec` kernels (`MatmulGeometry::by_rows`): the reference's
/// bits, whatever the kernel (dense, or skipping zero inputs when a group holds enough of
/// them), on ill-conditioned weights — `1e16` beside `1`, subnormals, `-0.0` — and rows with
/// NaN, ±Infinity, cancellations and many zeros, alone and in groups of lanes. The batched
/// right operand (a matrix per slice) and a vector on the left take the same way, and so does a
/// constant by a vector or by columns (`W·x`).
#[test]
fn matmul_by_a_constant_runs_on_the_kernels_bit_for_bit() {
    use super::fused::{Fused, Stream, check_rows, plan_of};
    use knn_engine::bigstep::ops::Op;
    use knn_engine::tensor::LANE_GROUP;
    let mut stream = Stream(151);
    let (k, n) = (8, 5);
    let mut w: Vec<f64> = (0..2 * k * n).map(|_| stream.next() * 3.0).collect();
    for (at, value) in [(0, 1e16), (5, -1e16), (10, 1.0), (11, 5e-324), (12, -0.0), (20, 1e-300), (33, -1e16)] {
        w[at] = value;
        w[at + k * n] = value;
    }
    let mut rows: Vec<Vec<f64>> =
        (0..3 * LANE_GROUP + 5).map(|_| (0..32).map(|_| stream.next() * 8.0).collect()).collect();
    // Half the rows mostly zeros of either sign: enough for the kernel that skips them.
    for (r, row) in rows.iter_mut().enumerate().filter(|(r, _)| r % 2 == 0) {
        for (j, x) in row.iter_mut().enumerate().filter(|(j, _)| (j + r) % 4 != 0) {
            *x = if j % 3 == 0 { -0.0 } else { 0.0 };
        }
    }
    rows[1][3] = f64::NAN;
    rows[3][0] = f64::INFINITY;
    rows[5][..8].copy_from_slice(&[1.0, 1e16, -1e16, 1e16, 3.0, -1e16, 0.5, 2.0]);
    rows[7][..8].copy_from_slice(&[-0.0; 8]);
    let literal = |dims: &str, values: &[f64]| {
        let values: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
        format!("initTensor({dims})[{}]", values.join(", "))
    };
    let weights = format!(
        "let w = {} in let b = {} in let c = {} in let d = {} in ",
        literal(&format!("{k}, {n}"), &w[..k * n]),
        literal(&format!("2, {k}, {n}"), &w),
        literal(&format!("3, {k}"), &w[..3 * k]),
        literal(&format!("2, 3, {k}"), &w[..6 * k]),
    );
    for (tail, copies) in [
        ("let y = matmul(x, w) in y", 0),
        ("let r = reshape(x, 2, 2, 8) in let y = matmul(r, b) in y", 1),
        ("let r = reshape(x, 2, 1, 2, 8) in let y = matmul(r, b) in y", 1),
        ("let r = reshape(x, 32) in let s = slice(r, 0, 8, 16) in let y = matmul(s, w) in y", 1),
        // A constant by a vector or by columns: `linear`'s own sum.
        ("let r = reshape(x, 32) in let s = slice(r, 0, 8, 16) in let y = matmul(c, s) in y", 1),
        ("let r = reshape(x, 32) in let s = slice(r, 0, 24, 32) in let y = matmul(d, s) in y", 1),
        ("let r = reshape(x, 4, 8, 1) in let y = matmul(c, r) in y", 1),
        ("let r = reshape(x, 2, 2, 8, 1) in let y = matmul(d, r) in y", 1),
    ] {
        let source = format!("{weights}{tail}");
        let program = parse_program(&source, Profile::revised().grammar).unwrap();
        let plan = plan_of(&program, &[4, 8]);
        let by_rows: Vec<bool> = plan
            .ops
            .iter()
            .filter_map(|op| match op {
                Op::MatMul { geometry, .. } => Some(geometry.by_rows.is_some()),
                _ => None,
            })
            .collect();
        assert_eq!(by_rows, [true], "{tail}");
        check_rows(&source, &[4, 8], &rows, Fused { copy: copies, ..Fused::default() });
    }
}
