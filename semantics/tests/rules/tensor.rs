//! The rules of "Tensor" (k-nn.md L143–213), with the heating and cooling rules of its two
//! `context` declarations, one test each.

use super::*;

/// R05 `let-init-tensor`:
/// `rule <k> let X = initTensor(Is:Ints) in E:Exp => defineTensor(X, Is) ~> E ...</k>
///  <shape>... .Map => X |-> (Is) ...</shape>`
#[test]
fn rule_let_init_tensor() {
    fire("let t = initTensor(2, 3) in t[1, 2]", "let-init-tensor")
        .k(&["let t = initTensor ( 2 , 3 ) in t [ 1 , 2 ]"], &["defineTensor ( t , 2 , 3 )", "t [ 1 , 2 ]"])
        .cells(&[shape(&[], &["t |-> 2 , 3"])]);
}

/// R06 `define-tensor-1d`:
/// `rule <k> defineTensor(X:Id,N:Int) => . ...</k> <env> Env => Env[X <- L] </env>
///  <store>... .Map => L |-> tensor(L +Int 1, N) (L +Int 1) ... (L +Int N) |-> 0.0 ...</store>
///  <nextLoc> L:Int => L +Int 1 +Int N </nextLoc> when N >=Int 0`
///
/// With `L = 0`, `N = 2`; the range map `1 ... 2 |-> 0.0` unfolds through `range-map-cons`
/// twice and ends with `range-map-empty`.
#[test]
fn rule_define_tensor_1d() {
    fire(READ_1D, "define-tensor-1d")
        .k(&["defineTensor ( t , 2 )"], &[])
        .side(&[("range-map-cons", 2), ("range-map-empty", 1)])
        .cells(&[
            env(&[], &["t |-> 0"]),
            store(&[], &["0 |-> tensor ( 1 , 2 )", "1 |-> 0.00000000000000000e0", "2 |-> 0.00000000000000000e0"]),
            next_loc(0, 3),
        ]);
}

/// R07 `define-tensor-nd`:
/// `rule <k> defineTensor(X:Id, I:Int, Rest:Ints) => defineTensor(X, I) ~> defineTensorHelper(X, 0 ...I, Rest:Ints) ...</k>`
#[test]
fn rule_define_tensor_nd() {
    fire(ALLOC_2D, "define-tensor-nd")
        .k(&["defineTensor ( m , 1 , 2 )"], &["defineTensor ( m , 1 )", "defineTensorHelper ( m , 0 ... 1 , 2 )"])
        .cells(&[]);
}

/// R08 `define-tensor-helper-step`:
/// `rule <k> defineTensorHelper(X, I...J, Rest) => defineTensor($1, Rest) ~> storeVal(X[I], $1)
///  ~> defineTensorHelper(X, (I +Int 1)...J, Rest) ...</k> when I <Int J`
#[test]
fn rule_define_tensor_helper_step() {
    fire(ALLOC_2D, "define-tensor-helper-step")
        .k(
            &["defineTensorHelper ( m , 0 ... 1 , 2 )"],
            &["defineTensor ( $1 , 2 )", "storeVal ( m [ 0 ] , $1 )", "defineTensorHelper ( m , 1 ... 1 , 2 )"],
        )
        .cells(&[]);
}

/// R09 `define-tensor-helper-last`:
/// `rule <k> defineTensorHelper(X, I...I, Rest) => defineTensor($1, Rest) ~> storeVal(X[I], $1) ...</k>`
///
/// The range `0 ... 1` visits index 1 too: one row more than `m` has (§2.8).
#[test]
fn rule_define_tensor_helper_last() {
    fire(ALLOC_2D, "define-tensor-helper-last")
        .k(&["defineTensorHelper ( m , 1 ... 1 , 2 )"], &["defineTensor ( $1 , 2 )", "storeVal ( m [ 1 ] , $1 )"])
        .cells(&[]);
}

/// R10 `lookup-id`:
/// `rule <k> X:Id => V ...</k> <env>... X |-> L ...</env> <store>... L |-> V:Val ...</store> [lookup]`
#[test]
fn rule_lookup_id() {
    fire(READ_1D, "lookup-id").k(&["t"], &["tensor ( 1 , 2 )"]).cells(&[]);
}

/// R11 `index-tensor-anywhere`: `rule tensor(L,_)[N:Int] => lookup(L +Int N) [structural, anywhere]`
///
/// It fires as `cool-index-1` builds `tensor(1, 3) [ 2 ]`: `lookup(1 +Int 2)`.
#[test]
fn rule_index_tensor_anywhere() {
    fire(READ_1D_LAST, "index-tensor-anywhere")
        .by("cool-index-1")
        .k(&["tensor ( 1 , 3 )", "□ [ 2 ]"], &["lookup ( 3 )"])
        .side(&[("index-tensor-anywhere", 1)])
        .cells(&[]);
}

/// R12 `index-tensor-split-anywhere`:
/// `rule tensor(L,I)[N:Int, Rest:Ints] => tensor(L,I)[N:Int][Rest:Ints] [structural, anywhere]`
///
/// It fires as `cool-index-1` builds `tensor(1, 2) [ 1 , 0 ]`: that becomes
/// `tensor(1, 2) [ 1 ] [ 0 ]`, whose inner index `index-tensor-anywhere` turns into
/// `lookup(1 +Int 1)`.
#[test]
fn rule_index_tensor_split_anywhere() {
    fire(READ_2D, "index-tensor-split-anywhere")
        .by("cool-index-1")
        .k(&["tensor ( 1 , 2 )", "□ [ 1 , 0 ]"], &["lookup ( 2 ) [ 0 ]"])
        .side(&[("index-tensor-split-anywhere", 1), ("index-tensor-anywhere", 1)])
        .cells(&[]);
}

/// R13 `lookup-loc`: `rule <k> lookup(L) => V ...</k> <store>... L |-> V:Val ...</store> [lookup]`
#[test]
fn rule_lookup_loc() {
    fire(WRITE_1D, "lookup-loc").k(&["lookup ( 3 )"], &["0.50000000000000000e1"]).cells(&[]);
}

/// R14 `let-index-assign`:
/// `rule <k> let X:Id [Is:Ints] = E:Exp in E1:Exp => storeVal(X[Is], E) ~> E1...</k>`
#[test]
fn rule_let_index_assign() {
    fire(WRITE_1D, "let-index-assign")
        .k(
            &["let t [ 2 ] = 0.50000000000000000e1 in t [ 2 ]"],
            &["storeVal ( t [ 2 ] , 0.50000000000000000e1 )", "t [ 2 ]"],
        )
        .cells(&[]);
}

/// `heat-storeval-value`, generated from R15 `context storeVal(_, HOLE)`:
/// `rule <k> storeVal(K0, HOLE) => HOLE ~> storeVal(K0, □) ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_storeval_value() {
    fire(ALLOC_2D, "heat-storeval-value")
        .k(&["storeVal ( m [ 0 ] , $1 )"], &["$1", "storeVal ( m [ 0 ] , □ )"])
        .cells(&[]);
}

/// `cool-storeval-value`, generated from R15 `context storeVal(_, HOLE)`:
/// `rule <k> HOLE ~> storeVal(K0, □) => storeVal(K0, HOLE) ...</k> requires isKResult(HOLE)`
///
/// `$1` was bound to 2 by `defineTensor($1, 2)`, and `2 |-> tensor(3, 2)`.
#[test]
fn rule_cool_storeval_value() {
    fire(ALLOC_2D, "cool-storeval-value")
        .k(&["tensor ( 3 , 2 )", "storeVal ( m [ 0 ] , □ )"], &["storeVal ( m [ 0 ] , tensor ( 3 , 2 ) )"])
        .cells(&[]);
}

/// `heat-storeval-base`, generated from R16 `context storeVal(HOLE[_:Int, _:Ints],_)`:
/// `rule <k> storeVal(HOLE [ K1 , K2 ], K3) => HOLE ~> storeVal(□ [ K1 , K2 ], K3) ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_storeval_base() {
    fire(WRITE_2D, "heat-storeval-base")
        .k(
            &["storeVal ( m [ 0 , 1 ] , 0.50000000000000000e1 )"],
            &["m", "storeVal ( □ [ 0 , 1 ] , 0.50000000000000000e1 )"],
        )
        .cells(&[]);
}

/// `cool-storeval-base`, generated from R16 `context storeVal(HOLE[_:Int, _:Ints],_)`:
/// `rule <k> HOLE ~> storeVal(□ [ K1 , K2 ], K3) => storeVal(HOLE [ K1 , K2 ], K3) ...</k> requires isKResult(HOLE)`
///
/// `m`'s header is `tensor(1, 1)`; building `tensor(1, 1) [ 0 , 1 ]` applies
/// `index-tensor-split-anywhere`, then `index-tensor-anywhere` on `tensor(1, 1) [ 0 ]`.
#[test]
fn rule_cool_storeval_base() {
    fire(WRITE_2D, "cool-storeval-base")
        .k(
            &["tensor ( 1 , 1 )", "storeVal ( □ [ 0 , 1 ] , 0.50000000000000000e1 )"],
            &["storeVal ( lookup ( 1 ) [ 1 ] , 0.50000000000000000e1 )"],
        )
        .side(&[("index-tensor-split-anywhere", 1), ("index-tensor-anywhere", 1)])
        .cells(&[]);
}

/// R17 `storeval-split`: `rule storeVal(X[I:Int, Rest:Ints], V:Val) => storeVal(X[I][Rest], V)`
///
/// Never krun's choice (`heat-storeval-base` is tried first, §2.9); `search` takes it.
#[test]
fn rule_storeval_split() {
    fire(WRITE_2D, "storeval-split")
        .k(
            &["storeVal ( m [ 0 , 1 ] , 0.50000000000000000e1 )"],
            &["storeVal ( m [ 0 ] [ 1 ] , 0.50000000000000000e1 )"],
        )
        .cells(&[]);
}

/// R18 `storeval-id-1d`:
/// `rule <k> storeVal(X[I:Int], V) => . ...</k> <env>... X |-> L ...</env>
///  <store>... (L +Int I +Int 1) |-> (_ => V) ...</store>`
///
/// `t |-> 0`, so element 2 is at `0 +Int 2 +Int 1 = 3`.
#[test]
fn rule_storeval_id_1d() {
    fire(WRITE_1D, "storeval-id-1d")
        .k(&["storeVal ( t [ 2 ] , 0.50000000000000000e1 )"], &[])
        .cells(&[store(&["3 |-> 0.00000000000000000e0"], &["3 |-> 0.50000000000000000e1"])]);
}

/// R19 `storeval-lookup`:
/// `rule <k> storeVal(lookup(L)[I:Int], V) => storeAtVal(T +Int I, V) ...</k>
///  <store>... L |-> tensor(T,_) ...</store>`
///
/// `1 |-> tensor(3, 2)` (row 0 of `m`), so `T +Int I = 3 +Int 1`.
#[test]
fn rule_storeval_lookup() {
    fire(WRITE_2D, "storeval-lookup")
        .k(&["storeVal ( lookup ( 1 ) [ 1 ] , 0.50000000000000000e1 )"], &["storeAtVal ( 4 , 0.50000000000000000e1 )"])
        .cells(&[]);
}

/// R20 `store-at-val`: `rule <k> storeAtVal(L:Int, V:Val) => . ...</k> <store>... L |-> (_ => V) ...</store>`
#[test]
fn rule_store_at_val() {
    fire(WRITE_2D, "store-at-val")
        .k(&["storeAtVal ( 4 , 0.50000000000000000e1 )"], &[])
        .cells(&[store(&["4 |-> 0.00000000000000000e0"], &["4 |-> 0.50000000000000000e1"])]);
}
