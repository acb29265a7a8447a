//! The big-step engine: compiles a revised program once into a [`Plan`] (what does not depend on
//! the inputs is computed there), then runs the plan on one input or on many in parallel.

mod batch_norm;
mod broadcast;
mod combine;
mod compile;
mod concat;
mod conv;
mod element_lanes;
pub mod exec;
mod functions;
mod fuse;
mod interpret;
pub mod layout;
mod matmul;
mod matmul_op;
mod matmul_rows;
pub mod ops;
mod pad;
pub mod plan;
mod pool;
mod registers;
mod reshape;
pub mod rows;
mod scope;
mod slice;
mod stage;
mod store;
mod tensor_math;
mod transpose;
mod window_lanes;
pub mod window_ops;

use knn_semantics::engine::{Engine, Evaluation, Verdict};
use knn_semantics::inputs::{InputError, TensorInput};
use knn_semantics::syntax::Exp;

pub use compile::compile;
pub use plan::Plan;
pub use rows::{ExecOptions, RowResult, run_rows};
pub use store::{Binding, InputData};
pub use tensor_math::softmax_apply;

use crate::tensor::Precision;

/// How the big-step engine evaluates one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Staging {
    /// Inputs are constants: the evaluator computes everything (direct big-step evaluation).
    Direct,
    /// Inputs are symbolic: the program is compiled into a plan, then the plan runs on them.
    Staged,
}

/// The big-step engine (revised semantics).
pub struct BigStep {
    pub staging: Staging,
    pub precision: Precision,
}

impl BigStep {
    pub fn new() -> BigStep {
        BigStep { staging: Staging::Staged, precision: Precision::Exact }
    }
}

impl Default for BigStep {
    fn default() -> BigStep {
        BigStep::new()
    }
}

/// The verdict of one row.
pub fn verdict(result: RowResult) -> Verdict {
    match result {
        Ok(value) => Verdict::Value(value),
        Err(e) => Verdict::Error { kind: e.kind, span: e.span, detail: e.detail.to_string() },
    }
}

impl Engine for BigStep {
    fn name(&self) -> String {
        match (self.staging, self.precision) {
            (Staging::Direct, _) => "big-step/direct".to_string(),
            (Staging::Staged, Precision::Exact) => "big-step".to_string(),
            (Staging::Staged, Precision::Fast) => "big-step/fast-math".to_string(),
        }
    }

    fn observe(&self, program: &Exp, inputs: &[TensorInput]) -> Result<Evaluation, InputError> {
        for (k, input) in inputs.iter().enumerate() {
            input.validate()?;
            if inputs[..k].iter().any(|earlier| earlier.name == input.name) {
                return Err(InputError::Duplicate(input.name.clone()));
            }
        }
        let bind = match self.staging {
            Staging::Direct => Binding::concrete,
            Staging::Staged => Binding::symbolic,
        };
        let plan = compile(program, &inputs.iter().map(bind).collect::<Vec<_>>());
        let row: Vec<&[f64]> = match self.staging {
            Staging::Direct => Vec::new(),
            Staging::Staged => inputs.iter().map(|i| i.data.as_slice()).collect(),
        };
        let options = ExecOptions { precision: self.precision, ..ExecOptions::default() };
        let mut results = run_rows(&plan, &[row], options);
        let verdict = verdict(results.pop().expect("one row in, one result out"));
        let env = match (&verdict, self.staging) {
            // Every `let` restored its scope once its body was a value, the inputs' own too
            // (`rev-restore-scope`).
            (Verdict::Value(_), _) => Vec::new(),
            // Evaluated directly, the program failed as it was compiled, at its first error.
            (_, Staging::Direct) => plan.env_at_failure.unwrap_or_default(),
            // A row fails at the first error in the order the rules evaluate, which may be an
            // operation of the plan before the one staging stopped at: evaluated directly,
            // the program fails at that first error, in a scope whose every element is known.
            (_, Staging::Staged) => {
                let bindings: Vec<Binding> = inputs.iter().map(Binding::concrete).collect();
                compile(program, &bindings).env_at_failure.unwrap_or_default()
            }
        };
        Ok(Evaluation { verdict, env })
    }
}
