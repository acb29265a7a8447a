//! Looking for a counterexample before proving: the centre, the corners, random points, then
//! an attack ([`attack`]: APGD on the margins of the unsafe conjunctions, many starts at once
//! through the layer chain; the margins are in [`objective`]). Gradients only steer the search,
//! so they need not be exact; every point proposed is judged on the big-step engine, and what
//! this returns is still confirmed on both engines before it is reported.

mod apgd;
mod attack;
mod objective;

pub use attack::{DIVERSIFY_STEPS, ITERATIONS, LANES, ROUNDS};

use std::time::{Duration, Instant};

use knn_engine::bigstep::{ExecOptions, Plan, run_rows};

use super::deadline::Deadline;
use super::float::Interval;
use super::judge::{ClassClaim, Judge, PointResult};
use super::network::Network;
use super::property::Case;

/// A small deterministic generator (SplitMix64): reproducible searches, no dependency.
#[derive(Clone, Debug)]
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The searcher for one case.
pub struct Falsifier<'a> {
    pub net: &'a Network,
    pub plan: &'a Plan,
    pub case: &'a Case,
    /// For a class claim, the class claimed (points are judged by the class the engine
    /// returns); `None` for a property over the outputs.
    pub class: Option<ClassClaim>,
    /// The binary64 points inside the box as written.
    pub inner: Vec<Interval>,
}

/// How many random points.
const RANDOM_POINTS: usize = 512;
/// Corners are tried when there are at most this many.
const MAX_CORNERS: usize = 1024;

/// The falsifier's time before branch and bound starts (per case): a tenth of the time left,
/// and at least `FALSIFIER_MIN`. Its attack is bounded work (at most [`ROUNDS`]
/// rounds of [`LANES`] starts × 110 steps, evaluated together): a round takes
/// about 15 ms on ACAS Xu and 0.1 s on VNN-COMP's `mnist_fc` 256×6 (784 inputs), where the
/// first round finds every known counterexample (docs/verification.md, "Counterexamples").
const FALSIFIER_SHARE: u32 = 10;
const FALSIFIER_MIN: Duration = Duration::from_millis(300);

/// When the falsifier stops, from `now`: the earlier of `deadline` and a tenth of the time
/// left (at least `FALSIFIER_MIN`); with no deadline, when its work is done.
pub fn falsifier_deadline(deadline: Deadline, now: Instant) -> Deadline {
    match deadline.instant() {
        Some(end) => deadline.earlier(now + (end.saturating_duration_since(now) / FALSIFIER_SHARE).max(FALSIFIER_MIN)),
        None => Deadline::NEVER,
    }
}

impl Falsifier<'_> {
    /// The cheap part of the search: the centre, the corners (when there are few) and random
    /// points. Returns an unsafe point if one is among them, and the points (the starts of
    /// [`Falsifier::descend`]).
    pub fn sample(&self, seed: u64) -> (Option<Vec<f64>>, Vec<Vec<f64>>) {
        let n = self.inner.len();
        let mut rng = SplitMix::new(seed);
        let mut points = vec![self.inner.iter().map(Interval::midpoint).collect::<Vec<f64>>()];
        if n < usize::BITS as usize && (1usize << n) <= MAX_CORNERS {
            for mask in 0..1usize << n {
                points.push(
                    self.inner.iter().enumerate().map(|(j, x)| if mask >> j & 1 == 1 { x.hi } else { x.lo }).collect(),
                );
            }
        }
        for _ in 0..RANDOM_POINTS {
            points.push(self.random_point(&mut rng));
        }
        (self.first_unsafe(&points), points)
    }

    /// Rounds `rounds` (of [`ROUNDS`]) of the attack ([`attack`]: diversified starts, then APGD
    /// on the margins, many starts at once) from the best of `points` and from random points
    /// drawn from `seed`, until `deadline`: an unsafe point if it meets one.
    pub fn descend(
        &self,
        points: &[Vec<f64>],
        seed: u64,
        rounds: std::ops::Range<usize>,
        deadline: Option<Instant>,
    ) -> Option<Vec<f64>> {
        self.attack(points, seed, rounds, Deadline::from(deadline))
    }

    fn judge(&self) -> Judge<'_> {
        Judge { case: self.case, class: self.class }
    }

    fn random_point(&self, rng: &mut SplitMix) -> Vec<f64> {
        self.inner
            .iter()
            .map(|x| {
                let t = rng.unit();
                let width = x.hi - x.lo;
                // A box as wide as `[−MAX, MAX]` has an infinite width: a convex combination
                // of the ends instead.
                let point = if width.is_finite() { x.lo + t * width } else { x.lo * (1.0 - t) + x.hi * t };
                point.clamp(x.lo, x.hi)
            })
            .collect()
    }

    /// The first of `points` at which the engine's result breaks the claim (a NaN, a failed
    /// run and the class the engine returns judged as [`Judge::breaks`] says).
    fn first_unsafe(&self, points: &[Vec<f64>]) -> Option<Vec<f64>> {
        let rows: Vec<Vec<&[f64]>> = points.iter().map(|x| vec![x.as_slice()]).collect();
        let results = run_rows(self.plan, &rows, ExecOptions::default());
        let judge = self.judge();
        points.iter().zip(results).find_map(|(x, row)| {
            // An ArgMax program's scores are the chain's last vector.
            let result = PointResult::of_row(row, || self.net.scores(x))?;
            judge.breaks(&result).then(|| x.clone())
        })
    }
}

#[cfg(test)]
#[path = "falsify_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "falsify_attack_tests.rs"]
mod attack_tests;
