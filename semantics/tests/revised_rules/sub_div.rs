//! The rules of Ext-7 (`-` and `/`), one test each; the expectations are the K rules
//! instantiated by hand (IEEE binary64 and `/Int`'s truncation toward zero worked out on paper).

use super::*;

/// `ext-heat-sub-1`: `rule <k> HOLE - K1 => HOLE ~> □ - K1 ...</k> requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_ext_heat_sub_1() {
    fire("max(1.0, 2.0) - 0.5", "ext-heat-sub-1")
        .k(
            &["max ( 0.10000000000000000e1 , 0.20000000000000000e1 ) - 0.50000000000000000e0"],
            &["max ( 0.10000000000000000e1 , 0.20000000000000000e1 )", "□ - 0.50000000000000000e0"],
        )
        .cells(&[]);
}

/// `ext-heat-sub-2`: `rule <k> K0:Val - HOLE => HOLE ~> K0 - □ ...</k> requires notBool isKResult(HOLE) [heat]`
/// — the right operand is heated only once the left one is a value (`seqstrict`).
#[test]
fn rule_ext_heat_sub_2() {
    fire("2.0 - max(1.0, 3.0)", "ext-heat-sub-2")
        .k(
            &["0.20000000000000000e1 - max ( 0.10000000000000000e1 , 0.30000000000000000e1 )"],
            &["max ( 0.10000000000000000e1 , 0.30000000000000000e1 )", "0.20000000000000000e1 - □"],
        )
        .cells(&[]);
}

/// `ext-cool-sub-1`: `rule <k> HOLE ~> □ - K1 => HOLE - K1 ...</k> requires isKResult(HOLE) [cool]`
#[test]
fn rule_ext_cool_sub_1() {
    fire("max(1.0, 2.0) - 0.5", "ext-cool-sub-1")
        .k(&["0.20000000000000000e1", "□ - 0.50000000000000000e0"], &["0.20000000000000000e1 - 0.50000000000000000e0"])
        .cells(&[]);
}

/// `ext-cool-sub-2`: `rule <k> HOLE ~> K0 - □ => K0 - HOLE ...</k> requires isKResult(HOLE) [cool]`
#[test]
fn rule_ext_cool_sub_2() {
    fire("2.0 - max(1.0, 3.0)", "ext-cool-sub-2")
        .k(&["0.30000000000000000e1", "0.20000000000000000e1 - □"], &["0.20000000000000000e1 - 0.30000000000000000e1"])
        .cells(&[]);
}

/// `ext-heat-div-1`: `rule <k> HOLE / K1 => HOLE ~> □ / K1 ...</k> requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_ext_heat_div_1() {
    fire("min(6.0, 8.0) / 4.0", "ext-heat-div-1")
        .k(
            &["min ( 0.60000000000000000e1 , 0.80000000000000000e1 ) / 0.40000000000000000e1"],
            &["min ( 0.60000000000000000e1 , 0.80000000000000000e1 )", "□ / 0.40000000000000000e1"],
        )
        .cells(&[]);
}

/// `ext-heat-div-2`: `rule <k> K0:Val / HOLE => HOLE ~> K0 / □ ...</k> requires notBool isKResult(HOLE) [heat]`
#[test]
fn rule_ext_heat_div_2() {
    fire("6.0 / min(4.0, 8.0)", "ext-heat-div-2")
        .k(
            &["0.60000000000000000e1 / min ( 0.40000000000000000e1 , 0.80000000000000000e1 )"],
            &["min ( 0.40000000000000000e1 , 0.80000000000000000e1 )", "0.60000000000000000e1 / □"],
        )
        .cells(&[]);
}

/// `ext-cool-div-1`: `rule <k> HOLE ~> □ / K1 => HOLE / K1 ...</k> requires isKResult(HOLE) [cool]`
#[test]
fn rule_ext_cool_div_1() {
    fire("min(6.0, 8.0) / 4.0", "ext-cool-div-1")
        .k(&["0.60000000000000000e1", "□ / 0.40000000000000000e1"], &["0.60000000000000000e1 / 0.40000000000000000e1"])
        .cells(&[]);
}

/// `ext-cool-div-2`: `rule <k> HOLE ~> K0 / □ => K0 / HOLE ...</k> requires isKResult(HOLE) [cool]`
#[test]
fn rule_ext_cool_div_2() {
    fire("6.0 / min(4.0, 8.0)", "ext-cool-div-2")
        .k(&["0.40000000000000000e1", "0.60000000000000000e1 / □"], &["0.60000000000000000e1 / 0.40000000000000000e1"])
        .cells(&[]);
}

/// `ext-sub-float`: `rule F1:Float - F2:Float => F1 -Float F2` — `7.0 - 2.5 = 4.5`; `x-1.0`
/// written without spaces is the same subtraction.
#[test]
fn rule_ext_sub_float() {
    fire("7.0 - 2.5", "ext-sub-float")
        .k(&["0.70000000000000000e1 - 0.25000000000000000e1"], &["0.45000000000000000e1"])
        .cells(&[]);
    fire("7.0-2.5", "ext-sub-float")
        .k(&["0.70000000000000000e1 - 0.25000000000000000e1"], &["0.45000000000000000e1"])
        .cells(&[]);
}

/// `ext-sub-int`: `rule I1:Int - I2:Int => I1 -Int I2` — `5 - 7 = -2`; beyond 64 bits,
/// `integer-overflow`: `-(2^63 - 2) - 3`.
#[test]
fn rule_ext_sub_int() {
    fire("5 - 7", "ext-sub-int").k(&["5 - 7"], &["-2"]).cells(&[]);
    let overflow = "0 - 4611686018427387903 - 4611686018427387903 - 3";
    fire_nth(overflow, "ext-sub-int", 3)
        .k(&["-9223372036854775806 - 3"], &["knnError ( \"integer overflow\" )"])
        .cells(&[]);
}

/// `ext-sub-int-float`: `rule I:Int - F:Float => Int2Float(I, 53, 11) -Float F` — `1 - 0.25`.
#[test]
fn rule_ext_sub_int_float() {
    fire("1 - 0.25", "ext-sub-int-float").k(&["1 - 0.25000000000000000e0"], &["0.75000000000000000e0"]).cells(&[]);
}

/// `ext-sub-float-int`: `rule F:Float - I:Int => F -Float Int2Float(I, 53, 11)` — `0.5 - 2`.
#[test]
fn rule_ext_sub_float_int() {
    fire("0.5 - 2", "ext-sub-float-int").k(&["0.50000000000000000e0 - 2"], &["-0.15000000000000000e1"]).cells(&[]);
}

/// `ext-div-float`: `rule F1:Float / F2:Float => F1 /Float F2` — `1.0 / 4.0 = 0.25`; a Float
/// divided by zero is IEEE's `Infinity`, no error.
#[test]
fn rule_ext_div_float() {
    fire("1.0 / 4.0", "ext-div-float")
        .k(&["0.10000000000000000e1 / 0.40000000000000000e1"], &["0.25000000000000000e0"])
        .cells(&[]);
    fire("1.0 / 0.0", "ext-div-float").k(&["0.10000000000000000e1 / 0.00000000000000000e0"], &["Infinity"]).cells(&[]);
}

/// `ext-div-int`: `rule I1:Int / I2:Int => I1 /Int I2 requires I2 =/=Int 0` — `7 / 2 = 3`, and
/// toward zero: `(2 - 9) / 2 = -7 / 2 = -3` (not `-4`); `-2^63 / -1` is `integer-overflow`.
#[test]
fn rule_ext_div_int() {
    fire("7 / 2", "ext-div-int").k(&["7 / 2"], &["3"]).cells(&[]);
    fire("(2 - 9) / 2", "ext-div-int").k(&["-7 / 2"], &["-3"]).cells(&[]);
    let overflow = "(0 - 4611686018427387903 - 4611686018427387903 - 2) / (0 - 1)";
    fire(overflow, "ext-div-int").k(&["-9223372036854775808 / -1"], &["knnError ( \"integer overflow\" )"]).cells(&[]);
}

/// `ext-div-int-zero`: `rule <k> _:Int / 0 => knnError("division by zero") ...</k>`
#[test]
fn rule_ext_div_int_zero() {
    fire("7 / 0", "ext-div-int-zero").k(&["7 / 0"], &["knnError ( \"division by zero\" )"]).cells(&[]);
}

/// `ext-div-int-float`: `rule I:Int / F:Float => Int2Float(I, 53, 11) /Float F` — `3 / 2.0`.
#[test]
fn rule_ext_div_int_float() {
    fire("3 / 2.0", "ext-div-int-float").k(&["3 / 0.20000000000000000e1"], &["0.15000000000000000e1"]).cells(&[]);
}

/// `ext-div-float-int`: `rule F:Float / I:Int => F /Float Int2Float(I, 53, 11)` — `1.0 / 4`;
/// `-1.0 / 0` is a Float division by `0.0`: `-Infinity`, no error.
#[test]
fn rule_ext_div_float_int() {
    fire("1.0 / 4", "ext-div-float-int").k(&["0.10000000000000000e1 / 4"], &["0.25000000000000000e0"]).cells(&[]);
    fire("-1.0 / 0", "ext-div-float-int").k(&["-0.10000000000000000e1 / 0"], &["-Infinity"]).cells(&[]);
}

/// `ext-sub-div-invalid`: `rule <k> V1:Val - V2:Val => knnError("invalid operands") ...</k>
/// [owise]` (likewise `/`) — a tensor header used as a number.
#[test]
fn rule_ext_sub_div_invalid() {
    fire("let t = initTensor(1) in t - 1.0", "ext-sub-div-invalid")
        .k(&["tensor ( 1 , 1 ) - 0.10000000000000000e1"], &["knnError ( \"invalid operands\" )"])
        .cells(&[]);
    fire("let t = initTensor(1) in 1 / t", "ext-sub-div-invalid")
        .k(&["1 / tensor ( 1 , 1 )"], &["knnError ( \"invalid operands\" )"])
        .cells(&[]);
}
