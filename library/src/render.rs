//! One renderer per output format, for every run's [`Report`]: the value as a user reads it
//! (`--output value`), the final configuration as krun prints it (`--output config`), the JSON
//! report (`--output json`, schema in docs/architecture.md), and the message on standard error
//! that explains an answer without a value; a verification's ([`crate::Verification`]) in
//! `verification.rs`.

use std::fmt;

use knn_semantics::engine::{Observed, Step};
use knn_semantics::memory::TooLarge;
use knn_semantics::observables::DenseTensor;
use knn_semantics::report::check_text_size;
use knn_semantics::syntax::print::float_literal;

use super::error::{Failure, KnnError};
use super::report::{Answer, Report, is_memory_limit};

mod documents;
mod json;
mod verification;
pub use documents::{BatchJson, SearchJson, batch_json, search_json};
pub use json::{JsonReport, check_report_json, report_json, write_report_json};
pub use verification::{
    answer_word, failure_text, number_json, number_text, results_text, verification_json, verification_note,
    verification_text, witness,
};

/// The value as a user reads it — `4.0`, `2`, `[[1.0, 2.0], [3.0, 4.0]]` — or `None` when the
/// answer has no value. A tensor whose text would not fit in the memory budget is a limit.
pub fn value_text(answer: &Answer) -> Result<Option<String>, KnnError> {
    Ok(value_display(answer)?.map(|text| text.to_string()))
}

/// [`value_text`] to be written where it goes: formatting it (`{}`) writes a tensor element by
/// element, so that `knn run` prints a tensor of millions of elements without its text in
/// memory. The text is checked against the memory budget all the same, so that a run gives the
/// same answer whether its value is printed or kept.
pub fn value_display(answer: &Answer) -> Result<Option<ValueText<'_>>, KnnError> {
    Ok(Some(match answer {
        Answer::Value { value: Observed::Malformed(why), term: Some(term) } => ValueText::Malformed { term, why },
        Answer::Value { value, .. } => {
            check_observed_text(value).map_err(|e| KnnError::memory("printing the result", e))?;
            ValueText::Observed(value)
        }
        Answer::Term(term) => ValueText::Term(term),
        Answer::Empty | Answer::Stuck(_) | Answer::Failed(_) => return Ok(None),
    }))
}

/// A value as a user reads it (as [`value_text`]); a tensor whose text would not fit in the
/// memory budget is refused before its text is built.
pub fn observed_text(value: &Observed) -> Result<String, TooLarge> {
    check_observed_text(value)?;
    Ok(ValueText::Observed(value).to_string())
}

fn check_observed_text(value: &Observed) -> Result<(), TooLarge> {
    match value {
        Observed::Tensor(t) => check_text_size(t.data.len()),
        _ => Ok(()),
    }
}

/// The text of a value ([`value_display`]).
pub enum ValueText<'a> {
    Observed(&'a Observed),
    /// A result that is neither a number nor a tensor, as K prints it.
    Term(&'a str),
    /// A tensor value whose store does not hold a dense tensor: its K term and why.
    Malformed {
        term: &'a str,
        why: &'a str,
    },
}

impl fmt::Display for ValueText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueText::Observed(Observed::Float(x)) => f.write_str(&float_literal(*x)),
            ValueText::Observed(Observed::Int(n)) => write!(f, "{n}"),
            ValueText::Observed(Observed::Tensor(t)) => write_tensor(f, &t.shape, &t.data),
            ValueText::Observed(Observed::Malformed(why)) => write!(f, "a tensor that is not dense ({why})"),
            ValueText::Term(term) => f.write_str(term),
            ValueText::Malformed { term, why } => write!(f, "{term} ({why})"),
        }
    }
}

/// Nested brackets, row-major, built in one string (a tensor of millions of elements is one
/// buffer, not a string per element).
pub fn tensor_text(t: &DenseTensor) -> String {
    let mut out = String::new();
    // Formatting into a String cannot fail.
    let _ = write_tensor(&mut out, &t.shape, &t.data);
    out
}

/// Nested brackets, row-major, written as they go.
fn write_tensor(out: &mut dyn fmt::Write, shape: &[usize], data: &[f64]) -> fmt::Result {
    out.write_char('[')?;
    match shape {
        [] | [_] => {
            for (k, x) in data.iter().enumerate() {
                if k > 0 {
                    out.write_str(", ")?;
                }
                out.write_str(&float_literal(*x))?;
            }
        }
        [rows, rest @ ..] => {
            let size: usize = rest.iter().product();
            for r in 0..*rows {
                if r > 0 {
                    out.write_str(", ")?;
                }
                write_tensor(out, rest, data.get(r * size..(r + 1) * size).unwrap_or(&[]))?;
            }
        }
    }
    out.write_char(']')
}

/// The final configuration as krun prints it (a small-step report that kept it).
pub fn config_text(report: &Report) -> Result<String, KnnError> {
    report
        .config
        .clone()
        .ok_or_else(|| KnnError::usage("--output config needs the small-step engine (--engine small-step)"))
}

/// What to tell the user on standard error when the answer has no value (ending with a
/// newline); `color` for a terminal.
pub fn explain(answer: &Answer, color: bool) -> Option<String> {
    match answer {
        Answer::Value { .. } | Answer::Term(_) => None,
        Answer::Empty => Some(
            "note: the program ended with an empty <k> cell: no value (a result 0 is erased by \
             `drop-int-zero` under the published rules)\n"
                .to_string(),
        ),
        Answer::Stuck(item) => {
            Some(format!("stuck: no rule applies to `{item}`\n  (see the whole configuration with --output config)\n"))
        }
        Answer::Failed(error) => Some(error.render(color)),
    }
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

/// The `status` field of the JSON report.
pub fn status(answer: &Answer) -> &'static str {
    match answer {
        Answer::Value { .. } | Answer::Term(_) => "done",
        Answer::Empty => "empty",
        Answer::Stuck(_) => "stuck",
        Answer::Failed(error) if is_memory_limit(error) => "limit",
        Answer::Failed(error) => match error.failure {
            Failure::Limit(_) => "limit",
            _ => "error",
        },
    }
}
