//! The rules of Rev-1 … Rev-4, one test each (the harness and the programs are in `main.rs`).

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
