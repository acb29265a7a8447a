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

#[path = "../common/mod.rs"]
mod common;
mod extensions;
mod rev01_to_06;
mod rev07_to_13;

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
    let source =
        [include_str!("rev01_to_06.rs"), include_str!("rev07_to_13.rs"), include_str!("extensions.rs")].concat();
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
