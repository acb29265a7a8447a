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
    /// points (each dimension has at most two): proved when no point inside the box as written
    /// breaks the claim, a candidate when one does, stuck when a run hit a limit of knn or
    /// there are more than `EXHAUSTIVE_POINTS`.
    pub(super) fn exhaust(&self, region: &[Interval]) -> Examined {
        let wide: Vec<usize> = (0..region.len()).filter(|&j| region[j].lo < region[j].hi).collect();
        if wide.len() >= usize::BITS as usize || 1usize << wide.len() > EXHAUSTIVE_POINTS {
            return Examined::Stuck;
        }
        let points: Vec<Vec<f64>> = (0..1usize << wide.len())
            .map(|mask| {
                let mut x: Vec<f64> = region.iter().map(|v| v.lo).collect();
                for (bit, &j) in wide.iter().enumerate() {
                    if mask >> bit & 1 == 1 {
                        x[j] = region[j].hi;
                    }
                }
                x
            })
            .filter(|x| self.case.input.contains(x))
            .collect();
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
