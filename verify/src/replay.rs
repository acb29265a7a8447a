//! Confirming a counterexample before it is reported: the point must lie in the box as
//! written (exact decimal comparisons), and the program must be unsafe there on *both*
//! engines: the big-step engine and the small-step reference under the revised rules, with
//! the same bits, which must also be the bits of the layer chain the verifier reasons about.
//! Candidates are found on that chain, so a candidate that fails any of these is a bug of
//! knn: it is never reported as `violated`, and it is reported as a bug.

use std::cell::Cell;

use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::{InputError, TensorInput};
use knn_semantics::syntax::Exp;

use knn_engine::bigstep::BigStep;
use knn_engine::bigstep::ops::argmax;

use super::deadline::Deadline;
use super::judge::{Judge, PointResult, RunError};

/// What the reference computed at a confirmed counterexample.
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed {
    /// The output vector `Y` (the program's result, or for an `ArgMax` program the scores it
    /// takes the maximum of, from the layer chain); empty when the run failed.
    pub output: Vec<f64>,
    /// The class, when the program's result is an `ArgMax`.
    pub class: Option<i64>,
    /// The error the run ended in, when it failed (both engines fail alike).
    pub failure: Option<RunError>,
}

impl Replayed {
    /// What the reference computed, as the judge reads it.
    pub fn result(&self) -> PointResult {
        match (&self.failure, self.class) {
            (Some(error), _) => PointResult::Failed(error.clone()),
            (None, Some(class)) => PointResult::Class { class: class as usize, scores: self.output.clone() },
            (None, None) => PointResult::Outputs(self.output.clone()),
        }
    }
}

/// Why a candidate was not confirmed.
#[derive(Clone, Debug, PartialEq)]
pub enum NotConfirmed {
    /// A bug of knn, said in words.
    Bug(String),
    /// The deadline passed before the reference finished: nothing is known.
    OutOfTime,
    /// The reference reached a limit of knn's (not the program's error): nothing is known.
    Limit(String),
}

/// The program and how its inputs are bound, for replays.
pub struct Replayer<'a> {
    pub program: &'a Exp,
    pub input_name: &'a str,
    pub input_shape: &'a [usize],
    /// Inputs bound to fixed values (`--input`).
    pub fixed: &'a [TensorInput],
    /// The layer chain's evaluation at a point (the outputs, or an `ArgMax` program's scores).
    pub scores: &'a (dyn Fn(&[f64]) -> Vec<f64> + Sync),
    /// When a replay gives up: the reference takes about 40 steps per weight, seconds on a
    /// network of half a million.
    pub deadline: Deadline,
}

impl Replayer<'_> {
    /// Runs both engines at `x` and checks that `judge` finds the claim broken by what the
    /// reference computed: a value (the same bits on both engines and on the layer chain), or
    /// an error (of the same kind on both engines).
    pub fn confirm(&self, judge: Judge<'_>, x: &[f64]) -> Result<Replayed, NotConfirmed> {
        if !judge.case.input.contains(x) {
            return Err(NotConfirmed::Bug(format!("{x:?} lies outside the box as written")));
        }
        let mut inputs = self.fixed.to_vec();
        inputs.push(TensorInput {
            name: self.input_name.to_string(),
            shape: self.input_shape.to_vec(),
            data: x.to_vec(),
        });
        let reference = reference_until(self.program, &inputs, self.deadline)
            .map_err(|e| NotConfirmed::Bug(format!("the reference refused the input: {e:?}")))?
            .ok_or(NotConfirmed::OutOfTime)?;
        let fast = BigStep::new()
            .evaluate(self.program, &inputs)
            .map_err(|e| NotConfirmed::Bug(format!("the big-step engine refused the input: {e:?}")))?;
        let replayed = match (&reference, &fast) {
            (Verdict::Limit, _) => {
                return Err(NotConfirmed::Limit("the reference reached a limit replaying a candidate".into()));
            }
            (Verdict::Value(reference), Verdict::Value(fast)) => self.value(reference, fast, x)?,
            (Verdict::Error { .. }, Verdict::Error { .. }) if reference.agrees_with(&fast) => {
                let failure = RunError::of(&reference).ok_or_else(|| {
                    NotConfirmed::Bug(format!("a limit of knn, not the program's error: {reference:?}"))
                })?;
                Replayed { output: vec![], class: None, failure: Some(failure) }
            }
            _ => {
                return Err(NotConfirmed::Bug(format!(
                    "the engines do not agree at a candidate counterexample: reference {reference:?}, big-step {fast:?}"
                )));
            }
        };
        if !judge.breaks(&replayed.result()) {
            return Err(NotConfirmed::Bug("the reference's result meets the claim".into()));
        }
        Ok(replayed)
    }

    /// The reference's value, checked against the big-step engine's and the layer chain's.
    fn value(&self, reference: &Observed, fast: &Observed, x: &[f64]) -> Result<Replayed, NotConfirmed> {
        if !reference.same_bits(fast) {
            return Err(NotConfirmed::Bug(format!("the engines disagree: reference {reference}, big-step {fast}")));
        }
        let chain = (self.scores)(x);
        match reference {
            Observed::Tensor(t) if same_scores(&t.data, &chain) => {
                Ok(Replayed { output: t.data.clone(), class: None, failure: None })
            }
            Observed::Int(class) if argmax(chain.iter().copied()) == *class => {
                Ok(Replayed { output: chain, class: Some(*class), failure: None })
            }
            Observed::Tensor(_) | Observed::Int(_) => Err(NotConfirmed::Bug(format!(
                "the verifier's layer chain computes {chain:?} at {x:?}, the reference {reference}"
            ))),
            other => Err(NotConfirmed::Bug(format!("a result that is not a tensor or a class: {other}"))),
        }
    }
}

/// Steps of the reference between two polls of the deadline (a few hundred microseconds).
const POLL_STEPS: u32 = 4096;

/// The reference's verdict (revised rules) on `program` with `inputs`, or `None` when
/// `deadline` passes first (polled every [`POLL_STEPS`] steps, and at the first). No cap on
/// the steps: the deadline bounds the replay, and a network of real size (a CIFAR ResNet
/// takes 50–100 million steps) must not pass for a disagreement of the engines.
fn reference_until(program: &Exp, inputs: &[TensorInput], deadline: Deadline) -> Result<Option<Verdict>, InputError> {
    let steps = Cell::new(0u32);
    let out_of_time = |_: &_| {
        steps.set(steps.get().wrapping_add(1));
        // The first step polls too: a replay begun after its deadline gives up at once.
        steps.get() % POLL_STEPS == 1 && deadline.passed()
    };
    let reference = SmallStep { max_steps: None, ..SmallStep::revised() };
    Ok(reference.observe_until(program, inputs, out_of_time)?.map(|evaluation| evaluation.verdict))
}

/// Bit for bit, a NaN as a NaN (K's NaN has no payload, as `Observed::same_bits` says).
fn same_scores(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_agree_bit_for_bit_and_a_nan_only_with_a_nan() {
        let quiet = f64::NAN;
        let other_nan = f64::from_bits(quiet.to_bits() | 1);
        assert!(same_scores(&[1.0, -0.0, quiet], &[1.0, -0.0, other_nan]), "any NaN is K's one NaN");
        assert!(!same_scores(&[0.0], &[-0.0]), "the zeros differ in their bits");
        assert!(!same_scores(&[quiet], &[1.0]) && !same_scores(&[1.0], &[quiet]), "a NaN is no number");
        assert!(!same_scores(&[1.0], &[1.0, 2.0]), "lengths differ");
        assert!(!same_scores(&[1.0], &[1.0f64.next_up()]));
    }
    use crate::property::{Atom, Case, Conjunction, Constant, InputBox};
    use knn_semantics::syntax::{Grammar, parse_program};

    /// y = (x, 0): unsafe when y0 ≥ y1 (`y1 − y0 ≤ 0`), on x in [0, 1].
    fn case() -> Case {
        Case {
            input: InputBox { lower: vec![Constant::exact(0.0)], upper: vec![Constant::exact(1.0)] },
            unsafe_when: vec![Conjunction { atoms: vec![Atom::difference(1, 0, false)] }],
        }
    }

    fn confirm_with(scores: &(dyn Fn(&[f64]) -> Vec<f64> + Sync), x: &[f64]) -> Result<Replayed, NotConfirmed> {
        confirm_program("y", scores, x, Deadline::NEVER)
    }

    /// The program `y = (x, 0)` with `result` (an expression of `y`) as its result.
    fn confirm_program(
        result: &str,
        scores: &(dyn Fn(&[f64]) -> Vec<f64> + Sync),
        x: &[f64],
        deadline: Deadline,
    ) -> Result<Replayed, NotConfirmed> {
        let source = format!("let W = initTensor(2, 1) in let W[0, 0] = 1.0 in let y = linear(W, x) in {result}");
        let program = parse_program(&source, Grammar::Relaxed).unwrap();
        let replayer = Replayer { program: &program, input_name: "x", input_shape: &[1], fixed: &[], scores, deadline };
        let case = case();
        replayer.confirm(Judge { case: &case, class: None }, x)
    }

    #[test]
    fn a_counterexample_is_confirmed_on_both_engines_and_the_chain() {
        let chain = |x: &[f64]| vec![x[0], 0.0];
        let replayed = confirm_with(&chain, &[0.5]).expect("y0 = 0.5 ≥ y1 = 0");
        assert_eq!(replayed.output, vec![0.5, 0.0]);
    }

    #[test]
    fn a_candidate_that_does_not_replay_is_a_bug_not_a_silent_miss() {
        // A chain that disagrees with the engines (it says y = (0, 5)): reported.
        let wrong = |_: &[f64]| vec![0.0, 5.0];
        let why = confirm_with(&wrong, &[0.5]).unwrap_err();
        assert!(matches!(&why, NotConfirmed::Bug(why) if why.contains("layer chain")), "{why:?}");
        // A candidate outside the box as written is a bug of whoever proposed it.
        let chain = |x: &[f64]| vec![x[0], 0.0];
        let why = confirm_with(&chain, &[-1.0]).unwrap_err();
        assert!(matches!(&why, NotConfirmed::Bug(why) if why.contains("outside the box")), "{why:?}");
    }

    #[test]
    fn an_argmax_programs_scores_must_give_the_engines_class() {
        // The engine gives only the class (0 at x = 0.5: scores (0.5, 0)); the scores reported
        // are the chain's, so a chain whose maximum is elsewhere is a bug.
        let chain = |x: &[f64]| vec![x[0], 0.0];
        assert_eq!(
            confirm_program("ArgMax(y)", &chain, &[0.5], Deadline::NEVER),
            Ok(Replayed { output: vec![0.5, 0.0], class: Some(0), failure: None })
        );
        let wrong = |_: &[f64]| vec![0.0, 5.0];
        let why = confirm_program("ArgMax(y)", &wrong, &[0.5], Deadline::NEVER).unwrap_err();
        assert!(matches!(&why, NotConfirmed::Bug(why) if why.contains("layer chain")), "{why:?}");
    }

    #[test]
    fn a_replay_after_its_deadline_is_out_of_time_not_a_bug() {
        // The same counterexample as above, replayed once the deadline has passed: the reference
        // stops at its first step, and the answer is a timeout, never `violated` unconfirmed
        // nor a bug.
        let chain = |x: &[f64]| vec![x[0], 0.0];
        let passed = Deadline::at(std::time::Instant::now());
        assert_eq!(confirm_program("y", &chain, &[0.5], passed), Err(NotConfirmed::OutOfTime));
        // A deadline far ahead changes nothing.
        let later = Deadline::at(std::time::Instant::now() + std::time::Duration::from_secs(3600));
        assert!(confirm_program("y", &chain, &[0.5], later).is_ok());
    }

    #[test]
    fn the_reference_with_a_deadline_gives_what_evaluate_gives() {
        // Values and a run-time error (`max` of a NaN): a deadline that never passes never
        // pauses the run, which gives `SmallStep::evaluate`'s verdicts.
        for source in ["let y = initTensor(2) in let y[1] = 2.5 in y", "max(NaN, 1.0)", "3", "2.5"] {
            let program = parse_program(source, Grammar::Relaxed).unwrap();
            let paused = reference_until(&program, &[], Deadline::NEVER).unwrap().expect("no deadline");
            let evaluated = SmallStep::revised().evaluate(&program, &[]).unwrap();
            assert!(paused.agrees_with(&evaluated), "{source}: {paused} vs {evaluated}");
            assert!(!matches!(paused, Verdict::Limit), "{source}: {paused}");
        }
    }
}
