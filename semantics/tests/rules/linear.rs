//! The rules of "Linear Layer" (k-nn.md L263–295; the copy at L370–395 adds nothing), one
//! test each.

use super::*;

/// R31 `let-linear`:
/// `rule <k> let Y:Id = linear(W, X) in E => defineTensor(Y, I) ~> linearHelper(Y, I, J, W, X) ~> E ...</k>
///  <shape>... W |-> I:Int,J:Int ...</shape>`
#[test]
fn rule_let_linear() {
    fire(LINEAR, "let-linear")
        .k(
            &["let y = linear ( W , x ) in y [ 0 ]"],
            &["defineTensor ( y , 1 )", "linearHelper ( y , 1 , 2 , W , x )", "y [ 0 ]"],
        )
        .cells(&[]);
}

/// R32 `linear-rows-range`: `rule linearHelper(Y, I:Int, J:Int, W, X) => linearHelper(Y, 0 ...I, J, W, X)`
#[test]
fn rule_linear_rows_range() {
    fire(LINEAR, "linear-rows-range")
        .k(&["linearHelper ( y , 1 , 2 , W , x )"], &["linearHelper ( y , 0 ... 1 , 2 , W , x )"])
        .cells(&[]);
}

/// R33 `linear-rows-step`:
/// `rule linearHelper(Y, I1:Int...I2:Int, J:Int, W, X) => linearHelper(Y[I1], 0 ...J, W[I1], X)
///  ~> linearHelper(Y, (I1 +Int 1)...I2:Int, J:Int, W, X) when I1 <Int I2`
#[test]
fn rule_linear_rows_step() {
    fire(LINEAR, "linear-rows-step")
        .k(
            &["linearHelper ( y , 0 ... 1 , 2 , W , x )"],
            &["linearHelper ( y [ 0 ] , 0 ... 2 , W [ 0 ] , x )", "linearHelper ( y , 1 ... 1 , 2 , W , x )"],
        )
        .cells(&[]);
}

/// R34 `linear-rows-done`: `rule linearHelper(_, I:Int...I:Int, _:Int, _:Id, _:Id) => .`
#[test]
fn rule_linear_rows_done() {
    fire(LINEAR, "linear-rows-done").k(&["linearHelper ( y , 1 ... 1 , 2 , W , x )"], &[]).cells(&[]);
}

/// R35 `linear-cols-step`:
/// `rule linearHelper(Y[I1], J1...J2, W[I1], X) => linearHelper(Y[I1], W[I1][J1], X[J1])
///  ~> linearHelper(Y[I1], (J1 +Int 1)...J2, W[I1], X) when J1 <Int J2`
#[test]
fn rule_linear_cols_step() {
    fire(LINEAR, "linear-cols-step")
        .k(
            &["linearHelper ( y [ 0 ] , 0 ... 2 , W [ 0 ] , x )"],
            &["linearHelper ( y [ 0 ] , W [ 0 ] [ 0 ] , x [ 0 ] )", "linearHelper ( y [ 0 ] , 1 ... 2 , W [ 0 ] , x )"],
        )
        .cells(&[]);
}

/// R36 `linear-cols-done`: `rule linearHelper(_:Id[_:Int], J...J, _:Id[_:Int], _:Id) => .`
#[test]
fn rule_linear_cols_done() {
    fire(LINEAR, "linear-cols-done").k(&["linearHelper ( y [ 0 ] , 2 ... 2 , W [ 0 ] , x )"], &[]).cells(&[]);
}

/// R37 `linear-mac`: `rule linearHelper(E1, E2, E3) => let E1 = E1 + (E2*E3) in 0`
#[test]
fn rule_linear_mac() {
    fire(LINEAR, "linear-mac")
        .k(
            &["linearHelper ( y [ 0 ] , W [ 0 ] [ 0 ] , x [ 0 ] )"],
            &["let y [ 0 ] = y [ 0 ] + W [ 0 ] [ 0 ] * x [ 0 ] in 0"],
        )
        .cells(&[]);
}
