//! The rules of "Sigmoid" (k-nn.md L335–368), with the heating and cooling rules of its
//! `context` declaration, one test each.

use super::*;

/// R49 `let-sigmoid-tensor`:
/// `rule <k> let X:Id = sigmoidTensor(Y:Id) in E => defineTensor(X,Is) ~> sigmoidTensorHelper(Y, X, Is) ~> E ... </k>
///  <shape>... Y |-> Is ...</shape>`
#[test]
fn rule_let_sigmoid_tensor() {
    fire(SIGMOID_1D, "let-sigmoid-tensor")
        .k(
            &["let s = sigmoidTensor ( v ) in s [ 0 ]"],
            &["defineTensor ( s , 1 )", "sigmoidTensorHelper ( v , s , 1 )", "s [ 0 ]"],
        )
        .cells(&[]);
}

/// R50 `sigmoid-helper-nd-range`:
/// `rule sigmoidTensorHelper(Y, X, I:Int, Is:Ints) => sigmoidTensorHelper(Y, X, 0 ...I, Is)`
#[test]
fn rule_sigmoid_helper_nd_range() {
    fire(SIGMOID_2D, "sigmoid-helper-nd-range")
        .k(&["sigmoidTensorHelper ( m , s , 1 , 2 )"], &["sigmoidTensorHelper ( m , s , 0 ... 1 , 2 )"])
        .cells(&[]);
}

/// R51 `sigmoid-helper-1d-range`: `rule sigmoidTensorHelper(Y, X, I:Int) => sigmoidTensorHelper(Y, X, 0 ...I)`
#[test]
fn rule_sigmoid_helper_1d_range() {
    fire(SIGMOID_1D, "sigmoid-helper-1d-range")
        .k(&["sigmoidTensorHelper ( v , s , 1 )"], &["sigmoidTensorHelper ( v , s , 0 ... 1 )"])
        .cells(&[]);
}

/// R52 `sigmoid-helper-nd-step`:
/// `rule <k> sigmoidTensorHelper(Y, X, I...J:Int, Is:Ints) => sigmoidTensorHelper(Y[I], X[I], Is:Ints)
///  ~> sigmoidTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J`
#[test]
fn rule_sigmoid_helper_nd_step() {
    fire(SIGMOID_2D, "sigmoid-helper-nd-step")
        .k(
            &["sigmoidTensorHelper ( m , s , 0 ... 1 , 2 )"],
            &["sigmoidTensorHelper ( m [ 0 ] , s [ 0 ] , 2 )", "sigmoidTensorHelper ( m , s , 1 ... 1 , 2 )"],
        )
        .cells(&[]);
}

/// R53 `sigmoid-helper-range-step`:
/// `rule <k> sigmoidTensorHelper(Y, X, I...J:Int) => sigmoidTensorHelper(Y[I], X[I])
///  ~> sigmoidTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J`
#[test]
fn rule_sigmoid_helper_range_step() {
    fire(SIGMOID_1D, "sigmoid-helper-range-step")
        .k(
            &["sigmoidTensorHelper ( v , s , 0 ... 1 )"],
            &["sigmoidTensorHelper ( v [ 0 ] , s [ 0 ] )", "sigmoidTensorHelper ( v , s , 1 ... 1 )"],
        )
        .cells(&[]);
}

/// R54 `sigmoid-helper-nd-done`: `rule <k> sigmoidTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>`
#[test]
fn rule_sigmoid_helper_nd_done() {
    fire(SIGMOID_2D, "sigmoid-helper-nd-done").k(&["sigmoidTensorHelper ( m , s , 1 ... 1 , 2 )"], &[]).cells(&[]);
}

/// R55 `sigmoid-helper-range-done`: `rule <k> sigmoidTensorHelper(_, _, I...I:Int) => . ...</k>`
#[test]
fn rule_sigmoid_helper_range_done() {
    fire(SIGMOID_1D, "sigmoid-helper-range-done").k(&["sigmoidTensorHelper ( v , s , 1 ... 1 )"], &[]).cells(&[]);
}

/// R56 `sigmoid-helper-elem`:
/// `rule sigmoidTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = sigmoidItem(E1[I]) in 0`
#[test]
fn rule_sigmoid_helper_elem() {
    fire(SIGMOID_1D, "sigmoid-helper-elem")
        .k(&["sigmoidTensorHelper ( v [ 0 ] , s [ 0 ] )"], &["let s [ 0 ] = sigmoidItem ( v [ 0 ] ) in 0"])
        .cells(&[]);
}

/// `heat-sigmoid-item`, generated from R57 `context sigmoidItem(HOLE)`:
/// `rule <k> sigmoidItem(HOLE) => HOLE ~> sigmoidItem(□) ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_sigmoid_item() {
    fire(SIGMOID_1D, "heat-sigmoid-item").k(&["sigmoidItem ( v [ 0 ] )"], &["v [ 0 ]", "sigmoidItem ( □ )"]).cells(&[]);
}

/// `cool-sigmoid-item`, generated from R57 `context sigmoidItem(HOLE)`:
/// `rule <k> HOLE ~> sigmoidItem(□) => sigmoidItem(HOLE) ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_sigmoid_item() {
    fire(SIGMOID_1D, "cool-sigmoid-item")
        .k(&["0.00000000000000000e0", "sigmoidItem ( □ )"], &["sigmoidItem ( 0.00000000000000000e0 )"])
        .cells(&[]);
}

/// R58 `sigmoid-item-merge-index`:
/// `rule sigmoidItem(E:Exp[I:Int][J:Int]) => sigmoidItem(E:Exp[I:Int,J:Int])`
///
/// Never krun's choice (`heat-sigmoid-item` is tried first, §2.9); `search` takes it.
#[test]
fn rule_sigmoid_item_merge_index() {
    fire(SIGMOID_2D, "sigmoid-item-merge-index")
        .k(&["sigmoidItem ( m [ 0 ] [ 0 ] )"], &["sigmoidItem ( m [ 0 , 0 ] )"])
        .cells(&[]);
}

/// R59 `sigmoid-let-2d`:
/// `rule let E:Exp[I:Int][J:Int] = sigmoidItem(E2:Exp) in E3:Exp => let E:Exp[I,J] = sigmoidItem(E2:Exp) in E3:Exp`
///
/// Never krun's choice (`heat-let-2` and `relu-let-2d-max` are tried first, §2.9); `search`
/// takes it.
#[test]
fn rule_sigmoid_let_2d() {
    fire(SIGMOID_2D, "sigmoid-let-2d")
        .k(
            &["let s [ 0 ] [ 0 ] = sigmoidItem ( m [ 0 ] [ 0 ] ) in 0"],
            &["let s [ 0 , 0 ] = sigmoidItem ( m [ 0 ] [ 0 ] ) in 0"],
        )
        .cells(&[]);
}
