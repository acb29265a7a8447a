//! One unit test per rule that the revised profile adds (docs/semantics.md §4, Rev-0…Rev-13: every
//! `rev-…` rule of `Profile::revised().fireable()`), grouped by patch, and the revised profile's
//! global property: every configuration has at most one successor.
//!
//! Each rule test walks krun's path under the REVISED profile (programs read with its grammar)
//! until the rule is among the successors of the current configuration, then checks that step:
//! the top of `<k>` before and after, the rest of `<k>` untouched, the changes of `<env>`,
//! `<store>`, `<nextLoc>` and `<shape>` (every cell not listed must be unchanged), and the
//! `[anywhere]` / `[function]` rules fired while the right-hand side was built.
//!
//! The expected texts are derived by hand from the K rules (the rule's left-hand side
//! instantiated on the program's state, its right-hand side printed as krun prints it), not
//! copied from the engine. Under the revised rules a `let` of a value binds it in a fresh store
//! cell (Rev-12) and every binding `let` ends with `restoreScope(Env, SH)`; a tensor is
//! allocated by `alloc`/`fill`/`writeAt`/`bindTo` (Rev-4), so `initTensor(2, 3)` at 0 lays out
//! `0 |-> tensor(1, 2)`, row 0 at 3 (`3 |-> tensor(4, 3)`, `4 .. 6`), row 1 at 7
//! (`7 |-> tensor(8, 3)`, `8 .. 10`), with `1 |-> tensor(4, 3)` and `2 |-> tensor(8, 3)`.

mod common;

use common::firing::{self, Firing, cell_lines, env, next_loc, shape, store};

use std::collections::{BTreeSet, HashSet, VecDeque};
use std::path::Path;

use knn_semantics::config::Config;
use knn_semantics::inputs::{TensorInput, initial_config};
use knn_semantics::profile::{Priorities, Profile};
use knn_semantics::successors;
use knn_semantics::syntax::{Span, parse_program};
use knn_semantics::term::{FuncTerm, Ints, Node, Sym, Term, term_of_program};

// ---------------------------------------------------------------------------------------------
// Harness (the published one of `rules.rs`, with the profile as a parameter)
// ---------------------------------------------------------------------------------------------

/// Walks krun's path under the revised profile from the program `source` until `id` fires.
fn fire(source: &str, id: &'static str) -> Firing {
    fire_nth(source, id, 1)
}

/// Like [`fire`], but stops at the `nth` firing of `id` (1 is the first); the earlier firings
/// are taken as krun's steps.
fn fire_nth(source: &str, id: &'static str, nth: usize) -> Firing {
    firing::fire_in(Profile::revised(), common::revised_initial(source), id, nth, source)
}

/// Walks krun's path under the revised profile from a configuration built by hand.
fn fire_from(config: Config, id: &'static str, what: &str) -> Firing {
    firing::fire_in(Profile::revised(), config, id, 1, what)
}

/// `<k> let t = initTensor(dims) in 1.0 </k>`, built by hand: programs cannot write a negative
/// dimension (Ints are `[0-9]+`, §2.2).
fn init_tensor_config(dims: &[i64]) -> Config {
    let span = Span::default();
    let func = FuncTerm::InitTensor(Ints::new(dims).expect("at least one dimension"));
    let target = Term::id(&Sym::new("t"), span);
    Config::initial(Term::new(Node::LetFunc { target, func, func_span: span, body: Term::float(1.0, span) }, span))
}

// ---------------------------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------------------------

/// `a` at 0 (`0 |-> tensor(1, 1)`, `1 |-> 0.0`), then `t` at 2 (`2 |-> tensor(3, 2)`,
/// `3, 4 |-> 0.0`).
const TWO_VECTORS: &str = "let a = initTensor(1) in let t = initTensor(2) in t[1]";
/// `t` at 0 with the rank-2 layout of the module comment: 11 cells.
const ALLOC_2D: &str = "let t = initTensor(2, 3) in t[1, 2]";
/// `t` at 0: `0 |-> tensor(1, 3)`, `1, 2, 3 |-> 0.0`.
const WRITE_1D: &str = "let t = initTensor(3) in let t[2] = 1.0 + 4.0 in t[2]";
/// `m` at 0: `0 |-> tensor(1, 1)`, `1 |-> tensor(3, 2)`; row 0 at 2: `2 |-> tensor(3, 2)`,
/// `3, 4 |-> 0.0`.
const WRITE_2D: &str = "let m = initTensor(1, 2) in let m[0, 1] = 5.0 in m[0, 1]";
/// `t` at 0: `0 |-> tensor(1, 2)`, `1 |-> tensor(4, 2)`, `2 |-> tensor(13, 2)`; `t[0]` at 3
/// (`3 |-> tensor(4, 2)`, `4 |-> tensor(7, 2)`, `5 |-> tensor(10, 2)`, vectors at 6 and 9);
/// `t[1]` at 12 (`12 |-> tensor(13, 2)`, `13 |-> tensor(16, 2)`, `14 |-> tensor(19, 2)`,
/// vectors at 15 and 18): 21 cells.
const WRITE_3D: &str = "let t = initTensor(2, 2, 2) in let t[1, 1, 0] = -3.0 in t[1, 1, 0]";
/// `m` at 0: `0 |-> tensor(1, 2)`, rows at 3 (`3 |-> tensor(4, 2)`) and 6 (`6 |-> tensor(7, 2)`),
/// `1 |-> tensor(4, 2)`, `2 |-> tensor(7, 2)`.
const M_2X2: &str = "let m = initTensor(2, 2) in ";
/// docs/semantics.md §3(a): `t` at 0 (`0 |-> tensor(1, 3)`), `u` at 4.
const RELU_1D: &str = "let t = initTensor(3) in let t[1] = -2.0 in let t[2] = 5.0 in (let u = reluTensor(t) in u[1])";
/// `v` at 0 with `1 |-> -1.0`, `h` at 2.
const TANH_1D: &str = "let v = initTensor(1) in let v[0] = -1.0 in (let h = tanhTensor(v) in h[0])";
/// `v` at 0 with `1 |-> 0.0`, `s` at 2.
const SIGMOID_1D: &str = "let v = initTensor(1) in let s = sigmoidTensor(v) in s[0]";
/// `m` at 0: `0 |-> tensor(1, 1)`, row 0 at 2.
const SIGMOID_2D: &str = "let m = initTensor(1, 2) in let s = sigmoidTensor(m) in s[0, 1]";
/// `x` at 0 (`0 |-> tensor(1, 2)`), `W` at 3 (`3 |-> tensor(4, 1)`, `4 |-> tensor(6, 2)`, row 0
/// at 5: `5 |-> tensor(6, 2)`, `6, 7 |-> 0.0`); shapes `W |-> 1 , 2` and `x |-> 2`.
const LINEAR: &str = "let x = initTensor(2) in let W = initTensor(1, 2) in let y = linear(W, x) in y[0]";
/// `s = [1.0, 4.0, 4.0]` at 0: element `I` at `1 +Int I`; a tie at the maximum.
const ARGMAX_TIE: &str = "let s = initTensor(3) in let s[0] = 1.0 in let s[1] = 4.0 in let s[2] = 4.0 in ArgMax(s)";
/// docs/semantics.md §3(i), "scalar after tensor": `t` at 0 (`0 |-> tensor(1, 2)`), then the
/// scalar `t` in cell 3.
const SHADOW_SCALAR: &str = "let t = initTensor(2) in let t = 5.0 in t";
/// docs/semantics.md §3(e): `a` at 0 (`0 |-> tensor(1, 2)`), `b` at 3.
const AB: &str = "let a = initTensor(2) in let b = initTensor(2) in ";

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

// ---------------------------------------------------------------------------------------------
// Rev-7: every tensor-producing let records its shape, by update (with Rev-12's scopes)
// ---------------------------------------------------------------------------------------------

/// `rev-let-init-tensor`:
/// `rule <k> let X:Id = initTensor(Is:Ints) in E:Exp => defineTensor(X, Is) ~> E ~> restoreScope(Env, SH) ...</k>
///  <env> Env </env> <shape> SH => SH[X <- Is] </shape>`
///
/// §3(i), `initTensor` shadowing: the outer `let` in empty cells, then the inner one, whose
/// shape entry replaces the outer one (an update, not a concatenation).
#[test]
fn rule_rev_let_init_tensor() {
    let source = "let t = initTensor(2) in let t = initTensor(3) in t[0]";
    fire(source, "rev-let-init-tensor")
        .k(
            &["let t = initTensor ( 2 ) in let t = initTensor ( 3 ) in t [ 0 ]"],
            &["defineTensor ( t , 2 )", "let t = initTensor ( 3 ) in t [ 0 ]", "restoreScope ( .Map , .Map )"],
        )
        .cells(&[shape(&[], &["t |-> 2"])]);
    fire_nth(source, "rev-let-init-tensor", 2)
        .k(
            &["let t = initTensor ( 3 ) in t [ 0 ]"],
            &["defineTensor ( t , 3 )", "t [ 0 ]", "restoreScope ( t |-> 0 , t |-> 2 )"],
        )
        .cells(&[shape(&["t |-> 2"], &["t |-> 3"])]);
}

/// `rev-let-relu-tensor`:
/// `rule <k> let X:Id = reluTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> reluTensorHelper(Y, X, {SH[Y]}:>Ints)
///  ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape>
///  requires Y in_keys(SH) andBool X =/=K Y`
#[test]
fn rule_rev_let_relu_tensor() {
    fire(RELU_1D, "rev-let-relu-tensor")
        .k(
            &["let u = reluTensor ( t ) in u [ 1 ]"],
            &[
                "defineTensor ( u , 3 )",
                "reluTensorHelper ( t , u , 3 )",
                "u [ 1 ]",
                "restoreScope ( t |-> 0 , t |-> 3 )",
            ],
        )
        .cells(&[shape(&[], &["u |-> 3"])]);
}

/// `rev-let-tanh-tensor`:
/// `rule <k> let X:Id = tanhTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> tanhTensorHelper(Y, X, {SH[Y]}:>Ints)
///  ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape>
///  requires Y in_keys(SH) andBool X =/=K Y`
#[test]
fn rule_rev_let_tanh_tensor() {
    fire(TANH_1D, "rev-let-tanh-tensor")
        .k(
            &["let h = tanhTensor ( v ) in h [ 0 ]"],
            &[
                "defineTensor ( h , 1 )",
                "tanhTensorHelper ( v , h , 1 )",
                "h [ 0 ]",
                "restoreScope ( v |-> 0 , v |-> 1 )",
            ],
        )
        .cells(&[shape(&[], &["h |-> 1"])]);
}

/// `rev-let-sigmoid-tensor`:
/// `rule <k> let X:Id = sigmoidTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> sigmoidTensorHelper(Y, X, {SH[Y]}:>Ints)
///  ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape>
///  requires Y in_keys(SH) andBool X =/=K Y`
#[test]
fn rule_rev_let_sigmoid_tensor() {
    fire(SIGMOID_2D, "rev-let-sigmoid-tensor")
        .k(
            &["let s = sigmoidTensor ( m ) in s [ 0 , 1 ]"],
            &[
                "defineTensor ( s , 1 , 2 )",
                "sigmoidTensorHelper ( m , s , 1 , 2 )",
                "s [ 0 , 1 ]",
                "restoreScope ( m |-> 0 , m |-> 1 , 2 )",
            ],
        )
        .cells(&[shape(&[], &["s |-> 1 , 2"])]);
}

/// `rev-let-func-error`:
/// `rule <k> let X = F:Func in _ => knnError(letFuncError(X, F)) ...</k> [owise]`, where
/// `letFuncError` is `"output aliases input"` when an operand is the output.
///
/// §3(i), "reluTensor in place": `let t = reluTensor(t)` fails the guard `X =/=K Y` of
/// `rev-let-relu-tensor`.
#[test]
fn rule_rev_let_func_error() {
    fire("let t = initTensor(2) in let t[0] = 5.0 in (let t = reluTensor(t) in t[0])", "rev-let-func-error")
        .k(
            &["let t = reluTensor ( t ) in t [ 0 ]"],
            // `letFuncError(t, reluTensor(t))`: the operand is the output.
            &["knnError ( \"output aliases input\" )"],
        )
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-8: linear checks W: (I, J) against X: (J) and records Y: (I)
// ---------------------------------------------------------------------------------------------

/// `rev-let-linear`:
/// `rule <k> let Y:Id = linear(W, X) in E => linearChecked(Y, W, X, {SH[W]}:>Ints, {SH[X]}:>Ints, E) ...</k>
///  <shape> SH </shape> requires W in_keys(SH) andBool X in_keys(SH)`
#[test]
fn rule_rev_let_linear() {
    fire(LINEAR, "rev-let-linear")
        .k(&["let y = linear ( W , x ) in y [ 0 ]"], &["linearChecked ( y , W , x , 1 , 2 , 2 , y [ 0 ] )"])
        .cells(&[]);
}

/// `rev-linear-checked`:
/// `rule <k> linearChecked(Y, W, X, (I:Int, J:Int), J, E) => defineTensor(Y, I) ~> linearHelper(Y, I, J, W, X)
///  ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[Y <- I] </shape>
///  requires Y =/=K W andBool Y =/=K X`
#[test]
fn rule_rev_linear_checked() {
    fire(LINEAR, "rev-linear-checked")
        .k(
            &["linearChecked ( y , W , x , 1 , 2 , 2 , y [ 0 ] )"],
            &[
                "defineTensor ( y , 1 )",
                "linearHelper ( y , 1 , 2 , W , x )",
                "y [ 0 ]",
                "restoreScope ( W |-> 3 x |-> 0 , W |-> 1 , 2 x |-> 2 )",
            ],
        )
        .cells(&[shape(&[], &["y |-> 1"])]);
}

/// `rev-linear-shape-mismatch`:
/// `rule <k> linearChecked(_, _, _, _, _, _) => knnError("shape mismatch") ...</k> [owise]`
/// (§4 writes `"linear: shape mismatch"`; the K string names the kind since Ext-1 raises it too)
///
/// §3(h), `x` shorter than `W`'s rows: `W: (1, 2)`, `x: (1)`.
#[test]
fn rule_rev_linear_shape_mismatch() {
    let source = "let x = initTensor(1) in let W = initTensor(1, 2) in let y = linear(W, x) in y[0]";
    fire(source, "rev-linear-shape-mismatch")
        .k(&["linearChecked ( y , W , x , 1 , 2 , 1 , y [ 0 ] )"], &["knnError ( \"shape mismatch\" )"])
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-9: scalar relu, tanh and sigmoid
// ---------------------------------------------------------------------------------------------

/// `rev-let-relu`: `rule let X:Id = relu(E:Exp) in B:Exp => let X = max(E, 0.0) in B`
#[test]
fn rule_rev_let_relu() {
    fire("let x = relu(3.0) in x", "rev-let-relu")
        .k(
            &["let x = relu ( 0.30000000000000000e1 ) in x"],
            &["let x = max ( 0.30000000000000000e1 , 0.00000000000000000e0 ) in x"],
        )
        .cells(&[]);
}

/// `rev-let-tanh`: `rule let X:Id = tanh(E:Exp) in B:Exp => let X = tanhItem(E) in B`
#[test]
fn rule_rev_let_tanh() {
    fire("let x = tanh(0.5) in x", "rev-let-tanh")
        .k(&["let x = tanh ( 0.50000000000000000e0 ) in x"], &["let x = tanhItem ( 0.50000000000000000e0 ) in x"])
        .cells(&[]);
}

/// `rev-let-sigmoid`: `rule let X:Id = sigmoid(E:Exp) in B:Exp => let X = sigmoidItem(E) in B`
#[test]
fn rule_rev_let_sigmoid() {
    fire("let x = sigmoid(0.0) in x", "rev-let-sigmoid")
        .k(&["let x = sigmoid ( 0.00000000000000000e0 ) in x"], &["let x = sigmoidItem ( 0.00000000000000000e0 ) in x"])
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-10: Int and mixed arithmetic
// ---------------------------------------------------------------------------------------------

/// `rev-add-int`: `rule I1:Int + I2:Int => I1 +Int I2`
///
/// An `ArgMax` result in arithmetic (§3(f)): `ArgMax([0.0, 1.0]) + 1`.
#[test]
fn rule_rev_add_int() {
    fire("let s = initTensor(2) in let s[1] = 1.0 in ArgMax(s) + 1", "rev-add-int").k(&["1 + 1"], &["2"]).cells(&[]);
}

/// `rev-mul-int`: `rule I1:Int * I2:Int => I1 *Int I2`
#[test]
fn rule_rev_mul_int() {
    fire("2 * 3", "rev-mul-int").k(&["2 * 3"], &["6"]).cells(&[]);
}

/// `rev-add-int-float`: `rule I:Int + F:Float => Int2Float(I, 53, 11) +Float F`
#[test]
fn rule_rev_add_int_float() {
    fire("1 + 2.0", "rev-add-int-float").k(&["1 + 0.20000000000000000e1"], &["0.30000000000000000e1"]).cells(&[]);
}

/// `rev-add-float-int`: `rule F:Float + I:Int => F +Float Int2Float(I, 53, 11)`
#[test]
fn rule_rev_add_float_int() {
    fire("0.5 + 2", "rev-add-float-int").k(&["0.50000000000000000e0 + 2"], &["0.25000000000000000e1"]).cells(&[]);
}

/// `rev-mul-int-float`: `rule I:Int * F:Float => Int2Float(I, 53, 11) *Float F`
#[test]
fn rule_rev_mul_int_float() {
    fire("3 * 0.5", "rev-mul-int-float").k(&["3 * 0.50000000000000000e0"], &["0.15000000000000000e1"]).cells(&[]);
}

/// `rev-mul-float-int`: `rule F:Float * I:Int => F *Float Int2Float(I, 53, 11)`
#[test]
fn rule_rev_mul_float_int() {
    fire("0.25 * 4", "rev-mul-float-int").k(&["0.25000000000000000e0 * 4"], &["0.10000000000000000e1"]).cells(&[]);
}

/// `rev-arith-invalid`:
/// `rule <k> V1:Val + V2:Val => knnError("invalid operands") ...</k> [owise]` (likewise `*`,
/// `max`, `min`)
///
/// A tensor header used as a number.
#[test]
fn rule_rev_arith_invalid() {
    fire("let t = initTensor(1) in t + 1.0", "rev-arith-invalid")
        .k(&["tensor ( 1 , 1 ) + 0.10000000000000000e1"], &["knnError ( \"invalid operands\" )"])
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-11: determinism (seqstrict operators)
// ---------------------------------------------------------------------------------------------

/// `rev-heat-max-2`: `rule <k> max(K0:Val, HOLE) => HOLE ~> max(K0, □) ...</k> requires notBool isKResult(HOLE) [heat]`
///
/// Both arguments start unevaluated: the right one is heated only once the left one is a value.
#[test]
fn rule_rev_heat_max_2() {
    fire("max(1.0 + 2.0, 0.5 * 2.0)", "rev-heat-max-2")
        .k(
            &["max ( 0.30000000000000000e1 , 0.50000000000000000e0 * 0.20000000000000000e1 )"],
            &["0.50000000000000000e0 * 0.20000000000000000e1", "max ( 0.30000000000000000e1 , □ )"],
        )
        .cells(&[]);
}

/// `rev-heat-min-2`: `rule <k> min(K0:Val, HOLE) => HOLE ~> min(K0, □) ...</k> requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_rev_heat_min_2() {
    fire("min(1.0 + 2.0, 0.5 * 2.0)", "rev-heat-min-2")
        .k(
            &["min ( 0.30000000000000000e1 , 0.50000000000000000e0 * 0.20000000000000000e1 )"],
            &["0.50000000000000000e0 * 0.20000000000000000e1", "min ( 0.30000000000000000e1 , □ )"],
        )
        .cells(&[]);
}

/// `rev-heat-mul-2`: `rule <k> K0:Val * HOLE => HOLE ~> K0 * □ ...</k> requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_rev_heat_mul_2() {
    fire("max(1.0, 2.0) * min(3.0, 4.0)", "rev-heat-mul-2")
        .k(
            &["0.20000000000000000e1 * min ( 0.30000000000000000e1 , 0.40000000000000000e1 )"],
            &["min ( 0.30000000000000000e1 , 0.40000000000000000e1 )", "0.20000000000000000e1 * □"],
        )
        .cells(&[]);
}

/// `rev-heat-add-2`: `rule <k> K0:Val + HOLE => HOLE ~> K0 + □ ...</k> requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_rev_heat_add_2() {
    fire("max(1.0, 2.0) + min(3.0, 4.0)", "rev-heat-add-2")
        .k(
            &["0.20000000000000000e1 + min ( 0.30000000000000000e1 , 0.40000000000000000e1 )"],
            &["min ( 0.30000000000000000e1 , 0.40000000000000000e1 )", "0.20000000000000000e1 + □"],
        )
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Rev-12: lexical scoping and aliasing instead of substitution
// ---------------------------------------------------------------------------------------------

/// `rev-let-value`:
/// `rule <k> let X:Id = V:Val in E:Exp => E ~> restoreScope(Env, SH) ...</k> <env> Env => Env[X <- L] </env>
///  <shape> SH => SH[X <- undef] </shape> <store>... .Map => L |-> V ...</store>
///  <nextLoc> L:Int => L +Int 1 </nextLoc>`
///
/// The scalar `t` shadows the tensor `t`: `L = 3`, and `t`'s shape entry goes for the body.
#[test]
fn rule_rev_let_value() {
    fire(SHADOW_SCALAR, "rev-let-value")
        .k(&["let t = 0.50000000000000000e1 in t"], &["t", "restoreScope ( t |-> 0 , t |-> 2 )"])
        .cells(&[
            env(&["t |-> 0"], &["t |-> 3"]),
            store(&[], &["3 |-> 0.50000000000000000e1"]),
            next_loc(3, 4),
            shape(&["t |-> 2"], &[]),
        ]);
}

/// `rev-restore-scope`:
/// `rule <k> V:Val ~> restoreScope(Env, SH) => V ...</k> <env> _ => Env </env> <shape> _ => SH </shape>`
///
/// The body of the scalar `let t = 5.0` is done: the tensor `t` and its shape come back.
#[test]
fn rule_rev_restore_scope() {
    fire(SHADOW_SCALAR, "rev-restore-scope")
        .k(&["0.50000000000000000e1", "restoreScope ( t |-> 0 , t |-> 2 )"], &["0.50000000000000000e1"])
        .k_after(&["0.50000000000000000e1", "restoreScope ( .Map , .Map )"])
        .cells(&[env(&["t |-> 3"], &["t |-> 0"]), shape(&[], &["t |-> 2"])]);
}

// ---------------------------------------------------------------------------------------------
// Rev-13: tanh without overflow
// ---------------------------------------------------------------------------------------------

/// `rev-tanh-item-nonnegative`:
/// `rule tanhItem(X:Float) => (1.0 -Float expFloat(-2.0 *Float X)) /Float (1.0 +Float expFloat(-2.0 *Float X))
///  requires notBool (X <Float 0.0)`
///
/// §3(j): `X = 400.0`, where the published formula is NaN. `expFloat(-800.0)` underflows to
/// `0.0`, so the result is `(1.0 - 0.0) / (1.0 + 0.0) = 1.0`.
#[test]
fn rule_rev_tanh_item_nonnegative() {
    let source = "let v = initTensor(1) in let v[0] = 400.0 in (let h = tanhTensor(v) in h[0])";
    fire(source, "rev-tanh-item-nonnegative")
        .k(&["tanhItem ( 0.40000000000000000e3 )"], &["0.10000000000000000e1"])
        .cells(&[]);
}

/// `rev-tanh-item-negative`:
/// `rule tanhItem(X:Float) => (expFloat(2.0 *Float X) -Float 1.0) /Float (expFloat(2.0 *Float X) +Float 1.0)
///  requires X <Float 0.0`
///
/// With `X = -1.0`: `(e^-2 - 1) / (e^-2 + 1) = -0.7615941559557649`, printed with 17 digits.
#[test]
fn rule_rev_tanh_item_negative() {
    let f = fire(TANH_1D, "rev-tanh-item-negative")
        .k(&["tanhItem ( -0.10000000000000000e1 )"], &["-0.76159415595576485e0"]);
    let value = f.after.top_term().and_then(|t| t.as_float()).unwrap();
    // The right-hand side, operation by operation, with `X = -1.0`.
    let x: f64 = -1.0;
    let by_hand = ((2.0 * x).exp() - 1.0) / ((2.0 * x).exp() + 1.0);
    assert!((value - by_hand).abs() <= f64::EPSILON, "{value} vs {by_hand}");
    f.cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Coverage
/// `rev-let-target-error` (ours, Rev-3):
/// `rule <k> let E = V:Val in _ => knnError("invalid let target") ...</k> [owise]`
#[test]
fn rule_rev_let_target_error() {
    fire("let 1.0 = 2.0 in 3.0", "rev-let-target-error")
        .k(
            &["let 0.10000000000000000e1 = 0.20000000000000000e1 in 0.30000000000000000e1"],
            &["knnError ( \"invalid let target\" )"],
        )
        .cells(&[]);
}

/// `rev-item-invalid` (ours, Rev-13):
/// `rule <k> tanhItem(V:Val) => knnError("invalid operands") ...</k> [owise]`
#[test]
fn rule_rev_item_invalid() {
    fire("let x = tanh(1) in x", "rev-item-invalid")
        .k(&["tanhItem ( 1 )", "let x = □ in x"], &["knnError ( \"invalid operands\" )", "let x = □ in x"])
        .cells(&[]);
}

/// `rev-argmax-helper-error` (ours, Rev-6):
/// `rule <k> ArgMaxHelper(X, I...J, _, _) => knnError("ArgMax expects a non-empty vector of floats") ...</k>
///  requires I <Int J [owise]` — element 1 of `t` holds the header of `u`.
#[test]
fn rule_rev_argmax_helper_error() {
    fire("let t = initTensor(2) in let u = initTensor(1) in let t[1] = u in ArgMax(t)", "rev-argmax-helper-error")
        .k(
            &["ArgMaxHelper ( t , 1 ... 2 , 0.00000000000000000e0 , 0 )"],
            &["knnError ( \"ArgMax expects a non-empty vector of floats\" )"],
        )
        .cells(&[]);
}

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
///  requires Y in_keys(SH) andBool Z in_keys(SH) andBool SH[Y] =/=K SH[Z] andBool X =/=K Y andBool X =/=K Z`
/// — the same six elements, transposed: `(2, 3)` against `(3, 2)`.
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

/// The revised rules this file tests, in its order (every `rev-…` and `ext-…` rule that can fire; the
/// context `rev-ctx-storeval-base-id` fires through `rev-heat-storeval-base`).
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

const COVERED: &[&str] = &[
    // Rev-1
    "rev-skip",
    "rev-tanh-helper-elem",
    "rev-sigmoid-helper-elem",
    "rev-linear-mac",
    // Rev-2
    "rev-relu-helper-elem",
    "rev-let-index-flatten",
    // Rev-3
    "rev-let-index-assign",
    "rev-storeval-walk",
    "rev-heat-storeval-base",
    // Rev-4
    "rev-define-tensor",
    "rev-alloc-1d",
    "rev-alloc-nd",
    "rev-alloc-negative",
    "rev-fill-step",
    "rev-fill-done",
    "rev-write-at",
    "rev-bind-to",
    // Rev-5
    "rev-error-abort",
    "rev-index-anywhere",
    "rev-index-out-of-bounds-anywhere",
    "rev-index-scalar",
    "rev-storeval-error",
    "rev-storeval-id",
    "rev-storeval-id-out-of-bounds",
    "rev-storeval-id-scalar",
    "rev-storeval-id-unbound",
    "rev-storeval-lookup",
    "rev-storeval-lookup-out-of-bounds",
    "rev-storeval-scalar",
    "rev-unbound-identifier",
    // Rev-6
    "rev-argmax-start",
    "rev-argmax-step-greater",
    "rev-argmax-step-not-greater",
    "rev-argmax-empty",
    "rev-argmax-error",
    // Rev-7
    "rev-let-init-tensor",
    "rev-let-relu-tensor",
    "rev-let-tanh-tensor",
    "rev-let-sigmoid-tensor",
    "rev-let-func-error",
    // Rev-8
    "rev-let-linear",
    "rev-linear-checked",
    "rev-linear-shape-mismatch",
    // Rev-9
    "rev-let-relu",
    "rev-let-tanh",
    "rev-let-sigmoid",
    // Rev-10
    "rev-add-int",
    "rev-mul-int",
    "rev-add-int-float",
    "rev-add-float-int",
    "rev-mul-int-float",
    "rev-mul-float-int",
    "rev-arith-invalid",
    // Rev-11
    "rev-heat-max-2",
    "rev-heat-min-2",
    "rev-heat-mul-2",
    "rev-heat-add-2",
    // Rev-12
    "rev-let-value",
    "rev-restore-scope",
    // Rev-13
    "rev-tanh-item-nonnegative",
    "rev-tanh-item-negative",
    "rev-item-invalid",
    // stuck states made errors
    "rev-let-target-error",
    "rev-argmax-helper-error",
    // Ext-1
    "ext-let-add-tensor",
    "ext-add-tensor-shape-mismatch",
    "ext-add-helper-step",
    "ext-add-helper-done",
    // Ext-2
    "ext-let-tensor-literal",
];

/// `COVERED` is exactly the set of `rev-…` and `ext-…` rules of the revised profile that can fire, and each
/// has its `rule_…` test in this file.
#[test]
fn every_revised_rule_has_a_test() {
    let revised: BTreeSet<&str> = Profile::revised()
        .fireable()
        .map(|r| r.id)
        .filter(|id| id.starts_with("rev-") || id.starts_with("ext-"))
        .collect();
    let covered: BTreeSet<&str> = COVERED.iter().copied().collect();
    assert_eq!(covered.len(), COVERED.len(), "an ID is listed twice");
    let missing: Vec<&&str> = revised.difference(&covered).collect();
    let unknown: Vec<&&str> = covered.difference(&revised).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "revised rules without a test: {missing:?}; listed but not a fireable revised rule: {unknown:?}"
    );
    let source = include_str!("revised_rules.rs");
    for id in COVERED {
        let test = format!("fn rule_{}()", id.replace('-', "_"));
        assert!(source.contains(&test), "no test `{test}` for `{id}`");
    }
}

// ---------------------------------------------------------------------------------------------
// Global property: determinism
// ---------------------------------------------------------------------------------------------

/// How many distinct configurations one program's state space may have.
const MAX_STATES: usize = 200_000;

/// The programs of docs/semantics.md §3's table (the quirks and the patches' effect on them), one row
/// each, with the variants `semantics/tests/expected_effects.rs` checks.
const TABLE_PROGRAMS: &[&str] = &[
    // (a)
    "let t = initTensor(3) in let t[1] = -2.0 in let t[2] = 5.0 in (let u = reluTensor(t) in u[1])",
    // (b)
    "let m = initTensor(2, 2) in let m[0, 1] = -4.0 in let m[1, 0] = 3.0 in (let r = reluTensor(m) in r[0, 1] + r[1, 0])",
    "let t = initTensor(2, 2, 2) in let t[1, 0, 1] = -3.0 in let t[0, 1, 1] = 4.0 in \
     (let u = reluTensor(t) in u[1, 0, 1] + u[0, 1, 1])",
    "let t = initTensor(2, 2, 2) in 1.0",
    "let t = initTensor(1, 1, 2) in (let u = reluTensor(t) in 1.0)",
    // (c)
    "let m = initTensor(1, 2) in let m[0, 0] = -1.0 in let m[0, 1] = 1.0 in (let h = tanhTensor(m) in h[0, 0] + h[0, 1])",
    "let v = initTensor(2) in let v[0] = -1.0 in (let h = tanhTensor(v) in h[0])",
    "let m = initTensor(1, 2) in let m[0, 0] = -2.0 in (let s = sigmoidTensor(m) in s[0, 0])",
    "let v = initTensor(2) in let v[1] = 2.0 in (let s = sigmoidTensor(v) in s[0] + s[1])",
    "let m = initTensor(2, 2) in let m[0][1] = -5.0 in m[0, 1]",
    // (d)
    "let s = initTensor(3) in let s[0] = -3.0 in let s[1] = -1.0 in let s[2] = -2.0 in ArgMax(s)",
    "let s = initTensor(3) in let s[0] = 1.0 in let s[1] = 5.0 in let s[2] = 5.0 in ArgMax(s)",
    "let s = initTensor(3) in let s[1] = 2.0 in ArgMax(s)",
    "let s = initTensor(2) in let s[0] = 4.0 in let s[1] = 3.0 in ArgMax(s)",
    "let s = initTensor(2) in let s[0] = 4.0 in let s[1] = 3.0 in let k = ArgMax(s) in k",
    "let s = initTensor(3) in let s[0] = 1.0 in (let r = reluTensor(s) in ArgMax(r))",
    "let m = initTensor(2, 2) in ArgMax(m)",
    "let s = initTensor(1) in let s[0] = -0.0 in ArgMax(s)",
    // (e)
    "let a = initTensor(2) in let b = initTensor(2) in let b[0] = 7.0 in a[3]",
    "let a = initTensor(2) in let b = initTensor(2) in a[2]",
    "let a = initTensor(2) in let b = initTensor(2) in a[5]",
    "let a = initTensor(2) in let b = initTensor(2) in let a[2] = 9.0 in b[0]",
    "let a = initTensor(2) in let b = initTensor(2) in let a[7] = 1.0 in a[0]",
    "let m = initTensor(2, 2) in let m[0, 3] = 5.0 in m[1, 0]",
    // (f)
    "1 + 2",
    "1 + 2.0",
    "2 * 3",
    "let x = 1 in x + 2.0",
    "let n = 3 in n",
    "let n = 0 in n",
    "0",
    // (g)
    "let x = relu(3.0) in x",
    "let x = relu(-3.0) in x",
    "let x = tanh(0.5) in x",
    "let x = sigmoid(0.5) in x",
    // (h)
    "let x = initTensor(1) in let W = initTensor(1, 2) in let x[0] = 1.0 in let W[0, 0] = 2.0 in \
     let W[0, 1] = 3.0 in (let y = linear(W, x) in y[0])",
    "let x = initTensor(3) in let W = initTensor(1, 2) in let W[0, 0] = 2.0 in let W[0, 1] = 3.0 in \
     let x[0] = 1.0 in let x[1] = 1.0 in let x[2] = 100.0 in (let y = linear(W, x) in y[0])",
    "let x = initTensor(2) in let W = initTensor(1, 2) in let W[0, 0] = 2.0 in let W[0, 1] = 3.0 in \
     let x[0] = 1.0 in let x[1] = 1.0 in (let y = linear(W, x) in y[0])",
    // (i)
    "let x = 1.0 in let x = 2.0 in x",
    "let t = initTensor(2) in let t = initTensor(3) in t[0]",
    "let t = initTensor(2) in let t[0] = 5.0 in (let t = reluTensor(t) in t[0])",
    "let t = 5.0 in (let t = initTensor(2) in t[0])",
    "let t = initTensor(2) in let t = 5.0 in t",
    "(let u = initTensor(1) in 2.0) + u[0]",
    // (j)
    "let v = initTensor(1) in let v[0] = 400.0 in (let h = tanhTensor(v) in h[0])",
    "let m = initTensor(1, 1) in let m[0, 0] = 400.0 in (let h = tanhTensor(m) in h[0, 0])",
    "let v = initTensor(1) in let v[0] = 3.0 in (let s = sigmoidTensor(v) in s[0])",
    // (k)
    "let X = initTensor(0) in X[0]",
    "let X = initTensor(0) in ArgMax(X)",
    "let X = initTensor(2, 0) in X[0, 0]",
    "let X = initTensor(0, 3) in X[0, 1]",
    // (l)
    "let x = 2.0 in let y = x in y",
    "let X = initTensor(2) in let Y = X in Y[0]",
    "let X = initTensor(2) in let Y = X in let Y[1] = 4.0 in X[1]",
    // (m)
    "let x = initTensor(2) in let W = initTensor(2, 2) in let x[0] = 1.0 in let W[0, 0] = -1.0 in \
     let W[1, 1] = 2.0 in (let h = linear(W, x) in (let a = reluTensor(h) in a[0]))",
    "let x = initTensor(2) in let W = initTensor(2, 2) in let x[0] = 1.0 in let W[0, 0] = -1.0 in \
     let W[1, 1] = 2.0 in (let h = linear(W, x) in ArgMax(h))",
    "let x = initTensor(2) in let W = initTensor(2, 2) in let x[0] = 1.0 in let W[0, 0] = -1.0 in \
     let W[1, 1] = 2.0 in (let h = linear(W, x) in (let a = reluTensor(h) in ArgMax(a)))",
    "let x = initTensor(2) in let W = initTensor(2, 2) in let V = initTensor(2, 2) in let x[0] = 1.0 in \
     let x[1] = -1.0 in let W[0, 0] = 2.0 in let W[1, 1] = 1.0 in let V[0, 0] = 1.0 in let V[1, 0] = -1.0 in \
     (let h = linear(W, x) in (let o = linear(V, h) in o[0] + o[1]))",
];

/// The `*.knn` files of a directory of the workspace, with their text.
fn knn_files(dir: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "knn"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path.display().to_string(), text)
        })
        .collect();
    files.sort();
    files
}

/// Every program of the determinism check, named, with its initial configuration under the
/// revised profile (read with the revised grammar).
fn determinism_programs() -> Vec<(String, Config)> {
    let profile = Profile::revised();
    let mut programs = Vec::new();
    let authors = knn_files("spec-tests/programs/authors");
    assert_eq!(authors.len(), 9, "the authors' nine programs");
    let examples = knn_files("examples");
    assert!(!examples.is_empty(), "no examples found");
    for (name, source) in authors.into_iter().chain(examples) {
        let program = parse_program(&source, profile.grammar).unwrap_or_else(|e| panic!("{name}\n{e}"));
        let term = term_of_program(&program);
        if name.ends_with("mlp.knn") {
            // The MLP reads the input `x`; run it bound to the documented input too.
            let input = TensorInput { name: "x".into(), shape: vec![3], data: vec![1.0, -2.0, 0.5] };
            let config = initial_config(profile, term.clone(), &[input]).expect("binding x");
            programs.push((format!("{name} with x = [1.0, -2.0, 0.5]"), config));
        }
        programs.push((name, Config::initial(term)));
    }
    for source in TABLE_PROGRAMS.iter().chain(EXT_PROGRAMS) {
        programs.push((source.to_string(), common::revised_initial(source)));
    }
    programs
}

/// The extensions' constructs, on their paths to a value and to each of their errors.
const EXT_PROGRAMS: &[&str] = &[
    "let h = initTensor(2, 2) in let b = initTensor(2, 2) in let h[0, 1] = 1 in let b[0, 1] = 2.5 in \
     (let z = addTensor(h, b) in z[0, 1])",
    "let h = initTensor(2) in let b = initTensor(3) in let z = addTensor(h, b) in z",
    "let h = initTensor(2) in let z = addTensor(h, 1.0) in z",
    "let h = initTensor(2, 1) in let h[1] = 3.0 in let z = addTensor(h, h) in z",
];

/// Explores the whole state space of `initial` under the revised profile with `priorities`,
/// breadth first, and asserts that no configuration has two successors.
fn assert_deterministic(name: &str, initial: Config, priorities: Priorities) {
    let profile = Profile::revised();
    // `Config`'s hash and equality do not depend on the lazily computed caches inside terms.
    #[allow(clippy::mutable_key_type)]
    let mut seen: HashSet<Config> = HashSet::new();
    let mut queue = VecDeque::new();
    seen.insert(initial.clone());
    queue.push_back(initial);
    while let Some(config) = queue.pop_front() {
        let next = successors(profile, &config, priorities);
        if next.len() > 1 {
            let rules: Vec<&str> = next.iter().map(|s| s.step.rule.id).collect();
            panic!("{name} ({priorities:?}): {} successors, by {rules:?}, of\n{config:?}", next.len());
        }
        for successor in next {
            assert!(successor.abort.is_none(), "{name} ({priorities:?}): krun aborts: {:?}", successor.abort);
            if seen.insert(successor.config.clone()) {
                assert!(
                    seen.len() <= MAX_STATES,
                    "{name} ({priorities:?}): more than {MAX_STATES} configurations; the exploration is incomplete"
                );
                queue.push_back(successor.config);
            }
        }
    }
}

/// Rev-11: under the revised rules no redex is matched by two rules, so from every program
/// each reachable configuration has at most one successor, with krun's priority classes and
/// with the flat classes of `krun --search` on llvm-backend ≥ March 2023 (§2.10).
#[test]
fn revised_is_deterministic() {
    let programs = determinism_programs();
    assert!(programs.len() >= 9 + 4 + TABLE_PROGRAMS.len());
    for (name, initial) in programs {
        for priorities in [Priorities::Krun, Priorities::FlatCooling] {
            assert_deterministic(&name, initial.clone(), priorities);
        }
    }
}
