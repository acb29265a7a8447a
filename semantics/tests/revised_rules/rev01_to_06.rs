//! The rules of Rev-1 … Rev-6, one test each (the harness and the programs are in `main.rs`).

use super::*;

// ---------------------------------------------------------------------------------------------
// Rev-1: a unit marker instead of the Int 0
// ---------------------------------------------------------------------------------------------

/// `rev-skip`: `rule <k> #skip => .K ...</k>`
///
/// Its first use: the `in #skip` body of the first element write of `reluTensorHelper`.
#[test]
fn rule_rev_skip() {
    fire(RELU_1D, "rev-skip")
        .k(&["#skip"], &[])
        .k_after(&[
            "reluTensorHelper ( t , u , 1 ... 3 )",
            "u [ 1 ]",
            "restoreScope ( t |-> 0 , t |-> 3 )",
            "restoreScope ( .Map , .Map )",
        ])
        .cells(&[]);
}

/// `rev-tanh-helper-elem`:
/// `rule tanhTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = tanhItem(E1[I]) in #skip`
#[test]
fn rule_rev_tanh_helper_elem() {
    fire(TANH_1D, "rev-tanh-helper-elem")
        .k(&["tanhTensorHelper ( v [ 0 ] , h [ 0 ] )"], &["let h [ 0 ] = tanhItem ( v [ 0 ] ) in #skip"])
        .cells(&[]);
}

/// `rev-sigmoid-helper-elem`:
/// `rule sigmoidTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = sigmoidItem(E1[I]) in #skip`
#[test]
fn rule_rev_sigmoid_helper_elem() {
    fire(SIGMOID_1D, "rev-sigmoid-helper-elem")
        .k(&["sigmoidTensorHelper ( v [ 0 ] , s [ 0 ] )"], &["let s [ 0 ] = sigmoidItem ( v [ 0 ] ) in #skip"])
        .cells(&[]);
}

/// `rev-linear-mac`: `rule linearHelper(E1, E2, E3) => let E1 = E1 + (E2*E3) in #skip`
#[test]
fn rule_rev_linear_mac() {
    fire(LINEAR, "rev-linear-mac")
        .k(
            &["linearHelper ( y [ 0 ] , W [ 0 ] [ 0 ] , x [ 0 ] )"],
            &["let y [ 0 ] = y [ 0 ] + W [ 0 ] [ 0 ] * x [ 0 ] in #skip"],
        )
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-2: relu at every rank; no accidental clamping
// ---------------------------------------------------------------------------------------------

/// `rev-relu-helper-elem`:
/// `rule reluTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = max(E1[I], 0.0) in #skip`
///
/// The second element (`t[1] = -2.0`) of a rank-1 tensor: the max is there at rank 1 (§3(a)).
#[test]
fn rule_rev_relu_helper_elem() {
    fire_nth(RELU_1D, "rev-relu-helper-elem", 2)
        .k(
            &["reluTensorHelper ( t [ 1 ] , u [ 1 ] )"],
            &["let u [ 1 ] = max ( t [ 1 ] , 0.00000000000000000e0 ) in #skip"],
        )
        .cells(&[]);
}

/// `rev-let-index-flatten`: `rule let E:Exp[I:Int][Is:Ints] = V:Val in B:Exp => let E[I, Is] = V in B`
///
/// A user write with chained indices is flattened without a max (§3(c)); a rank-3 chain
/// `t[1][0][1]` takes two steps: `E = t[1]`, `I = 0`, `Is = 1`, then `E = t`, `I = 1`,
/// `Is = 0 , 1`.
#[test]
fn rule_rev_let_index_flatten() {
    let chained_2d = format!("{M_2X2}let m[0][1] = -5.0 in m[0, 1]");
    fire(&chained_2d, "rev-let-index-flatten")
        .k(
            &["let m [ 0 ] [ 1 ] = -0.50000000000000000e1 in m [ 0 , 1 ]"],
            &["let m [ 0 , 1 ] = -0.50000000000000000e1 in m [ 0 , 1 ]"],
        )
        .cells(&[]);
    let chained_3d = "let t = initTensor(2, 2, 2) in let t[1][0][1] = 4.0 in t[1, 0, 1]";
    fire(chained_3d, "rev-let-index-flatten")
        .k(
            &["let t [ 1 ] [ 0 ] [ 1 ] = 0.40000000000000000e1 in t [ 1 , 0 , 1 ]"],
            &["let t [ 1 ] [ 0 , 1 ] = 0.40000000000000000e1 in t [ 1 , 0 , 1 ]"],
        )
        .cells(&[]);
    fire_nth(chained_3d, "rev-let-index-flatten", 2)
        .k(
            &["let t [ 1 ] [ 0 , 1 ] = 0.40000000000000000e1 in t [ 1 , 0 , 1 ]"],
            &["let t [ 1 , 0 , 1 ] = 0.40000000000000000e1 in t [ 1 , 0 , 1 ]"],
        )
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-3: assignment through any number of index levels, computed values only
// ---------------------------------------------------------------------------------------------

/// `rev-let-index-assign`:
/// `rule <k> let X:Id [Is:Ints] = V:Val in E1:Exp => storeVal(X[Is], V) ~> E1 ...</k>`
///
/// The value `1.0 + 4.0` is computed first (`heat-let-2`, `add-float`, `cool-let-2`): the rule
/// only takes a value.
#[test]
fn rule_rev_let_index_assign() {
    fire(WRITE_1D, "rev-let-index-assign")
        .k(
            &["let t [ 2 ] = 0.50000000000000000e1 in t [ 2 ]"],
            &["storeVal ( t [ 2 ] , 0.50000000000000000e1 )", "t [ 2 ]"],
        )
        .cells(&[]);
}

/// `rev-storeval-walk`:
/// `rule <k> storeVal(lookup(L)[I:Int, Rest:Ints], V:Val) => storeVal(lookup(T +Int I)[Rest], V) ...</k>
///  <store>... L |-> tensor(T, N) ...</store> requires 0 <=Int I andBool I <Int N`
///
/// `t[1, 1, 0]`: cooling `t`'s header gives `lookup(1 +Int 1)[1, 0]`; `2 |-> tensor(13, 2)`, so
/// `T +Int I = 13 +Int 1`.
#[test]
fn rule_rev_storeval_walk() {
    fire(WRITE_3D, "rev-storeval-walk")
        .k(
            &["storeVal ( lookup ( 2 ) [ 1 , 0 ] , -0.30000000000000000e1 )"],
            &["storeVal ( lookup ( 14 ) [ 0 ] , -0.30000000000000000e1 )"],
        )
        .cells(&[]);
}

/// `rev-heat-storeval-base`, generated from `rev-ctx-storeval-base-id`
/// (`context storeVal(HOLE:Id[_:Int, _:Ints],_)`):
/// `rule <k> storeVal(HOLE:Id [ K1 , K2 ], K3) => HOLE ~> storeVal(□ [ K1 , K2 ], K3) ...</k>
///  requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_rev_heat_storeval_base() {
    fire(WRITE_2D, "rev-heat-storeval-base")
        .k(
            &["storeVal ( m [ 0 , 1 ] , 0.50000000000000000e1 )"],
            &["m", "storeVal ( □ [ 0 , 1 ] , 0.50000000000000000e1 )"],
        )
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-4: allocation without `$1`, exactly N sub-tensors
// ---------------------------------------------------------------------------------------------

/// `rev-define-tensor`: `rule <k> defineTensor(X:Id, Is:Ints) => alloc(Is) ~> bindTo(X) ...</k>`
#[test]
fn rule_rev_define_tensor() {
    fire(ALLOC_2D, "rev-define-tensor")
        .k(&["defineTensor ( t , 2 , 3 )"], &["alloc ( 2 , 3 )", "bindTo ( t )"])
        .cells(&[]);
}

/// `rev-alloc-1d`:
/// `rule <k> alloc(N:Int) => tensor(L +Int 1, N) ...</k>
///  <store>... .Map => L |-> tensor(L +Int 1, N) (L +Int 1) ... (L +Int N) |-> 0.0 ...</store>
///  <nextLoc> L:Int => L +Int 1 +Int N </nextLoc> requires N >=Int 0`
///
/// The second allocation of the program, at `L = 2` with `N = 2`: the range map `3 ... 4 |-> 0.0`
/// unfolds through `range-map-cons` twice and ends with `range-map-empty`.
#[test]
fn rule_rev_alloc_1d() {
    fire_nth(TWO_VECTORS, "rev-alloc-1d", 2)
        .k(&["alloc ( 2 )"], &["tensor ( 3 , 2 )"])
        .side(&[("range-map-cons", 2), ("range-map-empty", 1)])
        .cells(&[
            store(&[], &["2 |-> tensor ( 3 , 2 )", "3 |-> 0.00000000000000000e0", "4 |-> 0.00000000000000000e0"]),
            next_loc(2, 5),
        ]);
}

/// `rev-alloc-nd`:
/// `rule <k> alloc(N:Int, Rest:Ints) => fill(L, 0, N, Rest) ~> tensor(L +Int 1, N) ...</k>
///  <store>... .Map => L |-> tensor(L +Int 1, N) (L +Int 1) ... (L +Int N) |-> 0.0 ...</store>
///  <nextLoc> L:Int => L +Int 1 +Int N </nextLoc> requires N >=Int 0`
///
/// `L = 0`, `N = 2`, `Rest = 3`.
#[test]
fn rule_rev_alloc_nd() {
    fire(ALLOC_2D, "rev-alloc-nd")
        .k(&["alloc ( 2 , 3 )"], &["fill ( 0 , 0 , 2 , 3 )", "tensor ( 1 , 2 )"])
        .side(&[("range-map-cons", 2), ("range-map-empty", 1)])
        .cells(&[
            store(&[], &["0 |-> tensor ( 1 , 2 )", "1 |-> 0.00000000000000000e0", "2 |-> 0.00000000000000000e0"]),
            next_loc(0, 3),
        ]);
}

/// `rev-alloc-negative`:
/// `rule <k> alloc(N:Int) => knnError("negative dimension") ...</k> requires N <Int 0` and
/// `rule <k> alloc(N:Int, _:Ints) => knnError("negative dimension") ...</k> requires N <Int 0`
///
/// Programs cannot write a negative dimension: `let t = initTensor(-1) in 1.0` and
/// `let t = initTensor(-2, 3) in 1.0` are built by hand, one per pattern.
#[test]
fn rule_rev_alloc_negative() {
    fire_from(init_tensor_config(&[-1]), "rev-alloc-negative", "let t = initTensor(-1) in 1.0")
        .k(&["alloc ( -1 )"], &["knnError ( \"negative dimension\" )"])
        .k_after(&[
            "knnError ( \"negative dimension\" )",
            "bindTo ( t )",
            "0.10000000000000000e1",
            "restoreScope ( .Map , .Map )",
        ])
        .cells(&[]);
    fire_from(init_tensor_config(&[-2, 3]), "rev-alloc-negative", "let t = initTensor(-2, 3) in 1.0")
        .k(&["alloc ( -2 , 3 )"], &["knnError ( \"negative dimension\" )"])
        .cells(&[]);
}

/// `rev-fill-step`:
/// `rule <k> fill(H, I, N, Rest) => alloc(Rest) ~> writeAt(H +Int 1 +Int I) ~> fill(H, I +Int 1, N, Rest) ...</k>
///  requires I <Int N`
#[test]
fn rule_rev_fill_step() {
    fire(ALLOC_2D, "rev-fill-step")
        .k(&["fill ( 0 , 0 , 2 , 3 )"], &["alloc ( 3 )", "writeAt ( 1 )", "fill ( 0 , 1 , 2 , 3 )"])
        .cells(&[]);
}

/// `rev-fill-done`: `rule <k> fill(_, I, N, _) => .K ...</k> requires I >=Int N`
///
/// When it fires, `initTensor(2, 3)` occupies exactly 1+2 + 2×(1+3) = 11 cells, laid out as in
/// the module comment: no overwritten header, no extra row.
#[test]
fn rule_rev_fill_done() {
    let f = fire(ALLOC_2D, "rev-fill-done").k(&["fill ( 0 , 2 , 2 , 3 )"], &[]);
    let zero = "0.00000000000000000e0";
    let expected_store = [
        "0 |-> tensor ( 1 , 2 )".to_string(),
        "1 |-> tensor ( 4 , 3 )".to_string(),
        "2 |-> tensor ( 8 , 3 )".to_string(),
        "3 |-> tensor ( 4 , 3 )".to_string(),
        format!("4 |-> {zero}"),
        format!("5 |-> {zero}"),
        format!("6 |-> {zero}"),
        "7 |-> tensor ( 8 , 3 )".to_string(),
        format!("8 |-> {zero}"),
        format!("9 |-> {zero}"),
        format!("10 |-> {zero}"),
    ];
    assert_eq!(cell_lines(&f.before, "store"), expected_store);
    assert_eq!(cell_lines(&f.before, "nextLoc"), ["11"]);
    f.cells(&[]);
}

/// `rev-write-at`: `rule <k> V:Val ~> writeAt(Loc) => .K ...</k> <store>... Loc |-> (_ => V) ...</store>`
///
/// Row 0's header `tensor(4, 3)` goes into element 0 of `t` (cell `0 +Int 1 +Int 0`).
#[test]
fn rule_rev_write_at() {
    fire(ALLOC_2D, "rev-write-at")
        .k(&["tensor ( 4 , 3 )", "writeAt ( 1 )"], &[])
        .cells(&[store(&["1 |-> 0.00000000000000000e0"], &["1 |-> tensor ( 4 , 3 )"])]);
}

/// `rev-bind-to`: `rule <k> tensor(B, _) ~> bindTo(X) => .K ...</k> <env> Env => Env[X <- B -Int 1] </env>`
///
/// `t`'s header is `tensor(3, 2)`: `t` is bound to `3 -Int 1`.
#[test]
fn rule_rev_bind_to() {
    fire_nth(TWO_VECTORS, "rev-bind-to", 2)
        .k(&["tensor ( 3 , 2 )", "bindTo ( t )"], &[])
        .cells(&[env(&[], &["t |-> 2"])]);
}

// ---------------------------------------------------------------------------------------------
// Rev-5: bounds-checked reads and writes
// ---------------------------------------------------------------------------------------------

/// `rev-error-abort`: `rule <k> knnError(S) ~> _:KItem => knnError(S) ...</k>`
///
/// §3(e), "header clobbered": the error of `a[2] := 9.0` discards the body `b[0]`, then the
/// scopes (without restoring them).
#[test]
fn rule_rev_error_abort() {
    let source = format!("{AB}let a[2] = 9.0 in b[0]");
    fire(&source, "rev-error-abort")
        .k(&["knnError ( \"index out of bounds\" )", "b [ 0 ]"], &["knnError ( \"index out of bounds\" )"])
        .cells(&[]);
}

/// `rev-index-anywhere`: `rule tensor(L, N)[I:Int] => lookup(L +Int I) requires 0 <=Int I andBool I <Int N [anywhere]`
///
/// It fires as `cool-index-1` builds `tensor(3, 2) [ 1 ]`: `lookup(3 +Int 1)`.
#[test]
fn rule_rev_index_anywhere() {
    fire(TWO_VECTORS, "rev-index-anywhere")
        .by("cool-index-1")
        .k(&["tensor ( 3 , 2 )", "□ [ 1 ]"], &["lookup ( 4 )"])
        .side(&[("rev-index-anywhere", 1)])
        .cells(&[]);
}

/// `rev-index-out-of-bounds-anywhere`:
/// `rule tensor(_, N)[I:Int] => knnError("index out of bounds") requires I <Int 0 orBool I >=Int N [anywhere]`
///
/// §3(k): `X[0]` on `initTensor(0)`; it fires as `cool-index-1` builds `tensor(1, 0) [ 0 ]`.
#[test]
fn rule_rev_index_out_of_bounds_anywhere() {
    fire("let X = initTensor(0) in X[0]", "rev-index-out-of-bounds-anywhere")
        .by("cool-index-1")
        .k(&["tensor ( 1 , 0 )", "□ [ 0 ]"], &["knnError ( \"index out of bounds\" )"])
        .side(&[("rev-index-out-of-bounds-anywhere", 1)])
        .cells(&[]);
}

/// `rev-index-scalar`: `rule <k> _:Float [ _:Ints ] => knnError("too many indices") ...</k>`
///
/// `t[0, 1]` on a vector: `lookup(1)[1]` reads the Float `0.0`, which cannot be indexed.
#[test]
fn rule_rev_index_scalar() {
    fire("let t = initTensor(2) in t[0, 1]", "rev-index-scalar")
        .k(&["0.00000000000000000e0 [ 1 ]"], &["knnError ( \"too many indices\" )"])
        .cells(&[]);
}

/// `rev-storeval-error`: `rule <k> storeVal(knnError(S)[_:Ints], _) => knnError(S) ...</k>`
///
/// `m[2, 0] := 1.0` on a 2×2 tensor: cooling `m`'s header builds `tensor(1, 2) [ 2 , 0 ]`, whose
/// first level is out of bounds.
#[test]
fn rule_rev_storeval_error() {
    let source = format!("{M_2X2}let m[2, 0] = 1.0 in m[0, 0]");
    fire(&source, "rev-storeval-error")
        .k(
            &["storeVal ( knnError ( \"index out of bounds\" ) [ 0 ] , 0.10000000000000000e1 )"],
            &["knnError ( \"index out of bounds\" )"],
        )
        .cells(&[]);
}

/// `rev-storeval-id`:
/// `rule <k> storeVal(X:Id[I:Int], V:Val) => .K ...</k> <env>... X |-> L ...</env>
///  <store>... L |-> tensor(T, N) (T +Int I) |-> (_ => V) ...</store> requires 0 <=Int I andBool I <Int N`
///
/// §3(l), a write through an alias: `Y |-> 3` and `3 |-> tensor(1, 2)` (a copy of `X`'s header),
/// so element 1 is at `1 +Int 1`, which is `X[1]`.
#[test]
fn rule_rev_storeval_id() {
    fire("let X = initTensor(2) in let Y = X in let Y[1] = 4.0 in X[1]", "rev-storeval-id")
        .k(&["storeVal ( Y [ 1 ] , 0.40000000000000000e1 )"], &[])
        .cells(&[store(&["2 |-> 0.00000000000000000e0"], &["2 |-> 0.40000000000000000e1"])]);
}

/// `rev-storeval-id-out-of-bounds`:
/// `rule <k> storeVal(X:Id[I:Int], _:Val) => knnError("index out of bounds") ...</k>
///  <env>... X |-> L ...</env> <store>... L |-> tensor(_, N) ...</store> requires I <Int 0 orBool I >=Int N`
///
/// §3(e), "header clobbered": `a |-> 0`, `0 |-> tensor(1, 2)`, and `2 >=Int 2`.
#[test]
fn rule_rev_storeval_id_out_of_bounds() {
    let source = format!("{AB}let a[2] = 9.0 in b[0]");
    fire(&source, "rev-storeval-id-out-of-bounds")
        .k(&["storeVal ( a [ 2 ] , 0.90000000000000000e1 )"], &["knnError ( \"index out of bounds\" )"])
        .cells(&[]);
}

/// `rev-storeval-id-scalar`:
/// `rule <k> storeVal(X:Id[_:Int], _:Val) => knnError("too many indices") ...</k>
///  <env>... X |-> L ...</env> <store>... L |-> S ...</store> requires notBool isTensor(S)`
///
/// `x |-> 0` and `0 |-> 2.0`.
#[test]
fn rule_rev_storeval_id_scalar() {
    fire("let x = 2.0 in let x[0] = 1.0 in x", "rev-storeval-id-scalar")
        .k(&["storeVal ( x [ 0 ] , 0.10000000000000000e1 )"], &["knnError ( \"too many indices\" )"])
        .cells(&[]);
}

/// `rev-storeval-id-unbound`:
/// `rule <k> storeVal(X:Id[_:Int], _:Val) => knnError("unbound identifier") ...</k>
///  <env> Env </env> requires notBool X in_keys(Env)`
///
/// `u` went out of scope with its `let` (Rev-12).
#[test]
fn rule_rev_storeval_id_unbound() {
    fire("(let u = initTensor(1) in 2.0) + (let u[0] = 1.0 in 3.0)", "rev-storeval-id-unbound")
        .k(&["storeVal ( u [ 0 ] , 0.10000000000000000e1 )"], &["knnError ( \"unbound identifier\" )"])
        .cells(&[]);
}

/// `rev-storeval-lookup`:
/// `rule <k> storeVal(lookup(L)[I:Int], V:Val) => storeAtVal(T +Int I, V) ...</k>
///  <store>... L |-> tensor(T, N) ...</store> requires 0 <=Int I andBool I <Int N`
///
/// `1 |-> tensor(3, 2)` (row 0 of `m`), so `T +Int I = 3 +Int 1`.
#[test]
fn rule_rev_storeval_lookup() {
    fire(WRITE_2D, "rev-storeval-lookup")
        .k(&["storeVal ( lookup ( 1 ) [ 1 ] , 0.50000000000000000e1 )"], &["storeAtVal ( 4 , 0.50000000000000000e1 )"])
        .cells(&[]);
}

/// `rev-storeval-lookup-out-of-bounds`:
/// `rule <k> storeVal(lookup(L)[I:Int], _:Val) => knnError("index out of bounds") ...</k>
///  <store>... L |-> tensor(_, N) ...</store> requires I <Int 0 orBool I >=Int N` and
/// `rule <k> storeVal(lookup(L)[I:Int, _:Ints], _:Val) => knnError("index out of bounds") ...</k>
///  <store>... L |-> tensor(_, N) ...</store> requires I <Int 0 orBool I >=Int N`
///
/// §3(e), "row overflow": `m[0, 3]` with `1 |-> tensor(4, 2)`; and, for the second pattern,
/// `t[0, 5, 0]` on a 2×2×2 tensor with `1 |-> tensor(4, 2)`.
#[test]
fn rule_rev_storeval_lookup_out_of_bounds() {
    let row_overflow = format!("{M_2X2}let m[0, 3] = 5.0 in m[1, 0]");
    fire(&row_overflow, "rev-storeval-lookup-out-of-bounds")
        .k(&["storeVal ( lookup ( 1 ) [ 3 ] , 0.50000000000000000e1 )"], &["knnError ( \"index out of bounds\" )"])
        .cells(&[]);
    fire("let t = initTensor(2, 2, 2) in let t[0, 5, 0] = 1.0 in 1.0", "rev-storeval-lookup-out-of-bounds")
        .k(&["storeVal ( lookup ( 1 ) [ 5 , 0 ] , 0.10000000000000000e1 )"], &["knnError ( \"index out of bounds\" )"])
        .cells(&[]);
}

/// `rev-storeval-scalar`:
/// `rule <k> storeVal(lookup(L)[_:Ints], _:Val) => knnError("too many indices") ...</k>
///  <store>... L |-> _:Float ...</store>`
///
/// `t[0, 1] := 1.0` on a vector: `1 |-> 0.0`.
#[test]
fn rule_rev_storeval_scalar() {
    fire("let t = initTensor(2) in let t[0, 1] = 1.0 in t[0]", "rev-storeval-scalar")
        .k(&["storeVal ( lookup ( 1 ) [ 1 ] , 0.10000000000000000e1 )"], &["knnError ( \"too many indices\" )"])
        .cells(&[]);
}

/// `rev-unbound-identifier`: `rule <k> X:Id => knnError("unbound identifier") ...</k> [owise]`
///
/// §3(i), "escaped u": `u` is no longer bound once its `let` is done.
#[test]
fn rule_rev_unbound_identifier() {
    fire("(let u = initTensor(1) in 2.0) + u[0]", "rev-unbound-identifier")
        .k(&["u"], &["knnError ( \"unbound identifier\" )"])
        .k_after(&["knnError ( \"unbound identifier\" )", "□ [ 0 ]", "0.20000000000000000e1 + □"])
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-6: ArgMax from element 0, ties to the first index, no shape needed
// ---------------------------------------------------------------------------------------------

/// `rev-argmax-start`:
/// `rule <k> ArgMax(X:Id) => ArgMaxHelper(X, 1 ... N, F0, 0) ...</k> <env>... X |-> L ...</env>
///  <store>... L |-> tensor(T, N) T |-> F0:Float ...</store> requires N >Int 0`
///
/// `s |-> 0`, `0 |-> tensor(1, 3)`, `1 |-> 1.0`.
#[test]
fn rule_rev_argmax_start() {
    fire(ARGMAX_TIE, "rev-argmax-start")
        .k(&["ArgMax ( s )"], &["ArgMaxHelper ( s , 1 ... 3 , 0.10000000000000000e1 , 0 )"])
        .cells(&[]);
}

/// `rev-argmax-step-greater`:
/// `rule <k> ArgMaxHelper(X, I...J, F:Float, _:Int) => ArgMaxHelper(X, (I +Int 1)...J, F2, I) ...</k>
///  <env>... X |-> L ...</env> <store>... L |-> tensor(T, _) (T +Int I) |-> F2:Float ...</store>
///  requires I <Int J andBool F2 >Float F`
///
/// Element 1 (cell `1 +Int 1`) is `4.0 > 1.0`.
#[test]
fn rule_rev_argmax_step_greater() {
    fire(ARGMAX_TIE, "rev-argmax-step-greater")
        .k(
            &["ArgMaxHelper ( s , 1 ... 3 , 0.10000000000000000e1 , 0 )"],
            &["ArgMaxHelper ( s , 2 ... 3 , 0.40000000000000000e1 , 1 )"],
        )
        .cells(&[]);
}

/// `rev-argmax-step-not-greater`:
/// `rule <k> ArgMaxHelper(X, I...J, F:Float, II:Int) => ArgMaxHelper(X, (I +Int 1)...J, F, II) ...</k>
///  <env>... X |-> L ...</env> <store>... L |-> tensor(T, _) (T +Int I) |-> F2:Float ...</store>
///  requires I <Int J andBool notBool (F2 >Float F)`
///
/// Element 2 (cell `1 +Int 2`) ties with the maximum `4.0`: the earlier index 1 is kept.
#[test]
fn rule_rev_argmax_step_not_greater() {
    fire(ARGMAX_TIE, "rev-argmax-step-not-greater")
        .k(
            &["ArgMaxHelper ( s , 2 ... 3 , 0.40000000000000000e1 , 1 )"],
            &["ArgMaxHelper ( s , 3 ... 3 , 0.40000000000000000e1 , 1 )"],
        )
        .cells(&[]);
}

/// `rev-argmax-empty`:
/// `rule <k> ArgMax(X:Id) => knnError("ArgMax of an empty vector") ...</k> <env>... X |-> L ...</env>
///  <store>... L |-> tensor(_, 0) ...</store>`
///
/// §3(k): `ArgMax` of `initTensor(0)`.
#[test]
fn rule_rev_argmax_empty() {
    fire("let X = initTensor(0) in ArgMax(X)", "rev-argmax-empty")
        .k(&["ArgMax ( X )"], &["knnError ( \"ArgMax of an empty vector\" )"])
        .cells(&[]);
}

/// `rev-argmax-error`:
/// `rule <k> ArgMax(_) => knnError("ArgMax expects a non-empty vector of floats") ...</k> [owise]`
///
/// A rank-2 argument: `m`'s element 0 is the row header `tensor(4, 2)`, not a Float.
#[test]
fn rule_rev_argmax_error() {
    fire(&format!("{M_2X2}ArgMax(m)"), "rev-argmax-error")
        .k(&["ArgMax ( m )"], &["knnError ( \"ArgMax expects a non-empty vector of floats\" )"])
        .cells(&[]);
}
