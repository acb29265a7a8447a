//! The rules of Ext-5 (`reshape`, `flatten`), one test each; the expectations are the K rules
//! instantiated by hand.

use super::*;

/// `x` (2, 3) = `[[1, 2, 3], [4, 5, 6]]` at 0, reshaped to (3, 2): 6 elements either way.
const RESHAPE: &str = "let x = initTensor(2, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0] in let y = reshape(x, 3, 2) in y[2, 1]";

/// `ext-let-reshape`: `rule <k> let Y:Id = reshape(X:Id, Os) in E => defineTensor(Y, Os) ~>
///  reshapeHelper(X, Y, 0 ... size(Os), Os) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env>
///  <shape> SH => SH[Y <- Os] </shape> requires … size(SH[X]) ==Int size(Os)` — 6 = 6.
#[test]
fn rule_ext_let_reshape() {
    fire(RESHAPE, "ext-let-reshape")
        .k(
            &["let y = reshape ( x , 3 , 2 ) in y [ 2 , 1 ]"],
            &[
                "defineTensor ( y , 3 , 2 )",
                "reshapeHelper ( x , y , 0 ... 6 , 3 , 2 )",
                "y [ 2 , 1 ]",
                "restoreScope ( x |-> 0 , x |-> 2 , 3 )",
            ],
        )
        .cells(&[shape(&[], &["y |-> 3 , 2"])]);
}

/// `ext-let-flatten`: `rule <k> let Y:Id = flatten(X:Id) in E => defineTensor(Y, size(SH[X])) ~>
///  reshapeHelper(X, Y, 0 ... size(SH[X]), size(SH[X])) ~> E ~> restoreScope(Env, SH) ...</k> …` —
/// `size(2, 3) = 6`.
#[test]
fn rule_ext_let_flatten() {
    let source = "let x = initTensor(2, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0] in let y = flatten(x) in y[4]";
    fire(source, "ext-let-flatten")
        .k(
            &["let y = flatten ( x ) in y [ 4 ]"],
            &[
                "defineTensor ( y , 6 )",
                "reshapeHelper ( x , y , 0 ... 6 , 6 )",
                "y [ 4 ]",
                "restoreScope ( x |-> 0 , x |-> 2 , 3 )",
            ],
        )
        .cells(&[shape(&[], &["y |-> 6"])]);
}

/// `ext-reshape-shape-mismatch`: `rule <k> let Y:Id = reshape(X:Id, Os) in _ => knnError("shape
///  mismatch") ...</k> requires … size(SH[X]) =/=Int size(Os)` — 6 ≠ 8.
#[test]
fn rule_ext_reshape_shape_mismatch() {
    let source = "let x = initTensor(2, 3) in let y = reshape(x, 4, 2) in y";
    fire(source, "ext-reshape-shape-mismatch")
        .k(&["let y = reshape ( x , 4 , 2 ) in y"], &["knnError ( \"shape mismatch\" )"])
        .cells(&[]);
}

/// `ext-reshape-helper-step`: `rule <k> reshapeHelper(X, Y, K ... N, Os) => let Y[rowMajor(K, Os)] =
///  X[rowMajor(K, SH[X])] in #skip ~> reshapeHelper(X, Y, (K +Int 1) ... N, Os) ...</k> requires K <Int N`
/// — the fourth firing, `K = 3`: `rowMajor(3, (3, 2)) = (1, 1)`, `rowMajor(3, (2, 3)) = (1, 0)`.
#[test]
fn rule_ext_reshape_helper_step() {
    fire_nth(RESHAPE, "ext-reshape-helper-step", 4)
        .k(
            &["reshapeHelper ( x , y , 3 ... 6 , 3 , 2 )"],
            &["let y [ 1 , 1 ] = x [ 1 , 0 ] in #skip", "reshapeHelper ( x , y , 4 ... 6 , 3 , 2 )"],
        )
        .cells(&[]);
}

/// `ext-reshape-helper-done`: `rule <k> reshapeHelper(_, _, N ... N, _) => . ...</k>`
#[test]
fn rule_ext_reshape_helper_done() {
    fire(RESHAPE, "ext-reshape-helper-done").k(&["reshapeHelper ( x , y , 6 ... 6 , 3 , 2 )"], &[]).cells(&[]);
}
