//! The rules of Ext-9 (`expTensor`, `logTensor`, `softmax`, `logSoftmax` and their items), one
//! test each; the expectations are the K rules instantiated by hand, the Floats worked out with
//! Python's `math` (`exp(-1) = 0.36787944117144233`, `log(2) = 0.6931471805599453`).

use super::*;

/// `y` (2, 2) = `[[1, 2], [3, 3]]` at 0; softmax of each row (axis 1).
const SOFTMAX: &str = "let y = initTensor(2, 2)[1.0, 2.0, 3.0, 3.0] in let x = softmax(y, 1) in x[0, 1]";
const LOG_SOFTMAX: &str = "let y = initTensor(2, 2)[1.0, 2.0, 3.0, 3.0] in let x = logSoftmax(y, 1) in x[0, 1]";
/// `y` = `[0, 1]`: `exp` of each.
const EXP: &str = "let y = initTensor(2)[0.0, 1.0] in let x = expTensor(y) in x[1]";
const LOG: &str = "let y = initTensor(2)[2.0, 1.0] in let x = logTensor(y) in x[0]";
const TWO: &str = "0.20000000000000000e1";
/// Row 0: `M = 2.0`, `S = 0.0 + exp(1 - 2) + exp(2 - 2) = 0.36787944117144233 + 1.0`.
const SUM: &str = "0.13678794411714423e1";

/// `ext-let-exp-log-tensor`: `rule <k> let X:Id = F(Y:Id) in E => defineTensor(X, SH[Y]) ~>
///  FHelper(Y, X, 0 ... size(SH[Y]), SH[Y]) ~> E ~> restoreScope(Env, SH) ...</k> … <shape> SH
///  => SH[X <- SH[Y]] </shape>`
#[test]
fn rule_ext_let_exp_log_tensor() {
    fire(EXP, "ext-let-exp-log-tensor")
        .k(
            &["let x = expTensor ( y ) in x [ 1 ]"],
            &[
                "defineTensor ( x , 2 )",
                "expTensorHelper ( y , x , 0 ... 2 , 2 )",
                "x [ 1 ]",
                "restoreScope ( y |-> 0 , y |-> 2 )",
            ],
        )
        .cells(&[shape(&[], &["x |-> 2"])]);
}

/// `ext-exp-log-helper-step`: `rule <k> FHelper(Y, X, K ... N, Is) => let X[rowMajor(K, Is)] =
///  fItem(Y[rowMajor(K, Is)]) in #skip ~> FHelper(Y, X, (K +Int 1) ... N, Is) ...</k> requires K
///  <Int N` — the second firing, `K = 1`.
#[test]
fn rule_ext_exp_log_helper_step() {
    fire_nth(EXP, "ext-exp-log-helper-step", 2)
        .k(
            &["expTensorHelper ( y , x , 1 ... 2 , 2 )"],
            &["let x [ 1 ] = expItem ( y [ 1 ] ) in #skip", "expTensorHelper ( y , x , 2 ... 2 , 2 )"],
        )
        .cells(&[]);
}

/// `ext-math-helper-done`: `rule <k> FHelper(_, _, …, N ... N, _) => . ...</k>`
#[test]
fn rule_ext_math_helper_done() {
    fire(EXP, "ext-math-helper-done").k(&["expTensorHelper ( y , x , 2 ... 2 , 2 )"], &[]).cells(&[]);
    fire(SOFTMAX, "ext-math-helper-done").k(&["softmaxHelper ( y , x , 1 , 2 ... 2 , 2 , 2 )"], &[]).cells(&[]);
}

/// `ext-heat-math-item`: `rule <k> fItem(HOLE, …) => HOLE ~> fItem(□, …) ...</k> requires
///  notBool isKResult(HOLE) [heat]`
#[test]
fn rule_ext_heat_math_item() {
    fire(EXP, "ext-heat-math-item").k(&["expItem ( y [ 0 ] )"], &["y [ 0 ]", "expItem ( □ )"]).cells(&[]);
}

/// `ext-cool-math-item`: `rule <k> HOLE ~> fItem(□, …) => fItem(HOLE, …) ...</k> requires
///  isKResult(HOLE) [cool]` — `y[0]` is `0.0`.
#[test]
fn rule_ext_cool_math_item() {
    fire(EXP, "ext-cool-math-item")
        .k(&["0.00000000000000000e0", "expItem ( □ )"], &["expItem ( 0.00000000000000000e0 )"])
        .cells(&[]);
}

/// `ext-exp-item`: `rule expItem(F:Float) => expFloat(F)` — `exp(0) = 1`, then `exp(1) = e`.
#[test]
fn rule_ext_exp_item() {
    fire(EXP, "ext-exp-item").k(&["expItem ( 0.00000000000000000e0 )"], &["0.10000000000000000e1"]).cells(&[]);
    fire_nth(EXP, "ext-exp-item", 2).k(&["expItem ( 0.10000000000000000e1 )"], &["0.27182818284590451e1"]).cells(&[]);
}

/// `ext-log-item`: `rule logItem(F:Float) => logFloat(F)` — `log(2)`.
#[test]
fn rule_ext_log_item() {
    fire(LOG, "ext-log-item").k(&["logItem ( 0.20000000000000000e1 )"], &["0.69314718055994529e0"]).cells(&[]);
}

/// `ext-let-softmax`: `rule <k> let X:Id = F(Y:Id, A) in E => defineTensor(X, SH[Y]) ~>
///  FHelper(Y, X, A, 0 ... slices(SH[Y], A), SH[Y]) ~> E ~> restoreScope(Env, SH) ...</k> …
///  requires … A <Int size(SH[Y])` — two rows, two slices.
#[test]
fn rule_ext_let_softmax() {
    fire(SOFTMAX, "ext-let-softmax")
        .k(
            &["let x = softmax ( y , 1 ) in x [ 0 , 1 ]"],
            &[
                "defineTensor ( x , 2 , 2 )",
                "softmaxHelper ( y , x , 1 , 0 ... 2 , 2 , 2 )",
                "x [ 0 , 1 ]",
                "restoreScope ( y |-> 0 , y |-> 2 , 2 )",
            ],
        )
        .cells(&[shape(&[], &["x |-> 2 , 2"])]);
}

/// `ext-softmax-invalid-axis`: `rule <k> let X:Id = F(Y:Id, A) in _ => knnError("invalid
///  attribute") ...</k> requires … notBool A <Int size(SH[Y])` — axis 2 of a rank-2 tensor.
#[test]
fn rule_ext_softmax_invalid_axis() {
    let source = "let y = initTensor(2, 2) in let x = logSoftmax(y, 2) in x";
    fire(source, "ext-softmax-invalid-axis")
        .k(&["let x = logSoftmax ( y , 2 ) in x"], &["knnError ( \"invalid attribute\" )"])
        .cells(&[]);
}

/// `ext-softmax-helper-step`: `rule <k> FHelper(Y, X, A, K ... N, Is) => max(… max(-Infinity,
///  Y[slice(K, Is, A, 0)]) …) ~> FMax(Y, X, A, K, Is) ~> FHelper(Y, X, A, (K +Int 1) ... N, Is)
///  ...</k> requires K <Int N` — the second slice along axis 1 is row 1.
#[test]
fn rule_ext_softmax_helper_step() {
    fire_nth(SOFTMAX, "ext-softmax-helper-step", 2)
        .k(
            &["softmaxHelper ( y , x , 1 , 1 ... 2 , 2 , 2 )"],
            &[
                "max ( max ( -Infinity , y [ 1 , 0 ] ) , y [ 1 , 1 ] )",
                "softmaxMax ( y , x , 1 , 1 , 2 , 2 )",
                "softmaxHelper ( y , x , 1 , 2 ... 2 , 2 , 2 )",
            ],
        )
        .cells(&[]);
}

/// `ext-softmax-max`: `rule <k> M:Float ~> FMax(Y, X, A, K, Is) => 0.0 + expShiftItem(Y[slice(K,
///  Is, A, 0)], M) + … ~> FSum(Y, X, A, K, Is, M) ...</k>` — row 0's max is 2.0.
#[test]
fn rule_ext_softmax_max() {
    fire(SOFTMAX, "ext-softmax-max")
        .k(
            &[TWO, "softmaxMax ( y , x , 1 , 0 , 2 , 2 )"],
            &[
                &format!("0.00000000000000000e0 + expShiftItem ( y [ 0 , 0 ] , {TWO} ) + expShiftItem ( y [ 0 , 1 ] , {TWO} )"),
                &format!("softmaxSum ( y , x , 1 , 0 , 2 , 2 , {TWO} )"),
            ],
        )
        .cells(&[]);
}

/// `ext-exp-shift-item`: `rule expShiftItem(F:Float, M:Float) => expFloat(F -Float M)` —
///  `exp(1 - 2)`.
#[test]
fn rule_ext_exp_shift_item() {
    fire(SOFTMAX, "ext-exp-shift-item")
        .k(&[&format!("expShiftItem ( 0.10000000000000000e1 , {TWO} )")], &["0.36787944117144233e0"])
        .cells(&[]);
}

/// `ext-softmax-sum`: `rule <k> S:Float ~> FSum(Y, X, A, K, Is, M) => let X[slice(K, Is, A, 0)]
///  = fItem(Y[slice(K, Is, A, 0)], M, S) in #skip ~> … ...</k>`
#[test]
fn rule_ext_softmax_sum() {
    fire(SOFTMAX, "ext-softmax-sum")
        .k(
            &[SUM, &format!("softmaxSum ( y , x , 1 , 0 , 2 , 2 , {TWO} )")],
            &[
                &format!("let x [ 0 , 0 ] = softmaxItem ( y [ 0 , 0 ] , {TWO} , {SUM} ) in #skip"),
                &format!("let x [ 0 , 1 ] = softmaxItem ( y [ 0 , 1 ] , {TWO} , {SUM} ) in #skip"),
            ],
        )
        .cells(&[]);
}

/// `ext-softmax-item`: `rule softmaxItem(F:Float, M:Float, S:Float) => expFloat(F -Float M)
///  /Float S` — `exp(-1) / 1.3678794411714423 = 0.2689414213699951`.
#[test]
fn rule_ext_softmax_item() {
    fire(SOFTMAX, "ext-softmax-item")
        .k(&[&format!("softmaxItem ( 0.10000000000000000e1 , {TWO} , {SUM} )")], &["0.26894142136999510e0"])
        .cells(&[]);
}

/// `ext-log-softmax-item`: `rule logSoftmaxItem(F:Float, M:Float, S:Float) => (F -Float M)
///  -Float logFloat(S)` — `-1 - log(1.3678794411714423) = -1 - 0.31326168751822286`.
#[test]
fn rule_ext_log_softmax_item() {
    fire(LOG_SOFTMAX, "ext-log-softmax-item")
        .k(&[&format!("logSoftmaxItem ( 0.10000000000000000e1 , {TWO} , {SUM} )")], &["-0.13132616875182228e1"])
        .cells(&[]);
}

/// `ext-math-item-invalid`: `rule <k> fItem(V:Val, …) => knnError("invalid operands") ...</k>
///  [owise]` — an Int element.
#[test]
fn rule_ext_math_item_invalid() {
    let source = "let y = initTensor(1)[2] in let x = logTensor(y) in x";
    fire(source, "ext-math-item-invalid").k(&["logItem ( 2 )"], &["knnError ( \"invalid operands\" )"]).cells(&[]);
}
