//! The rules of Ext-12 (`slice`), one test each; the expectations are the K rules instantiated by
//! hand.

use super::*;

/// `x` (2, 5) = `[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]` at 0, its columns 1 and 3 (`B = 1`, `E = 5`,
/// `S = 2`): `y` (2, 2) = `[[1, 3], [6, 8]]`.
const SLICE: &str = "let x = initTensor(2, 5)[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0] in let y = slice(x, 1, 1, 5, 2) in y[1, 1]";

/// `ext-let-slice`: `rule <k> let Y:Id = slice(X:Id, A, B, E, S) in E' => defineTensor(Y,
///  sliceShape(SH[X], A, B, E, S)) ~> sliceHelper(X, Y, A, B, S, 0 ... size(…), …) ~> E' ~>
///  restoreScope(Env, SH) ...</k> … requires … validSlice(SH[X], A, B, E, S)` —
///  `(5 - 1 + 2 - 1) / 2 = 2` columns.
#[test]
fn rule_ext_let_slice() {
    fire(SLICE, "ext-let-slice")
        .k(
            &["let y = slice ( x , 1 , 1 , 5 , 2 ) in y [ 1 , 1 ]"],
            &[
                "defineTensor ( y , 2 , 2 )",
                "sliceHelper ( x , y , 1 , 1 , 2 , 0 ... 4 , 2 , 2 )",
                "y [ 1 , 1 ]",
                "restoreScope ( x |-> 0 , x |-> 2 , 5 )",
            ],
        )
        .cells(&[shape(&[], &["y |-> 2 , 2"])]);
}

/// `ext-slice-invalid-attribute`: `… => knnError("invalid attribute") … requires … notBool
///  validSlice(SH[X], Is)` — an end of 6 past the extent 5 (no clamping).
#[test]
fn rule_ext_slice_invalid_attribute() {
    let source = "let x = initTensor(2, 5) in let y = slice(x, 1, 0, 6) in y";
    fire(source, "ext-slice-invalid-attribute")
        .k(&["let y = slice ( x , 1 , 0 , 6 ) in y"], &["knnError ( \"invalid attribute\" )"])
        .cells(&[]);
}

/// `ext-slice-helper-step`: `rule <k> sliceHelper(X, Y, A, B, S, K ... N, Os) => let
///  Y[rowMajor(K, Os)] = X[rowMajor(K, Os)[A <- B +Int rowMajor(K, Os)[A] *Int S]] in #skip ~>
///  sliceHelper(X, Y, A, B, S, (K +Int 1) ... N, Os) ...</k> requires K <Int N` — the fourth
///  firing, `K = 3`: `rowMajor(3, (2, 2)) = (1, 1)`, and `1 + 1 * 2 = 3` along axis 1.
#[test]
fn rule_ext_slice_helper_step() {
    fire_nth(SLICE, "ext-slice-helper-step", 4)
        .k(
            &["sliceHelper ( x , y , 1 , 1 , 2 , 3 ... 4 , 2 , 2 )"],
            &["let y [ 1 , 1 ] = x [ 1 , 3 ] in #skip", "sliceHelper ( x , y , 1 , 1 , 2 , 4 ... 4 , 2 , 2 )"],
        )
        .cells(&[]);
}

/// `ext-slice-helper-done`: `rule <k> sliceHelper(_, _, _, _, _, N ... N, _) => . ...</k>`
#[test]
fn rule_ext_slice_helper_done() {
    fire(SLICE, "ext-slice-helper-done").k(&["sliceHelper ( x , y , 1 , 1 , 2 , 4 ... 4 , 2 , 2 )"], &[]).cells(&[]);
}
