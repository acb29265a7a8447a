//! The rules of Ext-4 (`maxPool2d`, `avgPool2d`), one test each; the expectations are the K
//! rules instantiated by hand.

use super::*;

/// `x` (1, 2, 3) = `[[1, 5, 2], [4, 3, 6]]` at 0. A 2×2 window with one column of padding on
/// the left: `((2 + 0 + 0 − 2) / 1 + 1, (3 + 1 + 0 − 2) / 1 + 1) = (1, 3)` outputs.
const MAX: &str = "let x = initTensor(1, 2, 3)[1.0, 5.0, 2.0, 4.0, 3.0, 6.0] in \
     let y = maxPool2d(x, kernel = [2, 2], pads = [0, 1, 0, 0]) in y[0, 0, 1]";
const AVG: &str = "let x = initTensor(1, 2, 3)[1.0, 5.0, 2.0, 4.0, 3.0, 6.0] in \
     let y = avgPool2d(x, kernel = [2, 2], pads = [0, 1, 0, 0]) in y[0, 0, 0]";
const ATTRS: &str = "kernel = [ 2 , 2 ] , pads = [ 0 , 1 , 0 , 0 ]";
const ZERO: &str = "0.00000000000000000e0";
/// Output (0, 0, 0) of `AVG`: columns −1 (padding) and 0, so `0.0 + x[0, 0, 0] + x[0, 1, 0]`
/// over 2 taps (`countPad = 0`).
const AVG_SUM: &str = "0.00000000000000000e0 + x [ 0 , 0 , 0 ] + x [ 0 , 1 , 0 ]";

/// `ext-let-pool2d`: `rule <k> let Y:Id = P(X:Id, As) in E => defineTensor(Y, poolShape(SH[X], As)) ~>
///  PHelper(X, Y, As, 0 ... size(poolShape(SH[X], As)), poolShape(SH[X], As)) ~> E ~> restoreScope(Env, SH) ...</k>
///  <env> Env </env> <shape> SH => SH[Y <- poolShape(SH[X], As)] </shape> requires …` —
/// `poolShape = (1, 1, 3)`, 3 positions.
#[test]
fn rule_ext_let_pool2d() {
    fire(MAX, "ext-let-pool2d")
        .k(
            &[&format!("let y = maxPool2d ( x , {ATTRS} ) in y [ 0 , 0 , 1 ]")],
            &[
                "defineTensor ( y , 1 , 1 , 3 )",
                &format!("maxPool2dHelper ( x , y , {ATTRS} , 0 ... 3 , 1 , 1 , 3 )"),
                "y [ 0 , 0 , 1 ]",
                "restoreScope ( x |-> 0 , x |-> 1 , 2 , 3 )",
            ],
        )
        .cells(&[shape(&[], &["y |-> 1 , 1 , 3"])]);
}

/// `ext-pool2d-invalid-attribute`: `rule <k> let Y:Id = P(X:Id, As) in _ => knnError("invalid attribute")
///  ...</k> requires … notBool validAttrs(As)` — a `countPad` of 2.
#[test]
fn rule_ext_pool2d_invalid_attribute() {
    let source = "let x = initTensor(1, 2, 2) in let y = avgPool2d(x, kernel = [2, 2], countPad = 2) in y";
    fire(source, "ext-pool2d-invalid-attribute")
        .k(
            &["let y = avgPool2d ( x , kernel = [ 2 , 2 ] , countPad = 2 ) in y"],
            &["knnError ( \"invalid attribute\" )"],
        )
        .cells(&[]);
}

/// `ext-pool2d-shape-mismatch`: `rule <k> let Y:Id = P(X:Id, As) in _ => knnError("shape mismatch") ...</k>
///  <shape> SH </shape> requires … validAttrs(As) andBool notBool poolShapeOk(SH[X], As)` — `x` has
/// rank 2.
#[test]
fn rule_ext_pool2d_shape_mismatch() {
    let source = "let x = initTensor(2, 2) in let y = maxPool2d(x, kernel = [1, 1]) in y";
    fire(source, "ext-pool2d-shape-mismatch")
        .k(&["let y = maxPool2d ( x , kernel = [ 1 , 1 ] ) in y"], &["knnError ( \"shape mismatch\" )"])
        .cells(&[]);
}

/// `ext-max-pool2d-helper-step`: `rule <k> maxPool2dHelper(X, Y, As, K ... N, Os) => let Y[rowMajor(K, Os)] =
///  poolMax(X, As, SH[X], rowMajor(K, Os)) in #skip ~> maxPool2dHelper(X, Y, As, (K +Int 1) ... N, Os) ...</k>
///  requires K <Int N` — the second firing, `K = 1`, is output `(0, 0, 1)`: rows 0, 1 and
/// columns `1 − 1 + KJ` = 0, 1, no padding; `max` from `-Infinity` in row-major window order.
#[test]
fn rule_ext_max_pool2d_helper_step() {
    let max = "max ( max ( max ( max ( -Infinity , x [ 0 , 0 , 0 ] ) , x [ 0 , 0 , 1 ] ) , x [ 0 , 1 , 0 ] ) , x [ 0 , 1 , 1 ] )";
    fire_nth(MAX, "ext-max-pool2d-helper-step", 2)
        .k(
            &[&format!("maxPool2dHelper ( x , y , {ATTRS} , 1 ... 3 , 1 , 1 , 3 )")],
            &[
                &format!("let y [ 0 , 0 , 1 ] = {max} in #skip"),
                &format!("maxPool2dHelper ( x , y , {ATTRS} , 2 ... 3 , 1 , 1 , 3 )"),
            ],
        )
        .cells(&[]);
}

/// `ext-avg-pool2d-helper-step`: `rule <k> avgPool2dHelper(X, Y, As, K ... N, Os) => let Y[rowMajor(K, Os)] =
///  poolMean(poolSum(…), poolCount(…)) in #skip ~> avgPool2dHelper(X, Y, As, (K +Int 1) ... N, Os) ...</k>
///  requires K <Int N` — output `(0, 0, 0)`: the padding column is left out of the sum and the
/// count.
#[test]
fn rule_ext_avg_pool2d_helper_step() {
    fire(AVG, "ext-avg-pool2d-helper-step")
        .k(
            &[&format!("avgPool2dHelper ( x , y , {ATTRS} , 0 ... 3 , 1 , 1 , 3 )")],
            &[
                &format!("let y [ 0 , 0 , 0 ] = poolMean ( {AVG_SUM} , 2 ) in #skip"),
                &format!("avgPool2dHelper ( x , y , {ATTRS} , 1 ... 3 , 1 , 1 , 3 )"),
            ],
        )
        .cells(&[]);
}

/// `ext-pool2d-helper-done`: `rule <k> PHelper(_, _, _, N ... N, _) => . ...</k>`
#[test]
fn rule_ext_pool2d_helper_done() {
    fire(MAX, "ext-pool2d-helper-done")
        .k(&[&format!("maxPool2dHelper ( x , y , {ATTRS} , 3 ... 3 , 1 , 1 , 3 )")], &[])
        .cells(&[]);
}

/// `ext-heat-pool-mean`: `rule <k> poolMean(HOLE, N) => HOLE ~> poolMean(□, N) ...</k>
///  requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_ext_heat_pool_mean() {
    fire(AVG, "ext-heat-pool-mean")
        .k(&[&format!("poolMean ( {AVG_SUM} , 2 )")], &[AVG_SUM, "poolMean ( □ , 2 )"])
        .cells(&[]);
}

/// `ext-cool-pool-mean`: `rule <k> HOLE ~> poolMean(□, N) => poolMean(HOLE, N) ...</k>
///  requires isKResult(HOLE) [cool]` — the sum `0.0 + 1.0 + 4.0 = 5.0`.
#[test]
fn rule_ext_cool_pool_mean() {
    fire(AVG, "ext-cool-pool-mean")
        .k(&["0.50000000000000000e1", "poolMean ( □ , 2 )"], &["poolMean ( 0.50000000000000000e1 , 2 )"])
        .cells(&[]);
}

/// `ext-pool-mean`: `rule poolMean(F:Float, N:Int) => F /Float Int2Float(N, 53, 11)` — `5.0 / 2`.
#[test]
fn rule_ext_pool_mean() {
    fire(AVG, "ext-pool-mean").k(&["poolMean ( 0.50000000000000000e1 , 2 )"], &["0.25000000000000000e1"]).cells(&[]);
    // A window wholly in padding with `countPad = 0`: `0.0 / 0` is NaN, not an error.
    let empty = "let x = initTensor(1, 1, 1)[7.0] in let y = avgPool2d(x, kernel = [1, 1], pads = [1, 0, 0, 0]) in y";
    fire(empty, "ext-pool-mean").k(&[&format!("poolMean ( {ZERO} , 0 )")], &["NaN"]).cells(&[]);
}
