//! The rules of Ext-15 (`matmul`), one test each; the expectations are the K rules instantiated
//! by hand.

use super::*;

/// `a` (2, 3) at 0 (11 cells, see the top of `main.rs`) and `b` (3) at 11 (`11 |-> tensor(12,
/// 3)`); shapes `a |-> 2 , 3` and `b |-> 3`; `matmulShape((2, 3), (3)) = (2)` (a matrix by a
/// column: the column's axis removed), `inner((2, 3)) = 3`, so `N = 2 *Int 3 = 6`.
const MATRIX_VECTOR: &str = "let a = initTensor(2, 3) in let b = initTensor(3) in let c = matmul(a, b) in c[1]";

/// `ext-let-matmul`: `rule <k> let X:Id = matmul(Y:Id, Z:Id) in E => defineTensor(X,
///  matmulShape(SH[Y], SH[Z])) ~> matmulHelper(Y, Z, X, 0 ... size(matmulShape(SH[Y], SH[Z]))
///  *Int inner(SH[Y]), inner(SH[Y]), SH[Y], SH[Z], matmulShape(SH[Y], SH[Z])) ~> E ~>
///  restoreScope(Env, SH) ...</k> … requires … matmulable(SH[Y], SH[Z]) …`
#[test]
fn rule_ext_let_matmul() {
    fire(MATRIX_VECTOR, "ext-let-matmul")
        .k(
            &["let c = matmul ( a , b ) in c [ 1 ]"],
            &[
                "defineTensor ( c , 2 )",
                "matmulHelper ( a , b , c , 0 ... 6 , 3 , ( 2 , 3 ) , ( 3 ) , ( 2 ) )",
                "c [ 1 ]",
                "restoreScope ( a |-> 0 b |-> 11 , a |-> 2 , 3 b |-> 3 )",
            ],
        )
        .cells(&[shape(&[], &["c |-> 2"])]);
    // A batch of three (2, 2) matrices on the right, a row (2) on the left: (3, 2), 3 * 2 * 2
    // steps. `a` at 0 (3 cells), `b` at 3.
    let batched = "let a = initTensor(2) in let b = initTensor(3, 2, 2) in let c = matmul(a, b) in c";
    fire(batched, "ext-let-matmul")
        .k(
            &["let c = matmul ( a , b ) in c"],
            &[
                "defineTensor ( c , 3 , 2 )",
                "matmulHelper ( a , b , c , 0 ... 12 , 2 , ( 2 ) , ( 3 , 2 , 2 ) , ( 3 , 2 ) )",
                "c",
                "restoreScope ( a |-> 0 b |-> 3 , a |-> 2 b |-> 3 , 2 , 2 )",
            ],
        )
        .cells(&[shape(&[], &["c |-> 3 , 2"])]);
    // Two vectors: the shape (1), not NumPy's rank 0.
    let dot = "let a = initTensor(2) in let b = initTensor(2) in let c = matmul(a, b) in c";
    fire(dot, "ext-let-matmul")
        .k(
            &["let c = matmul ( a , b ) in c"],
            &[
                "defineTensor ( c , 1 )",
                "matmulHelper ( a , b , c , 0 ... 2 , 2 , ( 2 ) , ( 2 ) , ( 1 ) )",
                "c",
                "restoreScope ( a |-> 0 b |-> 3 , a |-> 2 b |-> 2 )",
            ],
        )
        .cells(&[shape(&[], &["c |-> 1"])]);
}

/// `ext-matmul-shape-mismatch`: `rule <k> let X:Id = matmul(Y:Id, Z:Id) in _ =>
///  knnError("shape mismatch") ...</k> requires … notBool matmulable(SH[Y], SH[Z]) …` — `(2, 3)`
///  by `(2)`: the inner extents 3 and 2 differ; then batch axes 2 and 3 that do not broadcast.
#[test]
fn rule_ext_matmul_shape_mismatch() {
    let source = "let a = initTensor(2, 3) in let b = initTensor(2) in let c = matmul(a, b) in c";
    fire(source, "ext-matmul-shape-mismatch")
        .k(&["let c = matmul ( a , b ) in c"], &["knnError ( \"shape mismatch\" )"])
        .cells(&[]);
    let batches = "let a = initTensor(2, 1, 2) in let b = initTensor(3, 2, 1) in let c = matmul(a, b) in c";
    fire(batches, "ext-matmul-shape-mismatch")
        .k(&["let c = matmul ( a , b ) in c"], &["knnError ( \"shape mismatch\" )"])
        .cells(&[]);
}

/// `ext-matmul-helper-step`: `rule <k> matmulHelper(Y, Z, X, K ... N, P, Is, Js, Os) => let
///  X[rowMajor(K /Int P, Os)] = X[rowMajor(K /Int P, Os)] + (Y[leftIndex(rowMajor(K /Int P, Os),
///  K modInt P, Is, Js)] * Z[rightIndex(…)]) in #skip ~> matmulHelper(Y, Z, X, (K +Int 1) ... N,
///  P, Is, Js, Os) ...</k> requires K <Int N` — the fifth firing, `K = 4`: element `4 /Int 3 =
///  1`, product `4 modInt 3 = 1`: `c[1] = c[1] + a[1, 1] * b[1]`.
#[test]
fn rule_ext_matmul_helper_step() {
    fire_nth(MATRIX_VECTOR, "ext-matmul-helper-step", 5)
        .k(
            &["matmulHelper ( a , b , c , 4 ... 6 , 3 , ( 2 , 3 ) , ( 3 ) , ( 2 ) )"],
            &[
                "let c [ 1 ] = c [ 1 ] + a [ 1 , 1 ] * b [ 1 ] in #skip",
                "matmulHelper ( a , b , c , 5 ... 6 , 3 , ( 2 , 3 ) , ( 3 ) , ( 2 ) )",
            ],
        )
        .cells(&[]);
    // (2) by (3, 2, 2), the eighth firing, `K = 7`: element 3 of (3, 2) is (1, 1), product 1:
    // `a`'s element 1 (a row), `b`'s batch 1, row 1, column 1.
    let batched = "let a = initTensor(2) in let b = initTensor(3, 2, 2) in let c = matmul(a, b) in c";
    fire_nth(batched, "ext-matmul-helper-step", 8)
        .k(
            &["matmulHelper ( a , b , c , 7 ... 12 , 2 , ( 2 ) , ( 3 , 2 , 2 ) , ( 3 , 2 ) )"],
            &[
                "let c [ 1 , 1 ] = c [ 1 , 1 ] + a [ 1 ] * b [ 1 , 1 , 1 ] in #skip",
                "matmulHelper ( a , b , c , 8 ... 12 , 2 , ( 2 ) , ( 3 , 2 , 2 ) , ( 3 , 2 ) )",
            ],
        )
        .cells(&[]);
    // Batch axes (2, 1) against (3): (2, 3, 1, 1) from (2, 1, 1, 2) and (3, 2, 1); the
    // 12th firing, `K = 11`: element 5 is (1, 2, 0, 0), product 1; `a` repeats its batch
    // axis of 1: a[1, 0, 0, 1], b[2, 1, 0].
    let broadcast = "let a = initTensor(2, 1, 1, 2) in let b = initTensor(3, 2, 1) in let c = matmul(a, b) in c";
    fire_nth(broadcast, "ext-matmul-helper-step", 12)
        .k(
            &["matmulHelper ( a , b , c , 11 ... 12 , 2 , ( 2 , 1 , 1 , 2 ) , ( 3 , 2 , 1 ) , ( 2 , 3 , 1 , 1 ) )"],
            &[
                "let c [ 1 , 2 , 0 , 0 ] = c [ 1 , 2 , 0 , 0 ] + a [ 1 , 0 , 0 , 1 ] * b [ 2 , 1 , 0 ] in #skip",
                "matmulHelper ( a , b , c , 12 ... 12 , 2 , ( 2 , 1 , 1 , 2 ) , ( 3 , 2 , 1 ) , ( 2 , 3 , 1 , 1 ) )",
            ],
        )
        .cells(&[]);
}

/// `ext-matmul-helper-done`: `rule <k> matmulHelper(_, _, _, N ... N, _, _, _, _) => . ...</k>`;
/// also at once when the inner extent is 0 (`N = 0`).
#[test]
fn rule_ext_matmul_helper_done() {
    fire(MATRIX_VECTOR, "ext-matmul-helper-done")
        .k(&["matmulHelper ( a , b , c , 6 ... 6 , 3 , ( 2 , 3 ) , ( 3 ) , ( 2 ) )"], &[])
        .cells(&[]);
    let empty = "let a = initTensor(2, 0) in let b = initTensor(0, 3) in let c = matmul(a, b) in c";
    fire(empty, "ext-matmul-helper-done")
        .k(&["matmulHelper ( a , b , c , 0 ... 0 , 0 , ( 2 , 0 ) , ( 0 , 3 ) , ( 2 , 3 ) )"], &[])
        .cells(&[]);
}
