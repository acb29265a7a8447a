//! Boxes too narrow to split: every binary64 point of the box run on the engine.

use knn_engine::bigstep::{ExecOptions, Plan, run_rows};

use super::{CaseSearch, Examined};
use crate::float::Interval;
use crate::judge::{Judge, PointResult};
use crate::network::Network;

/// The most binary64 points a box too narrow to split may hold to be decided point by point.
const EXHAUSTIVE_POINTS: usize = 1 << 12;

impl CaseSearch<'_> {
    /// Decides a box too narrow to split by running the engine on each of its binary64
    /// points (each dimension has at most two, and the other zero where one is 0): proved when no point inside the box as written
    /// breaks the claim, a candidate when one does, stuck when a run hit a limit of knn or
    /// there are more than `EXHAUSTIVE_POINTS`.
    pub(super) fn exhaust(&self, region: &[Interval]) -> Examined {
        // Each side's values: its ends, and both zeros where it holds one (the engine tells
        // them apart: [`with_both_zeros`]).
        let sides: Vec<Vec<f64>> = region
            .iter()
            .map(|v| {
                let mut values = if v.lo < v.hi { vec![v.lo, v.hi] } else { vec![v.lo] };
                with_both_zeros(&mut values);
                values
            })
            .collect();
        let count = sides.iter().try_fold(1usize, |n, values| n.checked_mul(values.len()));
        if count.is_none_or(|n| n > EXHAUSTIVE_POINTS) {
            return Examined::Stuck;
        }
        let mut points: Vec<Vec<f64>> = vec![vec![]];
        for values in &sides {
            points = points.iter().flat_map(|p| values.iter().map(move |v| [p.as_slice(), &[*v]].concat())).collect();
        }
        points.retain(|x| self.case.input.contains(x));
        match first_breaking(self.plan, self.net, self.judge(), &points) {
            Ok(Some(x)) => Examined::Candidate(x),
            Ok(None) => Examined::Proved,
            Err(Limit) => Examined::Stuck,
        }
    }
}

/// A run that hit a limit of knn (the memory budget): it says nothing about the claim.
pub struct Limit;

/// The first of `points` at which the engine's result breaks the claim, running the big-step
/// engine (bit for bit the reference) on each; `None` when none does.
pub fn first_breaking(
    plan: &Plan,
    net: &Network,
    judge: Judge<'_>,
    points: &[Vec<f64>],
) -> Result<Option<Vec<f64>>, Limit> {
    let rows: Vec<Vec<&[f64]>> = points.iter().map(|x| vec![x.as_slice()]).collect();
    for (x, row) in points.iter().zip(run_rows(plan, &rows, ExecOptions::default())) {
        // An ArgMax program's scores are the chain's last vector.
        let result = PointResult::of_row(row, || net.scores(x)).ok_or(Limit)?;
        if judge.breaks(&result) {
            return Ok(Some(x.clone()));
        }
    }
    Ok(None)
}

/// `values` with the other zero added where it holds one: `−0` and `+0` compare equal, so a
/// region that holds one holds both, and the engine tells them apart (`1/−0 = −∞`: a quotient
/// by a computed tensor that may be 0 gives another class at each).
pub(crate) fn with_both_zeros(values: &mut Vec<f64>) {
    if let Some(zero) = values.iter().copied().find(|v| *v == 0.0)
        && !values.iter().any(|v| v.to_bits() == (-zero).to_bits())
    {
        values.push(-zero);
    }
}
