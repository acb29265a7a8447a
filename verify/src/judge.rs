//! What a question means at one point: given what the engine computed there (a vector, a
//! class, or an error), is the point a counterexample? Every place that judges a point — the
//! falsifier, the candidates of branch and bound, the smallest boxes decided point by point,
//! the enumeration of small regions and the replay on the reference — asks this one function,
//! so that a NaN, an infinity or a failing run is judged the same everywhere
//! (docs/verification.md, "What a claim means at a point").

use knn_semantics::engine::{Observed, Verdict};
use knn_semantics::errors::ErrorKind;
use knn_semantics::syntax::Span;

use knn_engine::bigstep::RowResult;
use knn_engine::bigstep::ops::argmax;

use super::property::{Case, Truth};

/// What the engine computed at one input.
#[derive(Clone, Debug, PartialEq)]
pub enum PointResult {
    /// The program's result, a tensor: the outputs `Y`, row-major.
    Outputs(Vec<f64>),
    /// The program's result, the `ArgMax` of `scores` (the scores for reports only: the class
    /// is what the engine returned).
    Class { class: usize, scores: Vec<f64> },
    /// The run ended in an error (a NaN reaching `reluTensor` is `invalid-operands`).
    Failed(RunError),
}

impl PointResult {
    /// The result of one row of the big-step engine; `scores` are an `ArgMax` program's scores
    /// (the layer chain's last vector). `None` when the row says nothing about the program: a
    /// limit of knn (the memory budget), or a result that is not a vector or a class.
    pub fn of_row(row: RowResult, scores: impl FnOnce() -> Vec<f64>) -> Option<PointResult> {
        match row {
            Ok(Observed::Tensor(t)) => Some(PointResult::Outputs(t.data)),
            Ok(Observed::Int(class)) => {
                usize::try_from(class).ok().map(|class| PointResult::Class { class, scores: scores() })
            }
            Ok(Observed::Float(_) | Observed::Malformed(_)) => None,
            Err(e) => RunError::new(e.kind, e.span, &e.detail).map(PointResult::Failed),
        }
    }
}

/// An error a run ended in, as the engine words it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunError {
    pub kind: ErrorKind,
    pub detail: String,
    pub span: Span,
}

impl RunError {
    /// The program's error, or `None` for a limit of knn (the memory budget), which says
    /// nothing about the program.
    pub fn new(kind: ErrorKind, span: Span, detail: &str) -> Option<RunError> {
        (kind != ErrorKind::MemoryLimit).then(|| RunError { kind, detail: detail.to_string(), span })
    }

    /// The program's error in a verdict of the reference, if it is one.
    pub fn of(verdict: &Verdict) -> Option<RunError> {
        match verdict {
            Verdict::Error { kind, span, detail } => RunError::new(*kind, *span, detail),
            _ => None,
        }
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} [{}]", self.detail, self.kind)
    }
}

/// A claim about the class: `class` everywhere, or (`negated`) never.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassClaim {
    pub class: usize,
    pub negated: bool,
}

/// The question asked of one case at single points.
#[derive(Clone, Copy, Debug)]
pub struct Judge<'a> {
    pub case: &'a Case,
    /// For class claims; `None` for properties over the outputs.
    pub class: Option<ClassClaim>,
}

impl Judge<'_> {
    /// Whether the point whose result is `result` breaks the claim:
    ///
    /// - a failed run breaks every claim (the program has no result there);
    /// - a class claim is about the class the engine returns: the `ArgMax` result, or the
    ///   revised `ArgMax` of the outputs (the first maximal index; a NaN first wins, a later
    ///   NaN never does), compared with the class claimed;
    /// - a property over the outputs is broken where an output is NaN (no number to compare),
    ///   and where some unsafe conjunction has no atom that is false: an atom whose left side
    ///   is undefined (`∞ − ∞` between its terms) cannot be ruled out, so it counts as met.
    pub fn breaks(&self, result: &PointResult) -> bool {
        match (result, self.class) {
            (PointResult::Failed(_), _) => true,
            (PointResult::Class { class, .. }, Some(claim)) => (*class == claim.class) == claim.negated,
            (PointResult::Outputs(y), Some(claim)) => {
                (argmax(y.iter().copied()) as usize == claim.class) == claim.negated
            }
            (PointResult::Outputs(y), None) => y.iter().any(|v| v.is_nan()) || self.unsafe_outputs(y),
            // Properties over outputs are refused for ArgMax programs before any search.
            (PointResult::Class { scores, .. }, None) => self.unsafe_outputs(scores),
        }
    }

    /// Some conjunction of the case has no atom that is false at `y`.
    fn unsafe_outputs(&self, y: &[f64]) -> bool {
        self.case.unsafe_when.iter().any(|c| c.atoms.iter().all(|a| a.truth_at(y) != Truth::False))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::property::{Atom, Conjunction, Constant, InputBox};

    fn case(unsafe_when: Vec<Conjunction>) -> Case {
        Case { input: InputBox::from_bounds(&[0.0], &[1.0]).unwrap(), unsafe_when }
    }

    fn failed() -> PointResult {
        PointResult::Failed(RunError { kind: ErrorKind::InvalidOperands, detail: "NaN".into(), span: Span::default() })
    }

    #[test]
    fn a_class_claim_is_judged_by_the_class_the_engine_returns() {
        let c = case(vec![]);
        let is_one = Judge { case: &c, class: Some(ClassClaim { class: 1, negated: false }) };
        let not_one = Judge { case: &c, class: Some(ClassClaim { class: 1, negated: true }) };
        // Scores [NaN, 5]: the revised ArgMax keeps the NaN at index 0, so the class is 0.
        let nan_first = PointResult::Outputs(vec![f64::NAN, 5.0]);
        assert!(is_one.breaks(&nan_first));
        assert!(!not_one.breaks(&nan_first));
        // A later NaN never wins: [5, NaN] is class 0 too; [1, 5, NaN] is class 1.
        assert!(is_one.breaks(&PointResult::Outputs(vec![5.0, f64::NAN])));
        assert!(!is_one.breaks(&PointResult::Outputs(vec![1.0, 5.0, f64::NAN])));
        // Ties and ±0 go to the first index.
        assert!(is_one.breaks(&PointResult::Outputs(vec![-0.0, 0.0])));
        assert!(is_one.breaks(&PointResult::Outputs(vec![f64::INFINITY, f64::INFINITY])));
        // An ArgMax program's class is taken as the engine returned it.
        assert!(!is_one.breaks(&PointResult::Class { class: 1, scores: vec![f64::NAN, 5.0] }));
        assert!(is_one.breaks(&PointResult::Class { class: 0, scores: vec![0.0, 5.0] }));
        // A failed run breaks both.
        assert!(is_one.breaks(&failed()) && not_one.breaks(&failed()));
    }

    #[test]
    fn a_property_is_broken_by_a_nan_output_or_a_failure_anywhere() {
        // Unsafe when Y_0 ≤ Y_1; Y_2 is not mentioned.
        let c = case(vec![Conjunction { atoms: vec![Atom::difference(0, 1, false)] }]);
        let judge = Judge { case: &c, class: None };
        assert!(!judge.breaks(&PointResult::Outputs(vec![2.0, 1.0, 0.0])));
        assert!(judge.breaks(&PointResult::Outputs(vec![1.0, 2.0, 0.0])));
        assert!(judge.breaks(&PointResult::Outputs(vec![2.0, 1.0, f64::NAN])), "a NaN output");
        assert!(judge.breaks(&failed()));
    }

    #[test]
    fn an_atom_that_cannot_be_evaluated_cannot_rule_a_point_out() {
        // Unsafe when Y_0 − Y_1 ≤ 0 and Y_2 ≤ 0. At (∞, ∞, −1) the first atom is ∞ − ∞:
        // undefined, so it cannot refute; the second holds: unsafe.
        let y2 = Atom { terms: vec![(2, Constant::exact(1.0))], constants: vec![], strict: false, span: None };
        let c = case(vec![Conjunction { atoms: vec![Atom::difference(0, 1, false), y2] }]);
        let judge = Judge { case: &c, class: None };
        assert!(judge.breaks(&PointResult::Outputs(vec![f64::INFINITY, f64::INFINITY, -1.0])));
        // With Y_2 = 1 the second atom is false: safe, whatever the first.
        assert!(!judge.breaks(&PointResult::Outputs(vec![f64::INFINITY, f64::INFINITY, 1.0])));
        // ∞ against a finite value is decided: Y_0 − Y_1 = ∞ > 0 refutes.
        assert!(!judge.breaks(&PointResult::Outputs(vec![f64::INFINITY, 3.0, -1.0])));
        assert!(judge.breaks(&PointResult::Outputs(vec![3.0, f64::INFINITY, -1.0])));
    }
}
