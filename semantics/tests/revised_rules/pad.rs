//! The rules of Ext-13 (`pad`), one test each; the expectations are the K rules instantiated
//! by hand.

use super::*;

/// `x` (2, 2) = `[[1, 2], [3, 4]]` at 0, padded with `-1.0` by begins (1, 0) and ends (0, 1):
/// `y` (3, 3) = `[[-1, -1, -1], [1, 2, -1], [3, 4, -1]]`.
const PAD: &str = "let x = initTensor(2, 2)[1.0, 2.0, 3.0, 4.0] in let y = pad(x, -1.0, 1, 0, 0, 1) in y[2, 1]";

/// How `padHelper`'s arguments after `V` print at position `k` of 9.
fn helper(k: i64) -> String {
    format!("padHelper ( x , y , -0.10000000000000000e1 , {k} ... 9 , 1 , 0 , 0 , 1 )")
}

/// `ext-let-pad`: `rule <k> let Y:Id = pad(X:Id, V:Float, Ps) in E => defineTensor(Y,
///  padded(SH[X], Ps)) ~> padHelper(X, Y, V, 0 ... size(padded(SH[X], Ps)), Ps) ~> E ~>
///  restoreScope(Env, SH) ...</k> <shape> SH => SH[Y <- padded(SH[X], Ps)] </shape> requires …
///  validPads(SH[X], Ps)` — `padded((2, 2), (1, 0, 0, 1)) = (2 + 1 + 0, 2 + 0 + 1) = (3, 3)`.
#[test]
fn rule_ext_let_pad() {
    fire(PAD, "ext-let-pad")
        .k(
            &["let y = pad ( x , -0.10000000000000000e1 , 1 , 0 , 0 , 1 ) in y [ 2 , 1 ]"],
            &["defineTensor ( y , 3 , 3 )", &helper(0), "y [ 2 , 1 ]", "restoreScope ( x |-> 0 , x |-> 2 , 2 )"],
        )
        .cells(&[shape(&[], &["y |-> 3 , 3"])]);
}

/// `ext-pad-invalid-pads`: `rule <k> let Y:Id = pad(X:Id, _, Ps) in _ => knnError("invalid
///  attribute") ...</k> requires … notBool validPads(SH[X], Ps)` — two pads for two axes (four
///  are needed).
#[test]
fn rule_ext_pad_invalid_pads() {
    let source = "let x = initTensor(2, 3) in let y = pad(x, 0.0, 1, 1) in y";
    fire(source, "ext-pad-invalid-pads")
        .k(&["let y = pad ( x , 0.00000000000000000e0 , 1 , 1 ) in y"], &["knnError ( \"invalid attribute\" )"])
        .cells(&[]);
}

/// `ext-pad-helper-copy`: `rule <k> padHelper(X, Y, V, K ... N, Ps) => let Y[rowMajor(K,
///  padded(SH[X], Ps))] = X[unpad(rowMajor(K, padded(SH[X], Ps)), Ps)] in #skip ~> padHelper(X,
///  Y, V, (K +Int 1) ... N, Ps) ...</k> requires K <Int N andBool inside(…)` — its second
///  firing, `K = 4`: `rowMajor(4, (3, 3)) = (1, 1)`, inside, from `(1 - 1, 1 - 0) = (0, 1)`.
#[test]
fn rule_ext_pad_helper_copy() {
    fire_nth(PAD, "ext-pad-helper-copy", 2)
        .k(&[&helper(4)], &["let y [ 1 , 1 ] = x [ 0 , 1 ] in #skip", &helper(5)])
        .cells(&[]);
}

/// `ext-pad-helper-fill`: `rule <k> padHelper(X, Y, V, K ... N, Ps) => let Y[rowMajor(K,
///  padded(SH[X], Ps))] = V in #skip ~> padHelper(X, Y, V, (K +Int 1) ... N, Ps) ...</k>
///  requires K <Int N andBool notBool inside(…)` — its fourth firing: positions 0, 1, 2 (the
///  top row) are the first three, then `K = 5`, `rowMajor(5, (3, 3)) = (1, 2)`, the right border.
#[test]
fn rule_ext_pad_helper_fill() {
    fire_nth(PAD, "ext-pad-helper-fill", 4)
        .k(&[&helper(5)], &["let y [ 1 , 2 ] = -0.10000000000000000e1 in #skip", &helper(6)])
        .cells(&[]);
}

/// `ext-pad-helper-done`: `rule <k> padHelper(_, _, _, N ... N, _) => . ...</k>`
#[test]
fn rule_ext_pad_helper_done() {
    fire(PAD, "ext-pad-helper-done").k(&[&helper(9)], &[]).cells(&[]);
}
