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

mod batch_norm;
mod broadcast;
#[path = "../common/mod.rs"]
mod common;
mod concat;
mod determinism;
mod extensions;
mod matmul;
mod pad;
mod pools;
mod reduce;
mod reshape;
mod rev01_to_04;
mod rev05_to_06;
mod rev07_to_13;
mod slice;
mod softmax;
mod sub_div;
mod transpose;

use common::firing::{self, Firing, cell_lines, env, next_loc, shape, store};

use std::collections::BTreeSet;

use knn_semantics::config::Config;
use knn_semantics::profile::Profile;
use knn_semantics::syntax::Span;
use knn_semantics::term::{FuncTerm, Ints, Node, Sym, Term};

// ---------------------------------------------------------------------------------------------
// Harness (the published one of `rules/main.rs`, with the profile as a parameter)
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

/// The revised rules this file tests, in its order (every `rev-…` and `ext-…` rule that can fire; the
/// context `rev-ctx-storeval-base-id` fires through `rev-heat-storeval-base`).
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
    // Ext-3
    "ext-let-conv2d",
    "ext-conv2d-invalid-attribute",
    "ext-conv2d-shape-mismatch",
    "ext-conv2d-helper-step",
    "ext-conv2d-helper-done",
    // Ext-4
    "ext-let-pool2d",
    "ext-pool2d-invalid-attribute",
    "ext-pool2d-shape-mismatch",
    "ext-max-pool2d-helper-step",
    "ext-avg-pool2d-helper-step",
    "ext-pool2d-helper-done",
    "ext-heat-pool-mean",
    "ext-cool-pool-mean",
    "ext-pool-mean",
    // Ext-5
    "ext-let-reshape",
    "ext-let-flatten",
    "ext-reshape-shape-mismatch",
    "ext-reshape-helper-step",
    "ext-reshape-helper-done",
    // Ext-6
    "ext-let-transpose",
    "ext-transpose-invalid-permutation",
    "ext-transpose-helper-step",
    "ext-transpose-helper-done",
    // Ext-7
    "ext-heat-sub-1",
    "ext-heat-sub-2",
    "ext-cool-sub-1",
    "ext-cool-sub-2",
    "ext-heat-div-1",
    "ext-heat-div-2",
    "ext-cool-div-1",
    "ext-cool-div-2",
    "ext-sub-float",
    "ext-sub-int",
    "ext-sub-int-float",
    "ext-sub-float-int",
    "ext-div-float",
    "ext-div-int",
    "ext-div-int-zero",
    "ext-div-int-float",
    "ext-div-float-int",
    "ext-sub-div-invalid",
    // Ext-8
    "ext-let-elementwise",
    "ext-elementwise-shape-mismatch",
    "ext-broadcast-helper-step",
    "ext-broadcast-helper-done",
    // Ext-9
    "ext-let-exp-log-tensor",
    "ext-exp-log-helper-step",
    "ext-let-softmax",
    "ext-softmax-invalid-axis",
    "ext-softmax-helper-step",
    "ext-softmax-max",
    "ext-softmax-sum",
    "ext-math-helper-done",
    "ext-heat-math-item",
    "ext-cool-math-item",
    "ext-exp-item",
    "ext-log-item",
    "ext-exp-shift-item",
    "ext-softmax-item",
    "ext-log-softmax-item",
    "ext-math-item-invalid",
    // Ext-10
    "ext-let-reduce",
    "ext-reduce-invalid-axes",
    "ext-reduce-helper-step",
    "ext-reduce-helper-done",
    // Ext-11
    "ext-let-concat",
    "ext-concat-invalid-axis",
    "ext-concat-shape-mismatch",
    "ext-concat-helper-step",
    "ext-concat-helper-done",
    // Ext-12
    "ext-let-slice",
    "ext-slice-invalid-attribute",
    "ext-slice-helper-step",
    "ext-slice-helper-done",
    // Ext-13
    "ext-let-pad",
    "ext-pad-invalid-pads",
    "ext-pad-helper-copy",
    "ext-pad-helper-fill",
    "ext-pad-helper-done",
    // Ext-15
    "ext-let-matmul",
    "ext-matmul-shape-mismatch",
    "ext-matmul-helper-step",
    "ext-matmul-helper-done",
    // Ext-14
    "ext-let-batch-norm",
    "ext-batch-norm-shape-mismatch",
    "ext-batch-norm-helper-step",
    "ext-batch-norm-helper-done",
    "ext-sqrt-item",
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
    let source = [
        include_str!("rev01_to_04.rs"),
        include_str!("rev05_to_06.rs"),
        include_str!("rev07_to_13.rs"),
        include_str!("extensions.rs"),
        include_str!("pools.rs"),
        include_str!("reshape.rs"),
        include_str!("transpose.rs"),
        include_str!("sub_div.rs"),
        include_str!("broadcast.rs"),
        include_str!("softmax.rs"),
        include_str!("reduce.rs"),
        include_str!("concat.rs"),
        include_str!("slice.rs"),
        include_str!("pad.rs"),
        include_str!("matmul.rs"),
        include_str!("batch_norm.rs"),
    ]
    .concat();
    for id in COVERED {
        let test = format!("fn rule_{}()", id.replace('-', "_"));
        assert!(source.contains(&test), "no test `{test}` for `{id}`");
    }
}
