//! The rules of "Tanh" (k-nn.md L296–333), with the heating and cooling rules of its `context`
//! declaration, one test each.

use super::*;

/// R38 `let-tanh-tensor`:
/// `rule <k> let X:Id = tanhTensor(Y:Id) in E => defineTensor(X,Is) ~> tanhTensorHelper(Y, X, Is) ~> E ... </k>
///  <shape>... Y |-> Is ...</shape>`
#[test]
fn rule_let_tanh_tensor() {
    fire(TANH_1D, "let-tanh-tensor")
        .k(
            &["let h = tanhTensor ( v ) in h [ 0 ]"],
            &["defineTensor ( h , 1 )", "tanhTensorHelper ( v , h , 1 )", "h [ 0 ]"],
        )
        .cells(&[]);
}

/// R39 `tanh-helper-nd-range`: `rule tanhTensorHelper(Y, X, I:Int, Is:Ints) => tanhTensorHelper(Y, X, 0 ...I, Is)`
#[test]
fn rule_tanh_helper_nd_range() {
    fire(TANH_2D, "tanh-helper-nd-range")
        .k(&["tanhTensorHelper ( m , h , 1 , 2 )"], &["tanhTensorHelper ( m , h , 0 ... 1 , 2 )"])
        .cells(&[]);
}

/// R40 `tanh-helper-1d-range`: `rule tanhTensorHelper(Y, X, I:Int) => tanhTensorHelper(Y, X, 0 ...I)`
#[test]
fn rule_tanh_helper_1d_range() {
    fire(TANH_1D, "tanh-helper-1d-range")
        .k(&["tanhTensorHelper ( v , h , 1 )"], &["tanhTensorHelper ( v , h , 0 ... 1 )"])
        .cells(&[]);
}

/// R41 `tanh-helper-nd-step`:
/// `rule <k> tanhTensorHelper(Y, X, I...J:Int, Is:Ints) => tanhTensorHelper(Y[I], X[I], Is:Ints)
///  ~> tanhTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J`
#[test]
fn rule_tanh_helper_nd_step() {
    fire(TANH_2D, "tanh-helper-nd-step")
        .k(
            &["tanhTensorHelper ( m , h , 0 ... 1 , 2 )"],
            &["tanhTensorHelper ( m [ 0 ] , h [ 0 ] , 2 )", "tanhTensorHelper ( m , h , 1 ... 1 , 2 )"],
        )
        .cells(&[]);
}

/// R42 `tanh-helper-range-step`:
/// `rule <k> tanhTensorHelper(Y, X, I...J:Int) => tanhTensorHelper(Y[I], X[I])
///  ~> tanhTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J`
#[test]
fn rule_tanh_helper_range_step() {
    fire(TANH_1D, "tanh-helper-range-step")
        .k(
            &["tanhTensorHelper ( v , h , 0 ... 1 )"],
            &["tanhTensorHelper ( v [ 0 ] , h [ 0 ] )", "tanhTensorHelper ( v , h , 1 ... 1 )"],
        )
        .cells(&[]);
}

/// R43 `tanh-helper-nd-done`: `rule <k> tanhTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>`
#[test]
fn rule_tanh_helper_nd_done() {
    fire(TANH_2D, "tanh-helper-nd-done").k(&["tanhTensorHelper ( m , h , 1 ... 1 , 2 )"], &[]).cells(&[]);
}

/// R44 `tanh-helper-range-done`: `rule <k> tanhTensorHelper(_, _, I...I:Int) => . ...</k>`
#[test]
fn rule_tanh_helper_range_done() {
    fire(TANH_1D, "tanh-helper-range-done").k(&["tanhTensorHelper ( v , h , 1 ... 1 )"], &[]).cells(&[]);
}

/// R45 `tanh-helper-elem`:
/// `rule tanhTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = tanhItem(E1[I]) in 0`
#[test]
fn rule_tanh_helper_elem() {
    fire(TANH_1D, "tanh-helper-elem")
        .k(&["tanhTensorHelper ( v [ 0 ] , h [ 0 ] )"], &["let h [ 0 ] = tanhItem ( v [ 0 ] ) in 0"])
        .cells(&[]);
}

/// `heat-tanh-item`, generated from R46 `context tanhItem(HOLE)`:
/// `rule <k> tanhItem(HOLE) => HOLE ~> tanhItem(□) ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_tanh_item() {
    fire(TANH_1D, "heat-tanh-item").k(&["tanhItem ( v [ 0 ] )"], &["v [ 0 ]", "tanhItem ( □ )"]).cells(&[]);
}

/// `cool-tanh-item`, generated from R46 `context tanhItem(HOLE)`:
/// `rule <k> HOLE ~> tanhItem(□) => tanhItem(HOLE) ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_tanh_item() {
    fire(TANH_1D, "cool-tanh-item")
        .k(&["-0.10000000000000000e1", "tanhItem ( □ )"], &["tanhItem ( -0.10000000000000000e1 )"])
        .cells(&[]);
}

/// R47 `tanh-item-merge-index`: `rule tanhItem(E:Exp[I:Int][J:Int]) => tanhItem(E:Exp[I:Int,J:Int])`
///
/// Never krun's choice (`heat-tanh-item` is tried first, §2.9); `search` takes it.
#[test]
fn rule_tanh_item_merge_index() {
    fire(TANH_2D, "tanh-item-merge-index").k(&["tanhItem ( m [ 0 ] [ 0 ] )"], &["tanhItem ( m [ 0 , 0 ] )"]).cells(&[]);
}

/// R48 `tanh-let-2d`:
/// `rule let E:Exp[I:Int][J:Int] = tanhItem(E2:Exp) in E3:Exp => let E:Exp[I,J] = tanhItem(E2:Exp) in E3:Exp`
///
/// Never krun's choice (`heat-let-2` and `relu-let-2d-max` are tried first, §2.9); `search`
/// takes it.
#[test]
fn rule_tanh_let_2d() {
    fire(TANH_2D, "tanh-let-2d")
        .k(
            &["let h [ 0 ] [ 0 ] = tanhItem ( m [ 0 ] [ 0 ] ) in 0"],
            &["let h [ 0 , 0 ] = tanhItem ( m [ 0 ] [ 0 ] ) in 0"],
        )
        .cells(&[]);
}
