//! The attack: APGD (Croce and Hein, "Reliable evaluation of adversarial robustness with an
//! ensemble of diverse parameter-free attacks", 2020) on the box, after an output-diversified
//! start (ODI: Tashiro, Song and Ermon, "Diversity can be transferred: output diversification
//! for white- and black-box attacks", 2020), many starts at once. Each lane of a batch is one
//! start; a step evaluates every lane together through the layer chain
//! ([`Network::forward_lanes`](crate::network::Network::forward_lanes): the engine's batched
//! kernels, the engine's bits) and carries the gradient back the same way.
//!
//! A round: from its starts, [`DIVERSIFY_STEPS`] sign steps of a quarter of the box that
//! increase a random weighing of the outputs, different in each lane (without them every start
//! of `mnist_fc`'s 256×6 `prop_1_0.05` runs into the same corner, 0.8 away from unsafe); then
//! [`ITERATIONS`] steps of APGD on the lane's margin ([`super::apgd`]).
//!
//! It only proposes: a lane whose outputs the chain judges unsafe is run on the big-step
//! engine and judged again ([`Falsifier::first_unsafe`]); the caller replays what it returns.

use std::ops::Range;

use knn_engine::tensor::LANE_GROUP;

use super::objective::{Goal, Objectives};
use super::{Falsifier, SplitMix};
use crate::deadline::Deadline;

/// Starts run together: a multiple of [`LANE_GROUP`].
pub const LANES: usize = 32;
/// APGD's steps in a round.
pub const ITERATIONS: usize = 100;
/// Rounds at most: the first from the best sampled points, the others from random ones.
pub const ROUNDS: usize = 4;
/// The diversifying steps at the start of a round, and their size (a share of the box).
pub const DIVERSIFY_STEPS: usize = 10;
const DIVERSIFY_STEP: f64 = 0.25;

/// Why a round stopped early.
pub enum Stop {
    /// An unsafe point, judged on the engine.
    Found(Vec<f64>),
    OutOfTime,
}

/// What one evaluation of the lanes gives: each lane's margin, and the gradient (of the
/// margin, or of the diversifying weighing) over the inputs, feature-major.
pub struct Evaluated {
    pub margin: Vec<f64>,
    pub gradient: Vec<f64>,
}

/// Lane `l` of a feature-major batch of `lanes`.
pub fn lane(x: &[f64], lanes: usize, l: usize) -> Vec<f64> {
    x.iter().skip(l).step_by(lanes).copied().collect()
}

/// `+1`, `−1` or `0` as `g` is positive, negative or neither (zero or NaN).
pub fn sign(g: f64) -> f64 {
    if g > 0.0 {
        1.0
    } else if g < 0.0 {
        -1.0
    } else {
        0.0
    }
}

impl Falsifier<'_> {
    /// Rounds `rounds` of the attack (of [`ROUNDS`]) until one meets a point the engine judges
    /// unsafe, or `deadline` passes. Round 0 starts from the best of `points` for each lane's
    /// margin, the others from random points; the points and weighings of round `r` are drawn
    /// from `seed` and `r`, so a round is the same whichever range it is run in.
    pub fn attack(&self, points: &[Vec<f64>], seed: u64, rounds: Range<usize>, deadline: Deadline) -> Option<Vec<f64>> {
        let objectives = Objectives::new(self.net, self.case);
        let goals = objectives.goals(LANES);
        for round in rounds {
            let mut rng = SplitMix::new(seed ^ 0xA77A_C4ED_0000_0000 ^ round as u64);
            let starts = if round == 0 {
                self.best_points(&objectives, &goals, points, deadline)
            } else {
                Some((0..LANES).map(|_| self.random_point(&mut rng)).collect())
            };
            let starts = starts?;
            let mut towards = vec![0.0; objectives.width() * LANES];
            for &k in &self.net.outputs {
                for w in &mut towards[k * LANES..(k + 1) * LANES] {
                    *w = 2.0 * rng.unit() - 1.0;
                }
            }
            match self.round(&objectives, &goals, &starts, &towards, deadline) {
                Ok(()) => {}
                Err(Stop::Found(x)) => return Some(x),
                Err(Stop::OutOfTime) => return None,
            }
        }
        None
    }

    /// For each lane, a point of `points` among the best for its goal: the `r`-th lane of a
    /// goal takes its `r`-th best point. `None` when the deadline passed.
    fn best_points(
        &self,
        objectives: &Objectives,
        goals: &[Goal],
        points: &[Vec<f64>],
        deadline: Deadline,
    ) -> Option<Vec<Vec<f64>>> {
        // The last layer's vectors of every point, a batch at a time.
        let mut last = Vec::with_capacity(points.len());
        for chunk in points.chunks(4 * LANES) {
            if deadline.passed() {
                return None;
            }
            let lanes = chunk.len().next_multiple_of(LANE_GROUP);
            let values = self.net.forward_lanes(&self.to_lanes(chunk, lanes), lanes);
            let v = values.last().expect("a network has layers");
            last.extend((0..chunk.len()).map(|l| lane(v, lanes, l)));
        }
        let mut ranked: Vec<(Goal, Vec<usize>)> = Vec::new();
        let mut chosen = Vec::with_capacity(goals.len());
        for &goal in goals {
            if !ranked.iter().any(|(t, _)| *t == goal) {
                let margins: Vec<f64> = last.iter().map(|y| objectives.margin(goal, y, 1, 0).0).collect();
                let mut order: Vec<usize> = (0..points.len()).rev().collect();
                // Best last, so that taking one is a pop (a stable sort: ties in order).
                order.sort_by(|&a, &b| margins[b].total_cmp(&margins[a]));
                ranked.push((goal, order));
            }
            let order = &mut ranked.iter_mut().find(|(t, _)| *t == goal).expect("ranked above").1;
            // The best not taken yet by this goal's lanes (the last one again if there are few).
            let k = if order.len() > 1 { order.pop() } else { order.last().copied() };
            chosen.push(points[k.expect("at least the centre")].clone());
        }
        Some(chosen)
    }

    /// `points` feature-major over `lanes` lanes, the last point repeated into the padding.
    pub fn to_lanes(&self, points: &[Vec<f64>], lanes: usize) -> Vec<f64> {
        let n = self.inner.len();
        let mut x = vec![0.0; n * lanes];
        for l in 0..lanes {
            let point = &points[l.min(points.len() - 1)];
            for j in 0..n {
                x[j * lanes + l] = point[j];
            }
        }
        x
    }

    /// The margins at `x` and the gradients of the margins (or, with `towards`, of the outputs
    /// weighed by it, lane by lane, negated), or an unsafe point among the lanes.
    pub fn evaluate(
        &self,
        objectives: &Objectives,
        goals: &[Goal],
        x: &[f64],
        towards: Option<&[f64]>,
    ) -> Result<Evaluated, Stop> {
        let lanes = goals.len();
        let values = self.net.forward_lanes(x, lanes);
        let last = values.last().expect("a network has layers");
        let judge = self.judge();
        let breaking: Vec<Vec<f64>> = (0..lanes)
            .filter(|&l| {
                let outputs: Vec<f64> = self.net.outputs.iter().map(|&k| last[k * lanes + l]).collect();
                // A NaN may come from a layer that fails: the chain says which.
                let result = if outputs.iter().any(|v| v.is_nan()) {
                    self.net.result_at(&lane(x, lanes, l))
                } else {
                    self.net.result_of(outputs)
                };
                judge.breaks(&result)
            })
            .map(|l| lane(x, lanes, l))
            .collect();
        if !breaking.is_empty()
            && let Some(found) = self.first_unsafe(&breaking)
        {
            return Err(Stop::Found(found));
        }
        let mut g = match towards {
            Some(w) => w.iter().map(|v| -v).collect(),
            None => vec![0.0; objectives.width() * lanes],
        };
        let mut margin = Vec::with_capacity(lanes);
        for (l, &goal) in goals.iter().enumerate() {
            let (m, active) = objectives.margin(goal, last, lanes, l);
            if towards.is_none() {
                objectives.seed(active, &mut g, lanes, l);
            }
            margin.push(m);
        }
        Ok(Evaluated { margin, gradient: self.net.backpropagate_lanes(g, x, &values, lanes) })
    }

    /// One round from `starts` (one per lane): the diversifying steps towards `towards`, then
    /// APGD.
    pub(super) fn round(
        &self,
        objectives: &Objectives,
        goals: &[Goal],
        starts: &[Vec<f64>],
        towards: &[f64],
        deadline: Deadline,
    ) -> Result<(), Stop> {
        let lanes = goals.len();
        let mut x = self.to_lanes(starts, lanes);
        for _ in 0..DIVERSIFY_STEPS {
            if deadline.passed() {
                return Err(Stop::OutOfTime);
            }
            let gradient = self.evaluate(objectives, goals, &x, Some(towards))?.gradient;
            for (j, b) in self.inner.iter().enumerate() {
                let step = DIVERSIFY_STEP * (b.hi - b.lo);
                for l in 0..lanes {
                    let i = j * lanes + l;
                    let moved = (x[i] - step * sign(gradient[i])).clamp(b.lo, b.hi);
                    // An infinite side (∞ − ∞, ∞·0) leaves the element where it is.
                    if !moved.is_nan() {
                        x[i] = moved;
                    }
                }
            }
        }
        self.apgd(objectives, goals, x, deadline)
    }
}
