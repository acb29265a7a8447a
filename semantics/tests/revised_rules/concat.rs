//! The rules of Ext-11 (`concat`), one test each; the expectations are the K rules instantiated
//! by hand.

use super::*;

/// `a` (2, 1) = `[[1], [2]]` at 0 (1 + 2 + 2 × (1 + 1) = 7 cells) and `b` (2, 2) = `[[3, 4], [5, 6]]` at 7, joined along axis
/// 1 to (2, 3) = `[[1, 3, 4], [2, 5, 6]]`.
const CONCAT: &str = "let a = initTensor(2, 1)[1.0, 2.0] in let b = initTensor(2, 2)[3.0, 4.0, 5.0, 6.0] in \
     let y = concat(a, b, 1) in y[1, 2]";

/// `ext-let-concat`: `rule <k> let Y:Id = concat(Xs:Ids, A:Int) in E => defineTensor(Y,
///  concatShape(SH, Xs, A)) ~> concatHelper(Xs, Y, A, 0 ... size(concatShape(SH, Xs, A)),
///  concatShape(SH, Xs, A)) ~> E ~> restoreScope(Env, SH) ...</k> … <shape> SH => SH[Y <-
///  concatShape(SH, Xs, A)] </shape> requires …` — `(2, 1)` and `(2, 2)` along 1 are `(2, 3)`,
///  6 elements.
#[test]
fn rule_ext_let_concat() {
    fire(CONCAT, "ext-let-concat")
        .k(
            &["let y = concat ( a , b , 1 ) in y [ 1 , 2 ]"],
            &[
                "defineTensor ( y , 2 , 3 )",
                "concatHelper ( ( a , b ) , y , 1 , 0 ... 6 , 2 , 3 )",
                "y [ 1 , 2 ]",
                "restoreScope ( a |-> 0 b |-> 7 , a |-> 2 , 1 b |-> 2 , 2 )",
            ],
        )
        .cells(&[shape(&[], &["y |-> 2 , 3"])]);
}

/// `ext-concat-invalid-axis`: `… => knnError("invalid attribute") … requires … notBool
///  validAxis(A, size(SH[head(Xs)]))` — axis 2 of a rank-2 first operand.
#[test]
fn rule_ext_concat_invalid_axis() {
    let source = "let a = initTensor(2, 1) in let b = initTensor(2, 2) in let y = concat(a, b, 2) in y";
    fire(source, "ext-concat-invalid-axis")
        .k(&["let y = concat ( a , b , 2 ) in y"], &["knnError ( \"invalid attribute\" )"])
        .cells(&[]);
}

/// `ext-concat-shape-mismatch`: `… => knnError("shape mismatch") … requires … validAxis(A, …)
///  andBool notBool sameExcept(SH, Xs, A)` — `(2, 1)` and `(3, 1)` along axis 1 differ on axis 0.
#[test]
fn rule_ext_concat_shape_mismatch() {
    let source = "let a = initTensor(2, 1) in let b = initTensor(3, 1) in let y = concat(a, b, 1) in y";
    fire(source, "ext-concat-shape-mismatch")
        .k(&["let y = concat ( a , b , 1 ) in y"], &["knnError ( \"shape mismatch\" )"])
        .cells(&[]);
}

/// `ext-concat-helper-step`: `rule <k> concatHelper(Xs, Y, A, K ... N, Os) => let
///  Y[rowMajor(K, Os)] = concatSource(SH, Xs, A, rowMajor(K, Os)) in #skip ~>
///  concatHelper(Xs, Y, A, (K +Int 1) ... N, Os) ...</k> requires K <Int N` — the fifth
///  firing, `K = 4`: `rowMajor(4, (2, 3))` is `(1, 1)`; along axis 1, index 1 lies past `a`'s
///  extent 1, so it is `b`'s `(1, 0)`.
#[test]
fn rule_ext_concat_helper_step() {
    fire_nth(CONCAT, "ext-concat-helper-step", 5)
        .k(
            &["concatHelper ( ( a , b ) , y , 1 , 4 ... 6 , 2 , 3 )"],
            &["let y [ 1 , 1 ] = b [ 1 , 0 ] in #skip", "concatHelper ( ( a , b ) , y , 1 , 5 ... 6 , 2 , 3 )"],
        )
        .cells(&[]);
}

/// `ext-concat-helper-done`: `rule <k> concatHelper(_, _, _, N ... N, _) => . ...</k>`
#[test]
fn rule_ext_concat_helper_done() {
    fire(CONCAT, "ext-concat-helper-done").k(&["concatHelper ( ( a , b ) , y , 1 , 6 ... 6 , 2 , 3 )"], &[]).cells(&[]);
}
