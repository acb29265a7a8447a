//! Human-readable results (`--output value`) and the messages that explain an outcome.

use knn_semantics::Config;
use knn_semantics::config::kitem_to_string;
use knn_semantics::engine::{Limit, Observed, Outcome, Step, Verdict};
use knn_semantics::errors::ErrorKind;
use knn_semantics::observables::{DenseTensor, read_tensor};
use knn_semantics::syntax::Span;
use knn_semantics::syntax::print::float_literal;
use knn_semantics::term::{Node, Term};

use std::io::IsTerminal;

use knn_semantics::syntax::diagnostic::render_report;

use super::Exit;
use super::program::Source;

/// A value as a user reads it: `4.0`, `2`, `[1.0, 2.0]`, `[[1.0, 2.0], [3.0, 4.0]]`.
pub fn value_text(value: &Term, config: &Config) -> String {
    match value.node() {
        Node::Float(x) => float_literal(*x),
        Node::Int(n) => n.to_string(),
        Node::Tensor { loc, len } => match read_tensor(&config.store, *loc, *len) {
            Ok(t) => tensor_text(&t),
            Err(e) => format!("{value} ({})", e.0),
        },
        _ => value.to_string(),
    }
}

/// Nested brackets, row-major.
pub fn tensor_text(t: &DenseTensor) -> String {
    fn level(shape: &[usize], data: &[f64]) -> String {
        match shape {
            [] | [_] => {
                let items: Vec<String> = data.iter().map(|x| float_literal(*x)).collect();
                format!("[{}]", items.join(", "))
            }
            [rows, rest @ ..] => {
                let size: usize = rest.iter().product();
                let items: Vec<String> = (0..*rows).map(|r| level(rest, &data[r * size..(r + 1) * size])).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }
    level(&t.shape, &t.data)
}

/// A value of the engine contract as a user reads it (as [`value_text`]).
pub fn observed_text(value: &Observed) -> String {
    match value {
        Observed::Float(x) => float_literal(*x),
        Observed::Int(n) => n.to_string(),
        Observed::Tensor(t) => tensor_text(t),
        Observed::Malformed(why) => format!("a tensor that is not dense ({why})"),
    }
}

/// The exit code of a verdict of the engine contract.
pub fn exit_of_verdict(verdict: &Verdict) -> Exit {
    match verdict {
        Verdict::Value(_) | Verdict::Empty => Exit::Result,
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
