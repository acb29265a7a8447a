//! What the tests of the fused window operations share: a program over a symbolic rank-3 input
//! `x` is compiled once, its plan must hold the fused operations (`Op::Conv2d`, `Op::Pool2d`,
//! `Op::Copy`: the fusion cannot silently stop), and every row's result — run alone, and in
//! batches of several lane groups — must be the small-step reference's: the same bits, or an
//! error of the same kind at the same span with the same detail (`Verdict::agrees_with` compares
//! kinds only, so the span and detail are compared here).

use std::fmt::Write;

use knn_engine::bigstep::ops::Op;
use knn_engine::bigstep::{Binding, ExecOptions, InputData, Plan, compile, run_rows, verdict};
use knn_engine::tensor::{LANE_GROUP, Precision};
use knn_semantics::syntax::{Exp, Pool};

use super::*;

/// A seeded stream in `[-1, 1)`.
pub struct Stream(pub u64);

impl Stream {
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// The fused window operations a plan holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fused {
    pub conv: usize,
    pub max: usize,
    pub avg: usize,
    pub copy: usize,
}

/// The fused window operations of `plan`, and whether it holds element-by-element work
/// (`Read`, `Write`, scalar arithmetic) beside them.
pub fn fused_ops(plan: &Plan) -> (Fused, bool) {
    let mut fused = Fused::default();
    let mut scalar = false;
    for op in &plan.ops {
        match op {
            Op::Conv2d { .. } => fused.conv += 1,
            Op::Pool2d { pool: Pool::Max, .. } => fused.max += 1,
            Op::Pool2d { pool: Pool::Avg, .. } => fused.avg += 1,
            Op::Copy { .. } => fused.copy += 1,
            Op::MatVec { .. }
            | Op::AddBias { .. }
            | Op::Elementwise { .. }
            | Op::Permute { .. }
            | Op::Softmax { .. }
            | Op::Reduce { .. }
            | Op::Gather { .. }
            | Op::Combine { .. }
            | Op::Pad { .. }
            | Op::MatMul { .. }
            | Op::Activate { .. }
            | Op::ArgMaxBuffer { .. } => {}
            _ => scalar = true,
        }
    }
    (fused, scalar)
}

/// The same bits, or the same error kind, span and detail.
pub fn same(got: &Verdict, want: &Verdict) -> bool {
    match (got, want) {
        (Verdict::Error { kind: a, span: s, detail: d }, Verdict::Error { kind: b, span: t, detail: e }) => {
            a == b && s == t && d == e
        }
        _ => got.agrees_with(want),
    }
}

/// A literal `initTensor(dims)[…]` of `values` (Rust's `{:?}` of an `f64` reads back to the
/// same bits; `±Infinity` and `NaN` are written as K-NN writes them).
pub fn literal(dims: &[usize], values: &[f64]) -> String {
    let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
    let mut s = format!("initTensor({})[", dims.join(", "));
    for (k, v) in values.iter().enumerate() {
        let sep = if k == 0 { "" } else { ", " };
        match *v {
            v if v.is_nan() => write!(s, "{sep}NaN"),
            f64::INFINITY => write!(s, "{sep}Infinity"),
            f64::NEG_INFINITY => write!(s, "{sep}-Infinity"),
            v => write!(s, "{sep}{v:?}"),
        }
        .unwrap();
    }
    s + "]"
}

/// Rows of `n` elements: seeded values of magnitude up to 3, then rows where some element is
/// NaN, ±Infinity, huge, subnormal or `-0.0` (at a different place in each), so that some rows
/// fail and others round at the edges.
pub fn image_rows(n: usize, count: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut stream = Stream(seed);
    let mut rows: Vec<Vec<f64>> = (0..count).map(|_| (0..n).map(|_| stream.next() * 3.0).collect()).collect();
    let special = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e308, 5e-324, -0.0, 1e16, f64::NAN];
    for (k, value) in special.into_iter().enumerate() {
        let row = &mut rows[(5 * k + 2) % count];
        row[(7 * k + 3) % n] = value;
    }
    rows
}

/// The plan of `program` with `x` of shape `dims` symbolic.
pub fn plan_of(program: &Exp, dims: &[usize]) -> Plan {
    compile(program, &[Binding { name: "x".into(), shape: dims.to_vec(), data: InputData::Symbolic }])
}

/// Checks `source` over `x` of shape `dims`: its plan holds exactly the fused operations
/// `expected` and no element-by-element work, and each of `rows` gets the reference's result
/// alone, in groups of one lane group, and in one group of every row. Returns the reference's
/// verdicts.
pub fn check_rows(source: &str, dims: &[usize], rows: &[Vec<f64>], expected: Fused) -> Vec<Verdict> {
    assert!(rows.len() > 2 * LANE_GROUP, "more than two lane groups");
    let program = parse_program(source, Profile::revised().grammar).unwrap_or_else(|e| panic!("{source}: {e}"));
    let plan = plan_of(&program, dims);
    let (fused, scalar) = fused_ops(&plan);
    assert_eq!(fused, expected, "{source}\n{:#?}", plan.ops);
    assert!(!scalar, "element-by-element work left in the plan of {source}:\n{:#?}", plan.ops);
    let input = |row: &Vec<f64>| TensorInput { name: "x".into(), shape: dims.to_vec(), data: row.clone() };
    let reference: Vec<Verdict> =
        rows.iter().map(|row| SmallStep::revised().evaluate(&program, &[input(row)]).unwrap()).collect();
    for (k, want) in reference.iter().enumerate() {
        assert!(!matches!(want, Verdict::Limit | Verdict::Stuck(_)), "{source}, row {k}: {want}");
    }
    let refs: Vec<Vec<&[f64]>> = rows.iter().map(|r| vec![r.as_slice()]).collect();
    for group in [None, Some(LANE_GROUP)] {
        let batch = run_rows(&plan, &refs, ExecOptions { precision: Precision::Exact, group });
        assert_eq!(batch.len(), rows.len());
        for (k, (got, want)) in batch.into_iter().zip(&reference).enumerate() {
            let got = verdict(got);
            assert!(same(&got, want), "{source}\n  group {group:?}, row {k}: {got:?}\n  reference: {want:?}");
        }
    }
    for (k, (row, want)) in refs.iter().zip(&reference).enumerate() {
        let alone = verdict(run_rows(&plan, std::slice::from_ref(row), ExecOptions::default()).remove(0));
        assert!(same(&alone, want), "{source}\n  row {k} alone: {alone:?}\n  reference: {want:?}");
    }
    // The engine contract's comparison (`<env>` included) on the first rows, direct and staged.
    for row in rows.iter().take(3) {
        observe(source, &[input(row)]);
    }
    reference
}

/// How many of `verdicts` are values, and how many errors of kind `kind`.
pub fn tally(verdicts: &[Verdict], kind: &str) -> (usize, usize) {
    let values = verdicts.iter().filter(|v| matches!(v, Verdict::Value(_))).count();
    let errors = verdicts.iter().filter(|v| matches!(v, Verdict::Error { kind: k, .. } if k.id() == kind)).count();
    (values, errors)
}
