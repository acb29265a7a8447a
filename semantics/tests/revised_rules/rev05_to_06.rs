//! The rules of Rev-5 and Rev-6, one test each (the harness and the programs are in `main.rs`).

use super::*;

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
