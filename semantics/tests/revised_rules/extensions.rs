//! The rules of the extensions, Ext-1 (`addTensor`), Ext-2 (tensor literals) and Ext-3
//! (`conv2d`), one test each.

use super::*;

// ---------------------------------------------------------------------------------------------
// Ext-1: element-wise tensor addition
// ---------------------------------------------------------------------------------------------

/// `h` at 0 and `b` at 11, both `initTensor(2, 3)` (11 cells each, see the top of this file);
/// shapes `b |-> 2 , 3` and `h |-> 2 , 3`.
const ADD_2D: &str = "let h = initTensor(2, 3) in let b = initTensor(2, 3) in let z = addTensor(h, b) in z[1, 2]";

/// `ext-let-add-tensor`:
/// `rule <k> let X:Id = addTensor(Y:Id, Z:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> addTensorHelper(Y, Z, X,
///  0 ... size({SH[Y]}:>Ints), {SH[Y]}:>Ints) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env>
///  <shape> SH => SH[X <- SH[Y]] </shape> requires Y in_keys(SH) andBool Z in_keys(SH) andBool SH[Y] ==K SH[Z]
///  andBool X =/=K Y andBool X =/=K Z` — `size(2, 3) = 6`.
#[test]
fn rule_ext_let_add_tensor() {
    fire(ADD_2D, "ext-let-add-tensor")
        .k(
            &["let z = addTensor ( h , b ) in z [ 1 , 2 ]"],
            &[
                "defineTensor ( z , 2 , 3 )",
                "addTensorHelper ( h , b , z , 0 ... 6 , 2 , 3 )",
                "z [ 1 , 2 ]",
                "restoreScope ( b |-> 11 h |-> 0 , b |-> 2 , 3 h |-> 2 , 3 )",
            ],
        )
        .cells(&[shape(&[], &["z |-> 2 , 3"])]);
}

/// `ext-add-tensor-shape-mismatch`:
/// `rule <k> let X:Id = addTensor(Y:Id, Z:Id) in _ => knnError("shape mismatch") ...</k> <shape> SH </shape>
///  requires Y in_keys(SH) andBool Z in_keys(SH) andBool notBool broadcastable(SH[Y], SH[Z]) andBool X =/=K Y
///  andBool X =/=K Z` (Ext-8's side condition) — the same six elements, transposed: `(2, 3)` against
///  `(3, 2)`, whose trailing extents 3 and 2 differ and neither is 1.
#[test]
fn rule_ext_add_tensor_shape_mismatch() {
    let source = "let h = initTensor(2, 3) in let b = initTensor(3, 2) in let z = addTensor(h, b) in z[0, 0]";
    fire(source, "ext-add-tensor-shape-mismatch")
        .k(&["let z = addTensor ( h , b ) in z [ 0 , 0 ]"], &["knnError ( \"shape mismatch\" )"])
        .cells(&[]);
}

/// `ext-add-helper-step`:
/// `rule <k> addTensorHelper(Y, Z, X, K ... N, Is) => let X[rowMajor(K, Is)] = Y[rowMajor(K, Is)] + Z[rowMajor(K, Is)]
///  in #skip ~> addTensorHelper(Y, Z, X, (K +Int 1) ... N, Is) ...</k> requires K <Int N`
/// — the fifth firing has `K = 4`, and position 4 of a `(2, 3)` tensor in row-major order is `[1, 1]`.
#[test]
fn rule_ext_add_helper_step() {
    fire_nth(ADD_2D, "ext-add-helper-step", 5)
        .k(
            &["addTensorHelper ( h , b , z , 4 ... 6 , 2 , 3 )"],
            &[
                "let z [ 1 , 1 ] = h [ 1 , 1 ] + b [ 1 , 1 ] in #skip",
                "addTensorHelper ( h , b , z , 5 ... 6 , 2 , 3 )",
            ],
        )
        .cells(&[]);
}

/// `ext-add-helper-done`: `rule <k> addTensorHelper(_, _, _, N ... N, _) => . ...</k>`
#[test]
fn rule_ext_add_helper_done() {
    fire(ADD_2D, "ext-add-helper-done").k(&["addTensorHelper ( h , b , z , 6 ... 6 , 2 , 3 )"], &[]).cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Ext-2: tensor literals
// ---------------------------------------------------------------------------------------------

/// `ext-let-tensor-literal`:
/// `rule <k> let X:Id = initTensor(Is:Ints)[Vs:Nums] in E => E ~> restoreScope(Env, SH) ...</k>
///  <env> Env => Env[X <- L] </env> <shape> SH => SH[X <- Is] </shape>
///  <store> Store => Store layout(L, Is, Vs) </store> <nextLoc> L => L +Int cells(Is) </nextLoc>
///  requires size(Is) ==Int count(Vs)` — `a` holds 0 and 1, so `L = 2`; `layout(2, (2, 3), Vs)`
/// is the module comment's rank-2 layout moved by 2 (`2 |-> tensor(3, 2)`, row 0 at 5, row 1 at
/// 9, `3 |-> tensor(6, 3)`, `4 |-> tensor(10, 3)`), its six leaves the elements in order, the
/// Int `2` an Int; `cells(2, 3) = 3 + 2 * 4 = 11`.
#[test]
fn rule_ext_let_tensor_literal() {
    let source = "let a = initTensor(1) in let t = initTensor(2, 3)[0.5, -1.0, 2, NaN, -0.0, Infinity] in t[1, 2]";
    fire(source, "ext-let-tensor-literal")
        .k(
            &["let t = initTensor ( 2 , 3 ) [ 0.50000000000000000e0 , -0.10000000000000000e1 , 2 , NaN , -0.00000000000000000e0 , Infinity ] in t [ 1 , 2 ]"],
            &["t [ 1 , 2 ]", "restoreScope ( a |-> 0 , a |-> 1 )"],
        )
        .cells(&[
            env(&[], &["t |-> 2"]),
            store(
                &[],
                &[
                    "2 |-> tensor ( 3 , 2 )",
                    "3 |-> tensor ( 6 , 3 )",
                    "4 |-> tensor ( 10 , 3 )",
                    "5 |-> tensor ( 6 , 3 )",
                    "6 |-> 0.50000000000000000e0",
                    "7 |-> -0.10000000000000000e1",
                    "8 |-> 2",
                    "9 |-> tensor ( 10 , 3 )",
                    "10 |-> NaN",
                    "11 |-> -0.00000000000000000e0",
                    "12 |-> Infinity",
                ],
            ),
            next_loc(2, 13),
            shape(&[], &["t |-> 2 , 3"]),
        ]);
}

// ---------------------------------------------------------------------------------------------
// Ext-3: conv2d
// ---------------------------------------------------------------------------------------------

/// `x` (1, 3, 3) at 0 (18 cells: `1 + 1 + cells(3, 3)`), `w` (1, 1, 2, 2) at 18 (13 cells), `b`
/// (1) at 31. With `strides = [2, 1]` and one row of padding on top, the output is
/// `((3 + 1 + 0 − 2) / 2 + 1, (3 − 2) / 1 + 1) = (2, 2)`.
const CONV: &str = "let x = initTensor(1, 3, 3)[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0] in \
     let w = initTensor(1, 1, 2, 2)[1.0, 0.5, -1.0, 2.0] in let b = initTensor(1)[0.25] in \
     let y = conv2d(x, w, b, strides = [2, 1], pads = [1, 0, 0, 0]) in y[0, 0, 1]";

/// `ext-let-conv2d`:
/// `rule <k> let Y:Id = conv2d(X:Id, W:Id, B, As) in E => defineTensor(Y, convShape(SH[X], SH[W], As)) ~>
///  conv2dHelper(X, W, B, Y, As, 0 ... size(convShape(…)), convShape(…)) ~> E ~> restoreScope(Env, SH) ...</k>
///  <env> Env </env> <shape> SH => SH[Y <- convShape(SH[X], SH[W], As)] </shape> requires …` —
/// `convShape = (1, 2, 2)`, 4 positions.
#[test]
fn rule_ext_let_conv2d() {
    fire(CONV, "ext-let-conv2d")
        .k(
            &["let y = conv2d ( x , w , b , strides = [ 2 , 1 ] , pads = [ 1 , 0 , 0 , 0 ] ) in y [ 0 , 0 , 1 ]"],
            &[
                "defineTensor ( y , 1 , 2 , 2 )",
                "conv2dHelper ( x , w , b , y , strides = [ 2 , 1 ] , pads = [ 1 , 0 , 0 , 0 ] , 0 ... 4 , 1 , 2 , 2 )",
                "y [ 0 , 0 , 1 ]",
                "restoreScope ( b |-> 31 w |-> 18 x |-> 0 , b |-> 1 w |-> 1 , 1 , 2 , 2 x |-> 1 , 3 , 3 )",
            ],
        )
        .cells(&[shape(&[], &["y |-> 1 , 2 , 2"])]);
}

/// `ext-conv2d-invalid-attribute`:
/// `rule <k> let Y:Id = conv2d(X:Id, W:Id, B, As) in _ => knnError("invalid attribute") ...</k> requires …
///  notBool validAttrs(As)` — a group of 0.
#[test]
fn rule_ext_conv2d_invalid_attribute() {
    let source =
        "let x = initTensor(1, 2, 2) in let w = initTensor(1, 1, 1, 1) in let y = conv2d(x, w, group = 0) in y";
    fire(source, "ext-conv2d-invalid-attribute")
        .k(&["let y = conv2d ( x , w , group = 0 ) in y"], &["knnError ( \"invalid attribute\" )"])
        .cells(&[]);
}

/// `ext-conv2d-shape-mismatch`:
/// `rule <k> let Y:Id = conv2d(X:Id, W:Id, B, As) in _ => knnError("shape mismatch") ...</k> <shape> SH </shape>
///  requires … validAttrs(As) andBool notBool convShapesOk(SH, X, W, B, As)` — `x` has 2 channels,
/// the kernel takes 1 in 1 group.
#[test]
fn rule_ext_conv2d_shape_mismatch() {
    let source = "let x = initTensor(2, 3, 3) in let w = initTensor(1, 1, 2, 2) in let y = conv2d(x, w) in y";
    fire(source, "ext-conv2d-shape-mismatch")
        .k(&["let y = conv2d ( x , w ) in y"], &["knnError ( \"shape mismatch\" )"])
        .cells(&[]);
}

/// `ext-conv2d-helper-step`:
/// `rule <k> conv2dHelper(X, W, B, Y, As, K ... N, Os) => let Y[rowMajor(K, Os)] = convSum(X, W, B, As, SH[X],
///  SH[W], rowMajor(K, Os)) in #skip ~> conv2dHelper(X, W, B, Y, As, (K +Int 1) ... N, Os) ...</k>
///  <shape> SH </shape> requires K <Int N` — the second firing, `K = 1`, is output `(0, 0, 1)`:
/// rows `0·2 − 1 + KI` = −1 (padding) and 0, columns `1·1 − 0 + KJ` = 1 and 2; the taps in
/// row-major order, padding as `0.0 * W[…]`, then the bias.
#[test]
fn rule_ext_conv2d_helper_step() {
    let zero = "0.00000000000000000e0";
    let sum = format!(
        "{zero} + {zero} * w [ 0 , 0 , 0 , 0 ] + {zero} * w [ 0 , 0 , 0 , 1 ] + x [ 0 , 0 , 1 ] * w [ 0 , 0 , 1 , 0 ] \
         + x [ 0 , 0 , 2 ] * w [ 0 , 0 , 1 , 1 ] + b [ 0 ]"
    );
    fire_nth(CONV, "ext-conv2d-helper-step", 2)
        .k(
            &["conv2dHelper ( x , w , b , y , strides = [ 2 , 1 ] , pads = [ 1 , 0 , 0 , 0 ] , 1 ... 4 , 1 , 2 , 2 )"],
            &[
                &format!("let y [ 0 , 0 , 1 ] = {sum} in #skip"),
                "conv2dHelper ( x , w , b , y , strides = [ 2 , 1 ] , pads = [ 1 , 0 , 0 , 0 ] , 2 ... 4 , 1 , 2 , 2 )",
            ],
        )
        .cells(&[]);
}

/// `ext-conv2d-helper-done`: `rule <k> conv2dHelper(_, _, _, _, _, N ... N, _) => . ...</k>`
#[test]
fn rule_ext_conv2d_helper_done() {
    fire(CONV, "ext-conv2d-helper-done")
        .k(
            &["conv2dHelper ( x , w , b , y , strides = [ 2 , 1 ] , pads = [ 1 , 0 , 0 , 0 ] , 4 ... 4 , 1 , 2 , 2 )"],
            &[],
        )
        .cells(&[]);
}
