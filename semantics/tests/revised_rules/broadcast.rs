//! The rules of Ext-8 (element-wise tensor arithmetic with broadcasting), one test each; the
//! expectations are the K rules instantiated by hand.

use super::*;

/// `h` (2, 3) at 0 (11 cells, see the top of `main.rs`) and `b` (3) at 11 (`11 |-> tensor(12,
/// 3)`); shapes `b |-> 3` and `h |-> 2 , 3`; `broadcast((2, 3), (3)) = (2, 3)`.
const ROW_BIAS: &str = "let h = initTensor(2, 3) in let b = initTensor(3) in let z = subTensor(h, b) in z[1, 2]";

/// `ext-let-elementwise`: `rule <k> let X:Id = F(Y:Id, Z:Id) in E => defineTensor(X,
///  broadcast(SH[Y], SH[Z])) ~> broadcastHelper(op(F), Y, Z, X, 0 ... size(broadcast(SH[Y],
///  SH[Z])), SH[Y], SH[Z], broadcast(SH[Y], SH[Z])) ~> E ~> restoreScope(Env, SH) ...</k> …
///  requires … broadcastable(SH[Y], SH[Z]) … andBool (F =/=K addTensor orBool SH[Y] =/=K SH[Z])`
///  — `subTensor`, and `addTensor` of two shapes that differ.
#[test]
fn rule_ext_let_elementwise() {
    fire(ROW_BIAS, "ext-let-elementwise")
        .k(
            &["let z = subTensor ( h , b ) in z [ 1 , 2 ]"],
            &[
                "defineTensor ( z , 2 , 3 )",
                "broadcastHelper ( - , h , b , z , 0 ... 6 , ( 2 , 3 ) , ( 3 ) , ( 2 , 3 ) )",
                "z [ 1 , 2 ]",
                "restoreScope ( b |-> 11 h |-> 0 , b |-> 3 h |-> 2 , 3 )",
            ],
        )
        .cells(&[shape(&[], &["z |-> 2 , 3"])]);
    // `addTensor` of (2, 1) and (3): the result is (2, 3).
    let add = "let h = initTensor(2, 1) in let b = initTensor(3) in let z = addTensor(h, b) in z";
    fire(add, "ext-let-elementwise")
        .k(
            &["let z = addTensor ( h , b ) in z"],
            &[
                "defineTensor ( z , 2 , 3 )",
                "broadcastHelper ( + , h , b , z , 0 ... 6 , ( 2 , 1 ) , ( 3 ) , ( 2 , 3 ) )",
                "z",
                "restoreScope ( b |-> 7 h |-> 0 , b |-> 3 h |-> 2 , 1 )",
            ],
        )
        .cells(&[shape(&[], &["z |-> 2 , 3"])]);
}

/// `ext-elementwise-shape-mismatch`: `rule <k> let X:Id = F(Y:Id, Z:Id) in _ =>
///  knnError("shape mismatch") ...</k> requires F =/=K addTensor andBool … notBool
///  broadcastable(SH[Y], SH[Z]) …` — `(2, 3)` against `(2)`: the trailing 3 and 2 differ.
#[test]
fn rule_ext_elementwise_shape_mismatch() {
    let source = "let h = initTensor(2, 3) in let b = initTensor(2) in let z = mulTensor(h, b) in z";
    fire(source, "ext-elementwise-shape-mismatch")
        .k(&["let z = mulTensor ( h , b ) in z"], &["knnError ( \"shape mismatch\" )"])
        .cells(&[]);
}

/// `ext-broadcast-helper-step`: `rule <k> broadcastHelper(Op, Y, Z, X, K ... N, Is, Js, Os) =>
///  let X[rowMajor(K, Os)] = Y[operandIndex(rowMajor(K, Os), Is)] Op Z[operandIndex(rowMajor(K,
///  Os), Js)] in #skip ~> broadcastHelper(Op, Y, Z, X, (K +Int 1) ... N, Is, Js, Os) ...</k>
///  requires K <Int N` — the sixth firing, `K = 5`: `rowMajor(5, (2, 3)) = (1, 2)`, `h` is read
///  at `(1, 2)` and `b` at its last index, `(2)`.
#[test]
fn rule_ext_broadcast_helper_step() {
    fire_nth(ROW_BIAS, "ext-broadcast-helper-step", 6)
        .k(
            &["broadcastHelper ( - , h , b , z , 5 ... 6 , ( 2 , 3 ) , ( 3 ) , ( 2 , 3 ) )"],
            &[
                "let z [ 1 , 2 ] = h [ 1 , 2 ] - b [ 2 ] in #skip",
                "broadcastHelper ( - , h , b , z , 6 ... 6 , ( 2 , 3 ) , ( 3 ) , ( 2 , 3 ) )",
            ],
        )
        .cells(&[]);
    // (2, 1) / (3): element K = 4 of (2, 3) is (1, 1); `h` repeats its column: (1, 0).
    let div = "let h = initTensor(2, 1) in let b = initTensor(3) in let z = divTensor(h, b) in z";
    fire_nth(div, "ext-broadcast-helper-step", 5)
        .k(
            &["broadcastHelper ( / , h , b , z , 4 ... 6 , ( 2 , 1 ) , ( 3 ) , ( 2 , 3 ) )"],
            &[
                "let z [ 1 , 1 ] = h [ 1 , 0 ] / b [ 1 ] in #skip",
                "broadcastHelper ( / , h , b , z , 5 ... 6 , ( 2 , 1 ) , ( 3 ) , ( 2 , 3 ) )",
            ],
        )
        .cells(&[]);
}

/// `ext-broadcast-helper-done`: `rule <k> broadcastHelper(_, _, _, _, N ... N, _, _, _) => . ...</k>`
#[test]
fn rule_ext_broadcast_helper_done() {
    fire(ROW_BIAS, "ext-broadcast-helper-done")
        .k(&["broadcastHelper ( - , h , b , z , 6 ... 6 , ( 2 , 3 ) , ( 3 ) , ( 2 , 3 ) )"], &[])
        .cells(&[]);
}
