//! The rules of "Argmax" (k-nn.md L421–443), one test each.

use super::*;

/// R66 `argmax-start`:
/// `rule <k> ArgMax(X:Id) => ArgMaxHelper(X, 0 ...I, 0.0, 0) ...</k> <shape>... X |-> I:Int ...</shape>`
#[test]
fn rule_argmax_start() {
    fire(ARGMAX, "argmax-start")
        .k(&["ArgMax ( s )"], &["ArgMaxHelper ( s , 0 ... 3 , 0.00000000000000000e0 , 0 )"])
        .cells(&[]);
}

/// R67 `argmax-step-greater`:
/// `rule <k> ArgMaxHelper(X, I...J, F:Float, _:Int) => ArgMaxHelper(X, (I +Int 1)...J, F2, I) ...</k>
///  <env>... X|->L ...</env> <store>... (L +Int I +Int 1)|-> F2 ...</store>
///  when F2 >Float F andBool J >Int I`
///
/// Element 0 is `1.0 > 0.0`.
#[test]
fn rule_argmax_step_greater() {
    fire(ARGMAX, "argmax-step-greater")
        .k(
            &["ArgMaxHelper ( s , 0 ... 3 , 0.00000000000000000e0 , 0 )"],
            &["ArgMaxHelper ( s , 1 ... 3 , 0.10000000000000000e1 , 0 )"],
        )
        .cells(&[]);
}

/// R68 `argmax-step-less`:
/// `rule <k> ArgMaxHelper(X, I...J, F:Float, II:Int) => ArgMaxHelper(X, (I +Int 1)...J, F, II) ...</k>
///  <env>... X|->L ...</env> <store>... (L +Int I +Int 1)|-> F2 ...</store>
///  when F2 <Float F andBool J >Int I`
///
/// Element 2 is `2.0 < 4.0`, the maximum so far (element 1).
#[test]
fn rule_argmax_step_less() {
    fire(ARGMAX, "argmax-step-less")
        .k(
            &["ArgMaxHelper ( s , 2 ... 3 , 0.40000000000000000e1 , 1 )"],
            &["ArgMaxHelper ( s , 3 ... 3 , 0.40000000000000000e1 , 1 )"],
        )
        .cells(&[]);
}

/// R69 `argmax-done`: `rule <k> ArgMaxHelper(_, I...I, _:Float, II:Int) => II ...</k>`
#[test]
fn rule_argmax_done() {
    fire(ARGMAX, "argmax-done").k(&["ArgMaxHelper ( s , 3 ... 3 , 0.40000000000000000e1 , 1 )"], &["1"]).cells(&[]);
}
