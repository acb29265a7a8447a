//! The conjunction of all asserts in disjunctive normal form, grouped by input box.
//!
//! Each term of the normal form is one way for the asserts to hold: its input bounds give a
//! box, its output constraints one conjunction of the unsafe region. Terms with the same box
//! become one [`Case`] whose unsafe region is the disjunction of their conjunctions, so the
//! verifier bounds the network once per box. The normal form can grow exponentially, so its
//! size is capped and the assert that passes the cap is named.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use knn_semantics::syntax::Span;

use super::VnnlibError;
use super::formula::{Constraint, Formula, Leaf};
use crate::property::{Case, Conjunction, Constant, InputBox};

/// At most this many terms in the normal form (VNN-COMP properties have a few hundred).
pub const MAX_TERMS: usize = 100_000;

/// At most this many constraints over all terms: every term repeats its box's bounds, so this
/// caps the memory of the cases (a few hundred megabytes at worst).
pub const MAX_CONSTRAINTS: usize = 4_000_000;

/// One `(assert …)`: its constraints and its place.
pub struct Assertion {
    pub formula: Formula,
    pub span: Span,
}

/// A disjunction of conjunctions of leaves (indices into the leaves).
type Normal = Vec<Vec<usize>>;

/// The cases of the conjunction of `asserts`, in order of first appearance; `inputs` are the
/// places where the inputs are declared.
pub fn cases(leaves: &[Leaf], asserts: &[Assertion], inputs: &[Span]) -> Result<Vec<Case>, VnnlibError> {
    let mut normal: Normal = vec![vec![]];
    for assertion in asserts {
        normal = normal_form(&assertion.formula).and_then(|one| product(normal, one)).ok_or_else(|| {
            VnnlibError::new(assertion.span, "property too large for disjunctive normal form").hint(format!(
                "with this assert the property has more than {MAX_TERMS} disjuncts or {MAX_CONSTRAINTS} constraints"
            ))
        })?;
    }
    let mut cases: Vec<Case> = Vec::new();
    // Boxes are compared by their binary64 brackets: two decimals in the same gap between
    // neighbours admit the same inputs (the first one's text is kept).
    let mut case_of_box: HashMap<Vec<u64>, usize> = HashMap::new();
    for term in &normal {
        let (input, conjunction) = split(term, leaves, asserts, inputs)?;
        let brackets = input.lower.iter().chain(&input.upper).flat_map(|c| [c.below.to_bits(), c.above.to_bits()]);
        match case_of_box.entry(brackets.collect()) {
            Entry::Occupied(case) => cases[*case.get()].unsafe_when.push(conjunction),
            Entry::Vacant(slot) => {
                slot.insert(cases.len());
                cases.push(Case { input, unsafe_when: vec![conjunction] });
            }
        }
    }
    Ok(cases)
}

/// `None` when the normal form passes the caps.
fn normal_form(formula: &Formula) -> Option<Normal> {
    match formula {
        Formula::Leaf(leaf) => Some(vec![vec![*leaf]]),
        Formula::Or(parts) => {
            let (mut terms, mut constraints) = (Vec::new(), 0);
            for part in parts {
                let part = normal_form(part)?;
                constraints += part.iter().map(Vec::len).sum::<usize>();
                terms.extend(part);
                within_caps(terms.len(), constraints)?;
            }
            Some(terms)
        }
        Formula::And(parts) => parts.iter().try_fold(vec![vec![]], |terms, part| product(terms, normal_form(part)?)),
    }
}

/// Every term of `a` joined with every term of `b`.
fn product(a: Normal, b: Normal) -> Option<Normal> {
    let size = |n: &Normal| n.iter().map(Vec::len).sum::<usize>();
    let terms = a.len().checked_mul(b.len())?;
    let constraints = size(&a).checked_mul(b.len())?.checked_add(size(&b).checked_mul(a.len())?)?;
    within_caps(terms, constraints)?;
    if let [only] = b.as_slice() {
        // A chain of one-constraint asserts stays linear in the number of constraints.
        let joined = |mut term: Vec<usize>| {
            term.extend(only);
            term
        };
        return Some(a.into_iter().map(joined).collect());
    }
    Some(a.iter().flat_map(|x| b.iter().map(move |y| x.iter().chain(y).copied().collect())).collect())
}

fn within_caps(terms: usize, constraints: usize) -> Option<()> {
    (terms <= MAX_TERMS && constraints <= MAX_CONSTRAINTS).then_some(())
}

/// The box and the output conjunction of one term: the tightest bound of each input.
fn split(
    term: &[usize],
    leaves: &[Leaf],
    asserts: &[Assertion],
    inputs: &[Span],
) -> Result<(InputBox, Conjunction), VnnlibError> {
    let mut lower: Vec<Option<Constant>> = vec![None; inputs.len()];
    let mut upper: Vec<Option<Constant>> = vec![None; inputs.len()];
    let mut outputs = Vec::new();
    for &leaf in term {
        match &leaves[leaf].constraint {
            Constraint::Lower { input, bound } => tighten(&mut lower[*input], bound, Constant::max_lower),
            Constraint::Upper { input, bound } => tighten(&mut upper[*input], bound, Constant::min_upper),
            Constraint::Output(atom) => outputs.push(atom.clone()),
        }
    }
    let complete = |bounds: Vec<Option<Constant>>, side: &str| {
        bounds
            .into_iter()
            .enumerate()
            .map(|(i, bound)| bound.ok_or_else(|| missing_bound(i, side, term, leaves, asserts, inputs)))
            .collect::<Result<Vec<_>, _>>()
    };
    let input = InputBox { lower: complete(lower, "lower")?, upper: complete(upper, "upper")? };
    Ok((input, Conjunction { atoms: outputs }))
}

fn tighten(bound: &mut Option<Constant>, new: &Constant, tighter: fn(Constant, Constant) -> Constant) {
    *bound = Some(match bound.take() {
        Some(old) => tighter(old, new.clone()),
        None => new.clone(),
    });
}

/// The input `X_input` lacks its `side` bound in `term`: shown at the assert that bounds it on
/// the other side, if one does, else at its declaration.
fn missing_bound(
    input: usize,
    side: &str,
    term: &[usize],
    leaves: &[Leaf],
    asserts: &[Assertion],
    inputs: &[Span],
) -> VnnlibError {
    let bounds_it = |leaf: &&Leaf| match &leaf.constraint {
        Constraint::Lower { input: i, .. } | Constraint::Upper { input: i, .. } => *i == input,
        Constraint::Output(_) => false,
    };
    let span = term.iter().map(|&l| &leaves[l]).find(bounds_it).map_or(inputs[input], |l| asserts[l.assertion].span);
    VnnlibError::new(span, format!("`X_{input}` has no {side} bound"))
        .hint("every input needs a lower and an upper bound, in each alternative the `or`s allow")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disjunction_past_the_constraint_cap_is_refused_while_it_is_built() {
        // The cap bounds memory: a few hundred leaves can describe 2^15 terms of 115 constraints
        // each (3 768 320, under MAX_CONSTRAINTS), and an `or` of such alternatives must stop
        // counting at the one that passes the cap, not after building them all (the assert's
        // product would refuse it too, but only once it is built). Two of them make 65 536
        // terms, under MAX_TERMS, and 7 536 640 constraints.
        let choices = (0..15).map(|i| Formula::Or(vec![Formula::Leaf(2 * i), Formula::Leaf(2 * i + 1)]));
        let alternative = Formula::And(choices.chain((30..130).map(Formula::Leaf)).collect());
        let one = normal_form(&alternative).expect("one alternative fits");
        assert_eq!((one.len(), one.iter().map(Vec::len).sum::<usize>()), (1 << 15, 115 << 15));
        drop(one);
        assert_eq!(normal_form(&Formula::Or(vec![alternative.clone(), alternative])), None);
    }
}
