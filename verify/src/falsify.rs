//! Looking for a counterexample before proving: the centre, the corners, random points, then
//! projected sign-gradient descent (PGD) on the margin of each unsafe conjunction. Points are
//! evaluated in batches on the big-step engine; gradients come from the layer chain
//! ([`Network::forward`]), which only steers the search, so they need not be exact.
//! Whatever this finds is still confirmed on both engines before it is reported.

use std::time::Instant;

use knn_engine::bigstep::{ExecOptions, Plan, run_rows};

use super::deadline::Deadline;
use super::float::Interval;
use super::judge::{ClassClaim, Judge, PointResult};
use super::network::Network;
use super::property::{Case, Conjunction};

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

/// How many random points, PGD starts and steps.
const RANDOM_POINTS: usize = 512;
const PGD_STARTS: usize = 16;
const PGD_STEPS: usize = 40;
/// Corners are tried when there are at most this many.
const MAX_CORNERS: usize = 1024;

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

    /// Projected sign-gradient descent on each unsafe conjunction's margin from the best of
    /// `points`, until `deadline`: an unsafe point if it meets one.
    pub fn descend(&self, points: &[Vec<f64>], deadline: Option<Instant>) -> Option<Vec<f64>> {
        let deadline = Deadline::from(deadline);
        // The outputs at every start, once for all conjunctions (a point of a wide network
        // costs a fraction of a millisecond, 513 of them a noticeable part of a second).
        let mut outputs = Vec::with_capacity(points.len());
        for x in points {
            if deadline.passed() {
                return None;
            }
            outputs.push(self.net.eval(x));
        }
        for conjunction in &self.case.unsafe_when {
            let mut starts: Vec<(f64, Vec<f64>)> =
                points.iter().zip(&outputs).map(|(x, y)| (self.margin(conjunction, y), x.clone())).collect();
            starts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut batch: Vec<Vec<f64>> = starts.into_iter().take(PGD_STARTS).map(|(_, x)| x).collect();
            for step in 0..PGD_STEPS {
                if deadline.passed() {
                    return None;
                }
                // Step from a quarter of the box down to a thousandth of it.
                let fraction = 0.25 * (0.004f64).powf(step as f64 / (PGD_STEPS - 1) as f64);
                for x in &mut batch {
                    let gradient = self.gradient(conjunction, x);
                    for ((v, g), b) in x.iter_mut().zip(&gradient).zip(&self.inner) {
                        let moved = *v - fraction * (b.hi - b.lo) * g.signum();
                        *v = moved.clamp(b.lo, b.hi);
                    }
                }
                if let Some(x) = self.first_unsafe(&batch) {
                    return Some(x);
                }
            }
        }
        None
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
        let judge = Judge { case: self.case, class: self.class };
        points.iter().zip(results).find_map(|(x, row)| {
            // An ArgMax program's scores are the chain's last vector.
            let result = PointResult::of_row(row, || self.net.eval(x))?;
            judge.breaks(&result).then(|| x.clone())
        })
    }

    /// How far the output is from meeting the conjunction: the largest left side (≤ 0 for
    /// every atom means unsafe).
    fn margin(&self, conjunction: &Conjunction, y: &[f64]) -> f64 {
        conjunction
            .atoms
            .iter()
            .map(|a| {
                let side = a.left_side(&y.iter().map(|&v| Interval::point(v)).collect::<Vec<_>>());
                side.lo + (side.hi - side.lo) / 2.0
            })
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The gradient of the margin at `x` (of its largest atom), by back-propagation through
    /// the chain.
    fn gradient(&self, conjunction: &Conjunction, x: &[f64]) -> Vec<f64> {
        let values = self.net.forward(x);
        let last = values.last().expect("a network has layers");
        let y: Vec<f64> = self.net.outputs.iter().map(|&k| last[k]).collect();
        let Some(atom) = conjunction.atoms.iter().max_by(|a, b| {
            let side = |atom: &super::property::Atom| {
                atom.left_side(&y.iter().map(|&v| Interval::point(v)).collect::<Vec<_>>()).lo
            };
            side(a).total_cmp(&side(b))
        }) else {
            return vec![0.0; x.len()];
        };
        let mut g = vec![0.0; last.len()];
        for (k, c) in &atom.terms {
            g[self.net.outputs[*k]] += c.below + (c.above - c.below) / 2.0;
        }
        for (k, layer) in self.net.layers.iter().enumerate().rev() {
            let input = if k == 0 { x } else { values[k - 1].as_slice() };
            g = layer.backpropagate(g, input, &values[k]);
        }
        g
    }
}

#[cfg(test)]
#[path = "falsify_tests.rs"]
mod tests;
