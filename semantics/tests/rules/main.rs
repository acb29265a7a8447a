//! One unit test per rule of the published profile (every rule but the four contexts, plus the
//! 28 heating and cooling rules K generates, docs/semantics.md §1 and §1.1), grouped as in
//! `k-nn.md`: one module per section, in the file's order (`syntax.rs`, `basic.rs`,
//! `tensor.rs`, `relu.rs`, `linear.rs`, `tanh.rs`, `sigmoid.rs`, `minmax.rs`, `argmax.rs`,
//! `utility.rs`), the harness and the programs here. Each test walks krun's path on a small
//! program until the rule is among the successors of the current configuration, then checks
//! that step: the top of `<k>` before and after, the rest of `<k>` untouched, and the changes of
//! `<env>`, `<store>`, `<nextLoc>` and `<shape>` (every cell not listed must be unchanged).
//!
//! The expected texts are derived by hand from the K rules (left-hand side instantiated on the
//! program's state, right-hand side printed as krun prints it), not copied from the engine.

mod argmax;
mod basic;
#[path = "../common/mod.rs"]
mod common;
mod linear;
mod minmax;
mod relu;
mod sigmoid;
mod syntax;
mod tanh;
mod tensor;
mod utility;

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
// Coverage
// ---------------------------------------------------------------------------------------------

/// The rules this crate tests, in the order of its modules.
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
/// rules and 28 generated ones), and each has its `rule_…` test in this crate's modules.
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
    let source = [
        include_str!("syntax.rs"),
        include_str!("basic.rs"),
        include_str!("tensor.rs"),
        include_str!("relu.rs"),
        include_str!("linear.rs"),
        include_str!("tanh.rs"),
        include_str!("sigmoid.rs"),
        include_str!("minmax.rs"),
        include_str!("argmax.rs"),
        include_str!("utility.rs"),
    ]
    .concat();
    for id in COVERED {
        let test = format!("fn rule_{}()", id.replace('-', "_"));
        assert!(source.contains(&test), "no test `{test}` for `{id}`");
    }
}
