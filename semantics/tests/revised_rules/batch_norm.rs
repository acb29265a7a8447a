//! The rules of Ext-14 (`batchNorm` and its `sqrtItem`), one test each; the expectations are
//! the K rules instantiated by hand.

use super::*;

/// Two channels of one element each: `x = [3.0, 2]` (the second an Int), scale `[2, 1]`, bias
/// `[0.5, 0]`, mean `[1, 1]`, variance `[3, 0]`, epsilon `1.0`. Channel 0:
/// `((3 - 1) / sqrt(3 + 1)) * 2 + 0.5 = (2 / 2) * 2 + 0.5 = 2.5`; channel 1:
/// `((2 - 1.0) / sqrt(0 + 1)) * 1 + 0 = 1.0` (the Int widened by the mixed `-`). The tensors
/// are laid out at 0, 3, 6, 9, 12 (a header, then two elements); `y` at 15.
const BATCH_NORM: &str = "let x = initTensor(2)[3.0, 2] in let s = initTensor(2)[2.0, 1.0] in \
    let b = initTensor(2)[0.5, 0.0] in let m = initTensor(2)[1.0, 1.0] in let v = initTensor(2)[3.0, 0.0] in \
    let y = batchNorm(x, s, b, m, v, epsilon = 1.0) in y[0]";

/// How `batchNormHelper`'s arguments print at position `k` of 2.
fn helper(k: i64) -> String {
    format!("batchNormHelper ( x , s , b , m , v , y , 0.10000000000000000e1 , {k} ... 2 , 2 )")
}

/// `ext-let-batch-norm`: `rule <k> let Y:Id = batchNorm(X:Id, S:Id, B:Id, M:Id, V:Id, epsilon
///  = E:Float) in Body => defineTensor(Y, SH[X]) ~> batchNormHelper(X, S, B, M, V, Y, E, 0 ...
///  size(SH[X]), SH[X]) ~> Body ~> restoreScope(Env, SH) ...</k> <shape> SH => SH[Y <- SH[X]]
///  </shape> requires … perChannel(SH[X], SH[P]) for each parameter` — `SH[X] = (2)`, every
///  parameter `(2)`.
#[test]
fn rule_ext_let_batch_norm() {
    let scope = "restoreScope ( b |-> 6 m |-> 9 s |-> 3 v |-> 12 x |-> 0 , b |-> 2 m |-> 2 s |-> 2 v |-> 2 x |-> 2 )";
    fire(BATCH_NORM, "ext-let-batch-norm")
        .k(
            &["let y = batchNorm ( x , s , b , m , v , epsilon = 0.10000000000000000e1 ) in y [ 0 ]"],
            &["defineTensor ( y , 2 )", &helper(0), "y [ 0 ]", scope],
        )
        .cells(&[shape(&[], &["y |-> 2"])]);
}

/// `ext-batch-norm-shape-mismatch`: `rule <k> let Y:Id = batchNorm(X:Id, S:Id, B:Id, M:Id,
///  V:Id, epsilon = _) in _ => knnError("shape mismatch") ...</k> requires … notBool (…)` — `x`
///  has 2 channels, the mean 3 elements.
#[test]
fn rule_ext_batch_norm_shape_mismatch() {
    let source = "let x = initTensor(2, 2) in let p = initTensor(2) in let m = initTensor(3) in \
        let y = batchNorm(x, p, p, m, p) in y";
    fire(source, "ext-batch-norm-shape-mismatch")
        .k(
            &["let y = batchNorm ( x , p , p , m , p , epsilon = 0.10000000000000001e-4 ) in y"],
            &["knnError ( \"shape mismatch\" )"],
        )
        .cells(&[]);
}

/// `ext-batch-norm-helper-step`: `rule <k> batchNormHelper(X, S, B, M, V, Y, E, K ... N, Is)
///  => let Y[rowMajor(K, Is)] = ((X[rowMajor(K, Is)] - M[head(rowMajor(K, Is))]) /
///  sqrtItem(V[head(rowMajor(K, Is))] + E)) * S[head(rowMajor(K, Is))] + B[head(rowMajor(K, Is))]
///  in #skip ~> batchNormHelper(…, (K +Int 1) ... N, Is) ...</k> requires K <Int N` — its second
///  firing, `K = 1`: `rowMajor(1, (2)) = (1)`, channel 1.
#[test]
fn rule_ext_batch_norm_helper_step() {
    fire_nth(BATCH_NORM, "ext-batch-norm-helper-step", 2)
        .k(
            &[&helper(1)],
            &[
                "let y [ 1 ] = ( x [ 1 ] - m [ 1 ] ) / sqrtItem ( v [ 1 ] + 0.10000000000000000e1 ) * s [ 1 ] + b [ 1 ] in #skip",
                &helper(2),
            ],
        )
        .cells(&[]);
}

/// The same step on an image: `x` of shape (2, 1, 2), its element `K = 3` at `(1, 0, 1)` is of
/// channel 1.
#[test]
fn rule_ext_batch_norm_helper_step_takes_the_channel_from_the_first_index() {
    let source = "let x = initTensor(2, 1, 2) in let p = initTensor(2)[1.0, 4.0] in \
        let y = batchNorm(x, p, p, p, p, epsilon = 0.5) in y";
    let at =
        |k: i64| format!("batchNormHelper ( x , p , p , p , p , y , 0.50000000000000000e0 , {k} ... 4 , 2 , 1 , 2 )");
    fire_nth(source, "ext-batch-norm-helper-step", 4)
        .k(
            &[&at(3)],
            &[
                "let y [ 1 , 0 , 1 ] = ( x [ 1 , 0 , 1 ] - p [ 1 ] ) / sqrtItem ( p [ 1 ] + 0.50000000000000000e0 ) * p [ 1 ] + p [ 1 ] in #skip",
                &at(4),
            ],
        )
        .cells(&[]);
}

/// `ext-batch-norm-helper-done`: `rule <k> batchNormHelper(_, _, _, _, _, _, _, N ... N, _) =>
///  . ...</k>`
#[test]
fn rule_ext_batch_norm_helper_done() {
    fire(BATCH_NORM, "ext-batch-norm-helper-done").k(&[&helper(2)], &[]).cells(&[]);
}

/// `ext-sqrt-item`: `rule sqrtItem(F:Float) => sqrtFloat(F)` — channel 0's `3.0 + 1.0 = 4.0`
/// has the root `2.0`; channel 1's `0.0 + 1.0` the root `1.0`; a variance of `-2.0` with
/// epsilon `1.0` gives `sqrtFloat(-1.0)`, NaN, and no error.
#[test]
fn rule_ext_sqrt_item() {
    fire(BATCH_NORM, "ext-sqrt-item").k(&["sqrtItem ( 0.40000000000000000e1 )"], &["0.20000000000000000e1"]).cells(&[]);
    fire_nth(BATCH_NORM, "ext-sqrt-item", 2)
        .k(&["sqrtItem ( 0.10000000000000000e1 )"], &["0.10000000000000000e1"])
        .cells(&[]);
    let negative = "let x = initTensor(1)[3.0] in let p = initTensor(1)[-2.0] in \
        let y = batchNorm(x, p, p, p, p, epsilon = 1.0) in y[0]";
    fire(negative, "ext-sqrt-item").k(&["sqrtItem ( -0.10000000000000000e1 )"], &["NaN"]).cells(&[]);
}
