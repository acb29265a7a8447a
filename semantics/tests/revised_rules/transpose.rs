//! The rules of Ext-6 (`transpose`), one test each; the expectations are the K rules
//! instantiated by hand.

use super::*;

/// `x` (2, 3) = `[[1, 2, 3], [4, 5, 6]]` at 0, transposed to (3, 2) = `[[1, 4], [2, 5], [3, 6]]`.
const TRANSPOSE: &str =
    "let x = initTensor(2, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0] in let y = transpose(x, 1, 0) in y[2, 1]";

/// `ext-let-transpose`: `rule <k> let Y:Id = transpose(X:Id, Ps) in E => defineTensor(Y,
///  permute(SH[X], Ps)) ~> transposeHelper(X, Y, 0 ... size(SH[X]), Ps) ~> E ~>
///  restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- permute(SH[X], Ps)]
///  </shape> requires … isPermutation(Ps, size(SH[X]))` — `permute((2, 3), (1, 0)) = (3, 2)`.
#[test]
fn rule_ext_let_transpose() {
    fire(TRANSPOSE, "ext-let-transpose")
        .k(
            &["let y = transpose ( x , 1 , 0 ) in y [ 2 , 1 ]"],
            &[
                "defineTensor ( y , 3 , 2 )",
                "transposeHelper ( x , y , 0 ... 6 , 1 , 0 )",
                "y [ 2 , 1 ]",
                "restoreScope ( x |-> 0 , x |-> 2 , 3 )",
            ],
        )
        .cells(&[shape(&[], &["y |-> 3 , 2"])]);
}

/// `ext-transpose-invalid-permutation`: `rule <k> let Y:Id = transpose(X:Id, Ps) in _ =>
///  knnError("invalid attribute") ...</k> requires … notBool isPermutation(Ps, size(SH[X]))` —
///  axis 0 twice.
#[test]
fn rule_ext_transpose_invalid_permutation() {
    let source = "let x = initTensor(2, 3) in let y = transpose(x, 0, 0) in y";
    fire(source, "ext-transpose-invalid-permutation")
        .k(&["let y = transpose ( x , 0 , 0 ) in y"], &["knnError ( \"invalid attribute\" )"])
        .cells(&[]);
}

/// `ext-transpose-helper-step`: `rule <k> transposeHelper(X, Y, K ... N, Ps) => let
///  Y[rowMajor(K, permute(SH[X], Ps))] = X[unpermute(rowMajor(K, permute(SH[X], Ps)), Ps)] in
///  #skip ~> transposeHelper(X, Y, (K +Int 1) ... N, Ps) ...</k> requires K <Int N` — the third
///  firing, `K = 2`: `rowMajor(2, (3, 2)) = (1, 0)`, and `J` with `J[1] = 1`, `J[0] = 0` is
///  `(0, 1)`.
#[test]
fn rule_ext_transpose_helper_step() {
    fire_nth(TRANSPOSE, "ext-transpose-helper-step", 3)
        .k(
            &["transposeHelper ( x , y , 2 ... 6 , 1 , 0 )"],
            &["let y [ 1 , 0 ] = x [ 0 , 1 ] in #skip", "transposeHelper ( x , y , 3 ... 6 , 1 , 0 )"],
        )
        .cells(&[]);
}

/// `ext-transpose-helper-done`: `rule <k> transposeHelper(_, _, N ... N, _) => . ...</k>`
#[test]
fn rule_ext_transpose_helper_done() {
    fire(TRANSPOSE, "ext-transpose-helper-done").k(&["transposeHelper ( x , y , 6 ... 6 , 1 , 0 )"], &[]).cells(&[]);
}
