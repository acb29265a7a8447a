//! The rules of "Min and Max" (k-nn.md L397–419), one test each.

use super::*;

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
