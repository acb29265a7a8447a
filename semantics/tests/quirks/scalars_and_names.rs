//! The quirks of scalars and names (docs/semantics.md §3): (f) Int arithmetic, (i)
//! shadowing, (l) binding a name to a name.

use super::*;

/// (f) Int arithmetic has no rule.
#[test]
fn f_int_arithmetic_is_stuck() {
    for (program, stuck) in [
        ("1 + 2", "1 + 2"),
        ("1 + 2.0", "1 + 0.20000000000000000e1"),
        ("2 * 3", "2 * 3"),
        ("let x = 1 in x + 2.0", "1 + 0.20000000000000000e1"),
    ] {
        let r = published(program);
        assert_eq!(stuck_text(&r), stuck, "{program}");
        assert_eq!(cell(&r.config, "env"), [".Map"]);
        assert_eq!(cell(&r.config, "store"), [".Map"]);
    }
    assert_eq!(value_text(&published("let n = 3 in n")), "3");
    assert_eq!(published("let n = 0 in n").outcome, Outcome::Empty);
    assert_eq!(published("0").outcome, Outcome::Empty);
}

/// (i) shadowing: substitution reaches binders, shape concatenation aborts, no scoping.
#[test]
fn i_shadowing_table() {
    let scalar = published("let x = 1.0 in let x = 2.0 in x");
    assert_eq!(stuck_text(&scalar), "let 0.10000000000000000e1 = 0.20000000000000000e1 in 0.10000000000000000e1");

    let tensors = published("let t = initTensor(2) in let t = initTensor(3) in t[0]");
    assert!(matches!(&tensors.outcome, Outcome::Aborted(reason) if reason.contains("duplicate keys")));
    assert_eq!(k_items(&tensors.config), ["let t = initTensor ( 3 ) in t [ 0 ]"]);
    assert_eq!(cell(&tensors.config, "env"), ["t |-> 0"]);
    assert_eq!(cell(&tensors.config, "shape"), ["t |-> 2"]);

    let relu_in_place = published("let t = initTensor(2) in let t[0] = 5.0 in (let t = reluTensor(t) in t[0])");
    assert_eq!(value_text(&relu_in_place), "0.00000000000000000e0");
    assert_eq!(cell(&relu_in_place.config, "env"), ["t |-> 3"]);
    assert_eq!(
        cell(&relu_in_place.config, "store"),
        lines(
            "0 |-> tensor ( 1 , 2 ); 1 |-> 0.50000000000000000e1; 2 |-> 0.00000000000000000e0; 3 |-> tensor ( 4 , 2 );
             4 |-> 0.00000000000000000e0; 5 |-> 0.00000000000000000e0"
        )
    );

    let scalar_then_tensor = published("let t = 5.0 in (let t = initTensor(2) in t[0])");
    assert_eq!(
        k_items(&scalar_then_tensor.config),
        ["defineTensor ( 0.50000000000000000e1 , 2 )", "0.50000000000000000e1 [ 0 ]"]
    );
    assert_eq!(cell(&scalar_then_tensor.config, "shape"), ["0.50000000000000000e1 |-> 2"]);

    let tensor_then_scalar = published("let t = initTensor(2) in let t = 5.0 in t");
    assert_eq!(value_text(&tensor_then_scalar), "0.50000000000000000e1");
    assert_eq!(cell(&tensor_then_scalar.config, "env"), ["t |-> 0"]);

    let escaped = published("(let u = initTensor(1) in 2.0) + u[0]");
    assert_eq!(value_text(&escaped), "0.20000000000000000e1");
    assert_eq!(cell(&escaped.config, "env"), ["u |-> 0"]);
    assert_eq!(cell(&escaped.config, "shape"), ["u |-> 1"]);
}

/// (l) binding a variable to a variable.
#[test]
fn l_let_binding_a_variable() {
    let scalar = published("let x = 2.0 in let y = x in y");
    assert_eq!(value_text(&scalar), "0.20000000000000000e1");
    assert_eq!(cell(&scalar.config, "env"), [".Map"]);
    let tensor = published("let X = initTensor(2) in let Y = X in Y[0]");
    assert_eq!(stuck_text(&tensor), "let Y = tensor ( 1 , 2 ) in Y [ 0 ]");
}
