//! Confirming a counterexample before it is reported: the point must lie in the box as
//! written (exact decimal comparisons), and the program must be unsafe there on *both*
//! engines: the big-step engine and the small-step reference under the revised rules, with
//! the same bits. A candidate that fails any of these is never reported as `violated`; one
//! on which the engines disagree is a bug and is reported as such.

use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::Exp;

use crate::bigstep::BigStep;

use super::property::{Case, Truth};

/// What the reference computed at a confirmed counterexample.
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed {
    /// The output vector `Y` (the program's result, or for an `ArgMax` program the scores it
    /// takes the maximum of, from the layer chain).
    pub output: Vec<f64>,
    /// The class, when the program's result is an `ArgMax`.
    pub class: Option<i64>,
}

/// Why a candidate was not confirmed.
#[derive(Clone, Debug, PartialEq)]
pub enum NotConfirmed {
    /// Outside the box as written, or safe on the engines: a search artefact, not a bug.
    NotACounterexample(String),
    /// The engines disagree, or the reference fails where the engine does not: a bug of knn.
    Bug(String),
}

/// The program and how its inputs are bound, for replays.
pub struct Replayer<'a> {
    pub program: &'a Exp,
    pub input_name: &'a str,
    pub input_shape: &'a [usize],
    /// Inputs bound to fixed values (`--input`).
    pub fixed: &'a [TensorInput],
    /// The scores of an `ArgMax` program at a point (the layer chain's evaluation).
    pub scores: &'a (dyn Fn(&[f64]) -> Vec<f64> + Sync),
}

impl Replayer<'_> {
    /// Runs both engines at `x` and checks that the case is decidedly unsafe there, with the
    /// unsafe test `is_unsafe` applied to what the reference computed.
    pub fn confirm(
        &self,
        case: &Case,
        x: &[f64],
        is_unsafe: &dyn Fn(&Replayed) -> bool,
    ) -> Result<Replayed, NotConfirmed> {
        if !case.input.contains(x) {
            return Err(NotConfirmed::NotACounterexample(format!("{x:?} lies outside the box as written")));
        }
        let mut inputs = self.fixed.to_vec();
        inputs.push(TensorInput {
            name: self.input_name.to_string(),
            shape: self.input_shape.to_vec(),
            data: x.to_vec(),
        });
        let reference = SmallStep::revised()
            .evaluate(self.program, &inputs)
            .map_err(|e| NotConfirmed::Bug(format!("the reference refused the input: {e:?}")))?;
        let fast = BigStep::new()
            .evaluate(self.program, &inputs)
            .map_err(|e| NotConfirmed::Bug(format!("the big-step engine refused the input: {e:?}")))?;
        let (Verdict::Value(reference), Verdict::Value(fast)) = (&reference, &fast) else {
            return Err(NotConfirmed::Bug(format!(
                "no value at a candidate counterexample: reference {reference:?}, big-step {fast:?}"
            )));
        };
        if !reference.same_bits(fast) {
            return Err(NotConfirmed::Bug(format!("the engines disagree: reference {reference}, big-step {fast}")));
        }
        let replayed = match reference {
            Observed::Tensor(t) => Replayed { output: t.data.clone(), class: None },
            Observed::Int(class) => Replayed { output: (self.scores)(x), class: Some(*class) },
            other => return Err(NotConfirmed::Bug(format!("a result that is not a tensor or a class: {other}"))),
        };
        if replayed.class.is_none() && case.unsafe_at(&replayed.output) != Truth::True {
            return Err(NotConfirmed::NotACounterexample("the reference's output is not unsafe".into()));
        }
        if !is_unsafe(&replayed) {
            return Err(NotConfirmed::NotACounterexample("the reference's result meets the claim".into()));
        }
        Ok(replayed)
    }
}
