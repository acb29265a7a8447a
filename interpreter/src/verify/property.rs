//! What the verifier is asked: an input region (a union of boxes) and an unsafe output region
//! (a union of conjunctions of linear constraints). A property is *violated* when some input
//! of a box, given to the program, yields an output in the unsafe region; it *holds* when no
//! input does. VNN-LIB files, `--box … --claim …` and `--around … --eps …` all become this.
//!
//! Constants keep the decimal the user wrote: a bound such as `0.6` is no binary64 number, so
//! each [`Constant`] carries the two binary64 values around it. Inputs are binary64 values
//! (the engine reads nothing else), so a box admits exactly the binary64 points between its
//! bounds as written: candidates are taken from the inner box, and proofs run on the outer
//! box, which holds every real point too (docs/verification.md, "Constants as written").

use knn_semantics::syntax::Span;

pub use super::decimal::Constant;
use super::float::{Interval, add_down};

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

    /// The smallest binary64 box holding every real point of the box as written (for proofs).
    pub fn outer(&self) -> Vec<Interval> {
        self.lower.iter().zip(&self.upper).map(|(l, u)| Interval::new(l.below, u.above)).collect()
    }

    /// The box of binary64 points inside the box as written (for candidates): `None` when it
    /// holds none.
    pub fn inner(&self) -> Option<Vec<Interval>> {
        self.lower
            .iter()
            .zip(&self.upper)
            .map(|(l, u)| {
                let lo = if l.is_exact() { l.below } else { l.above };
                let hi = if u.is_exact() { u.above } else { u.below };
                (lo <= hi).then_some(Interval::new(lo, hi))
            })
            .collect()
    }

    /// Whether the binary64 point `x` lies in the box as written (exact comparisons).
    pub fn contains(&self, x: &[f64]) -> bool {
        x.len() == self.len()
            && x.iter().zip(self.lower.iter().zip(&self.upper)).all(|(&v, (l, u))| l.at_most(v) && u.at_least(v))
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
/// constants are kept as written and summed in interval arithmetic.
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

    /// Whether a constant strictly between two neighbours makes the left side lie strictly
    /// inside its enclosure.
    fn constants_are_open(&self) -> bool {
        self.constants.iter().any(Constant::is_strictly_between_neighbours)
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

    /// The constraint on one output vector: `True` or `False`, or `Unknown` when the decimal
    /// constants leave it too close to call (then it is no counterexample).
    pub fn truth_at(&self, y: &[f64]) -> Truth {
        let points: Vec<Interval> = y.iter().map(|&v| Interval::point(v)).collect();
        self.truth(&points)
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
            if !sum.is_finite() || two_sum_error(c[*i], k.below, sum) != 0.0 {
                return None;
            }
            c[*i] = sum;
        }
        let constant = self.constants.iter().fold(Interval::point(0.0), |s, k| s.add(k.interval()));
        Some((c, constant))
    }
}

/// The rounding error of `s = fl(a + b)`: `a + b − s` exactly (Knuth's two-sum).
fn two_sum_error(a: f64, b: f64, s: f64) -> f64 {
    let bb = s - a;
    (a - (s - bb)) + (b - bb)
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
        let mut all = Truth::True;
        for atom in &self.atoms {
            match atom.truth(y) {
                Truth::False => return Truth::False,
                Truth::Unknown => all = Truth::Unknown,
                Truth::True => {}
            }
        }
        all
    }
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
        let mut any = Truth::False;
        for conjunction in &self.unsafe_when {
            match conjunction.truth(y) {
                Truth::True => return Truth::True,
                Truth::Unknown => any = Truth::Unknown,
                Truth::False => {}
            }
        }
        any
    }

    /// Whether one output vector is unsafe: `True` only when some conjunction is decidedly
    /// true there (the standard a counterexample must meet).
    pub fn unsafe_at(&self, y: &[f64]) -> Truth {
        let points: Vec<Interval> = y.iter().map(|&v| Interval::point(v)).collect();
        self.unsafe_truth(&points)
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
mod tests {
    use super::*;

    fn constant(text: &str) -> Constant {
        // 0.6 lies strictly between the binary64 values 0.59999999999999997780 and
        // 0.60000000000000008882; 0.6f64 is the lower one.
        match text {
            "0.6" => Constant { text: "0.6".into(), below: 0.6, above: 0.6f64.next_up() },
            other => Constant::exact(other.parse().unwrap()),
        }
    }

    #[test]
    fn a_bound_that_is_no_binary64_number_admits_exactly_the_points_inside_it() {
        let b = InputBox { lower: vec![constant("0.6")], upper: vec![constant("1.0")] };
        // 0.6f64 < 0.6, so it is outside the box as written; its neighbour is inside.
        assert!(!b.contains(&[0.6]));
        assert!(b.contains(&[0.6f64.next_up()]));
        assert_eq!(b.inner().unwrap()[0].lo, 0.6f64.next_up());
        assert_eq!(b.outer()[0].lo, 0.6);
        let c = InputBox { lower: vec![constant("0.0")], upper: vec![constant("0.6")] };
        assert!(c.contains(&[0.6]));
        assert!(!c.contains(&[0.6f64.next_up()]));
    }

    #[test]
    fn the_tighter_of_two_overlapping_bounds_encloses_their_maximum() {
        // A wide enclosure [0.1, 0.3] of some lower bound L and the exact bound 0.25: L may be
        // 0.29, so 0.25 is not the tighter bound; the result must admit no point below max(L, 0.25).
        let wide = Constant { text: "c - e".into(), below: 0.1, above: 0.3 };
        let tight = Constant::exact(0.25);
        let max = wide.clone().max_lower(tight.clone());
        assert_eq!((max.below, max.above), (0.25, 0.3));
        let b = InputBox { lower: vec![max], upper: vec![Constant::exact(1.0)] };
        assert!(!b.contains(&[0.26]), "0.26 may lie below the wide bound");
        assert!(b.contains(&[0.3]));
        // Disjoint enclosures: the larger is kept as written.
        assert_eq!(Constant::exact(0.5).max_lower(tight.clone()), Constant::exact(0.5));
        assert_eq!(tight.clone().min_upper(Constant::exact(0.5)), tight);
        let min = wide.min_upper(Constant::exact(0.25));
        assert_eq!((min.below, min.above), (0.1, 0.25));
    }

    #[test]
    fn an_empty_box_has_no_inner_points() {
        let b = InputBox { lower: vec![constant("1.0")], upper: vec![constant("0.0")] };
        assert_eq!(b.inner(), None);
    }

    #[test]
    fn strict_and_non_strict_differences_at_a_tie() {
        let y = [1.0, 1.0];
        assert_eq!(Atom::difference(0, 1, false).truth_at(&y), Truth::True);
        assert_eq!(Atom::difference(0, 1, true).truth_at(&y), Truth::False);
        let region = [Interval::new(0.0, 2.0), Interval::new(1.0, 1.0)];
        assert_eq!(Atom::difference(0, 1, false).truth(&region), Truth::Unknown);
    }

    #[test]
    fn an_output_between_a_decimal_and_its_binary64_neighbour_is_decided_exactly() {
        // Y_0 − 0.6 ≤ 0 at Y_0 = 0.6f64 (below 0.6): true; at the next binary64: false.
        let atom = y0_plus(constant("0.6").neg(), false);
        assert_eq!(atom.truth_at(&[0.6]), Truth::True);
        assert_eq!(atom.truth_at(&[0.6f64.next_up()]), Truth::False);
    }

    fn y0_plus(constant: Constant, strict: bool) -> Atom {
        Atom { terms: vec![(0, Constant::exact(1.0))], constants: vec![constant], strict, span: None }
    }

    #[test]
    fn a_side_touching_zero_is_decided_by_strictness_and_by_open_constants_only() {
        let exact = Constant::exact(0.0);
        // `Y_0 ≤ 0` on [0, 1]: true at 0, false above: undecided; on [−1, 0]: always.
        assert_eq!(y0_plus(exact.clone(), false).truth(&[Interval::new(0.0, 1.0)]), Truth::Unknown);
        assert_eq!(y0_plus(exact.clone(), false).truth(&[Interval::new(-1.0, 0.0)]), Truth::True);
        // `Y_0 < 0` on [−1, 0]: false at 0: undecided; on [0, 1]: never.
        assert_eq!(y0_plus(exact.clone(), true).truth(&[Interval::new(-1.0, 0.0)]), Truth::Unknown);
        assert_eq!(y0_plus(exact, true).truth(&[Interval::new(0.0, 1.0)]), Truth::False);
        // `Y_0 − 0.6 < 0`, 0.6 no binary64 number: the left side lies strictly inside its
        // enclosure, so an enclosure ending at 0 is strictly below it...
        let open_strict = y0_plus(constant("0.6").neg(), true);
        assert_eq!(open_strict.truth_of_side(Interval::new(-1.0, 0.0), true), Truth::True);
        // ...but one that reaches above 0 is not.
        assert_eq!(open_strict.truth_of_side(Interval::new(-1.0, 1.0), true), Truth::Unknown);
        // `Y_0 − 0.6 ≤ 0` with an enclosure starting at 0: strictly above it, never true;
        // starting below 0, undecided.
        let open = y0_plus(constant("0.6").neg(), false);
        assert_eq!(open.truth_of_side(Interval::new(0.0, 1.0), true), Truth::False);
        assert_eq!(open.truth_of_side(Interval::new(-1.0, 1.0), true), Truth::Unknown);
        assert_eq!(open.truth_of_side(Interval::new(0.0, 1.0), false), Truth::Unknown);
    }

    #[test]
    fn a_constraint_false_above_a_lower_bound_is_never_true() {
        let atom = y0_plus(Constant::exact(-1.0), false);
        // Y_0 ≥ 2 gives Y_0 − 1 ≥ 1 > 0: never; Y_0 ≥ 0.5 does not decide.
        assert!(atom.never_given(2.0, Interval::point(-1.0)));
        assert!(!atom.never_given(0.5, Interval::point(-1.0)));
    }

    #[test]
    fn an_exact_constant_at_the_bound_leaves_a_strict_atom_open() {
        // Y_0 − 0.5 < 0 with Y_0 in [0, 0.5]: 0.5 is a binary64 value, so Y_0 = 0.5 is possible
        // and makes it false; only a decimal strictly between two neighbours would decide it.
        let atom = |constant: Constant| y0_plus(constant.neg(), true);
        assert_eq!(atom(constant("0.5")).truth(&[Interval::new(0.0, 0.5)]), Truth::Unknown);
        // Y_0 − 0.6 < 0 with Y_0 in [0, 0.6f64]: 0.6f64 < 0.6, so it holds everywhere.
        assert_eq!(atom(constant("0.6")).truth(&[Interval::new(0.0, 0.6)]), Truth::True);
    }

    #[test]
    fn a_non_strict_atom_reached_at_zero_is_not_refuted() {
        // Y_0 − 0.5 ≤ 0 with Y_0 in [0.5, 1]: true at Y_0 = 0.5, false above. A lower bound of
        // exactly 0 on the left side refutes nothing; one above 0 does.
        let atom = y0_plus(constant("0.5").neg(), false);
        assert_eq!(atom.truth(&[Interval::new(0.5, 1.0)]), Truth::Unknown);
        assert_eq!(atom.truth(&[Interval::new(0.5f64.next_up(), 1.0)]), Truth::False);
        assert!(!atom.never_given(0.5, Interval::point(-0.5)));
        assert!(atom.never_given(0.5f64.next_up(), Interval::point(-0.5)));
    }

    #[test]
    fn a_decimal_constant_decides_only_what_lies_on_one_side_of_it() {
        // With 0.6 (strictly between two binary64 values) a left side that reaches 0 is
        // decided, but one on both sides of 0, or wholly on the other side, is what it is.
        let atom = |strict: bool| y0_plus(constant("0.6").neg(), strict);
        // Y_0 = 1: Y_0 < 0.6 and Y_0 ≤ 0.6 are false.
        assert_eq!(atom(true).truth_at(&[1.0]), Truth::False);
        assert_eq!(atom(false).truth_at(&[1.0]), Truth::False);
        // Y_0 in [0, 1]: either way.
        assert_eq!(atom(true).truth(&[Interval::new(0.0, 1.0)]), Truth::Unknown);
        assert_eq!(atom(false).truth(&[Interval::new(0.0, 1.0)]), Truth::Unknown);
    }

    #[test]
    fn a_nan_end_of_the_left_side_decides_nothing() {
        // Either end NaN: the other end is not trusted alone (it would say "always" below 0 or
        // "never" above it).
        for strict in [false, true] {
            let atom = Atom { terms: vec![], constants: vec![], strict, span: None };
            for side in [Interval::new(f64::NAN, -1.0), Interval::new(1.0, f64::NAN), Interval::new(f64::NAN, f64::NAN)]
            {
                assert_eq!(atom.truth_of_side(side, false), Truth::Unknown, "{side:?}, strict {strict}");
                assert_eq!(atom.truth_of_side(side, true), Truth::Unknown, "{side:?}, strict {strict}, open");
            }
        }
    }

    #[test]
    fn a_box_is_empty_when_it_has_no_dimension() {
        assert!(InputBox { lower: vec![], upper: vec![] }.is_empty());
        assert!(!InputBox { lower: vec![constant("0.0")], upper: vec![constant("1.0")] }.is_empty());
    }

    #[test]
    fn an_inexact_coefficient_or_an_index_past_the_outputs_has_no_dense_form() {
        // 0.1 is no binary64 value: a bound on 0.1f64·Y_0 would bound another atom.
        let tenth =
            Atom { terms: vec![(0, Constant::parse("0.1").unwrap())], constants: vec![], strict: false, span: None };
        assert_eq!(tenth.dense(1), None);
        let past = Atom { terms: vec![(1, Constant::exact(1.0))], constants: vec![], strict: false, span: None };
        assert_eq!(past.dense(1), None);
        assert_eq!(past.dense(2).unwrap().0, vec![0.0, 1.0]);
    }

    #[test]
    fn dense_coefficients_merge_repeated_indices_only_when_exact() {
        let atom = Atom {
            terms: vec![(0, Constant::exact(1.0)), (0, Constant::exact(2.0))],
            constants: vec![],
            strict: false,
            span: None,
        };
        assert_eq!(atom.dense(2).unwrap().0, vec![3.0, 0.0]);
        let inexact = Atom {
            terms: vec![(0, Constant::exact(1.0)), (0, Constant::exact(1e-30))],
            constants: vec![],
            strict: false,
            span: None,
        };
        assert_eq!(inexact.dense(1), None);
    }
}
