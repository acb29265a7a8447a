//! Ext-7's `-` and `/` on every engine: constants folded, and computed from an input (symbolic
//! in the staged engine: `Float`/`Int` operations of the plan, and the fused element chains of
//! `Elementwise`), values worked out by hand, and each error kind.

use knn_engine::bigstep::ops::{ElementStep, Op};

use super::fused::{Fused, check_rows, image_rows, plan_of};
use super::*;

fn float(source: &str, inputs: &[TensorInput]) -> f64 {
    match agree(source, inputs) {
        Verdict::Value(Observed::Float(v)) => v,
        other => panic!("{source}: {other}"),
    }
}

fn int(source: &str, inputs: &[TensorInput]) -> i64 {
    match agree(source, inputs) {
        Verdict::Value(Observed::Int(v)) => v,
        other => panic!("{source}: {other}"),
    }
}

fn error_kind(source: &str, inputs: &[TensorInput]) -> String {
    match agree(source, inputs) {
        Verdict::Error { kind, .. } => kind.id().to_string(),
        other => panic!("{source}: {other}"),
    }
}

#[test]
fn subtraction_and_division_agree_on_constants() {
    assert_eq!(float("7.0 - 2.5", &[]), 4.5);
    assert_eq!(float("7.0-2.5-0.5", &[]), 4.0);
    assert_eq!(float("1.0 / 4.0", &[]), 0.25);
    assert_eq!(float("1.0 + 6.0 / 4.0 - 0.5", &[]), 2.0);
    assert_eq!(float("1.0 / 0.0", &[]), f64::INFINITY);
    assert_eq!(float("-1.0 / 0", &[]), f64::NEG_INFINITY);
    assert!(float("0.0 / 0.0", &[]).is_nan());
    // 0.1 - 0.3 rounds: 0.1 = 0x3FB999999999999A, 0.3 = 0x3FD3333333333333, the difference
    // -0.19999999999999998 (not -0.2).
    assert_eq!(float("0.1 - 0.3", &[]), -0.19999999999999998);
    assert_eq!(int("7 - 9", &[]), -2);
    assert_eq!(int("7 / 2", &[]), 3);
    assert_eq!(int("(0 - 7) / 2", &[]), -3);
    assert_eq!(float("1 - 0.25", &[]), 0.75);
    assert_eq!(float("3 / 2.0", &[]), 1.5);
    assert_eq!(error_kind("7 / 0", &[]), "division-by-zero");
    assert_eq!(error_kind("(0 - 4611686018427387903 - 4611686018427387903 - 2) / (0 - 1)", &[]), "integer-overflow");
    assert_eq!(error_kind("0 - 4611686018427387903 - 4611686018427387903 - 3", &[]), "integer-overflow");
    assert_eq!(error_kind("let t = initTensor(1) in t - 1.0", &[]), "invalid-operands");
    assert_eq!(error_kind("let t = initTensor(1) in 2 / t", &[]), "invalid-operands");
}

#[test]
fn subtraction_and_division_agree_on_values_computed_from_an_input() {
    let x = vector("x", &[3.0, 0.5, -2.0]);
    // 3 - 0.5 = 2.5; 0.5 / -2 = -0.25; -2 - 1 = -3.
    assert_eq!(float("x[0] - x[1]", std::slice::from_ref(&x)), 2.5);
    assert_eq!(float("x[1] / x[2]", std::slice::from_ref(&x)), -0.25);
    assert_eq!(float("x[2] - 1", std::slice::from_ref(&x)), -3.0);
    assert_eq!(float("6 / x[2]", std::slice::from_ref(&x)), -3.0);
    assert_eq!(float("x[0] / 0.0", std::slice::from_ref(&x)), f64::INFINITY);
    // ArgMax(x) is the Int 0, held in a register by the staged engine.
    assert_eq!(int("ArgMax(x) - 5", std::slice::from_ref(&x)), -5);
    assert_eq!(int("9 / (ArgMax(x) + 2)", std::slice::from_ref(&x)), 4);
    assert_eq!(error_kind("7 / ArgMax(x)", std::slice::from_ref(&x)), "division-by-zero");
    assert_eq!(float("1.0 / ArgMax(x)", std::slice::from_ref(&x)), f64::INFINITY);
    let tensor = "let y = initTensor(2) in let y[0] = x[0] - x[2] in let y[1] = x[0] / x[1] in y";
    match agree(tensor, std::slice::from_ref(&x)) {
        Verdict::Value(Observed::Tensor(t)) => assert_eq!((t.shape, t.data), (vec![2], vec![5.0, 6.0])),
        other => panic!("{tensor}: {other}"),
    }
}

/// `let z[i] = z[i] - c` and `z[i] / c` on a computed tensor fuse into one `Elementwise` whose
/// steps are the same operations in the same order: every row, NaN, ±∞ and subnormals
/// included, gets the reference's bits.
#[test]
fn constant_subtraction_and_division_fuse_into_element_chains() {
    let source = "let y = reshape(x, 4) in let y[0] = y[0] - 0.5 in let y[1] = y[1] / 3.0 in \
                  let y[2] = y[2] * 2.0 - 1.0 in let y[3] = y[3] / -0.0 in y";
    let program = parse_program(source, Profile::revised().grammar).unwrap();
    let plan = plan_of(&program, &[4]);
    let steps: Vec<Vec<ElementStep>> = plan
        .ops
        .iter()
        .find_map(|op| match op {
            Op::Elementwise { steps, .. } => Some(steps.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no Elementwise in {:#?}", plan.ops));
    assert_eq!(
        steps,
        vec![
            vec![ElementStep::Sub(0.5)],
            vec![ElementStep::Div(3.0)],
            vec![ElementStep::Mul(2.0), ElementStep::Sub(1.0)],
            vec![ElementStep::Div(-0.0)],
        ]
    );
    check_rows(source, &[4], &image_rows(4, 40, 7), Fused { copy: 1, ..Fused::default() });
    // By hand: [3, 1.5, 0.25, 2] gives [2.5, 0.5, -0.5, -Infinity].
    let x = vector("x", &[3.0, 1.5, 0.25, 2.0]);
    match agree(source, &[x]) {
        Verdict::Value(Observed::Tensor(t)) => assert_eq!(t.data, vec![2.5, 0.5, -0.5, f64::NEG_INFINITY]),
        other => panic!("{source}: {other}"),
    }
}
