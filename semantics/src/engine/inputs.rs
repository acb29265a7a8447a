//! Tensors bound before a program runs (`--input NAME=…`). The initial configuration gets
//! exactly the `<env>`, `<store>`, `<nextLoc>` and `<shape>` that
//! `let NAME = initTensor(dims) in let NAME[i, …] = v in … in PROGRAM` would have produced:
//! that prelude is run with the profile's own rules up to the moment `PROGRAM` reaches the top
//! of `<k>`, and the program takes its place there. The layout is therefore the profile's
//! (under the published rules, `$1` and the extra sub-tensor included), and whatever the
//! prelude leaves below the program in `<k>` stays, as it would after the real `let`s.

use std::fmt;

use super::{Outcome, StepOptions, run_until};
use crate::config::Config;
use crate::profile::Profile;
use crate::syntax::Span;
use crate::syntax::lexer::is_identifier;
use crate::term::{FuncTerm, Ints, Node, Sym, Term};

/// A dense, row-major tensor to bind to a name.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorInput {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    NotAnIdentifier(String),
    Duplicate(String),
    /// Only vectors and matrices can be bound (rank-3 allocation is broken in the published
    /// rules, §3(b)).
    Rank {
        name: String,
        rank: usize,
    },
    /// `data` does not have `product(shape)` elements.
    Size {
        name: String,
        expected: usize,
        found: usize,
    },
    /// The binding prelude did not finish (a bug in the profile for these shapes).
    Prelude {
        name: String,
        outcome: String,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::NotAnIdentifier(n) => {
                write!(f, "`{n}` is not an identifier a program can use")
            }
            InputError::Duplicate(n) => write!(f, "the input `{n}` is given twice"),
            InputError::Rank { name, rank } => {
                write!(f, "the input `{name}` has rank {rank}; inputs must be vectors or matrices")
            }
            InputError::Size { name, expected, found } => {
                write!(f, "the input `{name}` needs {expected} elements for its shape, found {found}")
            }
            InputError::Prelude { name, outcome } => {
                write!(f, "binding `{name}` did not finish: {outcome}")
            }
        }
    }
}

impl std::error::Error for InputError {}

impl TensorInput {
    pub fn validate(&self) -> Result<(), InputError> {
        if !is_identifier(&self.name) {
            return Err(InputError::NotAnIdentifier(self.name.clone()));
        }
        if !(1..=2).contains(&self.shape.len()) {
            return Err(InputError::Rank { name: self.name.clone(), rank: self.shape.len() });
        }
        let expected: usize = self.shape.iter().product();
        if expected != self.data.len() {
            return Err(InputError::Size { name: self.name.clone(), expected, found: self.data.len() });
        }
        Ok(())
    }

    /// `let NAME = initTensor(dims) in let NAME[idx] = v in … in body`, built from the inside out.
    fn prelude(&self, body: Term) -> Term {
        let span = Span::default();
        let name = Sym::new(&self.name);
        let mut term = body;
        for (flat, &v) in self.data.iter().enumerate().rev() {
            let index = match self.shape.as_slice() {
                [_] => vec![flat as i64],
                [_, cols] => vec![(flat / cols) as i64, (flat % cols) as i64],
                _ => unreachable!("validated rank"),
            };
            let target = Term::new(Node::Index { base: Term::id(&name, span), ints: ints(&index) }, span);
            term = Term::new(Node::Let { target, value: Term::float(v, span), body: term }, span);
        }
        let dims: Vec<i64> = self.shape.iter().map(|&d| d as i64).collect();
        let func = FuncTerm::InitTensor(ints(&dims));
        Term::new(Node::LetFunc { target: Term::id(&name, span), func, func_span: span, body: term }, span)
    }
}

fn ints(values: &[i64]) -> Ints {
    Ints::new(values).unwrap_or_else(|| Ints::one(0))
}

/// `program` in a configuration where `inputs` are already bound.
pub fn initial_config(profile: &'static Profile, program: Term, inputs: &[TensorInput]) -> Result<Config, InputError> {
    for (k, input) in inputs.iter().enumerate() {
        input.validate()?;
        if inputs[..k].iter().any(|earlier| earlier.name == input.name) {
            return Err(InputError::Duplicate(input.name.clone()));
        }
    }
    // The prelude's innermost body: a placeholder recognised by identity, never rewritten.
    let slot = Term::float(0.0, Span::default());
    let prelude = inputs.iter().rev().fold(slot.clone(), |body, input| input.prelude(body));
    let at_slot = |c: &Config| c.top_term().is_some_and(|t| t.ptr_eq(&slot));
    let result = run_until(profile, Config::initial(prelude), StepOptions::default(), at_slot);
    if result.outcome != Outcome::Paused {
        let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
        return Err(InputError::Prelude { name: names.join(", "), outcome: format!("{:?}", result.outcome) });
    }
    let mut config = result.config;
    config.replace_top_term(program);
    Ok(config)
}
