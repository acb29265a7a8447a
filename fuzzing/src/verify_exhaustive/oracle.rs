//! The semantics of a claim at one binary64 point, written apart from the verifier: the
//! program runs on the small-step reference (revised rules), classes follow the revised
//! `ArgMax` (reimplemented here), and VNN-LIB constraints are decided in exact rational
//! arithmetic over the extended reals.

use knn_semantics::Profile;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{Exp, parse_program};
use num_traits::{Signed, Zero};

use super::case::{Ask, ClassClaim, Comparison};
use super::exact::of_f64;

/// What the reference computes at a point.
#[derive(Clone, Debug)]
pub enum AtPoint {
    /// A run-time error (a NaN reaching `reluTensor` is `invalid-operands`).
    Error(String),
    /// The result of a program that ends in `ArgMax`.
    Class(usize),
    /// The result tensor's elements, row-major.
    Scores(Vec<f64>),
}

impl AtPoint {
    /// The class: the program's own `ArgMax`, or the revised `ArgMax` of the scores; none
    /// after an error.
    pub fn class(&self) -> Option<usize> {
        match self {
            AtPoint::Error(_) => None,
            AtPoint::Class(k) => Some(*k),
            AtPoint::Scores(y) => Some(revised_argmax(y)),
        }
    }
}

/// `rev-argmax-step-greater`: move to index `i` only when `Y_i > best` (IEEE `>`), so ties and
/// NaNs after the first element never win, and a NaN first element always does.
pub fn revised_argmax(y: &[f64]) -> usize {
    let mut best = 0;
    for i in 1..y.len() {
        if y[i] > y[best] {
            best = i;
        }
    }
    best
}

/// The program, parsed once, run on the small-step reference.
pub struct Reference {
    program: Exp,
}

impl Reference {
    pub fn new(source: &str) -> Result<Reference, String> {
        let program = parse_program(source, Profile::revised().grammar).map_err(|e| format!("{e:?}"))?;
        Ok(Reference { program })
    }

    /// The program's result with `x` bound to the point.
    pub fn at(&self, x: &[f64]) -> AtPoint {
        let input = TensorInput { name: "x".into(), shape: vec![x.len()], data: x.to_vec() };
        match SmallStep::revised().evaluate(&self.program, &[input]) {
            Ok(Verdict::Value(Observed::Tensor(y))) => AtPoint::Scores(y.data),
            Ok(Verdict::Value(Observed::Int(k))) => AtPoint::Class(usize::try_from(k).expect("ArgMax gives an index")),
            Ok(Verdict::Error { kind, detail, .. }) => AtPoint::Error(format!("{} ({detail})", kind.k_message())),
            other => panic!("the reference gave no tensor, class or error at {x:?}: {other:?}"),
        }
    }
}

/// Why the claim is broken at this point alone, if it is: an error anywhere, a class that
/// breaks `argmax=K` or `argmax!=K`, a NaN output or an unsafe output for a property.
/// `argmax-stable` is broken by a point only through an error (otherwise by two classes).
pub fn violation(ask: &Ask, at: &AtPoint) -> Option<String> {
    if let AtPoint::Error(e) = at {
        return Some(format!("the program fails: {e}"));
    }
    match ask {
        Ask::Class(claim) => {
            let class = at.class().expect("no error");
            let broken = match claim {
                ClassClaim::Is(k) => class != *k,
                ClassClaim::IsNot(k) => class == *k,
                ClassClaim::Stable => false,
            };
            broken.then(|| format!("the class is {class}{}", scores_text(at)))
        }
        Ask::Property(unsafe_when) => {
            let AtPoint::Scores(y) = at else { panic!("a property asked of a program ending in ArgMax") };
            unsafe_outputs(unsafe_when, y)
        }
    }
}

/// `" (scores […])"` when the result is the scores, for messages.
fn scores_text(at: &AtPoint) -> String {
    match at {
        AtPoint::Scores(y) => format!(" (scores {y:?})"),
        _ => String::new(),
    }
}

/// Whether the outputs `y` are unsafe: a NaN output, or some conjunction none of whose
/// constraints is false. A constraint that is undefined at `y` (`∞ − ∞`) cannot rule the point
/// out, so it counts as met; a false one rules its conjunction out whatever the others are
/// (docs/verification.md, "What a claim means at a point").
pub fn unsafe_outputs(unsafe_when: &[Vec<Comparison>], y: &[f64]) -> Option<String> {
    if let Some(i) = y.iter().position(|v| v.is_nan()) {
        return Some(format!("Y_{i} is NaN"));
    }
    unsafe_when
        .iter()
        .position(|conjunction| conjunction.iter().all(|comparison| truth(comparison, y) != Some(false)))
        .map(|k| format!("conjunction {k} is not ruled out at {y:?} (no constraint of it is false)"))
}

/// The truth of `Σ c·Y + k ≤ 0` (or `< 0`) at `y` in the extended reals: `None` when the
/// left side has both a `+∞` and a `−∞` term (or `0·∞`).
fn truth(comparison: &Comparison, y: &[f64]) -> Option<bool> {
    let (terms, constant, strict) = comparison.normal_form();
    let (mut plus_infinity, mut minus_infinity) = (false, false);
    let mut sum = constant;
    for (c, i) in terms {
        let v = y[i];
        if v.is_infinite() {
            if c.is_zero() {
                return None;
            }
            if c.is_positive() == (v > 0.0) {
                plus_infinity = true;
            } else {
                minus_infinity = true;
            }
        } else {
            sum += c * of_f64(v);
        }
    }
    match (plus_infinity, minus_infinity) {
        (true, true) => None,
        (true, false) => Some(false),
        (false, true) => Some(true),
        (false, false) => Some(if strict { sum.is_negative() } else { !sum.is_positive() }),
    }
}

/// The region's verdict from its points' results: the first point that breaks the claim, and
/// why (for `argmax-stable`, the first point whose class differs from the first point's).
pub fn first_violation<'p>(ask: &Ask, results: impl IntoIterator<Item = (&'p [f64], AtPoint)>) -> Option<String> {
    let mut first: Option<(Vec<f64>, AtPoint)> = None;
    for (x, at) in results {
        if let Some(why) = violation(ask, &at) {
            return Some(format!("at x = {x:?}: {why}"));
        }
        if matches!(ask, Ask::Class(ClassClaim::Stable)) {
            match &first {
                None => first = Some((x.to_vec(), at)),
                Some((y, there)) if there.class() != at.class() => {
                    return Some(format!(
                        "the class is {}{} at x = {y:?} and {}{} at x = {x:?}",
                        there.class().expect("no error"),
                        scores_text(there),
                        at.class().expect("no error"),
                        scores_text(&at),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::case::{Expr, Op};
    use super::*;

    fn compare(op: Op, left: Expr, right: Expr) -> Vec<Vec<Comparison>> {
        vec![vec![Comparison { op, left, right }]]
    }

    #[test]
    fn the_revised_argmax_keeps_the_first_maximum_and_a_leading_nan() {
        assert_eq!(revised_argmax(&[0.0, 5.0, 5.0]), 1);
        assert_eq!(revised_argmax(&[f64::NAN, 5.0]), 0);
        assert_eq!(revised_argmax(&[1.0, f64::NAN, 0.5]), 0);
        assert_eq!(revised_argmax(&[-0.0, 0.0]), 0);
    }

    #[test]
    fn constraints_are_decided_exactly_and_in_the_extended_reals() {
        // Y_0 <= 0.1 at Y_0 = 0.1f64 (above the real 0.1): safe.
        let at_most_a_tenth = compare(Op::Le, Expr::Output(0), Expr::Number("0.1".into()));
        assert_eq!(unsafe_outputs(&at_most_a_tenth, &[0.1]), None);
        assert!(unsafe_outputs(&at_most_a_tenth, &[0.1f64.next_down()]).is_some());
        assert!(unsafe_outputs(&at_most_a_tenth, &[f64::NEG_INFINITY]).is_some());
        assert_eq!(unsafe_outputs(&at_most_a_tenth, &[f64::INFINITY]), None);
        // A NaN output is unsafe whatever the constraints say.
        assert!(unsafe_outputs(&at_most_a_tenth, &[f64::NAN]).is_some());
        // Y_0 < Y_1 with both +∞ is ∞ − ∞: undefined, which cannot rule the point out...
        let less = compare(Op::Lt, Expr::Output(0), Expr::Output(1));
        assert!(unsafe_outputs(&less, &[f64::INFINITY, f64::INFINITY]).is_some());
        // ...but a false constraint beside it does (Y_0 < 0.5 at Y_0 = +∞).
        let mut both = less.clone();
        both[0].push(compare(Op::Lt, Expr::Output(0), Expr::Number("0.5".into()))[0][0].clone());
        assert!(unsafe_outputs(&both, &[f64::INFINITY, f64::INFINITY]).is_none());
        assert!(unsafe_outputs(&both, &[0.25, f64::INFINITY]).is_some());
        assert!(unsafe_outputs(&less, &[1.0, 1.0]).is_none());
        assert!(unsafe_outputs(&less, &[f64::NEG_INFINITY, 1e308]).is_some());
        // (>= (+ Y_0 (* -2.5 Y_1)) 0.5): Y_0 − 2.5·Y_1 ≥ 0.5.
        let sum = Expr::Sum(vec![Expr::Output(0), Expr::Scaled("-2.5".into(), 1)]);
        let at_least = compare(Op::Ge, sum, Expr::Number("0.5".into()));
        assert!(unsafe_outputs(&at_least, &[3.0, 1.0]).is_some());
        assert!(unsafe_outputs(&at_least, &[2.9, 1.0]).is_none());
    }

    #[test]
    fn a_stable_claim_is_broken_by_two_classes_or_an_error() {
        let ask = Ask::Class(ClassClaim::Stable);
        let x = [0.0];
        let same = [(&x[..], AtPoint::Class(1)), (&x[..], AtPoint::Scores(vec![0.0, 1.0]))];
        assert_eq!(first_violation(&ask, same), None);
        let two = [(&x[..], AtPoint::Class(1)), (&x[..], AtPoint::Scores(vec![1.0, 1.0]))];
        assert!(first_violation(&ask, two).is_some());
        let error = [(&x[..], AtPoint::Error("invalid-operands".into()))];
        assert!(first_violation(&ask, error).is_some());
    }
}
