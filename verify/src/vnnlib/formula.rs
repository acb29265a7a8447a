//! Constraints: terms become linear forms `Σ c·V + Σ constants`, each comparison becomes one
//! `linear ≤ 0` (or `< 0`), classified at once as a bound on one input or a constraint on the
//! outputs, so a constraint outside the subset is reported where it is written.
//!
//! Coefficients stay constants as written: a variable has coefficient `1`, negation is exact,
//! and a product multiplies a `±1` coefficient by one written number. Anything that would need
//! a rounded product (`(* 2 0.5 Y_0)`, `(* 2 (- Y_0 1))`) is refused rather than rounded.
//!
//! `<` and `>` stay strict: on binary64 outputs `Y_0 < Y_1` and `Y_0 ≤ Y_1` differ exactly at
//! ties, which a network's outputs often are (equal logits after a saturated ReLU).

use knn_semantics::syntax::Span;

use super::sexp::Sexp;
use super::{Declarations, VnnlibError};
use crate::property::{Atom, Constant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variable {
    Input(usize),
    Output(usize),
}

/// `and`/`or` over constraints, each leaf an index into the list of [`Leaf`]s.
#[derive(Clone, Debug, PartialEq)]
pub enum Formula {
    Leaf(usize),
    And(Vec<Formula>),
    Or(Vec<Formula>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Constraint {
    /// `X_input ≥ bound`.
    Lower {
        input: usize,
        bound: Constant,
    },
    /// `X_input ≤ bound`.
    Upper {
        input: usize,
        bound: Constant,
    },
    Output(Atom),
}

/// One comparison as read: the constraint, where it is written, and which assert holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaf {
    pub constraint: Constraint,
    pub span: Span,
    pub assertion: usize,
}

/// `Σ coefficient·variable + Σ constants`.
#[derive(Clone, Debug, Default)]
struct Linear {
    terms: Vec<(Variable, Constant)>,
    constants: Vec<Constant>,
}

impl Linear {
    fn plus(mut self, other: Linear) -> Linear {
        self.terms.extend(other.terms);
        self.constants.extend(other.constants);
        self
    }

    fn negated(self) -> Linear {
        Linear {
            terms: self.terms.into_iter().map(|(v, c)| (v, c.neg())).collect(),
            constants: self.constants.iter().map(Constant::neg).collect(),
        }
    }

    /// `factor · self` when that needs no arithmetic: every coefficient `±1` and no constants.
    fn scaled(self, factor: &Constant) -> Option<Linear> {
        if !self.constants.is_empty() {
            return None;
        }
        let unit = |c: &Constant| c.is_exact() && c.below.abs() == 1.0;
        let terms = self
            .terms
            .into_iter()
            .map(|(v, c)| unit(&c).then(|| (v, if c.below > 0.0 { factor.clone() } else { factor.neg() })));
        Some(Linear { terms: terms.collect::<Option<_>>()?, constants: vec![] })
    }
}

/// Reads the constraints of one assert.
pub struct Reader<'a> {
    pub declarations: &'a Declarations,
    pub leaves: &'a mut Vec<Leaf>,
    pub assertion: usize,
}

impl Reader<'_> {
    pub fn formula(&mut self, sexp: &Sexp<'_>) -> Result<Formula, VnnlibError> {
        let Some((op, op_span, arguments)) = sexp.application() else {
            return Err(VnnlibError::new(sexp.span(), "expected a constraint such as (<= Y_0 Y_1)"));
        };
        match op {
            "and" | "or" => {
                if arguments.is_empty() {
                    return Err(VnnlibError::new(sexp.span(), format!("`{op}` needs at least one constraint")));
                }
                let parts = arguments.iter().map(|a| self.formula(a)).collect::<Result<Vec<_>, _>>()?;
                Ok(if op == "and" { Formula::And(parts) } else { Formula::Or(parts) })
            }
            "<=" | ">=" | "<" | ">" => self.comparison(op, arguments, sexp.span()),
            "=" => Err(unsupported(op, op_span).hint("write an equality as (and (<= a b) (>= a b))")),
            _ => Err(unknown(op, op_span, "constraints are written with <=, >=, <, >, and, or")),
        }
    }

    /// `(<= a b c …)` means `a ≤ b ∧ b ≤ c ∧ …` (SMT-LIB's chained comparisons).
    fn comparison(&mut self, op: &str, arguments: &[Sexp<'_>], span: Span) -> Result<Formula, VnnlibError> {
        if arguments.len() < 2 {
            return Err(VnnlibError::new(span, format!("`{op}` compares two terms")));
        }
        let sides = arguments.iter().map(|a| self.term(a)).collect::<Result<Vec<_>, _>>()?;
        let strict = matches!(op, "<" | ">");
        let mut parts = Vec::new();
        for pair in sides.windows(2) {
            let (smaller, larger) = if matches!(op, "<=" | "<") { (&pair[0], &pair[1]) } else { (&pair[1], &pair[0]) };
            let difference = smaller.clone().plus(larger.clone().negated());
            let constraint = classify(difference, strict, span)?;
            self.leaves.push(Leaf { constraint, span, assertion: self.assertion });
            parts.push(Formula::Leaf(self.leaves.len() - 1));
        }
        Ok(if parts.len() == 1 { parts.remove(0) } else { Formula::And(parts) })
    }

    fn term(&self, sexp: &Sexp<'_>) -> Result<Linear, VnnlibError> {
        let (op, op_span, arguments) = match sexp {
            Sexp::Atom(text, span) => return self.atom(text, *span),
            list => list.application().ok_or_else(|| VnnlibError::new(list.span(), "expected a term"))?,
        };
        let mut sides = arguments.iter().map(|a| self.term(a));
        match (op, arguments.len()) {
            ("+" | "-" | "*", 0) => Err(VnnlibError::new(sexp.span(), format!("`{op}` needs an operand"))),
            ("+", _) => sides.try_fold(Linear::default(), |sum, side| Ok(sum.plus(side?))),
            ("-", 1) => Ok(self.term(&arguments[0])?.negated()),
            // `(- a b c)` is `a − b − c`.
            ("-", _) => {
                let first = sides.next().expect("two operands or more")?;
                sides.try_fold(first, |sum, side| Ok(sum.plus(side?.negated())))
            }
            ("*", _) => self.product(arguments, sexp.span()),
            ("<=" | ">=" | "<" | ">" | "and" | "or", _) => {
                Err(VnnlibError::new(op_span, format!("a constraint `{op}` where a term is expected")))
            }
            _ => Err(unknown(op, op_span, "terms are written with numbers, X_i, Y_i, +, - and *")),
        }
    }

    /// `(* c t)` or `(* t c)` for one number `c` (possibly negated: `(- 2)`).
    fn product(&self, arguments: &[Sexp<'_>], span: Span) -> Result<Linear, VnnlibError> {
        let refused = |why: &str| {
            VnnlibError::new(span, format!("unsupported product: {why}"))
                .hint("a product is one number times a sum of variables, such as (* 0.5 Y_0)")
        };
        let [a, b] = arguments else {
            return Err(refused("only one constant factor per product"));
        };
        let (a, b) = (self.term(a)?, self.term(b)?);
        let (factor, other) = match (a.terms.is_empty(), b.terms.is_empty()) {
            (false, false) => {
                return Err(VnnlibError::new(span, "nonlinear term: a product of variables")
                    .hint("VNN-LIB constraints are linear"));
            }
            (true, true) => return Err(refused("a product of constants; write it as one number")),
            (true, false) => (a, b),
            (false, true) => (b, a),
        };
        let [number] = factor.constants.as_slice() else {
            return Err(refused("the constant factor must be a single number"));
        };
        other.scaled(number).ok_or_else(|| refused("only one constant factor per product"))
    }

    fn atom(&self, text: &str, span: Span) -> Result<Linear, VnnlibError> {
        let numeric = text.trim_start_matches(['-', '+']).starts_with(|c: char| c.is_ascii_digit() || c == '.');
        match Constant::parse(text) {
            Ok(number) => return Ok(Linear { terms: vec![], constants: vec![number] }),
            // Not a name: a misspelt or out-of-range number, said where it is written.
            Err(why) if numeric => {
                return Err(VnnlibError::new(span, why).hint("numbers are decimals such as 0.5, -3 or 1e-3"));
            }
            Err(_) => {}
        }
        let variable = self.declarations.lookup(text, span)?;
        Ok(Linear { terms: vec![(variable, Constant::exact(1.0))], constants: vec![] })
    }
}

/// `linear ≤ 0` (`< 0` when strict) as an input bound or an output constraint.
fn classify(linear: Linear, strict: bool, span: Span) -> Result<Constraint, VnnlibError> {
    let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
    for (variable, coefficient) in linear.terms {
        match variable {
            Variable::Input(i) => inputs.push((i, coefficient)),
            Variable::Output(i) => outputs.push((i, coefficient)),
        }
    }
    match (inputs.is_empty(), outputs.is_empty()) {
        (true, true) => Err(VnnlibError::new(span, "unsupported constraint: it compares constants only")),
        (false, true) => input_bound(&inputs, &linear.constants, strict, span),
        (true, false) => {
            Ok(Constraint::Output(Atom { terms: outputs, constants: linear.constants, strict, span: Some(span) }))
        }
        (false, false) => Err(VnnlibError::new(span, "unsupported constraint: it mixes inputs and outputs")
            .hint("VNN-LIB properties bound the inputs X_i and constrain the outputs Y_i separately")),
    }
}

/// `±X_i + c ≤ 0`: `X_i ≤ −c` or `X_i ≥ c`.
fn input_bound(
    terms: &[(usize, Constant)],
    constants: &[Constant],
    strict: bool,
    span: Span,
) -> Result<Constraint, VnnlibError> {
    let only_bounds = || {
        VnnlibError::new(span, "only bounds on single inputs are supported")
            .hint("bound each input by a number, such as (<= X_0 0.5) or (>= X_0 -0.5)")
    };
    let ([(input, coefficient)], [constant]) = (terms, constants) else {
        return Err(only_bounds());
    };
    if !coefficient.is_exact() || coefficient.below.abs() != 1.0 {
        return Err(only_bounds());
    }
    if strict {
        return Err(VnnlibError::new(span, "unsupported strict bound on an input")
            .hint("an input region is a closed box: write <= or >="));
    }
    let input = *input;
    Ok(if coefficient.below > 0.0 {
        Constraint::Upper { input, bound: constant.neg() }
    } else {
        Constraint::Lower { input, bound: constant.clone() }
    })
}

/// Operators of SMT-LIB that this subset leaves out, told apart from misspellings.
fn unsupported(op: &str, span: Span) -> VnnlibError {
    VnnlibError::new(span, format!("unsupported operator `{op}`"))
}

fn unknown(op: &str, span: Span, expected: &str) -> VnnlibError {
    const SMT_LIB: [&str; 15] = [
        "=", "distinct", "not", "=>", "xor", "ite", "/", "abs", "div", "mod", "to_real", "let", "forall", "exists", "!",
    ];
    let error = if SMT_LIB.contains(&op) {
        unsupported(op, span)
    } else {
        VnnlibError::new(span, format!("unknown operator `{op}`"))
    };
    error.hint(expected)
}
