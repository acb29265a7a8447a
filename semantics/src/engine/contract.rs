//! The contract both engines implement (docs/architecture.md, "Two engines, one contract"): run a parsed
//! program with bound inputs and report what the engines must agree on. The spec corpus and the
//! differential tests are written once against [`Engine`].

use std::fmt;

use super::inputs::{InputError, TensorInput, initial_config};
use crate::config::Config;
use crate::config::kitem_to_string;
use crate::engine::{Outcome, StepOptions, run_until};
use crate::errors::ErrorKind;
use crate::observables::{DenseTensor, env_tensors, read_tensor, same_float};
use crate::profile::Profile;
use crate::syntax::{Exp, Span};
use crate::term::{Node, term_of_program};

/// A final value as both engines report it.
#[derive(Clone, Debug)]
pub enum Observed {
    Float(f64),
    Int(i64),
    Tensor(DenseTensor),
    /// A tensor value whose store is not a dense tensor of numbers (written-over headers).
    Malformed(String),
}

impl Observed {
    /// Equality bit for bit, NaN compared as NaN (K's NaN has no payload); `0.0` differs from
    /// `-0.0`.
    pub fn same_bits(&self, other: &Observed) -> bool {
        match (self, other) {
            (Observed::Float(a), Observed::Float(b)) => same_float(*a, *b),
            (Observed::Int(a), Observed::Int(b)) => a == b,
            (Observed::Tensor(a), Observed::Tensor(b)) => a.same_bits(b),
            // Why a store is not a dense tensor is engine-specific prose.
            (Observed::Malformed(_), Observed::Malformed(_)) => true,
            _ => false,
        }
    }
}

impl fmt::Display for Observed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Observed::Float(x) => write!(f, "{x:?}"),
            Observed::Int(n) => write!(f, "{n}"),
            Observed::Tensor(t) => write!(f, "tensor{:?} {:?}", t.shape, t.data),
            Observed::Malformed(m) => write!(f, "malformed tensor ({m})"),
        }
    }
}

/// How an evaluation ends, as engines are compared: values bit for bit, errors by kind.
#[derive(Clone, Debug)]
pub enum Verdict {
    Value(Observed),
    Error {
        kind: ErrorKind,
        span: Span,
        detail: String,
    },
    /// No rule applies (published rules only: the revised profile has no stuck states).
    Stuck(String),
    /// An empty `<k>` (published rules only).
    Empty,
    /// krun would abort (published rules only).
    Aborted(String),
    /// A step or state limit was reached: the comparison is inconclusive.
    Limit,
}

impl Verdict {
    /// Whether two engines agree: the same value bit for bit, or errors of the same kind, or the
    /// same stuck term, or both empty. A limit never agrees (callers discard such cases).
    pub fn agrees_with(&self, other: &Verdict) -> bool {
        match (self, other) {
            (Verdict::Value(a), Verdict::Value(b)) => a.same_bits(b),
            (Verdict::Error { kind: a, .. }, Verdict::Error { kind: b, .. }) => a == b,
            (Verdict::Stuck(a), Verdict::Stuck(b)) | (Verdict::Aborted(a), Verdict::Aborted(b)) => a == b,
            (Verdict::Empty, Verdict::Empty) => true,
            _ => false,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Value(v) => write!(f, "value {v}"),
            Verdict::Error { kind, detail, .. } => write!(f, "error {kind}: {detail}"),
            Verdict::Stuck(t) => write!(f, "stuck at {t}"),
            Verdict::Empty => write!(f, "empty <k>"),
            Verdict::Aborted(r) => write!(f, "aborted: {r}"),
            Verdict::Limit => write!(f, "limit reached"),
        }
    }
}

/// Every name of `<env>` with the tensor its cell describes, or why it is not a dense tensor
/// (a scalar's cell, an overwritten header), in the order of the names.
pub type EnvTensors = Vec<(String, Result<DenseTensor, String>)>;

/// What an engine gives for a run: its verdict and the `<env>` observables where it ended.
/// Under the revised rules a finished program has restored `<env>` (`rev-restore-scope`, the
/// inputs' own `let`s included), so `env` is empty; after a run-time error it is the scope the
/// error happened in, since `rev-error-abort` discards the rest of `<k>` with its
/// `restoreScope` items.
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub verdict: Verdict,
    pub env: EnvTensors,
}

impl Evaluation {
    /// Whether two engines agree on the verdict ([`Verdict::agrees_with`]) and on `<env>`: the
    /// same names, each the same tensor bit for bit or not a dense tensor on both sides. (Why
    /// not is not compared: it names store locations, which the engines number differently.)
    pub fn agrees_with(&self, other: &Evaluation) -> bool {
        let same_entry = |(x, a): &(String, Result<DenseTensor, String>),
                          (y, b): &(String, Result<DenseTensor, String>)| {
            x == y
                && match (a, b) {
                    (Ok(a), Ok(b)) => a.same_bits(b),
                    (Err(_), Err(_)) => true,
                    _ => false,
                }
        };
        self.verdict.agrees_with(&other.verdict)
            && self.env.len() == other.env.len()
            && self.env.iter().zip(&other.env).all(|(a, b)| same_entry(a, b))
    }
}

/// An engine: evaluates a parsed program with inputs bound by name.
pub trait Engine {
    /// `small-step/revised`, `big-step`, …
    fn name(&self) -> String;

    /// Runs `program` with `inputs` bound (as `--input` binds them): the verdict and `<env>`.
    fn observe(&self, program: &Exp, inputs: &[TensorInput]) -> Result<Evaluation, InputError>;

    /// [`Engine::observe`]'s verdict alone.
    fn evaluate(&self, program: &Exp, inputs: &[TensorInput]) -> Result<Verdict, InputError> {
        self.observe(program, inputs).map(|evaluation| evaluation.verdict)
    }
}

/// The reference: the rewriting engine under a profile, with a step budget.
pub struct SmallStep {
    pub profile: &'static Profile,
    pub max_steps: Option<u64>,
}

impl SmallStep {
    pub fn revised() -> SmallStep {
        SmallStep { profile: Profile::revised(), max_steps: Some(50_000_000) }
    }

    pub fn published() -> SmallStep {
        SmallStep { profile: Profile::published(), max_steps: Some(50_000_000) }
    }
}

impl Engine for SmallStep {
    fn name(&self) -> String {
        format!("small-step/{}", self.profile.name)
    }

    fn observe(&self, program: &Exp, inputs: &[TensorInput]) -> Result<Evaluation, InputError> {
        let evaluation = self.observe_until(program, inputs, |_| false)?;
        Ok(evaluation.expect("a run that never pauses ends"))
    }
}

impl SmallStep {
    /// [`Engine::observe`], with `pause` asked before every step (as [`run_until`] does):
    /// `None` when it says stop before the run ends. A caller with a deadline polls it here.
    pub fn observe_until(
        &self,
        program: &Exp,
        inputs: &[TensorInput],
        pause: impl Fn(&Config) -> bool,
    ) -> Result<Option<Evaluation>, InputError> {
        let config = initial_config(self.profile, term_of_program(program), inputs)?;
        let result = run_until(self.profile, config, StepOptions { max_steps: self.max_steps, trace: false }, pause);
        if matches!(result.outcome, Outcome::Paused) {
            return Ok(None);
        }
        let env = env_tensors(&result.config).into_iter().map(|(x, t)| (x, t.map_err(|e| e.0))).collect();
        let verdict = match result.outcome {
            Outcome::Value(v) => Verdict::Value(match v.node() {
                Node::Float(x) => Observed::Float(*x),
                Node::Int(n) => Observed::Int(*n),
                Node::Tensor { loc, len } => match read_tensor(&result.config.store, *loc, *len) {
                    Ok(t) => Observed::Tensor(t),
                    Err(e) => Observed::Malformed(e.0),
                },
                _ => Observed::Malformed(v.to_string()),
            }),
            Outcome::Error { kind, detail, span } => Verdict::Error { kind, span, detail },
            Outcome::Stuck(item) => Verdict::Stuck(kitem_to_string(&item)),
            Outcome::Empty => Verdict::Empty,
            Outcome::Aborted(reason) => Verdict::Aborted(reason),
            Outcome::Limit(_) | Outcome::Paused => Verdict::Limit,
        };
        Ok(Some(Evaluation { verdict, env }))
    }
}
