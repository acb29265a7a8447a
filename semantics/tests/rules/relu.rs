//! The rules of "Relu" (k-nn.md L215–261), one test each.

use super::*;

/// R21 `let-relu-tensor`:
/// `rule <k> let X:Id = reluTensor(Y:Id) in E => defineTensor(X,Is) ~> reluTensorHelper(Y, X, Is) ~> E ... </k>
///  <shape>... Y |-> Is ...</shape>`
///
/// `<shape>` is only read: `u` gets no entry.
#[test]
fn rule_let_relu_tensor() {
    fire(RELU_1D, "let-relu-tensor")
        .k(
            &["let u = reluTensor ( t ) in u [ 1 ]"],
            &["defineTensor ( u , 2 )", "reluTensorHelper ( t , u , 2 )", "u [ 1 ]"],
        )
        .cells(&[]);
}

/// R22 `relu-helper-nd-range`: `rule reluTensorHelper(Y, X, I:Int, Is:Ints) => reluTensorHelper(Y, X, 0 ...I, Is)`
#[test]
fn rule_relu_helper_nd_range() {
    fire(RELU_2D, "relu-helper-nd-range")
        .k(&["reluTensorHelper ( m , r , 1 , 2 )"], &["reluTensorHelper ( m , r , 0 ... 1 , 2 )"])
        .cells(&[]);
}

/// R23 `relu-helper-1d-range`: `rule reluTensorHelper(Y, X, I:Int) => reluTensorHelper(Y, X, 0 ...I)`
#[test]
fn rule_relu_helper_1d_range() {
    fire(RELU_1D, "relu-helper-1d-range")
        .k(&["reluTensorHelper ( t , u , 2 )"], &["reluTensorHelper ( t , u , 0 ... 2 )"])
        .cells(&[]);
}

/// R24 `relu-helper-nd-step`:
/// `rule <k> reluTensorHelper(Y, X, I...J:Int, Is:Ints) => reluTensorHelper(Y[I], X[I], Is:Ints)
///  ~> reluTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J`
#[test]
fn rule_relu_helper_nd_step() {
    fire(RELU_2D, "relu-helper-nd-step")
        .k(
            &["reluTensorHelper ( m , r , 0 ... 1 , 2 )"],
            &["reluTensorHelper ( m [ 0 ] , r [ 0 ] , 2 )", "reluTensorHelper ( m , r , 1 ... 1 , 2 )"],
        )
        .cells(&[]);
}

/// R25 `relu-helper-range-step`:
/// `rule <k> reluTensorHelper(Y, X, I...J:Int) => reluTensorHelper(Y[I], X[I])
///  ~> reluTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J`
#[test]
fn rule_relu_helper_range_step() {
    fire(RELU_1D, "relu-helper-range-step")
        .k(
            &["reluTensorHelper ( t , u , 0 ... 2 )"],
            &["reluTensorHelper ( t [ 0 ] , u [ 0 ] )", "reluTensorHelper ( t , u , 1 ... 2 )"],
        )
        .cells(&[]);
}

/// R26 `relu-helper-nd-done`: `rule <k> reluTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>`
#[test]
fn rule_relu_helper_nd_done() {
    fire(RELU_2D, "relu-helper-nd-done").k(&["reluTensorHelper ( m , r , 1 ... 1 , 2 )"], &[]).cells(&[]);
}

/// R27 `relu-helper-range-done`: `rule <k> reluTensorHelper(_, _, I...I:Int) => . ...</k>`
#[test]
fn rule_relu_helper_range_done() {
    fire(RELU_1D, "relu-helper-range-done").k(&["reluTensorHelper ( t , u , 2 ... 2 )"], &[]).cells(&[]);
}

/// R28 `relu-helper-elem`: `rule reluTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = E1[I] in 0`
///
/// A plain copy: no `max` (§3(a)).
#[test]
fn rule_relu_helper_elem() {
    fire(RELU_1D, "relu-helper-elem")
        .k(&["reluTensorHelper ( t [ 0 ] , u [ 0 ] )"], &["let u [ 0 ] = t [ 0 ] in 0"])
        .cells(&[]);
}

/// R29 `relu-let-2d-max`:
/// `rule let E:Exp[I:Int][J:Int] = E2:Exp in E3:Exp => let E:Exp[I,J] = max(E2:Exp, 0.0) in E3:Exp`
///
/// It also clamps a user write with chained indices (§3(c)).
#[test]
fn rule_relu_let_2d_max() {
    fire(CHAINED_WRITE_2D, "relu-let-2d-max")
        .k(
            &["let m [ 0 ] [ 1 ] = -0.50000000000000000e1 in m [ 0 , 1 ]"],
            &["let m [ 0 , 1 ] = max ( -0.50000000000000000e1 , 0.00000000000000000e0 ) in m [ 0 , 1 ]"],
        )
        .cells(&[]);
}

/// R30 `drop-int-zero`: `rule <k> 0 => . ...</k>`
///
/// Its first use: the `in 0` body of the first element write of `reluTensorHelper`.
#[test]
fn rule_drop_int_zero() {
    let f = fire(RELU_1D, "drop-int-zero").k(&["0"], &[]);
    assert_eq!(common::k_items(&f.after), ["reluTensorHelper ( t , u , 1 ... 2 )", "u [ 1 ]"]);
    f.cells(&[]);
}
