//! The rules of "Basic operations" (k-nn.md L126–141), one test each.

use super::*;

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
