//! How a run ends, and whose fault it is.

use crate::config::KItem;
use crate::errors::ErrorKind;
use crate::memory::TooLarge;
use crate::syntax::Span;
use crate::term::Term;

/// The end of a run. Each variant says who is responsible:
/// a value or an empty `<k>` is the program's answer; `Stuck` means the definition has no rule
/// for the state (the definition's gap, or the program's); `Aborted` means krun itself stops;
/// `Limit` means a bound the user set was reached.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A KResult alone in `<k>`.
    Value(Term),
    /// `<k>` is empty (e.g. a result `0` erased by `drop-int-zero`).
    Empty,
    /// No rule applies; the item at the top of `<k>`.
    Stuck(KItem),
    /// krun stops with a runtime error (a duplicate key in a map concatenation, §3(i)).
    Aborted(String),
    /// A `knnError(…)` term alone in `<k>` (revised profile): the program's run-time error,
    /// with the span of the construct that caused it.
    Error { kind: ErrorKind, detail: String, span: Span },
    /// A resource limit was reached.
    Limit(Limit),
    /// `run_until` stopped where its caller asked.
    Paused,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `--max-steps` rewrite steps were taken.
    Steps(u64),
    /// `--max-states` distinct configurations were explored.
    States(usize),
    /// A step would have grown the store past the memory budget (`--max-memory`).
    Memory(TooLarge),
}

impl Outcome {
    /// The `status` field of the JSON report.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Value(_) => "done",
            Outcome::Empty => "empty",
            Outcome::Stuck(_) => "stuck",
            Outcome::Aborted(_) | Outcome::Error { .. } => "error",
            Outcome::Limit(_) => "limit",
            Outcome::Paused => "paused",
        }
    }
}
