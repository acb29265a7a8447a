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

/// The largest rank an input may have (a convolution's input has rank 3).
pub const MAX_INPUT_RANK: usize = 8;

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
    /// A rank the rules cannot bind: 0 or more than [`MAX_INPUT_RANK`] under any profile, more than 2
    /// under the published rules (their rank-3 allocation is broken, docs/semantics.md §3(b)).
    Rank {
        name: String,
        rank: usize,
        /// The largest rank the profile binds.
        max: usize,
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
            InputError::Rank { name, rank, max: 2 } => {
                write!(
                    f,
                    "the input `{name}` has rank {rank}; under the published rules inputs must be vectors or matrices (their rank-3 tensors are broken, docs/semantics.md §3(b)); the revised rules take any rank"
                )
            }
            InputError::Rank { name, rank, max } => {
                write!(f, "the input `{name}` has rank {rank}; inputs have rank 1 to {max}")
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
    /// The name is an identifier, the rank one the revised rules bind (1 to [`MAX_INPUT_RANK`]), the
    /// data as long as the shape says. [`TensorInput::validate_for`] adds the profile's limit.
    pub fn validate(&self) -> Result<(), InputError> {
        if !is_identifier(&self.name) {
            return Err(InputError::NotAnIdentifier(self.name.clone()));
        }
        if !(1..=MAX_INPUT_RANK).contains(&self.shape.len()) {
            return Err(InputError::Rank { name: self.name.clone(), rank: self.shape.len(), max: MAX_INPUT_RANK });
        }
        let expected: usize = self.shape.iter().product();
        if expected != self.data.len() {
            return Err(InputError::Size { name: self.name.clone(), expected, found: self.data.len() });
        }
        Ok(())
    }

    /// [`TensorInput::validate`], and under the published rules a rank of at most 2.
    pub fn validate_for(&self, profile: &Profile) -> Result<(), InputError> {
        self.validate()?;
        if profile.name == "published" && self.shape.len() > 2 {
            return Err(InputError::Rank { name: self.name.clone(), rank: self.shape.len(), max: 2 });
        }
        Ok(())
    }

    /// `let NAME = initTensor(dims) in let NAME[idx] = v in … in body`, built from the inside out.
    fn prelude(&self, body: Term) -> Term {
        let span = Span::default();
        let name = Sym::new(&self.name);
        let mut term = body;
        for (flat, &v) in self.data.iter().enumerate().rev() {
            // The row-major index of element `flat`, last dimension fastest.
            let mut index = vec![0i64; self.shape.len()];
            let mut rest = flat;
            for (slot, &d) in index.iter_mut().zip(&self.shape).rev() {
                *slot = (rest % d) as i64;
                rest /= d;
            }
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
        input.validate_for(profile)?;
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
