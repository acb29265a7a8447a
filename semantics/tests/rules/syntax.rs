//! The heating and cooling rules generated from the strictness attributes of "Syntax"
//! (k-nn.md L59–70), one test each.

use super::*;

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
