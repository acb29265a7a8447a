//! Every case of docs/semantics.md §3's table (the quirks, and the revised rules' effect on
//! them), under both profiles: what the published rules do (§3) beside what the revised rules
//! do (§4). The expectations are derived by hand from the rules, as that page records them.

use knn_semantics::config::kitem_to_string;
use knn_semantics::engine::Outcome;
use knn_semantics::errors::ErrorKind;
use knn_semantics::syntax::parse_program;
use knn_semantics::term::term_of_program;
use knn_semantics::{Config, Profile, StepOptions, run};

/// How a run ends, as the tables state it.
#[derive(Debug, PartialEq)]
enum Expect {
    /// A Float, compared bit for bit.
    Float(f64),
    Int(i64),
    /// A value printed in krun syntax (a leaked header).
    Printed(&'static str),
    Empty,
    /// Stuck, with the item at the top of `<k>`.
    Stuck(&'static str),
    /// krun aborts (duplicate key in a map concatenation).
    Aborted,
    Error(ErrorKind),
}

use Expect::*;

/// The extensions' rows (Ext-1 … Ext-10, Ext-15).
mod extensions;

fn outcome(profile: &'static Profile, source: &str) -> Expect {
    let program = parse_program(source, profile.grammar).unwrap_or_else(|e| panic!("{source}: {e}"));
    let result = run(
        profile,
        Config::initial(term_of_program(&program)),
        StepOptions { max_steps: Some(1_000_000), trace: false },
    );
    match result.outcome {
        Outcome::Value(v) => match (v.as_float(), v.as_int()) {
            (Some(x), _) => Float(x),
            (_, Some(n)) => Int(n),
            _ => Printed(Box::leak(v.to_string().into_boxed_str())),
        },
        Outcome::Empty => Empty,
        Outcome::Stuck(item) => Stuck(Box::leak(kitem_to_string(&item).into_boxed_str())),
        Outcome::Aborted(_) => Aborted,
        Outcome::Error { kind, .. } => Error(kind),
        other => panic!("{source}: unexpected {other:?}"),
    }
}

/// Checks one row: the program, then the published and the revised outcome.
fn row(case: &str, source: &str, published: Expect, revised: Expect) {
    let (p, r) = (outcome(Profile::published(), source), outcome(Profile::revised(), source));
    let matches = |got: &Expect, want: &Expect| match (got, want) {
        (Float(a), Float(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
        _ => got == want,
    };
    assert!(matches(&p, &published), "{case}, published: {p:?}, expected {published:?}\n  {source}");
    assert!(matches(&r, &revised), "{case}, revised: {r:?}, expected {revised:?}\n  {source}");
}

const S3: &str = "let s = initTensor(3) in ";
const AB: &str = "let a = initTensor(2) in let b = initTensor(2) in ";

#[test]
fn a_relu_at_rank_one() {
    row(
        "(a)",
        "let t = initTensor(3) in let t[1] = -2.0 in let t[2] = 5.0 in (let u = reluTensor(t) in u[1])",
        Float(-2.0),
        Float(0.0),
    );
}

#[test]
fn b_relu_at_rank_two_is_unchanged_and_rank_three_works() {
    row(
        "(b) rank 2",
        "let m = initTensor(2, 2) in let m[0, 1] = -4.0 in let m[1, 0] = 3.0 in (let r = reluTensor(m) in r[0, 1] + r[1, 0])",
        Float(3.0),
        Float(3.0),
    );
    row(
        "(b) rank 3",
        "let t = initTensor(2, 2, 2) in let t[1, 0, 1] = -3.0 in let t[0, 1, 1] = 4.0 in \
         (let u = reluTensor(t) in u[1, 0, 1] + u[0, 1, 1])",
        Stuck("storeVal ( $1 [ 2 ] , tensor ( 13 , 2 ) )"),
        Float(4.0),
    );
    row(
        "(b) rank 3, B < C",
        "let t = initTensor(1, 1, 2) in (let u = reluTensor(t) in 1.0)",
        Stuck("0.00000000000000000e0 [ 0 ]"),
        Float(1.0),
    );
}

#[test]
fn c_tanh_and_sigmoid_are_not_clamped() {
    let tanh = "let m = initTensor(1, 2) in let m[0, 0] = -1.0 in let m[0, 1] = 1.0 in (let h = tanhTensor(m) in ";
    row("(c) sum", &format!("{tanh}h[0, 0] + h[0, 1])"), Float(0.7615941559557649), Float(0.0));
    row("(c) h[0, 0]", &format!("{tanh}h[0, 0])"), Float(0.0), Float(-0.7615941559557649));
    row("(c) h[0, 1]", &format!("{tanh}h[0, 1])"), Float(0.7615941559557649), Float(0.7615941559557649));
    row(
        "(c) sigmoid rank 2",
        "let m = initTensor(1, 2) in let m[0, 0] = -2.0 in (let s = sigmoidTensor(m) in s[0, 0])",
        Float(0.11920292202211755),
        Float(0.11920292202211755),
    );
    row("(c) chained user write", "let m = initTensor(2, 2) in let m[0][1] = -5.0 in m[0, 1]", Float(0.0), Float(-5.0));
}

#[test]
fn d_argmax() {
    row(
        "(d) [-3,-1,-2]",
        &format!("{S3}let s[0] = -3.0 in let s[1] = -1.0 in let s[2] = -2.0 in ArgMax(s)"),
        Empty,
        Int(1),
    );
    row(
        "(d) [1,5,5]",
        &format!("{S3}let s[0] = 1.0 in let s[1] = 5.0 in let s[2] = 5.0 in ArgMax(s)"),
        Stuck("ArgMaxHelper ( s , 2 ... 3 , 0.50000000000000000e1 , 1 )"),
        Int(1),
    );
    row(
        "(d) [0,2,0]",
        &format!("{S3}let s[1] = 2.0 in ArgMax(s)"),
        Stuck("ArgMaxHelper ( s , 0 ... 3 , 0.00000000000000000e0 , 0 )"),
        Int(1),
    );
    row("(d) [4,3]", "let s = initTensor(2) in let s[0] = 4.0 in let s[1] = 3.0 in ArgMax(s)", Empty, Int(0));
    row(
        "(d) let-bound 0",
        "let s = initTensor(2) in let s[0] = 4.0 in let s[1] = 3.0 in let k = ArgMax(s) in k",
        Stuck("let k = □ in k"),
        Int(0),
    );
    row(
        "(d) after reluTensor",
        &format!("{S3}let s[0] = 1.0 in (let r = reluTensor(s) in ArgMax(r))"),
        Stuck("ArgMax ( r )"),
        Int(0),
    );
    row(
        "(d) rank 2",
        "let m = initTensor(2, 2) in ArgMax(m)",
        Stuck("ArgMax ( m )"),
        Error(ErrorKind::ArgmaxNotAVector),
    );
    row(
        "(d) -0.0",
        "let s = initTensor(1) in let s[0] = -0.0 in ArgMax(s)",
        Stuck("ArgMaxHelper ( s , 0 ... 1 , 0.00000000000000000e0 , 0 )"),
        Int(0),
    );
}

#[test]
fn e_out_of_bounds() {
    let oob = Error(ErrorKind::IndexOutOfBounds);
    row("(e) neighbour read", &format!("{AB}let b[0] = 7.0 in a[3]"), Float(7.0), oob);
    row("(e) header read", &format!("{AB}a[2]"), Printed("tensor ( 4 , 2 )"), Error(ErrorKind::IndexOutOfBounds));
    row("(e) past the store", &format!("{AB}a[5]"), Stuck("lookup ( 6 )"), Error(ErrorKind::IndexOutOfBounds));
    row(
        "(e) header clobbered",
        &format!("{AB}let a[2] = 9.0 in b[0]"),
        Stuck("0.90000000000000000e1 [ 0 ]"),
        Error(ErrorKind::IndexOutOfBounds),
    );
    row(
        "(e) write past the store",
        &format!("{AB}let a[7] = 1.0 in a[0]"),
        Stuck("storeVal ( a [ 7 ] , 0.10000000000000000e1 )"),
        Error(ErrorKind::IndexOutOfBounds),
    );
    row(
        "(e) row overflow",
        "let m = initTensor(2, 2) in let m[0, 3] = 5.0 in m[1, 0]",
        Float(5.0),
        Error(ErrorKind::IndexOutOfBounds),
    );
}

#[test]
fn f_int_arithmetic() {
    row("(f) 1 + 2", "1 + 2", Stuck("1 + 2"), Int(3));
    row("(f) 1 + 2.0", "1 + 2.0", Stuck("1 + 0.20000000000000000e1"), Float(3.0));
    row("(f) 2 * 3", "2 * 3", Stuck("2 * 3"), Int(6));
    row("(f) let n = 0 in n", "let n = 0 in n", Empty, Int(0));
    row("(f) 0", "0", Empty, Int(0));
}

#[test]
fn g_scalar_functions() {
    row("(g) relu", "let x = relu(3.0) in x", Stuck("let x = relu ( 0.30000000000000000e1 ) in x"), Float(3.0));
    row(
        "(g) relu negative",
        "let x = relu(-3.0) in x",
        Stuck("let x = relu ( -0.30000000000000000e1 ) in x"),
        Float(0.0),
    );
    row(
        "(g) tanh",
        "let x = tanh(0.5) in x",
        Stuck("let x = tanh ( 0.50000000000000000e0 ) in x"),
        Float(0.46211715726000974),
    );
    row(
        "(g) sigmoid",
        "let x = sigmoid(0.0) in x",
        Stuck("let x = sigmoid ( 0.00000000000000000e0 ) in x"),
        Float(0.5),
    );
}

#[test]
fn h_linear_shapes_are_checked() {
    let w = "let W = initTensor(1, 2) in let W[0, 0] = 2.0 in let W[0, 1] = 3.0 in ";
    row(
        "(h) shorter",
        &format!("let x = initTensor(1) in {w}let x[0] = 1.0 in (let y = linear(W, x) in y[0])"),
        Stuck("0.30000000000000000e1 * tensor ( 3 , 1 )"),
        Error(ErrorKind::ShapeMismatch),
    );
    row(
        "(h) longer",
        &format!(
            "let x = initTensor(3) in {w}let x[0] = 1.0 in let x[1] = 1.0 in let x[2] = 100.0 in (let y = linear(W, x) in y[0])"
        ),
        Float(5.0),
        Error(ErrorKind::ShapeMismatch),
    );
    row(
        "(h) matching",
        &format!("let x = initTensor(2) in {w}let x[0] = 1.0 in let x[1] = 1.0 in (let y = linear(W, x) in y[0])"),
        Float(5.0),
        Float(5.0),
    );
}

#[test]
fn i_shadowing_and_scope() {
    row(
        "(i) scalar shadowing",
        "let x = 1.0 in let x = 2.0 in x",
        Stuck("let 0.10000000000000000e1 = 0.20000000000000000e1 in 0.10000000000000000e1"),
        Float(2.0),
    );
    row("(i) initTensor shadowing", "let t = initTensor(2) in let t = initTensor(3) in t[0]", Aborted, Float(0.0));
    row(
        "(i) reluTensor in place",
        "let t = initTensor(2) in let t[0] = 5.0 in (let t = reluTensor(t) in t[0])",
        Float(0.0),
        Error(ErrorKind::AliasedOutput),
    );
    row(
        "(i) tensor then scalar",
        "let t = 5.0 in (let t = initTensor(2) in t[0])",
        Stuck("defineTensor ( 0.50000000000000000e1 , 2 )"),
        Float(0.0),
    );
    row("(i) scalar after tensor", "let t = initTensor(2) in let t = 5.0 in t", Float(5.0), Float(5.0));
    row("(i) escaped u", "(let u = initTensor(1) in 2.0) + u[0]", Float(2.0), Error(ErrorKind::UnboundIdentifier));
}

#[test]
fn j_tanh_overflow() {
    row(
        "(j) rank 1",
        "let v = initTensor(1) in let v[0] = 400.0 in (let h = tanhTensor(v) in h[0])",
        Float(f64::NAN),
        Float(1.0),
    );
    row(
        "(j) rank 2",
        "let m = initTensor(1, 1) in let m[0, 0] = 400.0 in (let h = tanhTensor(m) in h[0, 0])",
        Stuck("max ( NaN , 0.00000000000000000e0 )"),
        Float(1.0),
    );
    row(
        "(j) sigmoid is logistic",
        "let v = initTensor(1) in let v[0] = 3.0 in (let s = sigmoidTensor(v) in s[0])",
        Float(0.9525741268224334),
        Float(0.9525741268224334),
    );
}

#[test]
fn k_zero_dimensions() {
    row(
        "(k) X[0] of initTensor(0)",
        "let X = initTensor(0) in X[0]",
        Stuck("lookup ( 1 )"),
        Error(ErrorKind::IndexOutOfBounds),
    );
    row("(k) ArgMax of initTensor(0)", "let X = initTensor(0) in ArgMax(X)", Empty, Error(ErrorKind::ArgmaxEmpty));
    row(
        "(k) initTensor(2, 0)",
        "let X = initTensor(2, 0) in X[0, 0]",
        Printed("tensor ( 5 , 0 )"),
        Error(ErrorKind::IndexOutOfBounds),
    );
    row("(k) initTensor(0, 3)", "let X = initTensor(0, 3) in X[0, 1]", Float(0.0), Error(ErrorKind::IndexOutOfBounds));
}

#[test]
fn l_variables_and_aliases() {
    row("(l) scalar", "let x = 2.0 in let y = x in y", Float(2.0), Float(2.0));
    row(
        "(l) tensor alias",
        "let X = initTensor(2) in let Y = X in Y[0]",
        Stuck("let Y = tensor ( 1 , 2 ) in Y [ 0 ]"),
        Float(0.0),
    );
    row(
        "(l) writes through an alias",
        "let X = initTensor(2) in let Y = X in let Y[1] = 4.0 in X[1]",
        Stuck("let Y = tensor ( 1 , 2 ) in let Y [ 1 ] = 0.40000000000000000e1 in X [ 1 ]"),
        Float(4.0),
    );
}

#[test]
fn m_layers_chain() {
    let net = "let x = initTensor(2) in let W = initTensor(2, 2) in let x[0] = 1.0 in let W[0, 0] = -1.0 in \
               let W[1, 1] = 2.0 in (let h = linear(W, x) in ";
    row(
        "(m) linear → reluTensor",
        &format!("{net}(let a = reluTensor(h) in a[0]))"),
        Stuck("let a = reluTensor ( h ) in a [ 0 ]"),
        Float(0.0),
    );
    row("(m) linear → ArgMax", &format!("{net}ArgMax(h))"), Stuck("ArgMax ( h )"), Int(1));
    row(
        "(m) linear → reluTensor → ArgMax",
        &format!("{net}(let a = reluTensor(h) in ArgMax(a)))"),
        Stuck("let a = reluTensor ( h ) in ArgMax ( a )"),
        Int(0),
    );
}
