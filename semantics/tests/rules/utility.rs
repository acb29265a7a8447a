//! The rules of "Utility functions" (k-nn.md L445–460), one test each.

use super::*;

/// R70 `range-map-empty`: `rule N...M |-> _ => .Map requires N >Int M`
///
/// `define-tensor-1d` on `initTensor(0)` builds `1 ... 0 |-> 0.0`, which is `.Map`: only the
/// header is stored.
#[test]
fn rule_range_map_empty() {
    fire("let t = initTensor(0) in 1.0", "range-map-empty")
        .by("define-tensor-1d")
        .k(&["defineTensor ( t , 0 )"], &[])
        .side(&[("range-map-empty", 1)])
        .cells(&[env(&[], &["t |-> 0"]), store(&[], &["0 |-> tensor ( 1 , 0 )"]), next_loc(0, 1)]);
}

/// R71 `range-map-cons`: `rule N...M |-> K => N |-> K (N +Int 1)...M |-> K requires N <=Int M`
///
/// `define-tensor-1d` on `initTensor(3)` builds `1 ... 3 |-> 0.0`: three conses, then
/// `4 ... 3 |-> 0.0` is empty.
#[test]
fn rule_range_map_cons() {
    fire(READ_1D_LAST, "range-map-cons")
        .by("define-tensor-1d")
        .k(&["defineTensor ( t , 3 )"], &[])
        .side(&[("range-map-cons", 3), ("range-map-empty", 1)])
        .cells(&[
            env(&[], &["t |-> 0"]),
            store(
                &[],
                &[
                    "0 |-> tensor ( 1 , 3 )",
                    "1 |-> 0.00000000000000000e0",
                    "2 |-> 0.00000000000000000e0",
                    "3 |-> 0.00000000000000000e0",
                ],
            ),
            next_loc(0, 4),
        ]);
}

/// R72 `fun-merge-2`: `rule fun(E:Exp[I:Int][J:Int]) => fun(E[I,J]) [function]`
///
/// Dead code (no rule builds `fun`), tested on a configuration built by hand.
#[test]
fn rule_fun_merge_2() {
    let a_0_1 = index(index(id("a"), &[0]), &[1]);
    fire_from(fun_config(a_0_1), "fun-merge-2", "fun(a[0][1])")
        .k(&["fun ( a [ 0 ] [ 1 ] )"], &["fun ( a [ 0 , 1 ] )"])
        .cells(&[]);
}

/// R73 `fun-merge-n`: `rule fun(E:Exp[I:Int][Is:Ints]) => fun(E[I, Is]) [function]`
///
/// Dead code (no rule builds `fun`), tested on a configuration built by hand.
#[test]
fn rule_fun_merge_n() {
    let a_0_12 = index(index(id("a"), &[0]), &[1, 2]);
    fire_from(fun_config(a_0_12), "fun-merge-n", "fun(a[0][1, 2])")
        .k(&["fun ( a [ 0 ] [ 1 , 2 ] )"], &["fun ( a [ 0 , 1 , 2 ] )"])
        .cells(&[]);
}

/// R74 `fun-unwrap`: `rule fun(X:Id[Is:Ints]) => X:Id[Is:Ints] [function]`
///
/// Dead code (no rule builds `fun`), tested on a configuration built by hand.
#[test]
fn rule_fun_unwrap() {
    let a_01 = index(id("a"), &[0, 1]);
    fire_from(fun_config(a_01), "fun-unwrap", "fun(a[0, 1])").k(&["fun ( a [ 0 , 1 ] )"], &["a [ 0 , 1 ]"]).cells(&[]);
}
