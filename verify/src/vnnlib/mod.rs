//! VNN-LIB properties, the subset VNN-COMP writes, read into a [`Property`].
//!
//! A file declares the network's inputs `X_0 … X_{n−1}` and outputs `Y_0 … Y_{m−1}` as `Real`
//! constants and asserts constraints on them; the property is violated when all asserts can
//! hold at once (the asserts describe a counterexample). Reading goes in three passes, one
//! file each: S-expressions (`sexp.rs`), constraints normalised to `linear ≤ 0` and classified
//! as input bounds or output constraints (`formula.rs`), and the disjunctive normal form of the
//! conjunction of asserts, grouped into input boxes (`cases.rs`).
//!
//! Nothing is approximated: decimals keep their text, their exact value and its binary64
//! bracket ([`Constant::parse`](super::property::Constant::parse)), coefficients are only ever
//! the written numbers or their negations, and whatever falls outside the subset is an error
//! at its place in the file, never a guess.

mod cases;
mod formula;
mod sexp;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;

use knn_semantics::syntax::Span;
use knn_semantics::syntax::diagnostic::{line_col, render_report};

use super::property::Property;
use formula::Variable;
use sexp::Sexp;

/// A VNN-LIB file this reader refuses, with the place to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VnnlibError {
    pub span: Span,
    pub message: String,
    pub hint: Option<String>,
}

impl VnnlibError {
    pub fn new(span: Span, message: impl Into<String>) -> VnnlibError {
        VnnlibError { span, message: message.into(), hint: None }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> VnnlibError {
        self.hint = Some(hint.into());
        self
    }

    /// 1-based line and column (in characters) of the start of the span.
    pub fn line_col(&self, source: &str) -> (usize, usize) {
        line_col(source, self.span.start as usize)
    }

    /// The error as a compiler-style report (`path:line:col: message`, the line, a marker).
    pub fn render(&self, path: &str, source: &str, color: bool) -> String {
        render_report(path, source, self.span, &self.message, "here", self.hint.as_deref(), color)
    }
}

impl fmt::Display for VnnlibError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for VnnlibError {}

/// Reads a VNN-LIB property.
pub fn parse_vnnlib(source: &str) -> Result<Property, VnnlibError> {
    let mut declarations = Declarations::default();
    let mut leaves = Vec::new();
    let mut asserts = Vec::new();
    for command in sexp::read(source)? {
        let Some((name, name_span, arguments)) = command.application() else {
            return Err(VnnlibError::new(command.span(), "expected a command such as (assert …)"));
        };
        match name {
            "declare-const" => declarations.declare(arguments, command.span())?,
            "assert" => {
                let [body] = arguments else {
                    return Err(VnnlibError::new(command.span(), "`assert` takes one constraint"));
                };
                let mut reader =
                    formula::Reader { declarations: &declarations, leaves: &mut leaves, assertion: asserts.len() };
                let formula = reader.formula(body)?;
                asserts.push(cases::Assertion { formula, span: command.span() });
            }
            // Commands that say nothing about the property.
            "set-logic" | "set-info" | "check-sat" | "get-model" | "exit" => {}
            other => {
                return Err(VnnlibError::new(name_span, format!("unsupported command `{other}`"))
                    .hint("a property is made of declare-const and assert commands"));
            }
        }
    }
    let inputs = contiguous(&declarations.inputs, 'X')?;
    let outputs = contiguous(&declarations.outputs, 'Y')?.len();
    if inputs.is_empty() {
        return Err(VnnlibError::new(Span::new(0, 0), "the property declares no inputs")
            .hint("declare the network's inputs with (declare-const X_0 Real), …"));
    }
    let cases = cases::cases(&leaves, &asserts, &inputs)?;
    Ok(Property { inputs: inputs.len(), outputs, cases })
}

/// The declared inputs and outputs, by index, with the place of each declaration.
#[derive(Default)]
struct Declarations {
    inputs: BTreeMap<usize, Span>,
    outputs: BTreeMap<usize, Span>,
}

impl Declarations {
    /// `(declare-const X_i Real)` or `(declare-const Y_i Real)`.
    fn declare(&mut self, arguments: &[Sexp<'_>], span: Span) -> Result<(), VnnlibError> {
        let [Sexp::Atom(name, name_span), Sexp::Atom(sort, sort_span)] = arguments else {
            return Err(VnnlibError::new(span, "expected (declare-const NAME Real)"));
        };
        let Some(variable) = variable_name(name) else {
            return Err(VnnlibError::new(*name_span, format!("`{name}` is neither an input X_i nor an output Y_i"))
                .hint("VNN-LIB names the network's inputs X_0, X_1, … and its outputs Y_0, Y_1, …"));
        };
        if *sort != "Real" {
            return Err(VnnlibError::new(*sort_span, format!("`{sort}` variables are not supported"))
                .hint("inputs and outputs are declared Real"));
        }
        let (declared, index) = match variable {
            Variable::Input(i) => (&mut self.inputs, i),
            Variable::Output(i) => (&mut self.outputs, i),
        };
        if declared.insert(index, *name_span).is_some() {
            return Err(VnnlibError::new(*name_span, format!("`{name}` is declared twice")));
        }
        Ok(())
    }

    /// The variable `name` stands for, if it was declared (before this use, as in SMT-LIB).
    fn lookup(&self, name: &str, span: Span) -> Result<Variable, VnnlibError> {
        let undeclared = || VnnlibError::new(span, format!("`{name}` is not declared"));
        match variable_name(name) {
            Some(v @ Variable::Input(i)) if self.inputs.contains_key(&i) => Ok(v),
            Some(v @ Variable::Output(i)) if self.outputs.contains_key(&i) => Ok(v),
            Some(_) => Err(undeclared().hint(format!("declare it first with (declare-const {name} Real)"))),
            None => Err(undeclared().hint("terms use numbers and the declared inputs X_i and outputs Y_i")),
        }
    }
}

/// `X_7` or `Y_0`: the letter, `_` and an index without leading zeros.
fn variable_name(name: &str) -> Option<Variable> {
    let (letter, digits) = name.split_at_checked(2)?;
    let well_formed =
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'));
    let index: usize = if well_formed { digits.parse().ok()? } else { return None };
    match letter {
        "X_" => Some(Variable::Input(index)),
        "Y_" => Some(Variable::Output(index)),
        _ => None,
    }
}

/// The declarations' places in index order, when the indices are exactly `0 … n−1`.
fn contiguous(declared: &BTreeMap<usize, Span>, letter: char) -> Result<Vec<Span>, VnnlibError> {
    for (expected, (&index, &span)) in declared.iter().enumerate() {
        if index != expected {
            return Err(VnnlibError::new(
                span,
                format!("`{letter}_{expected}` is not declared, but `{letter}_{index}` is"),
            )
            .hint(format!("variables are numbered {letter}_0, {letter}_1, … without gaps")));
        }
    }
    Ok(declared.values().copied().collect())
}
