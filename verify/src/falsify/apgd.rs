//! APGD's steps (Croce and Hein 2020), every lane on its own: a sign step of `η` times the
//! box's width (η = 1 at first: as far as the whole box), then momentum 0.75 between the step
//! and the previous move, both projected onto the box. At checkpoints spaced as APGD spaces
//! them, a lane whose margin went down in fewer than 3/4 of the steps since the last
//! checkpoint, or whose best margin did not move since then (unless it was halved then),
//! halves its `η` and goes back to its best point and that point's gradient.

use super::Falsifier;
use super::attack::{Evaluated, ITERATIONS, Stop, sign};
use super::objective::{Goal, Objectives};
use crate::deadline::Deadline;

const MOMENTUM: f64 = 0.75;
/// A lane halves its step when its margin went down in fewer than this share of the steps.
const PROGRESS: f64 = 0.75;

/// The steps after which lanes are checked: `⌈p·iterations⌉` for APGD's `p₀ = 0, p₁ = 0.22,
/// p_{j+1} = p_j + max(p_j − p_{j−1} − 0.03, 0.06)`, while `p ≤ 1`.
pub fn checkpoints(iterations: usize) -> Vec<usize> {
    let (mut before, mut p) = (0.0f64, 0.22f64);
    let mut steps = Vec::new();
    while p <= 1.0 {
        // Less a hair: 0.41 + 0.16 is 0.5700000000000001 in binary64.
        let step = (p * iterations as f64 - 1e-9).ceil() as usize;
        if step > 0 && steps.last() != Some(&step) {
            steps.push(step);
        }
        (before, p) = (p, p + (p - before - 0.03).max(0.06));
    }
    steps
}

/// Each lane's best point so far: its margin, the point and the gradient there.
struct Best {
    margin: Vec<f64>,
    x: Vec<f64>,
    gradient: Vec<f64>,
}

impl Falsifier<'_> {
    /// [`ITERATIONS`] steps of APGD from `x` (feature-major, one start per lane), each lane
    /// minimising its goal's margin.
    pub(super) fn apgd(
        &self,
        objectives: &Objectives,
        goals: &[Goal],
        mut x: Vec<f64>,
        deadline: Deadline,
    ) -> Result<(), Stop> {
        let lanes = goals.len();
        if deadline.passed() {
            return Err(Stop::OutOfTime);
        }
        let mut now = self.evaluate(objectives, goals, &x, None)?;
        let mut best = Best { margin: now.margin.clone(), x: x.clone(), gradient: now.gradient.clone() };
        let mut previous = x.clone();
        let mut eta = vec![1.0f64; lanes];
        // Since the last checkpoint: the steps that lowered the margin, whether the lane was
        // halved there, and its best margin then.
        let mut progress = vec![0usize; lanes];
        let mut halved = vec![false; lanes];
        let mut best_then = best.margin.clone();
        let (checkpoints, mut last_check) = (checkpoints(ITERATIONS), 0);
        for step in 1..=ITERATIONS {
            if deadline.passed() {
                return Err(Stop::OutOfTime);
            }
            let moved = self.step(&x, &previous, &now, &eta, step == 1);
            previous = std::mem::replace(&mut x, moved);
            let next = self.evaluate(objectives, goals, &x, None)?;
            for (l, count) in progress.iter_mut().enumerate() {
                *count += usize::from(next.margin[l] < now.margin[l]);
                if next.margin[l] < best.margin[l] {
                    best.margin[l] = next.margin[l];
                    for i in (l..x.len()).step_by(lanes) {
                        (best.x[i], best.gradient[i]) = (x[i], next.gradient[i]);
                    }
                }
            }
            now = next;
            if checkpoints.contains(&step) {
                let since = (step - last_check) as f64;
                for (l, count) in progress.iter_mut().enumerate() {
                    let stalled = (*count as f64) < PROGRESS * since;
                    let flat = !halved[l] && best_then[l] <= best.margin[l];
                    halved[l] = stalled || flat;
                    if halved[l] {
                        eta[l] /= 2.0;
                        for i in (l..x.len()).step_by(lanes) {
                            (x[i], previous[i], now.gradient[i]) = (best.x[i], best.x[i], best.gradient[i]);
                        }
                        now.margin[l] = best.margin[l];
                    }
                    *count = 0;
                    best_then[l] = best.margin[l];
                }
                last_check = step;
            }
        }
        Ok(())
    }

    /// The next points: `z = P(x − η·width·sign(g))`, then (after the first step)
    /// `P(x + 0.75·(z − x) + 0.25·(x − previous))`, `P` the projection onto the box.
    fn step(&self, x: &[f64], previous: &[f64], now: &Evaluated, eta: &[f64], first: bool) -> Vec<f64> {
        let lanes = eta.len();
        let mut moved = vec![0.0; x.len()];
        for (j, b) in self.inner.iter().enumerate() {
            let width = b.hi - b.lo;
            for (l, eta) in eta.iter().enumerate() {
                let i = j * lanes + l;
                let z = (x[i] - eta * width * sign(now.gradient[i])).clamp(b.lo, b.hi);
                // An infinite side (∞ − ∞, ∞·0) leaves the element where it is.
                let z = if z.is_nan() { x[i] } else { z };
                let m = x[i] + MOMENTUM * (z - x[i]) + (1.0 - MOMENTUM) * (x[i] - previous[i]);
                moved[i] = if first || m.is_nan() { z } else { m.clamp(b.lo, b.hi) };
            }
        }
        moved
    }
}
