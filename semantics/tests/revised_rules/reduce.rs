//! The rules of Ext-10 (`reduceSum`, `reduceMean`, `reduceMax`, `reduceMin`), one test each;
//! the expectations are the K rules instantiated by hand.

use super::*;

/// `y` (2, 3) at 0, summed over axis 0: a result of shape (3).
const SUM: &str = "let y = initTensor(2, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0] in let x = reduceSum(y, 0) in x[1]";

/// `ext-let-reduce`: `rule <k> let X:Id = R(Y:Id, As) in E => defineTensor(X, reduceShape(SH[Y],
///  As)) ~> RHelper(Y, X, As, 0 ... size(reduceShape(SH[Y], As)), SH[Y]) ~> E ~>
///  restoreScope(Env, SH) ...</k> … requires … validAxes(As, size(SH[Y]))` — `(2, 3)` without
///  axis 0 is `(3)`.
#[test]
fn rule_ext_let_reduce() {
    fire(SUM, "ext-let-reduce")
        .k(
            &["let x = reduceSum ( y , 0 ) in x [ 1 ]"],
            &[
                "defineTensor ( x , 3 )",
                "reduceSumHelper ( y , x , 0 , 0 ... 3 , 2 , 3 )",
                "x [ 1 ]",
                "restoreScope ( y |-> 0 , y |-> 2 , 3 )",
            ],
        )
        .cells(&[shape(&[], &["x |-> 3"])]);
    // Every axis reduced: a tensor of shape (1).
    let all = "let y = initTensor(2, 3) in let x = reduceMax(y, 1, 0) in x";
    fire(all, "ext-let-reduce")
        .k(
            &["let x = reduceMax ( y , 1 , 0 ) in x"],
            &[
                "defineTensor ( x , 1 )",
                "reduceMaxHelper ( y , x , 1 , 0 , 0 ... 1 , 2 , 3 )",
                "x",
                "restoreScope ( y |-> 0 , y |-> 2 , 3 )",
            ],
        )
        .cells(&[shape(&[], &["x |-> 1"])]);
}

/// `ext-reduce-invalid-axes`: `rule <k> let X:Id = R(Y:Id, As) in _ => knnError("invalid
///  attribute") ...</k> requires … notBool validAxes(As, size(SH[Y]))` — an axis twice, then one
///  out of range.
#[test]
fn rule_ext_reduce_invalid_axes() {
    for (source, call) in [
        ("let y = initTensor(2, 3) in let x = reduceMean(y, 1, 1) in x", "reduceMean ( y , 1 , 1 )"),
        ("let y = initTensor(2, 3) in let x = reduceMin(y, 2) in x", "reduceMin ( y , 2 )"),
    ] {
        fire(source, "ext-reduce-invalid-axes")
            .k(&[&format!("let x = {call} in x")], &["knnError ( \"invalid attribute\" )"])
            .cells(&[]);
    }
}

/// `ext-reduce-helper-step`: `rule <k> RHelper(Y, X, As, K ... N, Is) => let X[rowMajor(K,
///  reduceShape(Is, As))] = reduced(R, Y, group(K, Is, As)) in #skip ~> RHelper(Y, X, As,
///  (K +Int 1) ... N, Is) ...</k> requires K <Int N` — output 1 of the sum over axis 0 is column
///  1; the mean over both axes is one group of the four elements in row-major order; the min of
///  row 1.
#[test]
fn rule_ext_reduce_helper_step() {
    fire_nth(SUM, "ext-reduce-helper-step", 2)
        .k(
            &["reduceSumHelper ( y , x , 0 , 1 ... 3 , 2 , 3 )"],
            &[
                "let x [ 1 ] = 0.00000000000000000e0 + y [ 0 , 1 ] + y [ 1 , 1 ] in #skip",
                "reduceSumHelper ( y , x , 0 , 2 ... 3 , 2 , 3 )",
            ],
        )
        .cells(&[]);
    let mean = "let y = initTensor(2, 2) in let x = reduceMean(y, 1, 0) in x";
    fire(mean, "ext-reduce-helper-step")
        .k(
            &["reduceMeanHelper ( y , x , 1 , 0 , 0 ... 1 , 2 , 2 )"],
            &[
                "let x [ 0 ] = poolMean ( 0.00000000000000000e0 + y [ 0 , 0 ] + y [ 0 , 1 ] + y [ 1 , 0 ] + y [ 1 , 1 ] , 4 ) in #skip",
                "reduceMeanHelper ( y , x , 1 , 0 , 1 ... 1 , 2 , 2 )",
            ],
        )
        .cells(&[]);
    let min = "let y = initTensor(2, 2) in let x = reduceMin(y, 1) in x";
    fire_nth(min, "ext-reduce-helper-step", 2)
        .k(
            &["reduceMinHelper ( y , x , 1 , 1 ... 2 , 2 , 2 )"],
            &[
                "let x [ 1 ] = min ( min ( Infinity , y [ 1 , 0 ] ) , y [ 1 , 1 ] ) in #skip",
                "reduceMinHelper ( y , x , 1 , 2 ... 2 , 2 , 2 )",
            ],
        )
        .cells(&[]);
}

/// `ext-reduce-helper-done`: `rule <k> RHelper(_, _, _, N ... N, _) => . ...</k>`
#[test]
fn rule_ext_reduce_helper_done() {
    fire(SUM, "ext-reduce-helper-done").k(&["reduceSumHelper ( y , x , 0 , 3 ... 3 , 2 , 3 )"], &[]).cells(&[]);
}
