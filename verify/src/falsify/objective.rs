//! What the attack minimises: margins of the unsafe conjunctions, on many points at once. A
//! conjunction is met when every atom's left side is ≤ 0, so its margin is the largest left
//! side (≤ 0: unsafe); a lane either aims at one conjunction or takes the smallest margin of
//! all (for a class claim, "some other class reaches the class claimed": the CW margin). The
//! margins are computed in plain binary64 from the constants' midpoints: they only steer,
//! every point is judged exactly ([`crate::judge::Judge`]).

use crate::network::Network;
use crate::property::Case;

/// One atom as a linear function of the last layer's vector.
#[derive(Clone, Debug)]
struct Side {
    /// (element of the last layer's vector, coefficient).
    terms: Vec<(usize, f64)>,
    constant: f64,
}

/// Which margin a lane minimises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The smallest margin over every conjunction.
    All,
    /// Conjunction `k`'s.
    One(usize),
}

/// The margins of a case's conjunctions over a network's last vector.
#[derive(Clone, Debug)]
pub struct Objectives {
    conjunctions: Vec<Vec<Side>>,
    /// The length of the last layer's vector.
    width: usize,
}

/// The margin of a lane and the atom it comes from (conjunction, atom), if any.
pub type Margin = (f64, Option<(usize, usize)>);

impl Objectives {
    pub fn new(net: &Network, case: &Case) -> Objectives {
        let mid = |below: f64, above: f64| below + (above - below) / 2.0;
        let conjunctions = case
            .unsafe_when
            .iter()
            .map(|conjunction| {
                conjunction
                    .atoms
                    .iter()
                    .map(|atom| Side {
                        terms: atom.terms.iter().map(|(k, c)| (net.outputs[*k], mid(c.below, c.above))).collect(),
                        constant: atom.constants.iter().map(|c| mid(c.below, c.above)).sum(),
                    })
                    .collect()
            })
            .collect();
        let width = *net.widths().last().expect("the output width");
        Objectives { conjunctions, width }
    }

    /// The number of conjunctions.
    pub fn count(&self) -> usize {
        self.conjunctions.len()
    }

    /// The length of the last layer's vector (the gradient [`Objectives::seed`] starts).
    pub fn width(&self) -> usize {
        self.width
    }

    /// The goals of `lanes` lanes: the smallest margin in every lane when there is one
    /// conjunction; else in turn the smallest, then each conjunction alone.
    pub fn goals(&self, lanes: usize) -> Vec<Goal> {
        let k = self.count();
        (0..lanes)
            .map(|l| match l % (k + 1) {
                _ if k <= 1 => Goal::All,
                0 => Goal::All,
                c => Goal::One(c - 1),
            })
            .collect()
    }

    /// The margin of lane `l` of `last` (the last layer's vectors, feature-major over `lanes`)
    /// for `goal`; a NaN margin counts as +∞ (nothing to steer by).
    pub fn margin(&self, goal: Goal, last: &[f64], lanes: usize, l: usize) -> Margin {
        let conjunction = |c: usize| -> Margin {
            let mut best: Margin = (f64::NEG_INFINITY, None);
            for (a, side) in self.conjunctions[c].iter().enumerate() {
                let v = side.terms.iter().fold(side.constant, |s, (k, w)| s + w * last[k * lanes + l]);
                let v = if v.is_nan() { f64::INFINITY } else { v };
                if best.1.is_none() || v > best.0 {
                    best = (v, Some((c, a)));
                }
            }
            best
        };
        match goal {
            Goal::One(c) => conjunction(c),
            Goal::All => (0..self.count())
                .map(conjunction)
                .fold((f64::INFINITY, None), |best, m| if best.1.is_none() || m.0 < best.0 { m } else { best }),
        }
    }

    /// Sets lane `l` of `g` (over the last layer's vector, feature-major over `lanes`) to the
    /// gradient of the atom `active`.
    pub fn seed(&self, active: Option<(usize, usize)>, g: &mut [f64], lanes: usize, l: usize) {
        if let Some((c, a)) = active {
            for (k, w) in &self.conjunctions[c][a].terms {
                g[k * lanes + l] += w;
            }
        }
    }
}
