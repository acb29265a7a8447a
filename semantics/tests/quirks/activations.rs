//! The quirks of the activations (docs/semantics.md §3): (a) and (b) `reluTensor` at ranks 1
//! to 3, (c) `tanhTensor` and `sigmoidTensor`, (g) the scalar activations, (j) the prose and
//! the formulas.

use super::*;

/// (a) rank-1 `reluTensor` with a negative element is a plain copy.
#[test]
fn a_rank1_relu_is_a_copy() {
    let r = published("let t = initTensor(3) in let t[1] = -2.0 in let t[2] = 5.0 in (let u = reluTensor(t) in u[1])");
    assert_eq!(value_text(&r), "-0.20000000000000000e1");
    assert_eq!(cell(&r.config, "env"), lines("t |-> 0; u |-> 4"));
    assert_eq!(
        cell(&r.config, "store"),
        lines(
            "0 |-> tensor ( 1 , 3 ); 1 |-> 0.00000000000000000e0; 2 |-> -0.20000000000000000e1; 3 |-> 0.50000000000000000e1;
             4 |-> tensor ( 5 , 3 ); 5 |-> 0.00000000000000000e0; 6 |-> -0.20000000000000000e1; 7 |-> 0.50000000000000000e1"
        )
    );
    assert_eq!(cell(&r.config, "nextLoc"), ["8"]);
    assert_eq!(cell(&r.config, "shape"), ["t |-> 3"], "u gets no shape entry");
    assert!(!rule_ids(&r).iter().any(|id| id.starts_with("max-")), "no max is ever applied");
    // No path of `search` applies max either: every value it reaches is the copy.
    let s = search_published(
        "let t = initTensor(3) in let t[1] = -2.0 in let t[2] = 5.0 in (let u = reluTensor(t) in u[1])",
    );
    let values: Vec<String> = s
        .finals
        .iter()
        .filter_map(|f| match &f.outcome {
            Outcome::Value(v) => Some(v.to_string()),
            _ => None,
        })
        .collect();
    assert!(!values.is_empty());
    assert!(values.iter().all(|v| v == "-0.20000000000000000e1"), "{values:?}");
    assert_eq!(s.coverage.count("max-right") + s.coverage.count("max-left"), 0);
}

/// (b) rank 2 clamps correctly, with the `$1` allocation layout.
#[test]
fn b_rank2_relu_clamps() {
    let r = published(
        "let m = initTensor(2, 2) in let m[0, 1] = -4.0 in let m[1, 0] = 3.0 in (let r = reluTensor(m) in r[0, 1] + r[1, 0])",
    );
    assert_eq!(value_text(&r), "0.30000000000000000e1");
    assert_eq!(cell(&r.config, "env"), lines("$1 |-> 21; m |-> 0; r |-> 12"));
    assert_eq!(
        cell(&r.config, "store"),
        lines(
            "0 |-> tensor ( 1 , 2 ); 1 |-> tensor ( 4 , 2 ); 2 |-> tensor ( 7 , 2 ); 3 |-> tensor ( 10 , 2 );
             4 |-> 0.00000000000000000e0; 5 |-> -0.40000000000000000e1; 6 |-> tensor ( 7 , 2 );
             7 |-> 0.30000000000000000e1; 8 |-> 0.00000000000000000e0; 9 |-> tensor ( 10 , 2 );
             10 |-> 0.00000000000000000e0; 11 |-> 0.00000000000000000e0; 12 |-> tensor ( 13 , 2 );
             13 |-> tensor ( 16 , 2 ); 14 |-> tensor ( 19 , 2 ); 15 |-> tensor ( 22 , 2 );
             16 |-> 0.00000000000000000e0; 17 |-> 0.00000000000000000e0; 18 |-> tensor ( 19 , 2 );
             19 |-> 0.30000000000000000e1; 20 |-> 0.00000000000000000e0; 21 |-> tensor ( 22 , 2 );
             22 |-> 0.00000000000000000e0; 23 |-> 0.00000000000000000e0"
        )
    );
    assert_eq!(cell(&r.config, "nextLoc"), ["24"]);
    assert_eq!(cell(&r.config, "shape"), ["m |-> 2 , 2"]);
    assert!(rule_ids(&r).contains(&"relu-let-2d-max"));
    assert!(rule_ids(&r).contains(&"max-right"));
}

/// (b) rank 3, first way: `initTensor(2, 2, 2)` gets stuck while allocating.
#[test]
fn b_rank3_allocation_gets_stuck_when_middle_dimension_is_at_least_the_last() {
    let r = published("let t = initTensor(2, 2, 2) in 1.0");
    assert_eq!(
        k_items(&r.config),
        [
            "storeVal ( $1 [ 2 ] , tensor ( 13 , 2 ) )",
            "storeVal ( t [ 0 ] , $1 )",
            "defineTensorHelper ( t , 1 ... 2 , 2 , 2 )",
            "0.10000000000000000e1"
        ]
    );
    assert!(matches!(r.outcome, Outcome::Stuck(_)));
    assert_eq!(cell(&r.config, "env"), lines("$1 |-> 12; t |-> 0"));
    assert_eq!(
        cell(&r.config, "store"),
        lines(
            "0 |-> tensor ( 1 , 2 ); 1 |-> 0.00000000000000000e0; 2 |-> 0.00000000000000000e0; 3 |-> tensor ( 4 , 2 );
             4 |-> 0.00000000000000000e0; 5 |-> 0.00000000000000000e0; 6 |-> tensor ( 7 , 2 ); 7 |-> tensor ( 7 , 2 );
             8 |-> 0.00000000000000000e0; 9 |-> tensor ( 10 , 2 ); 10 |-> 0.00000000000000000e0; 11 |-> tensor ( 10 , 2 );
             12 |-> tensor ( 13 , 2 ); 13 |-> 0.00000000000000000e0; 14 |-> 0.00000000000000000e0"
        )
    );
    assert_eq!(cell(&r.config, "nextLoc"), ["15"]);
    assert_eq!(cell(&r.config, "shape"), ["t |-> 2 , 2 , 2"]);
}

/// (b) rank 3, second way: `initTensor(1, 1, 2)` completes with a wrong structure.
#[test]
fn b_rank3_allocation_completes_with_a_wrong_structure() {
    let r = published("let t = initTensor(1, 1, 2) in t[0, 1, 0]");
    assert_eq!(value_text(&r), "0.00000000000000000e0", "by accident, through the self-referencing cell 9");
    assert_eq!(cell(&r.config, "env"), lines("$1 |-> 15; t |-> 0"));
    assert_eq!(
        cell(&r.config, "store"),
        lines(
            "0 |-> tensor ( 1 , 1 ); 1 |-> tensor ( 8 , 2 ); 2 |-> tensor ( 16 , 2 ); 3 |-> 0.00000000000000000e0;
             4 |-> tensor ( 5 , 2 ); 5 |-> tensor ( 5 , 2 ); 6 |-> 0.00000000000000000e0; 7 |-> tensor ( 8 , 2 );
             8 |-> 0.00000000000000000e0; 9 |-> tensor ( 8 , 2 ); 10 |-> tensor ( 11 , 1 ); 11 |-> 0.00000000000000000e0;
             12 |-> tensor ( 13 , 2 ); 13 |-> tensor ( 13 , 2 ); 14 |-> 0.00000000000000000e0; 15 |-> tensor ( 16 , 2 );
             16 |-> 0.00000000000000000e0; 17 |-> tensor ( 16 , 2 )"
        )
    );
    let r = published("let t = initTensor(1, 1, 2) in t[0, 0, 0]");
    assert_eq!(stuck_text(&r), "0.00000000000000000e0 [ 0 ]");
}

/// (b) rank-3 `reluTensor` is stuck on its first element read.
#[test]
fn b_rank3_relu_is_stuck_on_its_first_read() {
    let r = published("let t = initTensor(1, 1, 2) in (let u = reluTensor(t) in 1.0)");
    assert_eq!(
        k_items(&r.config),
        [
            "0.00000000000000000e0 [ 0 ]",
            "let u [ 0 ] [ 0 ] [ 0 ] = □ in 0",
            "reluTensorHelper ( t [ 0 ] [ 0 ] , u [ 0 ] [ 0 ] , 1 ... 2 )",
            "reluTensorHelper ( t [ 0 ] , u [ 0 ] , 1 ... 1 , 2 )",
            "reluTensorHelper ( t , u , 1 ... 1 , 1 , 2 )",
            "0.10000000000000000e1"
        ]
    );
    assert_eq!(cell(&r.config, "env"), lines("$1 |-> 33; t |-> 0; u |-> 18"));
    assert_eq!(cell(&r.config, "nextLoc"), ["36"]);
}

/// (c) rank-1 `tanhTensor` is correct.
#[test]
fn c_rank1_tanh_is_correct() {
    let r = published("let v = initTensor(2) in let v[0] = -1.0 in (let h = tanhTensor(v) in h[0])");
    assert_eq!(value_text(&r), "-0.76159415595576485e0");
    assert_eq!(cell(&r.config, "env"), lines("h |-> 3; v |-> 0"));
    assert_eq!(cell(&r.config, "nextLoc"), ["6"]);
    assert_eq!(cell(&r.config, "shape"), ["v |-> 2"]);
    assert_eq!(cell(&r.config, "store")[4], "4 |-> -0.76159415595576485e0");
}

const TANH_RANK2: &str = "let m = initTensor(1, 2) in let m[0, 0] = -1.0 in let m[0, 1] = 1.0 in (let h = tanhTensor(m) in h[0, 0] + h[0, 1])";

/// (c) rank-2 `tanhTensor` results are clamped by `relu-let-2d-max`.
#[test]
fn c_rank2_tanh_is_clamped() {
    let r = published(TANH_RANK2);
    assert_eq!(as_f64(&value_text(&r)), 0.7615941559557649);
    assert_eq!(cell(&r.config, "env"), lines("$1 |-> 13; h |-> 8; m |-> 0"));
    assert_eq!(
        cell(&r.config, "store"),
        lines(
            "0 |-> tensor ( 1 , 1 ); 1 |-> tensor ( 3 , 2 ); 2 |-> tensor ( 6 , 2 ); 3 |-> -0.10000000000000000e1;
             4 |-> 0.10000000000000000e1; 5 |-> tensor ( 6 , 2 ); 6 |-> 0.00000000000000000e0; 7 |-> 0.00000000000000000e0;
             8 |-> tensor ( 9 , 1 ); 9 |-> tensor ( 11 , 2 ); 10 |-> tensor ( 14 , 2 ); 11 |-> 0.00000000000000000e0;
             12 |-> 0.76159415595576485e0; 13 |-> tensor ( 14 , 2 ); 14 |-> 0.00000000000000000e0;
             15 |-> 0.00000000000000000e0"
        )
    );
    assert_eq!(cell(&r.config, "nextLoc"), ["16"]);
    assert_eq!(cell(&r.config, "shape"), ["m |-> 1 , 2"]);
    assert!(!rule_ids(&r).contains(&"tanh-let-2d"), "dead under krun");
}

/// (c) `search` finds both the clamped and the unclamped result of a rank-2 `tanhTensor`.
#[test]
fn c_search_finds_both_outcomes_of_rank2_tanh() {
    let s = search_published(TANH_RANK2);
    assert!(s.limit.is_none(), "the search space is finite");
    let values: Vec<f64> = s
        .finals
        .iter()
        .filter_map(|f| match &f.outcome {
            Outcome::Value(v) => v.as_float(),
            _ => None,
        })
        .collect();
    assert!(values.contains(&0.7615941559557649), "{values:?}");
    assert!(values.contains(&0.0), "{values:?}");
    assert!(s.coverage.count("tanh-let-2d") > 0);
    assert!(s.coverage.count("storeval-split") > 0, "the stuck storeval-split branch is explored");
}

/// (c) sigmoid: the clamp is invisible, the values are right.
#[test]
fn c_sigmoid_values() {
    let r = published("let m = initTensor(1, 2) in let m[0, 0] = -2.0 in (let s = sigmoidTensor(m) in s[0, 0])");
    assert_eq!(as_f64(&value_text(&r)), 0.11920292202211755);
    let r = published("let v = initTensor(2) in let v[1] = 2.0 in (let s = sigmoidTensor(v) in s[0] + s[1])");
    assert_eq!(as_f64(&value_text(&r)), 1.3807970779778822);
}

/// (c) user writes with chained indices are clamped too.
#[test]
fn c_chained_user_writes_are_clamped() {
    assert_eq!(
        value_text(&published("let m = initTensor(2, 2) in let m[0][1] = -5.0 in m[0, 1]")),
        "0.00000000000000000e0"
    );
    assert_eq!(
        value_text(&published("let m = initTensor(2, 2) in let m[0, 1] = -5.0 in m[0, 1]")),
        "-0.50000000000000000e1"
    );
}

/// (g) scalar functions have no rule.
#[test]
fn g_scalar_functions_are_stuck() {
    for f in ["relu", "tanh", "sigmoid"] {
        let program = format!("let x = {f}(3.0) in x");
        let r = published(&program);
        assert_eq!(stuck_text(&r), format!("let x = {f} ( 0.30000000000000000e1 ) in x"));
        assert_eq!(r.steps, 0);
    }
    assert_eq!(
        stuck_text(&published("let y = reluTensor(3.0) in y")),
        "let y = reluTensor ( 0.30000000000000000e1 ) in y"
    );
}

/// (j) the sigmoid rule is the logistic function; tanh overflows to NaN above ~354.9.
#[test]
fn j_tanh_overflows_and_sigmoid_is_logistic() {
    let big = published("let v = initTensor(1) in let v[0] = 400.0 in (let h = tanhTensor(v) in h[0])");
    assert_eq!(value_text(&big), "NaN");
    let big2 = published("let m = initTensor(1, 1) in let m[0, 0] = 400.0 in (let h = tanhTensor(m) in h[0, 0])");
    assert_eq!(k_items(&big2.config)[0], "max ( NaN , 0.00000000000000000e0 )");
    let zero = published("let v = initTensor(1) in (let s = sigmoidTensor(v) in s[0])");
    assert_eq!(value_text(&zero), "0.50000000000000000e0");
}
