//! What the verifier is asked: an input region (a union of boxes) and an unsafe output region
//! (a union of conjunctions of linear constraints). A property is *violated* when some input
//! of a box, given to the program, yields an output in the unsafe region; it *holds* when no
//! input does. VNN-LIB files, `--box … --claim …` and `--around … --eps …` all become this.
//!
//! Constants keep the decimal the user wrote and its exact value: a bound such as `0.6` is no
//! binary64 number, so each [`Constant`] also carries the two binary64 values around it.
//! Inputs are finite binary64 values (the engine reads nothing else), so a box admits exactly
//! the finite binary64 points between its bounds as written: candidates are taken from the
//! inner box (their hull), and proofs run on the outer box, which holds them all
//! (docs/verification.md, "Constants as written").

use std::cmp::Ordering;

use knn_semantics::syntax::Span;

pub use super::decimal::{Constant, Exact};
use super::float::{Interval, add_down, sum_error};

/// A box of inputs: `lower[i] ≤ x[i] ≤ upper[i]` for every element `i` of the input tensor
/// (row-major), the bounds as written.
#[derive(Clone, Debug, PartialEq)]
pub struct InputBox {
    pub lower: Vec<Constant>,
    pub upper: Vec<Constant>,
}

impl InputBox {
    /// The box `lower[i] ≤ x[i] ≤ upper[i]` with binary64 bounds (exact, nothing to round);
    /// refused when the lengths differ, a bound is NaN, or a lower bound is above its upper.
    pub fn from_bounds(lower: &[f64], upper: &[f64]) -> Result<InputBox, String> {
        if lower.len() != upper.len() {
            return Err(format!("{} lower bounds but {} upper bounds", lower.len(), upper.len()));
        }
        for (i, (lo, hi)) in lower.iter().zip(upper).enumerate() {
            if lo.is_nan() || hi.is_nan() {
                return Err(format!("element {i}: a bound is NaN"));
            }
            if lo > hi {
                return Err(format!("element {i}: the lower bound {lo:?} is above the upper bound {hi:?}"));
            }
        }
        Ok(InputBox {
            lower: lower.iter().map(|&v| Constant::exact(v)).collect(),
            upper: upper.iter().map(|&v| Constant::exact(v)).collect(),
        })
    }

    pub fn len(&self) -> usize {
        self.lower.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lower.is_empty()
    }

    /// A binary64 box holding every point of the box as written (for proofs): the brackets'
    /// outer ends, cut to the finite range (no input is infinite, and an infinite end would
    /// only make bounds NaN).
    pub fn outer(&self) -> Vec<Interval> {
        let finite = |x: f64| x.clamp(f64::MIN, f64::MAX);
        self.lower.iter().zip(&self.upper).map(|(l, u)| Interval::new(finite(l.below), finite(u.above))).collect()
    }

    /// The hull of the finite binary64 points of the box as written (for candidates), element
    /// by element `[smallest ≥ lower, largest ≤ upper]`: every binary64 point of the hull is in
    /// the box. `None` exactly when the box holds no finite binary64 point.
    pub fn inner(&self) -> Option<Vec<Interval>> {
        self.lower
            .iter()
            .zip(&self.upper)
            .map(|(l, u)| {
                // A bound strictly between neighbours admits the inner one first.
                let lo = if l.is_exact() { l.below } else { l.above }.max(f64::MIN);
                let hi = if u.is_exact() { u.above } else { u.below }.min(f64::MAX);
                (lo <= hi).then_some(Interval::new(lo, hi))
            })
            .collect()
    }

    /// The box with every bound replaced by the binary64 number nearest it
    /// ([`Constant::nearest`]): `--bounds nearest`.
    pub fn nearest(&self) -> InputBox {
        let round = |bounds: &[Constant]| bounds.iter().map(Constant::nearest).collect();
        InputBox { lower: round(&self.lower), upper: round(&self.upper) }
    }

    /// The first element whose range as written holds no finite binary64 number (`0.2:0.2`:
    /// no binary64 number is 0.2), if any: then the box holds no point, every claim on it
    /// holds vacuously, and a question with no other case is `unknown: empty region`.
    pub fn first_empty_element(&self) -> Option<usize> {
        (0..self.len()).find(|&i| {
            let single = InputBox { lower: vec![self.lower[i].clone()], upper: vec![self.upper[i].clone()] };
            single.inner().is_none()
        })
    }

    /// Whether the binary64 point `x` is finite and lies in the box as written (exact, since
    /// the brackets are).
    pub fn contains(&self, x: &[f64]) -> bool {
        x.len() == self.len()
            && x.iter()
                .zip(self.lower.iter().zip(&self.upper))
                .all(|(&v, (l, u))| v.is_finite() && l.at_most(v) && u.at_least(v))
    }
}

/// The truth of a constraint on a region of outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    /// True at every output of the region.
    True,
    /// False at every output of the region.
    False,
    /// Not decided by these bounds.
    Unknown,
}

/// A linear constraint on the output vector `Y` (row-major elements of the program's result):
/// `Σ coefficient·Y[index] + Σ constants ≤ 0`, or `< 0` when `strict`. Indices may repeat;
/// constants are kept as written, bounded in interval arithmetic on regions and decided
/// exactly at points.
#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    pub terms: Vec<(usize, Constant)>,
    pub constants: Vec<Constant>,
    pub strict: bool,
    /// Where the constraint was written (a VNN-LIB file), if anywhere.
    pub span: Option<Span>,
}

impl Atom {
    /// `Y[a] − Y[b] ≤ 0` (`< 0` when strict): `Y[a] ≤ Y[b]`.
    pub fn difference(a: usize, b: usize, strict: bool) -> Atom {
        Atom {
            terms: vec![(a, Constant::exact(1.0)), (b, Constant::exact(-1.0))],
            constants: vec![],
            strict,
            span: None,
        }
    }

    /// An enclosure of the left-hand side `Σ c·Y + Σ constants` for outputs in `y`, rounded
    /// outward.
    pub fn left_side(&self, y: &[Interval]) -> Interval {
        let mut sum = Interval::point(0.0);
        for (i, c) in &self.terms {
            sum = sum.add(c.interval().mul(y[*i]));
        }
        for c in &self.constants {
            sum = sum.add(c.interval());
        }
        sum
    }

    /// Whether the constraint holds at every, no, or some outputs of the region `y` (a NaN
    /// bound decides nothing). A constant that is no binary64 value lies strictly between its
    /// neighbours, so with one among the constants the left side is strictly inside its
    /// enclosure: that decides outputs that sit right at a decimal bound.
    pub fn truth(&self, y: &[Interval]) -> Truth {
        self.truth_of_side(self.left_side(y), self.constants_are_open())
    }

    /// Whether a constant strictly between two neighbours (any that is no binary64 value)
    /// makes the left side lie strictly inside its enclosure.
    fn constants_are_open(&self) -> bool {
        self.constants.iter().any(|c| !c.is_exact())
    }

    fn truth_of_side(&self, side: Interval, open: bool) -> Truth {
        if side.lo.is_nan() || side.hi.is_nan() {
            return Truth::Unknown;
        }
        let (always, never) = if self.strict {
            (side.hi < 0.0 || (open && side.hi <= 0.0), side.lo >= 0.0)
        } else {
            (side.hi <= 0.0, side.lo > 0.0 || (open && side.lo >= 0.0))
        };
        match (always, never) {
            (true, _) => Truth::True,
            (_, true) => Truth::False,
            _ => Truth::Unknown,
        }
    }

    /// Whether the constraint is false everywhere, given a rigorous lower bound `lower` of its
    /// linear part `Σ c·Y` (the constants are added here, rounded down).
    pub fn never_given(&self, lower: f64, constant: Interval) -> bool {
        let side = Interval::new(add_down(lower, constant.lo), f64::INFINITY);
        self.truth_of_side(side, self.constants_are_open()) == Truth::False
    }

    /// The constraint on one output vector, decided exactly: `Unknown` only when the left side
    /// is undefined, at a NaN output or as `∞ − ∞` (outputs may overflow; `c·(±∞)` is `±∞`
    /// and a zero coefficient ignores its output). Interval arithmetic decides most points;
    /// exact rationals the rest.
    pub fn truth_at(&self, y: &[f64]) -> Truth {
        let points: Vec<Interval> = y.iter().map(|&v| Interval::point(v)).collect();
        match self.truth(&points) {
            Truth::Unknown => self.exact_truth_at(y),
            decided => decided,
        }
    }

    fn exact_truth_at(&self, y: &[f64]) -> Truth {
        let mut side = Exact::zero();
        for (i, c) in &self.terms {
            let Some(output) = Exact::of_binary64(y[*i]) else {
                return Truth::Unknown;
            };
            match side.add(&c.value().mul(&output)) {
                Some(sum) => side = sum,
                None => return Truth::Unknown,
            }
        }
        for c in &self.constants {
            match side.add(c.value()) {
                Some(sum) => side = sum,
                None => return Truth::Unknown,
            }
        }
        let holds = match side.sign() {
            Ordering::Less => true,
            Ordering::Equal => !self.strict,
            Ordering::Greater => false,
        };
        if holds { Truth::True } else { Truth::False }
    }

    /// The coefficients as one dense binary64 vector over `outputs` elements and the constant
    /// part as an interval, when every coefficient is a binary64 value and repeated indices
    /// add up exactly (for linear bound propagation); `None` otherwise.
    pub fn dense(&self, outputs: usize) -> Option<(Vec<f64>, Interval)> {
        let mut c = vec![0.0; outputs];
        for (i, k) in &self.terms {
            if !k.is_exact() || *i >= outputs {
                return None;
            }
            let sum = c[*i] + k.below;
            if !sum.is_finite() || sum_error(c[*i], k.below, sum) != Some(0.0) {
                return None;
            }
            c[*i] = sum;
        }
        let constant = self.constants.iter().fold(Interval::point(0.0), |s, k| s.add(k.interval()));
        Some((c, constant))
    }
}

/// All of these constraints at once (empty: always).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Conjunction {
    pub atoms: Vec<Atom>,
}

impl Conjunction {
    /// `False` as soon as one constraint is false everywhere on the region; `True` when all
    /// are true everywhere.
    pub fn truth(&self, y: &[Interval]) -> Truth {
        all_of(self.atoms.iter().map(|atom| atom.truth(y)))
    }

    /// The conjunction at one output vector, exactly ([`Atom::truth_at`]).
    pub fn truth_at(&self, y: &[f64]) -> Truth {
        all_of(self.atoms.iter().map(|atom| atom.truth_at(y)))
    }
}

/// `False` as soon as one is false, `True` when all are true.
fn all_of(truths: impl Iterator<Item = Truth>) -> Truth {
    let mut all = Truth::True;
    for truth in truths {
        match truth {
            Truth::False => return Truth::False,
            Truth::Unknown => all = Truth::Unknown,
            Truth::True => {}
        }
    }
    all
}

/// `True` as soon as one is true, `False` when all are false.
fn any_of(truths: impl Iterator<Item = Truth>) -> Truth {
    let mut any = Truth::False;
    for truth in truths {
        match truth {
            Truth::True => return Truth::True,
            Truth::Unknown => any = Truth::Unknown,
            Truth::False => {}
        }
    }
    any
}

/// One box of inputs and the outputs that are unsafe for it: any of the conjunctions.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub input: InputBox,
    pub unsafe_when: Vec<Conjunction>,
}

impl Case {
    /// Whether outputs in `y` are unsafe everywhere (`True`), nowhere (`False`), or unknown.
    pub fn unsafe_truth(&self, y: &[Interval]) -> Truth {
        any_of(self.unsafe_when.iter().map(|c| c.truth(y)))
    }

    /// Whether one output vector is unsafe, decided exactly: `Unknown` only where a constraint
    /// is undefined (NaN outputs, `∞ − ∞`).
    pub fn unsafe_at(&self, y: &[f64]) -> Truth {
        any_of(self.unsafe_when.iter().map(|c| c.truth_at(y)))
    }
}

/// A property: violated when some case has an input in its box whose output is unsafe.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// The number of input elements `X_0 … X_{n−1}`.
    pub inputs: usize,
    /// The number of output elements `Y_0 … Y_{m−1}`.
    pub outputs: usize,
    pub cases: Vec<Case>,
}

#[cfg(test)]
#[path = "property_tests.rs"]
mod tests;
