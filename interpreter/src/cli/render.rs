//! Human-readable results (`--output value`) and the messages that explain an outcome.

use knn_semantics::Config;
use knn_semantics::config::kitem_to_string;
use knn_semantics::engine::{Limit, Observed, Outcome, Step, Verdict};
use knn_semantics::errors::ErrorKind;
use knn_semantics::memory::{self, TooLarge};
use knn_semantics::observables::{DenseTensor, read_tensor, tensor_size};
use knn_semantics::syntax::Span;
use knn_semantics::syntax::print::float_literal;
use knn_semantics::term::{Node, Term};

use std::io::IsTerminal;

use knn_semantics::syntax::diagnostic::render_report;

use super::Exit;
use super::program::Source;

/// A value as a user reads it: `4.0`, `2`, `[1.0, 2.0]`, `[[1.0, 2.0], [3.0, 4.0]]`.
/// A tensor whose text would not fit in the memory budget is an error, checked before it is
/// read out of the store.
pub fn value_text(value: &Term, config: &Config) -> Result<String, TooLarge> {
    Ok(match value.node() {
        Node::Float(x) => float_literal(*x),
        Node::Int(n) => n.to_string(),
        Node::Tensor { loc, len } => {
            let size = tensor_size(&config.store, *loc, *len).and_then(|n| usize::try_from(n).ok());
            check_text_size(size.unwrap_or(usize::MAX))?;
            match read_tensor(&config.store, *loc, *len) {
                Ok(t) => tensor_text(&t),
                Err(e) => format!("{value} ({})", e.0),
            }
        }
        _ => value.to_string(),
    })
}

/// Nested brackets, row-major, built in one string (a tensor of millions of elements is one
/// buffer, not a string per element).
pub fn tensor_text(t: &DenseTensor) -> String {
    fn level(out: &mut String, shape: &[usize], data: &[f64]) {
        out.push('[');
        match shape {
            [] | [_] => {
                for (k, x) in data.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&float_literal(*x));
                }
            }
            [rows, rest @ ..] => {
                let size: usize = rest.iter().product();
                for r in 0..*rows {
                    if r > 0 {
                        out.push_str(", ");
                    }
                    level(out, rest, data.get(r * size..(r + 1) * size).unwrap_or(&[]));
                }
            }
        }
        out.push(']');
    }
    let mut out = String::new();
    level(&mut out, &t.shape, &t.data);
    out
}

/// The bytes the text of a tensor is counted for per element: the longest float literal
/// (`-2.2250738585072014e-308`) and its separator.
pub const TEXT_ELEMENT_BYTES: usize = 26;

/// Checks, before a tensor is printed, that its text fits in the memory budget.
pub fn check_text_size(elements: usize) -> Result<(), TooLarge> {
    memory::check(memory::bytes_for(elements as u64, TEXT_ELEMENT_BYTES))
}

/// Reports a memory limit (`what` needs more than `--max-memory`): exit code 4.
pub fn memory_limit(what: &str, too_large: TooLarge) -> Exit {
    eprintln!("limit: {what} {too_large}");
    Exit::Limit
}

/// A value of the engine contract as a user reads it (as [`value_text`]).
pub fn observed_text(value: &Observed) -> Result<String, TooLarge> {
    Ok(match value {
        Observed::Float(x) => float_literal(*x),
        Observed::Int(n) => n.to_string(),
        Observed::Tensor(t) => {
            check_text_size(t.data.len())?;
            tensor_text(t)
        }
        Observed::Malformed(why) => format!("a tensor that is not dense ({why})"),
    })
}

/// The exit code of a verdict of the engine contract.
pub fn exit_of_verdict(verdict: &Verdict) -> Exit {
    match verdict {
        Verdict::Value(_) | Verdict::Empty => Exit::Result,
        Verdict::Error { kind: ErrorKind::MemoryLimit, .. } => Exit::Limit,
        Verdict::Error { .. } | Verdict::Stuck(_) | Verdict::Aborted(_) => Exit::NoValue,
        Verdict::Limit => Exit::Limit,
    }
}

/// A run-time error rendered like a compiler error.
pub fn error_report(kind: ErrorKind, detail: &str, span: Span, source: &Source) -> String {
    let color = std::io::stderr().is_terminal();
    let message = format!("{detail} [{kind}]");
    render_report(&source.name, &source.text, span, &message, kind.k_message(), None, color)
}

/// The exit code of an outcome.
pub fn exit_of(outcome: &Outcome) -> Exit {
    match outcome {
        Outcome::Value(_) | Outcome::Empty | Outcome::Paused => Exit::Result,
        Outcome::Stuck(_) | Outcome::Aborted(_) | Outcome::Error { .. } => Exit::NoValue,
        Outcome::Limit(_) => Exit::Limit,
    }
}

/// What to tell the user on standard error when there is no value to print (each message
/// ends with a newline).
pub fn explain(outcome: &Outcome, source: &Source) -> Option<String> {
    let message = match outcome {
        Outcome::Error { kind, detail, span } => return Some(error_report(*kind, detail, *span, source)),
        Outcome::Value(_) | Outcome::Paused => None,
        Outcome::Empty => Some(
            "note: the program ended with an empty <k> cell: no value (a result 0 is erased by \
             `drop-int-zero` under the published rules)"
                .to_string(),
        ),
        Outcome::Stuck(item) => Some(format!(
            "stuck: no rule applies to `{}`\n  (see the whole configuration with --output config)",
            kitem_to_string(item)
        )),
        Outcome::Aborted(reason) => Some(format!("error: krun stops here: {reason}")),
        Outcome::Limit(Limit::Steps(n)) => Some(format!("limit: stopped after {n} steps (raise --max-steps)")),
        Outcome::Limit(Limit::States(n)) => {
            Some(format!("limit: stopped after exploring {n} states (raise --max-states)"))
        }
        Outcome::Limit(Limit::Memory(too_large)) => Some(format!("limit: {too_large}")),
    };
    message.map(|m| m + "\n")
}

/// One trace line: `12 lookup-id`, with the side rules of the step.
pub fn step_text(number: usize, step: &Step) -> String {
    let mut line = format!("{number:>6} {}", step.rule.id);
    for (rule, n) in &step.side {
        if *n == 1 {
            line.push_str(&format!(" +{}", rule.id));
        } else {
            line.push_str(&format!(" +{}x{n}", rule.id));
        }
    }
    line
}
