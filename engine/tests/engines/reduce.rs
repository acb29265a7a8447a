//! Ext-10's `reduceMax` and `reduceMin` of an input: one `Reduce` of the plan, vectorised over
//! the lanes of a group, must give every row the small-step reference's result — the same bits
//! (signed zeros: on a tie `max` keeps the accumulated value, `min` takes the element), or, for a
//! row with a NaN, the same error kind, span and detail — alone and in batches where the other
//! rows go on. An axis of extent 0 gives `-Infinity` / `Infinity`, as the reference does.

use knn_engine::bigstep::ops::{Op, ReduceKind};
use knn_engine::bigstep::{ExecOptions, run_rows, verdict};
use knn_engine::tensor::LANE_GROUP;
use knn_semantics::engine::Observed;

use super::fused::{Fused, Stream, check_rows, plan_of, tally};
use super::*;

/// The kinds of the `Reduce` operations in the plan of `source` over `x` of shape `dims`.
fn reduce_kinds(source: &str, dims: &[usize]) -> Vec<ReduceKind> {
    let program = parse_program(source, Profile::revised().grammar).unwrap();
    plan_of(&program, dims)
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::Reduce { kind, .. } => Some(*kind),
            _ => None,
        })
        .collect()
}

/// The bits of `source`'s tensor for each row, run together in one group.
fn batch_bits(source: &str, dims: &[usize], rows: &[Vec<f64>]) -> Vec<Result<Vec<u64>, String>> {
    let program = parse_program(source, Profile::revised().grammar).unwrap();
    let plan = plan_of(&program, dims);
    let refs: Vec<Vec<&[f64]>> = rows.iter().map(|r| vec![r.as_slice()]).collect();
    run_rows(&plan, &refs, ExecOptions::default())
        .into_iter()
        .map(|row| match verdict(row) {
            Verdict::Value(Observed::Tensor(t)) => Ok(t.data.iter().map(|v| v.to_bits()).collect()),
            Verdict::Error { detail, .. } => Err(detail),
            other => panic!("{source}: {other}"),
        })
        .collect()
}

#[test]
fn max_and_min_of_an_input_are_one_plan_operation_bit_for_bit() {
    // x is 3×4. Halves in [-2, 2]: many ties, and `round` makes `-0.0` of small negatives.
    let mut stream = Stream(29);
    let count = 2 * LANE_GROUP + 5;
    let mut rows: Vec<Vec<f64>> =
        (0..count).map(|_| (0..12).map(|_| (stream.next() * 4.0).round() / 2.0).collect()).collect();
    rows[1][..4].copy_from_slice(&[1.5, 2.5, f64::NAN, 9.0]);
    rows[2][11] = f64::NAN;
    (rows[3][0], rows[3][7]) = (f64::NAN, f64::NAN);
    rows[4] = (0..12).map(|k| if (k + k / 4) % 2 == 0 { -0.0 } else { 0.0 }).collect();
    rows[5][..4].copy_from_slice(&[f64::INFINITY, f64::NEG_INFINITY, 1e308, 5e-324]);
    rows[LANE_GROUP + 3][6] = f64::NAN;
    let with_nan = 4;
    let dims = [3, 4];
    for (source, kind) in [
        ("let y = reduceMax(x, 1) in y", ReduceKind::Max),
        ("let y = reduceMin(x, 1) in y", ReduceKind::Min),
        ("let y = reduceMax(x, 0) in y", ReduceKind::Max),
        ("let y = reduceMin(x, 0) in y", ReduceKind::Min),
        ("let y = reduceMax(x, 1, 0) in y", ReduceKind::Max),
        ("let y = reduceMin(x, 0, 1) in y", ReduceKind::Min),
    ] {
        assert_eq!(reduce_kinds(source, &dims), [kind], "{source}");
        // Row by row against the reference: alone, in groups of one lane group, all together.
        let verdicts = check_rows(source, &dims, &rows, Fused::default());
        assert_eq!(tally(&verdicts, "invalid-operands"), (count - with_nan, with_nan), "{source}");
    }
    // Worked by hand. Row 4 is [[-0, 0, -0, 0], [0, -0, 0, -0], [-0, 0, -0, 0]]: along axis 1
    // `max` keeps the first of the tied zeros, `min` takes the last.
    let (neg, pos) = ((-0.0f64).to_bits(), 0.0f64.to_bits());
    let max = batch_bits("let y = reduceMax(x, 1) in y", &dims, &rows);
    let min = batch_bits("let y = reduceMin(x, 1) in y", &dims, &rows);
    assert_eq!(max[4], Ok(vec![neg, pos, neg]));
    assert_eq!(min[4], Ok(vec![pos, neg, pos]));
    // Row 1's first group is 1.5, 2.5, NaN: `max(2.5, NaN)` has no rule.
    assert_eq!(max[1], Err("`max` cannot compute with 2.5 and NaN".to_string()));
    assert_eq!(min[1], Err("`min` cannot compute with 1.5 and NaN".to_string()));
    // Row 5's first row of x: Infinity, -Infinity, 1e308, 5e-324.
    let (Ok(max5), Ok(min5)) = (&max[5], &min[5]) else { panic!("row 5 failed: {:?} {:?}", max[5], min[5]) };
    assert_eq!((max5[0], min5[0]), (f64::INFINITY.to_bits(), f64::NEG_INFINITY.to_bits()));
}

#[test]
fn max_and_min_over_an_axis_of_extent_zero_are_the_infinities() {
    // No element to read: the plan writes the helper's starting values (no `Reduce` needed),
    // as the reference does, whatever the rows.
    let x = TensorInput { name: "x".into(), shape: vec![3, 0], data: Vec::new() };
    let rows = vec![Vec::new(); LANE_GROUP + 1];
    for (source, value) in
        [("let y = reduceMax(x, 1) in y", f64::NEG_INFINITY), ("let y = reduceMin(x, 1) in y", f64::INFINITY)]
    {
        assert_eq!(super::reshape::tensor(source, std::slice::from_ref(&x)), (vec![3], vec![value; 3]));
        for row in batch_bits(source, &[3, 0], &rows) {
            assert_eq!(row, Ok(vec![value.to_bits(); 3]), "{source}");
        }
    }
    // The kept axis of extent 0: no output at all.
    assert_eq!(super::reshape::tensor("let y = reduceMax(x, 0) in y", &[x]), (vec![0], Vec::new()));
}
