//! `Batch::run_values`: every row's value written straight into one array (what the Python
//! package hands numpy) equals what the same rows give one result at a time, whatever the
//! result's kind, across groups that run in parallel; a failing row stops it with the first
//! failure in row order, and what cannot make an array is refused before any row runs.

use std::fmt::Write;

use knn::{Answer, Batch, Failure, RowValues, Semantics, ValuesOptions, load_source};
use knn_engine::bigstep::{ExecOptions, run_rows};
use knn_engine::tensor::Precision;
use knn_semantics::engine::Observed;

/// A seeded stream in `[-1, 1)`.
fn stream(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// A two-layer network over `x` (5 inputs, 12 hidden, 4 outputs) ended by `tail`, where
/// `OUT` is the last layer.
fn network(tail: &str) -> Batch {
    let mut next = stream(7);
    let mut source = String::new();
    for (l, (rows, cols)) in [(12, 5), (4, 12)].into_iter().enumerate() {
        write!(source, "let W{l} = initTensor({rows}, {cols}) in ").unwrap();
        for i in 0..rows {
            for j in 0..cols {
                write!(source, "let W{l}[{i}, {j}] = {:?} in ", next()).unwrap();
            }
        }
        let input = if l == 0 { "x" } else { "h0" };
        write!(source, "let z{l} = linear(W{l}, {input}) in ").unwrap();
        if l == 0 {
            source.push_str("let h0 = reluTensor(z0) in ");
        }
    }
    source.push_str(&tail.replace("OUT", "z1"));
    load_source("net.knn", &source, Semantics::Revised).unwrap().batch("x", 5, &[]).unwrap()
}

/// 700 rows: more than one group (at most 256 rows), so the groups run in parallel.
fn rows() -> Vec<f64> {
    let mut next = stream(99);
    (0..700 * 5).map(|_| next() * 3.0).collect()
}

/// Each row's value, one at a time.
fn one_by_one(batch: &Batch, rows: &[f64]) -> Vec<Observed> {
    batch
        .run(rows, false, |_| {})
        .unwrap()
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("a row failed: {}", e.detail)))
        .collect()
}

#[test]
fn tensors_are_written_row_after_row_with_the_rows_shape() {
    let batch = network("OUT");
    let rows = rows();
    let Ok(RowValues::Floats { shape, data }) = batch.run_values(&rows, Default::default()) else {
        panic!("floats expected")
    };
    assert_eq!(shape, [700, 4]);
    let expected: Vec<u64> = one_by_one(&batch, &rows)
        .into_iter()
        .flat_map(|v| match v {
            Observed::Tensor(t) => t.data,
            other => panic!("a tensor expected, not {other}"),
        })
        .map(f64::to_bits)
        .collect();
    assert_eq!(data.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), expected);
    // Not all alike: a writer that filled one row everywhere would fail above, but so should
    // one that wrote nothing.
    assert!(data.iter().any(|&x| x != 0.0));
}

#[test]
fn classes_are_integers_and_floats_are_scalars() {
    let rows = rows();
    let classes = network("ArgMax(OUT)");
    let Ok(RowValues::Ints(ints)) = classes.run_values(&rows, Default::default()) else { panic!("integers expected") };
    let expected: Vec<i64> =
        one_by_one(&classes, &rows).into_iter().map(|v| if let Observed::Int(k) = v { k } else { panic!() }).collect();
    assert_eq!(ints, expected);
    let reached = (0..4).filter(|k| ints.contains(k)).count();
    assert!(reached >= 2, "the seeded rows reach several classes, not {reached}");

    let first = network("OUT[2]");
    let Ok(RowValues::Floats { shape, data }) = first.run_values(&rows, Default::default()) else {
        panic!("floats expected")
    };
    assert_eq!(shape, [700]);
    let expected: Vec<u64> = one_by_one(&first, &rows)
        .into_iter()
        .map(|v| if let Observed::Float(x) = v { x.to_bits() } else { panic!() })
        .collect();
    assert_eq!(data.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), expected);
}

#[test]
fn the_first_failing_row_in_row_order_stops_it_with_its_place() {
    let batch = network("OUT");
    // relu of NaN has no rule (`rev-arith-invalid`); rows in the third, second and first group.
    for failing in [[650, 300, 600], [5, 600, 699], [699, 698, 697]] {
        let mut rows = rows();
        for row in failing {
            rows[row * 5 + 1] = f64::NAN;
        }
        let failure = batch.run_values(&rows, Default::default()).unwrap_err();
        let first = *failing.iter().min().unwrap();
        assert_eq!(failure.row, Some(first));
        let results = batch.run(&rows, false, |_| {}).unwrap();
        let Answer::Failed(expected) = batch.answer(&results[first]) else { panic!("row {first} fails") };
        assert_eq!(failure.error.message, expected.message);
        assert!(failure.error.message.contains("NaN"), "{}", failure.error.message);
        assert!(failure.error.place.is_some(), "the error is located in the program");
    }
}

#[test]
fn what_cannot_make_an_array_is_refused_before_any_row() {
    let batch = network("OUT");
    let ragged = batch.run_values(&[1.0; 7], Default::default()).unwrap_err();
    assert_eq!(ragged.row, None);
    assert_eq!(ragged.error.message, "7 numbers do not make rows of 5 elements");

    let program = load_source("t.knn", "let t = initTensor(2) in let t[0] = 1 in t", Semantics::Revised);
    let program = program.unwrap_or_else(|e| panic!("{}", e.message));
    let not_dense = program.batch("x", 1, &[]).unwrap().run_values(&[1.0], Default::default()).unwrap_err();
    assert_eq!(not_dense.row, None);
    assert!(not_dense.error.message.starts_with("the result is not a dense tensor"), "{}", not_dense.error.message);

    let none = batch.run_values(&[], Default::default()).unwrap();
    assert_eq!(none, RowValues::Floats { shape: vec![0, 4], data: vec![] });
    assert!(batch.run(&[], false, |_| {}).unwrap().is_empty());
    assert!(run_rows(batch.plan(), &[], Default::default()).is_empty());
}

#[test]
fn refused_nans_fail_their_row_in_row_order_with_the_program_errors() {
    let batch = network("OUT");
    let refuse = ValuesOptions { refuse_nan: true, ..ValuesOptions::default() };
    let mut rows = rows();
    rows[650 * 5 + 4] = f64::NAN;
    rows[300 * 5 + 1] = f64::NAN;
    let failure = batch.run_values(&rows, refuse).unwrap_err();
    assert_eq!((failure.row, failure.nan_element), (Some(300), Some(1)));
    assert_eq!(failure.error.failure, Failure::Usage);
    assert_eq!(failure.error.message, "row 300: element 1 is NaN");
    // Unrefused, the same NaN is the program's error (relu of NaN), at the same row.
    let unrefused = batch.run_values(&rows, ValuesOptions::default()).unwrap_err();
    assert_eq!((unrefused.row, unrefused.nan_element), (Some(300), None));
    assert!(matches!(unrefused.error.failure, Failure::Runtime(_)));

    // A run-time error in an earlier row (infinities that meet as inf - inf) comes first, in
    // the same group as the NaN and in an earlier one.
    for errs_at in [290, 10] {
        let mut rows = rows.clone();
        rows[errs_at * 5..errs_at * 5 + 5].copy_from_slice(&[f64::INFINITY, f64::NEG_INFINITY, 1e308, -1e308, 0.0]);
        let one = batch.run(&rows[errs_at * 5..errs_at * 5 + 5], false, |_| {}).unwrap();
        assert!(one[0].is_err(), "row {errs_at} fails in the program");
        let failure = batch.run_values(&rows, refuse).unwrap_err();
        assert_eq!((failure.row, failure.nan_element), (Some(errs_at), None));
    }
}

#[test]
fn fast_math_reaches_the_kernels_and_the_width_is_the_rows() {
    let batch = network("OUT");
    assert_eq!(batch.width(), 5);
    let rows = rows();
    let bits = |values: RowValues| match values {
        RowValues::Floats { data, .. } => data.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        RowValues::Ints(_) => panic!("floats expected"),
    };
    let fast = ValuesOptions { fast_math: true, ..ValuesOptions::default() };
    let fused = bits(batch.run_values(&rows, fast).unwrap());
    let exact = bits(batch.run_values(&rows, ValuesOptions::default()).unwrap());
    // Fused multiply-adds round once where exact mode rounds twice: some of the 2,800 results
    // differ in their last bits.
    assert!(fused.iter().zip(&exact).any(|(a, b)| a != b), "fast math gave the exact bits everywhere");
    let refs: Vec<Vec<&[f64]>> = rows.chunks(5).map(|r| vec![r]).collect();
    let options = ExecOptions { precision: Precision::Fast, ..ExecOptions::default() };
    let direct: Vec<u64> = run_rows(batch.plan(), &refs, options)
        .into_iter()
        .flat_map(|r| match r {
            Ok(Observed::Tensor(t)) => t.data,
            other => panic!("{other:?}"),
        })
        .map(f64::to_bits)
        .collect();
    assert_eq!(fused, direct, "the batch's fast math is the engine's");
    let one_by_one: Vec<u64> = batch
        .run(&rows, true, |_| {})
        .unwrap()
        .into_iter()
        .flat_map(|r| if let Ok(Observed::Tensor(t)) = r { t.data } else { panic!() })
        .map(f64::to_bits)
        .collect();
    assert_eq!(one_by_one, direct);
}
