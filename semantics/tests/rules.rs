//! One unit test per rule of the published profile (every rule but the four contexts, plus the
//! 28 heating and cooling rules K generates, docs/semantics.md §1 and §1.1), grouped as in
//! `k-nn.md`. Each test walks krun's path on a small program until the rule is among the
//! successors of the current configuration, then checks that step: the top of `<k>` before and
//! after, the rest of `<k>` untouched, and the changes of `<env>`, `<store>`, `<nextLoc>` and
//! `<shape>` (every cell not listed must be unchanged).
//!
//! The expected texts are derived by hand from the K rules (left-hand side instantiated on the
//! program's state, right-hand side printed as krun prints it), not copied from the engine.

mod common;

use common::firing::{self, Firing, env, next_loc, shape, store};

use std::collections::BTreeSet;

use knn_semantics::config::Config;
use knn_semantics::profile::Profile;
use knn_semantics::syntax::Span;
use knn_semantics::term::{Ints, Node, Sym, Term};

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// Walks krun's path under the published profile from the program `source` until `id` fires.
fn fire(source: &str, id: &'static str) -> Firing {
    firing::fire_in(Profile::published(), common::initial(source), id, 1, source)
}

/// Walks krun's path under the published profile from a configuration built by hand.
fn fire_from(config: Config, id: &'static str, what: &str) -> Firing {
    firing::fire_in(Profile::published(), config, id, 1, what)
}

/// `<k>` holding only the term `fun(arg)`: no program builds `fun` (§2.7).
fn fun_config(arg: Term) -> Config {
    Config::initial(Term::new(Node::Fun(arg), Span::default()))
}

fn id(name: &str) -> Term {
    Term::id(&Sym::new(name), Span::default())
}

fn index(base: Term, ints: &[i64]) -> Term {
    let ints = Ints::new(ints).expect("a non-empty index list");
    Term::new(Node::Index { base, ints }, Span::default())
}

// ---------------------------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------------------------

/// `t` at 0: `0 |-> tensor(1, 2)`, `1, 2 |-> 0.0`.
const READ_1D: &str = "let t = initTensor(2) in t[1]";
/// `t` at 0: `0 |-> tensor(1, 3)`, `1, 2, 3 |-> 0.0`.
const READ_1D_LAST: &str = "let t = initTensor(3) in t[2]";
const WRITE_1D: &str = "let t = initTensor(3) in let t[2] = 5.0 in t[2]";
/// `m` at 0 (`0 |-> tensor(1, 1)`, `1 |-> 0.0`), then row 0 allocated under `$1` at 2
/// (`2 |-> tensor(3, 2)`, `3, 4 |-> 0.0`) and the extra row at 5 (`5 |-> tensor(6, 2)`,
/// `6, 7 |-> 0.0`); `storeVal` writes `1 := tensor(3, 2)` and `2 := tensor(6, 2)` (§2.8).
const ALLOC_2D: &str = "let m = initTensor(1, 2) in 1.0";
const WRITE_2D: &str = "let m = initTensor(1, 2) in let m[0, 1] = 5.0 in m[0, 1]";
/// `m` at 0: `0 |-> tensor(1, 2)`.
const READ_2D: &str = "let m = initTensor(2, 2) in m[1, 0]";
/// `t` at 0 (`0 |-> tensor(1, 2)`), `u` at 3 (`3 |-> tensor(4, 2)`).
const RELU_1D: &str = "let t = initTensor(2) in let u = reluTensor(t) in u[1]";
const RELU_2D: &str = "let m = initTensor(1, 2) in let r = reluTensor(m) in r[0, 1]";
const CHAINED_WRITE_2D: &str = "let m = initTensor(1, 2) in let m[0][1] = -5.0 in m[0, 1]";
/// `W` has shape `1, 2`: one row of two columns.
const LINEAR: &str = "let x = initTensor(2) in let W = initTensor(1, 2) in let y = linear(W, x) in y[0]";
/// `v` at 0 with `1 |-> -1.0`, `h` at 2.
const TANH_1D: &str = "let v = initTensor(1) in let v[0] = -1.0 in (let h = tanhTensor(v) in h[0])";
const TANH_2D: &str = "let m = initTensor(1, 2) in let h = tanhTensor(m) in h[0, 1]";
/// `v` at 0 with `1 |-> 0.0`, `s` at 2.
const SIGMOID_1D: &str = "let v = initTensor(1) in let s = sigmoidTensor(v) in s[0]";
const SIGMOID_2D: &str = "let m = initTensor(1, 2) in let s = sigmoidTensor(m) in s[0, 1]";
/// `s = [1.0, 4.0, 2.0]` at 0 (element `I` at `0 +Int I +Int 1`), shape `s |-> 3`.
const ARGMAX: &str = "let s = initTensor(3) in let s[0] = 1.0 in let s[1] = 4.0 in let s[2] = 2.0 in ArgMax(s)";

// ---------------------------------------------------------------------------------------------
// Syntax (L59–70): heating and cooling generated from the strictness attributes
// ---------------------------------------------------------------------------------------------

/// `heat-index-1`, generated from `Exp "[" Ints "]" [strict(1)]`:
/// `rule <k> HOLE [ Is ] => HOLE ~> □ [ Is ] ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_index_1() {
    fire(READ_1D, "heat-index-1").k(&["t [ 1 ]"], &["t", "□ [ 1 ]"]).cells(&[]);
}

/// `cool-index-1`, generated from `Exp "[" Ints "]" [strict(1)]`:
/// `rule <k> HOLE ~> □ [ Is ] => HOLE [ Is ] ...</k> requires isKResult(HOLE)`
///
/// The plugged term `tensor(1, 2) [ 1 ]` is rewritten at once by `index-tensor-anywhere` to
/// `lookup(1 +Int 1)` (§2.6).
#[test]
fn rule_cool_index_1() {
    fire(READ_1D, "cool-index-1")
        .k(&["tensor ( 1 , 2 )", "□ [ 1 ]"], &["lookup ( 2 )"])
        .side(&[("index-tensor-anywhere", 1)])
        .cells(&[]);
}

/// `heat-max-1`, generated from `"max" "(" Exp "," Exp ")" [strict]`:
/// `rule <k> max(HOLE, K1) => HOLE ~> max(□, K1) ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_max_1() {
    fire("max(1.0 + 2.0, 0.5)", "heat-max-1")
        .k(
            &["max ( 0.10000000000000000e1 + 0.20000000000000000e1 , 0.50000000000000000e0 )"],
            &["0.10000000000000000e1 + 0.20000000000000000e1", "max ( □ , 0.50000000000000000e0 )"],
        )
        .cells(&[]);
}

/// `heat-max-2`, generated from `"max" "(" Exp "," Exp ")" [strict]`:
/// `rule <k> max(K0, HOLE) => HOLE ~> max(K0, □) ...</k> requires notBool isKResult(HOLE)`
///
/// Both arguments are unevaluated: krun heats the left one, `search` also takes this branch.
#[test]
fn rule_heat_max_2() {
    fire("max(1.0 + 2.0, 0.5 * 2.0)", "heat-max-2")
        .k(
            &["max ( 0.10000000000000000e1 + 0.20000000000000000e1 , 0.50000000000000000e0 * 0.20000000000000000e1 )"],
            &[
                "0.50000000000000000e0 * 0.20000000000000000e1",
                "max ( 0.10000000000000000e1 + 0.20000000000000000e1 , □ )",
            ],
        )
        .cells(&[]);
}

/// `cool-max-1`, generated from `"max" "(" Exp "," Exp ")" [strict]`:
/// `rule <k> HOLE ~> max(□, K1) => max(HOLE, K1) ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_max_1() {
    fire("max(1.0 + 2.0, 0.5)", "cool-max-1")
        .k(
            &["0.30000000000000000e1", "max ( □ , 0.50000000000000000e0 )"],
            &["max ( 0.30000000000000000e1 , 0.50000000000000000e0 )"],
        )
        .cells(&[]);
}

/// `cool-max-2`, generated from `"max" "(" Exp "," Exp ")" [strict]`:
/// `rule <k> HOLE ~> max(K0, □) => max(K0, HOLE) ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_max_2() {
    fire("max(0.5, 1.0 + 2.0)", "cool-max-2")
        .k(
            &["0.30000000000000000e1", "max ( 0.50000000000000000e0 , □ )"],
            &["max ( 0.50000000000000000e0 , 0.30000000000000000e1 )"],
        )
        .cells(&[]);
}

/// `heat-min-1`, generated from `"min" "(" Exp "," Exp ")" [strict]`:
/// `rule <k> min(HOLE, K1) => HOLE ~> min(□, K1) ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_min_1() {
    fire("min(1.0 + 2.0, 0.5)", "heat-min-1")
        .k(
            &["min ( 0.10000000000000000e1 + 0.20000000000000000e1 , 0.50000000000000000e0 )"],
            &["0.10000000000000000e1 + 0.20000000000000000e1", "min ( □ , 0.50000000000000000e0 )"],
        )
        .cells(&[]);
}

/// `heat-min-2`, generated from `"min" "(" Exp "," Exp ")" [strict]`:
/// `rule <k> min(K0, HOLE) => HOLE ~> min(K0, □) ...</k> requires notBool isKResult(HOLE)`
///
/// Both arguments are unevaluated: krun heats the left one, `search` also takes this branch.
#[test]
fn rule_heat_min_2() {
    fire("min(1.0 + 2.0, 0.5 * 2.0)", "heat-min-2")
        .k(
            &["min ( 0.10000000000000000e1 + 0.20000000000000000e1 , 0.50000000000000000e0 * 0.20000000000000000e1 )"],
            &[
                "0.50000000000000000e0 * 0.20000000000000000e1",
                "min ( 0.10000000000000000e1 + 0.20000000000000000e1 , □ )",
            ],
        )
        .cells(&[]);
}

/// `cool-min-1`, generated from `"min" "(" Exp "," Exp ")" [strict]`:
/// `rule <k> HOLE ~> min(□, K1) => min(HOLE, K1) ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_min_1() {
    fire("min(1.0 + 2.0, 0.5)", "cool-min-1")
        .k(
            &["0.30000000000000000e1", "min ( □ , 0.50000000000000000e0 )"],
            &["min ( 0.30000000000000000e1 , 0.50000000000000000e0 )"],
        )
        .cells(&[]);
}

/// `cool-min-2`, generated from `"min" "(" Exp "," Exp ")" [strict]`:
/// `rule <k> HOLE ~> min(K0, □) => min(K0, HOLE) ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_min_2() {
    fire("min(0.5, 1.0 + 2.0)", "cool-min-2")
        .k(
            &["0.30000000000000000e1", "min ( 0.50000000000000000e0 , □ )"],
            &["min ( 0.50000000000000000e0 , 0.30000000000000000e1 )"],
        )
        .cells(&[]);
}

/// `heat-mul-1`, generated from `Exp "*" Exp [strict, left]`:
/// `rule <k> HOLE * K1 => HOLE ~> □ * K1 ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_mul_1() {
    fire("max(1.0, 2.0) * 3.0", "heat-mul-1")
        .k(
            &["max ( 0.10000000000000000e1 , 0.20000000000000000e1 ) * 0.30000000000000000e1"],
            &["max ( 0.10000000000000000e1 , 0.20000000000000000e1 )", "□ * 0.30000000000000000e1"],
        )
        .cells(&[]);
}

/// `heat-mul-2`, generated from `Exp "*" Exp [strict, left]`:
/// `rule <k> K0 * HOLE => HOLE ~> K0 * □ ...</k> requires notBool isKResult(HOLE)`
///
/// Both operands are unevaluated: krun heats the left one, `search` also takes this branch.
#[test]
fn rule_heat_mul_2() {
    fire("max(1.0, 2.0) * min(3.0, 4.0)", "heat-mul-2")
        .k(
            &["max ( 0.10000000000000000e1 , 0.20000000000000000e1 ) * min ( 0.30000000000000000e1 , 0.40000000000000000e1 )"],
            &[
                "min ( 0.30000000000000000e1 , 0.40000000000000000e1 )",
                "max ( 0.10000000000000000e1 , 0.20000000000000000e1 ) * □",
            ],
        )
        .cells(&[]);
}

/// `cool-mul-1`, generated from `Exp "*" Exp [strict, left]`:
/// `rule <k> HOLE ~> □ * K1 => HOLE * K1 ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_mul_1() {
    fire("max(1.0, 2.0) * 3.0", "cool-mul-1")
        .k(&["0.20000000000000000e1", "□ * 0.30000000000000000e1"], &["0.20000000000000000e1 * 0.30000000000000000e1"])
        .cells(&[]);
}

/// `cool-mul-2`, generated from `Exp "*" Exp [strict, left]`:
/// `rule <k> HOLE ~> K0 * □ => K0 * HOLE ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_mul_2() {
    fire("2.0 * min(3.0, 4.0)", "cool-mul-2")
        .k(&["0.30000000000000000e1", "0.20000000000000000e1 * □"], &["0.20000000000000000e1 * 0.30000000000000000e1"])
        .cells(&[]);
}

/// `heat-add-1`, generated from `Exp "+" Exp [strict, left]`:
/// `rule <k> HOLE + K1 => HOLE ~> □ + K1 ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_add_1() {
    fire("max(1.0, 2.0) + 3.0", "heat-add-1")
        .k(
            &["max ( 0.10000000000000000e1 , 0.20000000000000000e1 ) + 0.30000000000000000e1"],
            &["max ( 0.10000000000000000e1 , 0.20000000000000000e1 )", "□ + 0.30000000000000000e1"],
        )
        .cells(&[]);
}

/// `heat-add-2`, generated from `Exp "+" Exp [strict, left]`:
/// `rule <k> K0 + HOLE => HOLE ~> K0 + □ ...</k> requires notBool isKResult(HOLE)`
///
/// Both operands are unevaluated: krun heats the left one, `search` also takes this branch.
#[test]
fn rule_heat_add_2() {
    fire("max(1.0, 2.0) + min(3.0, 4.0)", "heat-add-2")
        .k(
            &["max ( 0.10000000000000000e1 , 0.20000000000000000e1 ) + min ( 0.30000000000000000e1 , 0.40000000000000000e1 )"],
            &[
                "min ( 0.30000000000000000e1 , 0.40000000000000000e1 )",
                "max ( 0.10000000000000000e1 , 0.20000000000000000e1 ) + □",
            ],
        )
        .cells(&[]);
}

/// `cool-add-1`, generated from `Exp "+" Exp [strict, left]`:
/// `rule <k> HOLE ~> □ + K1 => HOLE + K1 ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_add_1() {
    fire("max(1.0, 2.0) + 3.0", "cool-add-1")
        .k(&["0.20000000000000000e1", "□ + 0.30000000000000000e1"], &["0.20000000000000000e1 + 0.30000000000000000e1"])
        .cells(&[]);
}

/// `cool-add-2`, generated from `Exp "+" Exp [strict, left]`:
/// `rule <k> HOLE ~> K0 + □ => K0 + HOLE ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_add_2() {
    fire("2.0 + min(3.0, 4.0)", "cool-add-2")
        .k(&["0.30000000000000000e1", "0.20000000000000000e1 + □"], &["0.20000000000000000e1 + 0.30000000000000000e1"])
        .cells(&[]);
}

/// `heat-let-2`, generated from `"let" Exp "=" Exp "in" Exp [strict(2)]`:
/// `rule <k> let K0 = HOLE in K2 => HOLE ~> let K0 = □ in K2 ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_let_2() {
    fire("let x = 1.0 + 2.0 in x", "heat-let-2")
        .k(
            &["let x = 0.10000000000000000e1 + 0.20000000000000000e1 in x"],
            &["0.10000000000000000e1 + 0.20000000000000000e1", "let x = □ in x"],
        )
        .cells(&[]);
}

/// `cool-let-2`, generated from `"let" Exp "=" Exp "in" Exp [strict(2)]`:
/// `rule <k> HOLE ~> let K0 = □ in K2 => let K0 = HOLE in K2 ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_let_2() {
    fire("let x = 1.0 + 2.0 in x", "cool-let-2")
        .k(&["0.30000000000000000e1", "let x = □ in x"], &["let x = 0.30000000000000000e1 in x"])
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Basic operations (L126–141)
// ---------------------------------------------------------------------------------------------

/// R01 `let-scalar-float`: `rule let X:Id = E1:Float in E2:Exp => E2[E1 / X]`
#[test]
fn rule_let_scalar_float() {
    fire("let x = 2.0 in x * x", "let-scalar-float")
        .k(&["let x = 0.20000000000000000e1 in x * x"], &["0.20000000000000000e1 * 0.20000000000000000e1"])
        .cells(&[]);
}

/// R02 `let-scalar-int`: `rule let X:Id = E1:Int in E2:Exp => E2[E1 / X]`
#[test]
fn rule_let_scalar_int() {
    fire("let n = 3 in max(n, n)", "let-scalar-int").k(&["let n = 3 in max ( n , n )"], &["max ( 3 , 3 )"]).cells(&[]);
}

/// R03 `mul-float`: `rule I1 * I2 => I1 *Float I2`
#[test]
fn rule_mul_float() {
    fire("2.0 * 3.0", "mul-float")
        .k(&["0.20000000000000000e1 * 0.30000000000000000e1"], &["0.60000000000000000e1"])
        .cells(&[]);
}

/// R04 `add-float`: `rule I1 + I2 => I1 +Float I2`
#[test]
fn rule_add_float() {
    fire("2.0 + 3.0", "add-float")
        .k(&["0.20000000000000000e1 + 0.30000000000000000e1"], &["0.50000000000000000e1"])
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Tensor (L143–213)
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Relu (L215–261)
// ---------------------------------------------------------------------------------------------

/// R21 `let-relu-tensor`:
/// `rule <k> let X:Id = reluTensor(Y:Id) in E => defineTensor(X,Is) ~> reluTensorHelper(Y, X, Is) ~> E ... </k>
///  <shape>... Y |-> Is ...</shape>`
///
/// `<shape>` is only read: `u` gets no entry.
#[test]
fn rule_let_relu_tensor() {
    fire(RELU_1D, "let-relu-tensor")
        .k(
            &["let u = reluTensor ( t ) in u [ 1 ]"],
            &["defineTensor ( u , 2 )", "reluTensorHelper ( t , u , 2 )", "u [ 1 ]"],
        )
        .cells(&[]);
}

/// R22 `relu-helper-nd-range`: `rule reluTensorHelper(Y, X, I:Int, Is:Ints) => reluTensorHelper(Y, X, 0 ...I, Is)`
#[test]
fn rule_relu_helper_nd_range() {
    fire(RELU_2D, "relu-helper-nd-range")
        .k(&["reluTensorHelper ( m , r , 1 , 2 )"], &["reluTensorHelper ( m , r , 0 ... 1 , 2 )"])
        .cells(&[]);
}

/// R23 `relu-helper-1d-range`: `rule reluTensorHelper(Y, X, I:Int) => reluTensorHelper(Y, X, 0 ...I)`
#[test]
fn rule_relu_helper_1d_range() {
    fire(RELU_1D, "relu-helper-1d-range")
        .k(&["reluTensorHelper ( t , u , 2 )"], &["reluTensorHelper ( t , u , 0 ... 2 )"])
        .cells(&[]);
}

/// R24 `relu-helper-nd-step`:
/// `rule <k> reluTensorHelper(Y, X, I...J:Int, Is:Ints) => reluTensorHelper(Y[I], X[I], Is:Ints)
///  ~> reluTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J`
#[test]
fn rule_relu_helper_nd_step() {
    fire(RELU_2D, "relu-helper-nd-step")
        .k(
            &["reluTensorHelper ( m , r , 0 ... 1 , 2 )"],
            &["reluTensorHelper ( m [ 0 ] , r [ 0 ] , 2 )", "reluTensorHelper ( m , r , 1 ... 1 , 2 )"],
        )
        .cells(&[]);
}

/// R25 `relu-helper-range-step`:
/// `rule <k> reluTensorHelper(Y, X, I...J:Int) => reluTensorHelper(Y[I], X[I])
///  ~> reluTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J`
#[test]
fn rule_relu_helper_range_step() {
    fire(RELU_1D, "relu-helper-range-step")
        .k(
            &["reluTensorHelper ( t , u , 0 ... 2 )"],
            &["reluTensorHelper ( t [ 0 ] , u [ 0 ] )", "reluTensorHelper ( t , u , 1 ... 2 )"],
        )
        .cells(&[]);
}

/// R26 `relu-helper-nd-done`: `rule <k> reluTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>`
#[test]
fn rule_relu_helper_nd_done() {
    fire(RELU_2D, "relu-helper-nd-done").k(&["reluTensorHelper ( m , r , 1 ... 1 , 2 )"], &[]).cells(&[]);
}

/// R27 `relu-helper-range-done`: `rule <k> reluTensorHelper(_, _, I...I:Int) => . ...</k>`
#[test]
fn rule_relu_helper_range_done() {
    fire(RELU_1D, "relu-helper-range-done").k(&["reluTensorHelper ( t , u , 2 ... 2 )"], &[]).cells(&[]);
}

/// R28 `relu-helper-elem`: `rule reluTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = E1[I] in 0`
///
/// A plain copy: no `max` (§3(a)).
#[test]
fn rule_relu_helper_elem() {
    fire(RELU_1D, "relu-helper-elem")
        .k(&["reluTensorHelper ( t [ 0 ] , u [ 0 ] )"], &["let u [ 0 ] = t [ 0 ] in 0"])
        .cells(&[]);
}

/// R29 `relu-let-2d-max`:
/// `rule let E:Exp[I:Int][J:Int] = E2:Exp in E3:Exp => let E:Exp[I,J] = max(E2:Exp, 0.0) in E3:Exp`
///
/// It also clamps a user write with chained indices (§3(c)).
#[test]
fn rule_relu_let_2d_max() {
    fire(CHAINED_WRITE_2D, "relu-let-2d-max")
        .k(
            &["let m [ 0 ] [ 1 ] = -0.50000000000000000e1 in m [ 0 , 1 ]"],
            &["let m [ 0 , 1 ] = max ( -0.50000000000000000e1 , 0.00000000000000000e0 ) in m [ 0 , 1 ]"],
        )
        .cells(&[]);
}

/// R30 `drop-int-zero`: `rule <k> 0 => . ...</k>`
///
/// Its first use: the `in 0` body of the first element write of `reluTensorHelper`.
#[test]
fn rule_drop_int_zero() {
    let f = fire(RELU_1D, "drop-int-zero").k(&["0"], &[]);
    assert_eq!(common::k_items(&f.after), ["reluTensorHelper ( t , u , 1 ... 2 )", "u [ 1 ]"]);
    f.cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Linear Layer (L263–295; the copy at L370–395 adds nothing)
// ---------------------------------------------------------------------------------------------

/// R31 `let-linear`:
/// `rule <k> let Y:Id = linear(W, X) in E => defineTensor(Y, I) ~> linearHelper(Y, I, J, W, X) ~> E ...</k>
///  <shape>... W |-> I:Int,J:Int ...</shape>`
#[test]
fn rule_let_linear() {
    fire(LINEAR, "let-linear")
        .k(
            &["let y = linear ( W , x ) in y [ 0 ]"],
            &["defineTensor ( y , 1 )", "linearHelper ( y , 1 , 2 , W , x )", "y [ 0 ]"],
        )
        .cells(&[]);
}

/// R32 `linear-rows-range`: `rule linearHelper(Y, I:Int, J:Int, W, X) => linearHelper(Y, 0 ...I, J, W, X)`
#[test]
fn rule_linear_rows_range() {
    fire(LINEAR, "linear-rows-range")
        .k(&["linearHelper ( y , 1 , 2 , W , x )"], &["linearHelper ( y , 0 ... 1 , 2 , W , x )"])
        .cells(&[]);
}

/// R33 `linear-rows-step`:
/// `rule linearHelper(Y, I1:Int...I2:Int, J:Int, W, X) => linearHelper(Y[I1], 0 ...J, W[I1], X)
///  ~> linearHelper(Y, (I1 +Int 1)...I2:Int, J:Int, W, X) when I1 <Int I2`
#[test]
fn rule_linear_rows_step() {
    fire(LINEAR, "linear-rows-step")
        .k(
            &["linearHelper ( y , 0 ... 1 , 2 , W , x )"],
            &["linearHelper ( y [ 0 ] , 0 ... 2 , W [ 0 ] , x )", "linearHelper ( y , 1 ... 1 , 2 , W , x )"],
        )
        .cells(&[]);
}

/// R34 `linear-rows-done`: `rule linearHelper(_, I:Int...I:Int, _:Int, _:Id, _:Id) => .`
#[test]
fn rule_linear_rows_done() {
    fire(LINEAR, "linear-rows-done").k(&["linearHelper ( y , 1 ... 1 , 2 , W , x )"], &[]).cells(&[]);
}

/// R35 `linear-cols-step`:
/// `rule linearHelper(Y[I1], J1...J2, W[I1], X) => linearHelper(Y[I1], W[I1][J1], X[J1])
///  ~> linearHelper(Y[I1], (J1 +Int 1)...J2, W[I1], X) when J1 <Int J2`
#[test]
fn rule_linear_cols_step() {
    fire(LINEAR, "linear-cols-step")
        .k(
            &["linearHelper ( y [ 0 ] , 0 ... 2 , W [ 0 ] , x )"],
            &["linearHelper ( y [ 0 ] , W [ 0 ] [ 0 ] , x [ 0 ] )", "linearHelper ( y [ 0 ] , 1 ... 2 , W [ 0 ] , x )"],
        )
        .cells(&[]);
}

/// R36 `linear-cols-done`: `rule linearHelper(_:Id[_:Int], J...J, _:Id[_:Int], _:Id) => .`
#[test]
fn rule_linear_cols_done() {
    fire(LINEAR, "linear-cols-done").k(&["linearHelper ( y [ 0 ] , 2 ... 2 , W [ 0 ] , x )"], &[]).cells(&[]);
}

/// R37 `linear-mac`: `rule linearHelper(E1, E2, E3) => let E1 = E1 + (E2*E3) in 0`
#[test]
fn rule_linear_mac() {
    fire(LINEAR, "linear-mac")
        .k(
            &["linearHelper ( y [ 0 ] , W [ 0 ] [ 0 ] , x [ 0 ] )"],
            &["let y [ 0 ] = y [ 0 ] + W [ 0 ] [ 0 ] * x [ 0 ] in 0"],
        )
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Tanh (L296–333)
// ---------------------------------------------------------------------------------------------

/// R38 `let-tanh-tensor`:
/// `rule <k> let X:Id = tanhTensor(Y:Id) in E => defineTensor(X,Is) ~> tanhTensorHelper(Y, X, Is) ~> E ... </k>
///  <shape>... Y |-> Is ...</shape>`
#[test]
fn rule_let_tanh_tensor() {
    fire(TANH_1D, "let-tanh-tensor")
        .k(
            &["let h = tanhTensor ( v ) in h [ 0 ]"],
            &["defineTensor ( h , 1 )", "tanhTensorHelper ( v , h , 1 )", "h [ 0 ]"],
        )
        .cells(&[]);
}

/// R39 `tanh-helper-nd-range`: `rule tanhTensorHelper(Y, X, I:Int, Is:Ints) => tanhTensorHelper(Y, X, 0 ...I, Is)`
#[test]
fn rule_tanh_helper_nd_range() {
    fire(TANH_2D, "tanh-helper-nd-range")
        .k(&["tanhTensorHelper ( m , h , 1 , 2 )"], &["tanhTensorHelper ( m , h , 0 ... 1 , 2 )"])
        .cells(&[]);
}

/// R40 `tanh-helper-1d-range`: `rule tanhTensorHelper(Y, X, I:Int) => tanhTensorHelper(Y, X, 0 ...I)`
#[test]
fn rule_tanh_helper_1d_range() {
    fire(TANH_1D, "tanh-helper-1d-range")
        .k(&["tanhTensorHelper ( v , h , 1 )"], &["tanhTensorHelper ( v , h , 0 ... 1 )"])
        .cells(&[]);
}

/// R41 `tanh-helper-nd-step`:
/// `rule <k> tanhTensorHelper(Y, X, I...J:Int, Is:Ints) => tanhTensorHelper(Y[I], X[I], Is:Ints)
///  ~> tanhTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) ...</k> when I <Int J`
#[test]
fn rule_tanh_helper_nd_step() {
    fire(TANH_2D, "tanh-helper-nd-step")
        .k(
            &["tanhTensorHelper ( m , h , 0 ... 1 , 2 )"],
            &["tanhTensorHelper ( m [ 0 ] , h [ 0 ] , 2 )", "tanhTensorHelper ( m , h , 1 ... 1 , 2 )"],
        )
        .cells(&[]);
}

/// R42 `tanh-helper-range-step`:
/// `rule <k> tanhTensorHelper(Y, X, I...J:Int) => tanhTensorHelper(Y[I], X[I])
///  ~> tanhTensorHelper(Y, X, (I +Int 1)...J:Int) ...</k> when I <Int J`
#[test]
fn rule_tanh_helper_range_step() {
    fire(TANH_1D, "tanh-helper-range-step")
        .k(
            &["tanhTensorHelper ( v , h , 0 ... 1 )"],
            &["tanhTensorHelper ( v [ 0 ] , h [ 0 ] )", "tanhTensorHelper ( v , h , 1 ... 1 )"],
        )
        .cells(&[]);
}

/// R43 `tanh-helper-nd-done`: `rule <k> tanhTensorHelper(_, _, I...I:Int, _:Ints) => . ...</k>`
#[test]
fn rule_tanh_helper_nd_done() {
    fire(TANH_2D, "tanh-helper-nd-done").k(&["tanhTensorHelper ( m , h , 1 ... 1 , 2 )"], &[]).cells(&[]);
}

/// R44 `tanh-helper-range-done`: `rule <k> tanhTensorHelper(_, _, I...I:Int) => . ...</k>`
#[test]
fn rule_tanh_helper_range_done() {
    fire(TANH_1D, "tanh-helper-range-done").k(&["tanhTensorHelper ( v , h , 1 ... 1 )"], &[]).cells(&[]);
}

/// R45 `tanh-helper-elem`:
/// `rule tanhTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = tanhItem(E1[I]) in 0`
#[test]
fn rule_tanh_helper_elem() {
    fire(TANH_1D, "tanh-helper-elem")
        .k(&["tanhTensorHelper ( v [ 0 ] , h [ 0 ] )"], &["let h [ 0 ] = tanhItem ( v [ 0 ] ) in 0"])
        .cells(&[]);
}

/// `heat-tanh-item`, generated from R46 `context tanhItem(HOLE)`:
/// `rule <k> tanhItem(HOLE) => HOLE ~> tanhItem(□) ...</k> requires notBool isKResult(HOLE)`
#[test]
fn rule_heat_tanh_item() {
    fire(TANH_1D, "heat-tanh-item").k(&["tanhItem ( v [ 0 ] )"], &["v [ 0 ]", "tanhItem ( □ )"]).cells(&[]);
}

/// `cool-tanh-item`, generated from R46 `context tanhItem(HOLE)`:
/// `rule <k> HOLE ~> tanhItem(□) => tanhItem(HOLE) ...</k> requires isKResult(HOLE)`
#[test]
fn rule_cool_tanh_item() {
    fire(TANH_1D, "cool-tanh-item")
        .k(&["-0.10000000000000000e1", "tanhItem ( □ )"], &["tanhItem ( -0.10000000000000000e1 )"])
        .cells(&[]);
}

/// R47 `tanh-item-merge-index`: `rule tanhItem(E:Exp[I:Int][J:Int]) => tanhItem(E:Exp[I:Int,J:Int])`
///
/// Never krun's choice (`heat-tanh-item` is tried first, §2.9); `search` takes it.
#[test]
fn rule_tanh_item_merge_index() {
    fire(TANH_2D, "tanh-item-merge-index").k(&["tanhItem ( m [ 0 ] [ 0 ] )"], &["tanhItem ( m [ 0 , 0 ] )"]).cells(&[]);
}

/// R48 `tanh-let-2d`:
/// `rule let E:Exp[I:Int][J:Int] = tanhItem(E2:Exp) in E3:Exp => let E:Exp[I,J] = tanhItem(E2:Exp) in E3:Exp`
///
/// Never krun's choice (`heat-let-2` and `relu-let-2d-max` are tried first, §2.9); `search`
/// takes it.
#[test]
fn rule_tanh_let_2d() {
    fire(TANH_2D, "tanh-let-2d")
        .k(
            &["let h [ 0 ] [ 0 ] = tanhItem ( m [ 0 ] [ 0 ] ) in 0"],
            &["let h [ 0 , 0 ] = tanhItem ( m [ 0 ] [ 0 ] ) in 0"],
        )
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Sigmoid (L335–368)
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Min and Max (L397–419)
// ---------------------------------------------------------------------------------------------

/// R60 `min-left`: `rule min(A:Float, B:Float) => A when A <Float B`
#[test]
fn rule_min_left() {
    fire("min(1.0, 2.0)", "min-left")
        .k(&["min ( 0.10000000000000000e1 , 0.20000000000000000e1 )"], &["0.10000000000000000e1"])
        .cells(&[]);
}

/// R61 `min-right`: `rule min(A:Float, B:Float) => B when A >=Float B`
#[test]
fn rule_min_right() {
    fire("min(3.0, 1.0)", "min-right")
        .k(&["min ( 0.30000000000000000e1 , 0.10000000000000000e1 )"], &["0.10000000000000000e1"])
        .cells(&[]);
}

/// R62 `max-right`: `rule max(A:Float, B:Float) => B when A <Float B`
#[test]
fn rule_max_right() {
    fire("max(1.0, 2.0)", "max-right")
        .k(&["max ( 0.10000000000000000e1 , 0.20000000000000000e1 )"], &["0.20000000000000000e1"])
        .cells(&[]);
}

/// R63 `max-left`: `rule max(A:Float, B:Float) => A when A >=Float B`
#[test]
fn rule_max_left() {
    fire("max(3.0, 1.0)", "max-left")
        .k(&["max ( 0.30000000000000000e1 , 0.10000000000000000e1 )"], &["0.30000000000000000e1"])
        .cells(&[]);
}

/// R64 `tanh-item-float`:
/// `rule tanhItem(X:Float) => (expFloat(2.0 *Float X) -Float 1.0) /Float (expFloat(2.0 *Float X) +Float 1.0)`
///
/// With `X = -1.0`: `(e^-2 - 1) / (e^-2 + 1) = -0.7615941559557649` (docs/semantics.md §3(c)),
/// printed with 17 digits.
#[test]
fn rule_tanh_item_float() {
    let f = fire(TANH_1D, "tanh-item-float").k(&["tanhItem ( -0.10000000000000000e1 )"], &["-0.76159415595576485e0"]);
    let value = f.after.top_term().and_then(|t| t.as_float()).unwrap();
    // The right-hand side, operation by operation, with `X = -1.0`.
    let x: f64 = -1.0;
    let by_hand = ((2.0 * x).exp() - 1.0) / ((2.0 * x).exp() + 1.0);
    assert!((value - by_hand).abs() <= f64::EPSILON, "{value} vs {by_hand}");
    f.cells(&[]);
}

/// R65 `sigmoid-item-float`: `rule sigmoidItem(X:Float) => (1.0 /Float (1.0 +Float expFloat(0.0 -Float X)))`
///
/// With `X = 0.0`: `1.0 / (1.0 + e^0) = 0.5`.
#[test]
fn rule_sigmoid_item_float() {
    fire(SIGMOID_1D, "sigmoid-item-float")
        .k(&["sigmoidItem ( 0.00000000000000000e0 )"], &["0.50000000000000000e0"])
        .cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Argmax (L421–443)
// ---------------------------------------------------------------------------------------------

/// R66 `argmax-start`:
/// `rule <k> ArgMax(X:Id) => ArgMaxHelper(X, 0 ...I, 0.0, 0) ...</k> <shape>... X |-> I:Int ...</shape>`
#[test]
fn rule_argmax_start() {
    fire(ARGMAX, "argmax-start")
        .k(&["ArgMax ( s )"], &["ArgMaxHelper ( s , 0 ... 3 , 0.00000000000000000e0 , 0 )"])
        .cells(&[]);
}

/// R67 `argmax-step-greater`:
/// `rule <k> ArgMaxHelper(X, I...J, F:Float, _:Int) => ArgMaxHelper(X, (I +Int 1)...J, F2, I) ...</k>
///  <env>... X|->L ...</env> <store>... (L +Int I +Int 1)|-> F2 ...</store>
///  when F2 >Float F andBool J >Int I`
///
/// Element 0 is `1.0 > 0.0`.
#[test]
fn rule_argmax_step_greater() {
    fire(ARGMAX, "argmax-step-greater")
        .k(
            &["ArgMaxHelper ( s , 0 ... 3 , 0.00000000000000000e0 , 0 )"],
            &["ArgMaxHelper ( s , 1 ... 3 , 0.10000000000000000e1 , 0 )"],
        )
        .cells(&[]);
}

/// R68 `argmax-step-less`:
/// `rule <k> ArgMaxHelper(X, I...J, F:Float, II:Int) => ArgMaxHelper(X, (I +Int 1)...J, F, II) ...</k>
///  <env>... X|->L ...</env> <store>... (L +Int I +Int 1)|-> F2 ...</store>
///  when F2 <Float F andBool J >Int I`
///
/// Element 2 is `2.0 < 4.0`, the maximum so far (element 1).
#[test]
fn rule_argmax_step_less() {
    fire(ARGMAX, "argmax-step-less")
        .k(
            &["ArgMaxHelper ( s , 2 ... 3 , 0.40000000000000000e1 , 1 )"],
            &["ArgMaxHelper ( s , 3 ... 3 , 0.40000000000000000e1 , 1 )"],
        )
        .cells(&[]);
}

/// R69 `argmax-done`: `rule <k> ArgMaxHelper(_, I...I, _:Float, II:Int) => II ...</k>`
#[test]
fn rule_argmax_done() {
    fire(ARGMAX, "argmax-done").k(&["ArgMaxHelper ( s , 3 ... 3 , 0.40000000000000000e1 , 1 )"], &["1"]).cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Utility functions (L445–460)
// ---------------------------------------------------------------------------------------------

/// R70 `range-map-empty`: `rule N...M |-> _ => .Map requires N >Int M`
///
/// `define-tensor-1d` on `initTensor(0)` builds `1 ... 0 |-> 0.0`, which is `.Map`: only the
/// header is stored.
#[test]
fn rule_range_map_empty() {
    fire("let t = initTensor(0) in 1.0", "range-map-empty")
        .by("define-tensor-1d")
        .k(&["defineTensor ( t , 0 )"], &[])
        .side(&[("range-map-empty", 1)])
        .cells(&[env(&[], &["t |-> 0"]), store(&[], &["0 |-> tensor ( 1 , 0 )"]), next_loc(0, 1)]);
}

/// R71 `range-map-cons`: `rule N...M |-> K => N |-> K (N +Int 1)...M |-> K requires N <=Int M`
///
/// `define-tensor-1d` on `initTensor(3)` builds `1 ... 3 |-> 0.0`: three conses, then
/// `4 ... 3 |-> 0.0` is empty.
#[test]
fn rule_range_map_cons() {
    fire(READ_1D_LAST, "range-map-cons")
        .by("define-tensor-1d")
        .k(&["defineTensor ( t , 3 )"], &[])
        .side(&[("range-map-cons", 3), ("range-map-empty", 1)])
        .cells(&[
            env(&[], &["t |-> 0"]),
            store(
                &[],
                &[
                    "0 |-> tensor ( 1 , 3 )",
                    "1 |-> 0.00000000000000000e0",
                    "2 |-> 0.00000000000000000e0",
                    "3 |-> 0.00000000000000000e0",
                ],
            ),
            next_loc(0, 4),
        ]);
}

/// R72 `fun-merge-2`: `rule fun(E:Exp[I:Int][J:Int]) => fun(E[I,J]) [function]`
///
/// Dead code (no rule builds `fun`), tested on a configuration built by hand.
#[test]
fn rule_fun_merge_2() {
    let a_0_1 = index(index(id("a"), &[0]), &[1]);
    fire_from(fun_config(a_0_1), "fun-merge-2", "fun(a[0][1])")
        .k(&["fun ( a [ 0 ] [ 1 ] )"], &["fun ( a [ 0 , 1 ] )"])
        .cells(&[]);
}

/// R73 `fun-merge-n`: `rule fun(E:Exp[I:Int][Is:Ints]) => fun(E[I, Is]) [function]`
///
/// Dead code (no rule builds `fun`), tested on a configuration built by hand.
#[test]
fn rule_fun_merge_n() {
    let a_0_12 = index(index(id("a"), &[0]), &[1, 2]);
    fire_from(fun_config(a_0_12), "fun-merge-n", "fun(a[0][1, 2])")
        .k(&["fun ( a [ 0 ] [ 1 , 2 ] )"], &["fun ( a [ 0 , 1 , 2 ] )"])
        .cells(&[]);
}

/// R74 `fun-unwrap`: `rule fun(X:Id[Is:Ints]) => X:Id[Is:Ints] [function]`
///
/// Dead code (no rule builds `fun`), tested on a configuration built by hand.
#[test]
fn rule_fun_unwrap() {
    let a_01 = index(id("a"), &[0, 1]);
    fire_from(fun_config(a_01), "fun-unwrap", "fun(a[0, 1])").k(&["fun ( a [ 0 , 1 ] )"], &["a [ 0 , 1 ]"]).cells(&[]);
}

// ---------------------------------------------------------------------------------------------
// Coverage
// ---------------------------------------------------------------------------------------------

/// The rules this file tests, in its order.
const COVERED: &[&str] = &[
    // Syntax: strictness
    "heat-index-1",
    "cool-index-1",
    "heat-max-1",
    "heat-max-2",
    "cool-max-1",
    "cool-max-2",
    "heat-min-1",
    "heat-min-2",
    "cool-min-1",
    "cool-min-2",
    "heat-mul-1",
    "heat-mul-2",
    "cool-mul-1",
    "cool-mul-2",
    "heat-add-1",
    "heat-add-2",
    "cool-add-1",
    "cool-add-2",
    "heat-let-2",
    "cool-let-2",
    // Basic operations
    "let-scalar-float",
    "let-scalar-int",
    "mul-float",
    "add-float",
    // Tensor
    "let-init-tensor",
    "define-tensor-1d",
    "define-tensor-nd",
    "define-tensor-helper-step",
    "define-tensor-helper-last",
    "lookup-id",
    "index-tensor-anywhere",
    "index-tensor-split-anywhere",
    "lookup-loc",
    "let-index-assign",
    "heat-storeval-value",
    "cool-storeval-value",
    "heat-storeval-base",
    "cool-storeval-base",
    "storeval-split",
    "storeval-id-1d",
    "storeval-lookup",
    "store-at-val",
    // Relu
    "let-relu-tensor",
    "relu-helper-nd-range",
    "relu-helper-1d-range",
    "relu-helper-nd-step",
    "relu-helper-range-step",
    "relu-helper-nd-done",
    "relu-helper-range-done",
    "relu-helper-elem",
    "relu-let-2d-max",
    "drop-int-zero",
    // Linear Layer
    "let-linear",
    "linear-rows-range",
    "linear-rows-step",
    "linear-rows-done",
    "linear-cols-step",
    "linear-cols-done",
    "linear-mac",
    // Tanh
    "let-tanh-tensor",
    "tanh-helper-nd-range",
    "tanh-helper-1d-range",
    "tanh-helper-nd-step",
    "tanh-helper-range-step",
    "tanh-helper-nd-done",
    "tanh-helper-range-done",
    "tanh-helper-elem",
    "heat-tanh-item",
    "cool-tanh-item",
    "tanh-item-merge-index",
    "tanh-let-2d",
    // Sigmoid
    "let-sigmoid-tensor",
    "sigmoid-helper-nd-range",
    "sigmoid-helper-1d-range",
    "sigmoid-helper-nd-step",
    "sigmoid-helper-range-step",
    "sigmoid-helper-nd-done",
    "sigmoid-helper-range-done",
    "sigmoid-helper-elem",
    "heat-sigmoid-item",
    "cool-sigmoid-item",
    "sigmoid-item-merge-index",
    "sigmoid-let-2d",
    // Min and Max
    "min-left",
    "min-right",
    "max-right",
    "max-left",
    "tanh-item-float",
    "sigmoid-item-float",
    // Argmax
    "argmax-start",
    "argmax-step-greater",
    "argmax-step-less",
    "argmax-done",
    // Utility functions
    "range-map-empty",
    "range-map-cons",
    "fun-merge-2",
    "fun-merge-n",
    "fun-unwrap",
];

/// `COVERED` is exactly the set of rules that can fire (all but the 4 contexts: 70 written
/// rules and 28 generated ones), and each has its `rule_…` test in this file.
#[test]
fn every_fireable_rule_has_a_test() {
    let fireable: BTreeSet<&str> = Profile::published().fireable().map(|r| r.id).collect();
    let covered: BTreeSet<&str> = COVERED.iter().copied().collect();
    assert_eq!(covered.len(), COVERED.len(), "an ID is listed twice");
    let missing: Vec<&&str> = fireable.difference(&covered).collect();
    let unknown: Vec<&&str> = covered.difference(&fireable).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "rules without a test: {missing:?}; listed but not fireable: {unknown:?}"
    );
    assert_eq!(fireable.len(), 98, "70 written rules and 28 generated ones");
    let source = include_str!("rules.rs");
    for id in COVERED {
        let test = format!("fn rule_{}()", id.replace('-', "_"));
        assert!(source.contains(&test), "no test `{test}` for `{id}`");
    }
}
