//! The contract both engines implement (docs/architecture.md, "Two engines, one contract"): run a parsed
//! program with bound inputs and report what the engines must agree on. The spec corpus and the
//! differential tests are written once against [`Engine`].

use std::fmt;

use super::inputs::{InputError, TensorInput, initial_config};
use crate::config::kitem_to_string;
use crate::engine::{Outcome, RunOptions, run};
use crate::errors::ErrorKind;
use crate::observables::{DenseTensor, read_tensor};
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
        let same = |x: &f64, y: &f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
        match (self, other) {
            (Observed::Float(a), Observed::Float(b)) => same(a, b),
            (Observed::Int(a), Observed::Int(b)) => a == b,
            (Observed::Tensor(a), Observed::Tensor(b)) => {
                a.shape == b.shape
                    && a.data.len() == b.data.len()
                    && a.data.iter().zip(&b.data).all(|(x, y)| same(x, y))
            }
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

/// An engine: evaluates a parsed program with inputs bound by name.
pub trait Engine {
    /// `small-step/revised`, `big-step`, …
    fn name(&self) -> String;

    /// Runs `program` with `inputs` bound (as `--input` binds them).
    fn evaluate(&self, program: &Exp, inputs: &[TensorInput]) -> Result<Verdict, InputError>;
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

    fn evaluate(&self, program: &Exp, inputs: &[TensorInput]) -> Result<Verdict, InputError> {
        let config = initial_config(self.profile, term_of_program(program), inputs)?;
        let result = run(self.profile, config, RunOptions { max_steps: self.max_steps, trace: false });
        Ok(match result.outcome {
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
        })
    }
}
