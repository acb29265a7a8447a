//! The quirks of tensors (docs/semantics.md §3): (d) `ArgMax`, (e) out-of-bounds indices,
//! (h) `linear` with the wrong `x`, (k) zero dimensions, (m) layers that do not chain.

use super::*;

/// (d) ArgMax, every row of the table.
#[test]
fn d_argmax_table() {
    let s3 = |tail: &str| published(&format!("let s = initTensor(3) in {tail}"));
    let s2 = |tail: &str| published(&format!("let s = initTensor(2) in {tail}"));

    let all_negative = s3("let s[0] = -3.0 in let s[1] = -1.0 in let s[2] = -2.0 in ArgMax(s)");
    assert_eq!(all_negative.outcome, Outcome::Empty);
    let ids = rule_ids(&all_negative);
    let tail = &ids[ids.len() - 6..];
    assert_eq!(
        tail,
        ["argmax-start", "argmax-step-less", "argmax-step-less", "argmax-step-less", "argmax-done", "drop-int-zero"]
    );

    let tie = s3("let s[0] = 1.0 in let s[1] = 5.0 in let s[2] = 5.0 in ArgMax(s)");
    assert_eq!(stuck_text(&tie), "ArgMaxHelper ( s , 2 ... 3 , 0.50000000000000000e1 , 1 )");

    let zero_first = s3("let s[1] = 2.0 in ArgMax(s)");
    assert_eq!(stuck_text(&zero_first), "ArgMaxHelper ( s , 0 ... 3 , 0.00000000000000000e0 , 0 )");

    assert_eq!(s2("let s[0] = 4.0 in let s[1] = 3.0 in ArgMax(s)").outcome, Outcome::Empty);

    let bound_zero = s2("let s[0] = 4.0 in let s[1] = 3.0 in let k = ArgMax(s) in k");
    assert_eq!(k_items(&bound_zero.config), ["let k = □ in k"], "a lone freezer");
    assert!(is_frozen(bound_zero.config.k.last().unwrap()));

    let bound_one = s2("let s[0] = 3.0 in let s[1] = 4.0 in let k = ArgMax(s) in k");
    assert_eq!(value_text(&bound_one), "1");

    let after_relu = s3("let s[0] = 1.0 in (let r = reluTensor(s) in ArgMax(r))");
    assert_eq!(stuck_text(&after_relu), "ArgMax ( r )");

    let rank2 = published("let m = initTensor(2, 2) in ArgMax(m)");
    assert_eq!(stuck_text(&rank2), "ArgMax ( m )");

    let negative_zero = published("let s = initTensor(1) in let s[0] = -0.0 in ArgMax(s)");
    assert_eq!(stuck_text(&negative_zero), "ArgMaxHelper ( s , 0 ... 1 , 0.00000000000000000e0 , 0 )");
    let nan = published("let s = initTensor(1) in let s[0] = NaN in ArgMax(s)");
    assert!(matches!(nan.outcome, Outcome::Stuck(_)));
}

/// (e) out-of-bounds reads and writes hit neighbouring tensors or get stuck.
#[test]
fn e_out_of_bounds_table() {
    let ab = |tail: &str| published(&format!("let a = initTensor(2) in let b = initTensor(2) in {tail}"));

    let neighbour = ab("let b[0] = 7.0 in a[3]");
    assert_eq!(value_text(&neighbour), "0.70000000000000000e1");
    assert_eq!(cell(&neighbour.config, "store")[4], "4 |-> 0.70000000000000000e1");

    assert_eq!(value_text(&ab("a[2]")), "tensor ( 4 , 2 )", "a header leaks out as a value");
    assert_eq!(stuck_text(&ab("a[5]")), "lookup ( 6 )");

    let clobbered = ab("let a[2] = 9.0 in b[0]");
    assert_eq!(stuck_text(&clobbered), "0.90000000000000000e1 [ 0 ]");
    assert_eq!(cell(&clobbered.config, "store")[3], "3 |-> 0.90000000000000000e1");

    let missing_key = ab("let a[7] = 1.0 in a[0]");
    assert_eq!(k_items(&missing_key.config), ["storeVal ( a [ 7 ] , 0.10000000000000000e1 )", "a [ 0 ]"]);

    let row_overflow = published("let m = initTensor(2, 2) in let m[0, 3] = 5.0 in m[1, 0]");
    assert_eq!(value_text(&row_overflow), "0.50000000000000000e1");
}

/// (h) `linear` never checks the input's length.
#[test]
fn h_linear_shape_mismatch() {
    let shorter = published(
        "let x = initTensor(1) in let W = initTensor(1, 2) in let x[0] = 1.0 in let W[0, 0] = 2.0 in let W[0, 1] = 3.0 in (let y = linear(W, x) in y[0])",
    );
    assert_eq!(
        k_items(&shorter.config),
        [
            "0.30000000000000000e1 * tensor ( 3 , 1 )",
            "0.20000000000000000e1 + □",
            "let y [ 0 ] = □ in 0",
            "linearHelper ( y [ 0 ] , 2 ... 2 , W [ 0 ] , x )",
            "linearHelper ( y , 1 ... 1 , 2 , W , x )",
            "y [ 0 ]"
        ]
    );
    assert_eq!(cell(&shorter.config, "env"), lines("$1 |-> 7; W |-> 2; x |-> 0; y |-> 10"));
    assert_eq!(
        cell(&shorter.config, "store"),
        lines(
            "0 |-> tensor ( 1 , 1 ); 1 |-> 0.10000000000000000e1; 2 |-> tensor ( 3 , 1 ); 3 |-> tensor ( 5 , 2 );
             4 |-> tensor ( 8 , 2 ); 5 |-> 0.20000000000000000e1; 6 |-> 0.30000000000000000e1; 7 |-> tensor ( 8 , 2 );
             8 |-> 0.00000000000000000e0; 9 |-> 0.00000000000000000e0; 10 |-> tensor ( 11 , 1 ); 11 |-> 0.20000000000000000e1"
        )
    );
    assert_eq!(cell(&shorter.config, "shape"), lines("W |-> 1 , 2; x |-> 1"));

    let longer = published(
        "let x = initTensor(3) in let W = initTensor(1, 2) in let x[0] = 1.0 in let x[1] = 1.0 in let x[2] = 100.0 in let W[0, 0] = 2.0 in let W[0, 1] = 3.0 in (let y = linear(W, x) in y[0])",
    );
    assert_eq!(value_text(&longer), "0.50000000000000000e1");

    let no_shape = published(
        "let x = initTensor(2) in let W = initTensor(2, 2) in (let h = linear(W, x) in (let y = linear(h, x) in y[0]))",
    );
    assert_eq!(stuck_text(&no_shape), "let y = linear ( h , x ) in y [ 0 ]");
}

/// (k) zero dimensions.
#[test]
fn k_zero_dimensions() {
    let empty = published("let X = initTensor(0) in X[0]");
    assert_eq!(stuck_text(&empty), "lookup ( 1 )");
    assert_eq!(cell(&empty.config, "store"), ["0 |-> tensor ( 1 , 0 )"]);
    assert_eq!(published("let X = initTensor(0) in ArgMax(X)").outcome, Outcome::Empty);

    let rows_of_nothing = published("let X = initTensor(2, 0) in X[0, 0]");
    assert_eq!(value_text(&rows_of_nothing), "tensor ( 5 , 0 )");
    assert_eq!(
        cell(&rows_of_nothing.config, "store"),
        lines(
            "0 |-> tensor ( 1 , 2 ); 1 |-> tensor ( 4 , 0 ); 2 |-> tensor ( 5 , 0 ); 3 |-> tensor ( 6 , 0 );
             4 |-> tensor ( 5 , 0 ); 5 |-> tensor ( 6 , 0 )"
        )
    );
    assert_eq!(cell(&rows_of_nothing.config, "env"), lines("$1 |-> 5; X |-> 0"));

    let no_rows = published("let X = initTensor(0, 3) in X[0, 1]");
    assert_eq!(value_text(&no_rows), "0.00000000000000000e0");
    assert_eq!(cell(&no_rows.config, "env"), lines("$1 |-> 1; X |-> 0"));
    assert_eq!(cell(&no_rows.config, "nextLoc"), ["5"]);
}

/// (m) layers do not chain, except linear after linear.
#[test]
fn m_layers_cannot_chain() {
    let r = published(
        "let x = initTensor(2) in let W = initTensor(2, 2) in let x[0] = 1.0 in let W[0, 0] = -1.0 in let W[1, 1] = 2.0 in (let h = linear(W, x) in (let a = reluTensor(h) in a[0]))",
    );
    assert_eq!(stuck_text(&r), "let a = reluTensor ( h ) in a [ 0 ]");
    let store = cell(&r.config, "store");
    assert_eq!(
        &store[15..18],
        lines("15 |-> tensor ( 16 , 2 ); 16 |-> -0.10000000000000000e1; 17 |-> 0.00000000000000000e0")
    );

    let stacked = published(
        "let x = initTensor(2) in let W = initTensor(2, 2) in let V = initTensor(2, 2) in let x[0] = 1.0 in let x[1] = -1.0 in let W[0, 0] = 2.0 in let W[1, 1] = 1.0 in let V[0, 0] = 1.0 in let V[1, 0] = -1.0 in (let h = linear(W, x) in (let o = linear(V, h) in o[0] + o[1]))",
    );
    assert_eq!(value_text(&stacked), "0.00000000000000000e0");
}
