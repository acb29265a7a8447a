//! Substitution `E2[E1 / X]` from K's `SUBSTITUTION` module, as the LLVM backend's `substOne`
//! hook performs it (docs/semantics.md §2.5): plain structural replacement of every subterm equal
//! to the identifier `X`, binders included. It is neither capture-avoiding nor aware of
//! shadowing: `let x = 1.0 in let x = 2.0 in x` becomes `let 1.0 = 2.0 in 1.0`.
//!
//! The replacement is always a Float or an Int (rules `let-scalar-float` and `let-scalar-int`),
//! so successive substitutions compose into one map where the earlier binding of a name wins.
//! That makes laziness exact: below a `let` body the map is recorded in a `Subst` node and
//! pushed down one level when the body is looked at. A chain of 100,000 scalar `let`s then
//! costs linear time instead of rebuilding the remaining program at every step.

use std::cell::OnceCell;
use std::fmt;

use super::traverse::{for_each_child, rebuild};
use super::{Node, Sym, Term};

/// Identifier ↦ closed value (Float or Int).
pub type SubstMap = imbl::HashMap<Sym, Term>;

/// A pending substitution below a `let` body.
pub struct Lazy {
    body: Term,
    map: SubstMap,
    forced: OnceCell<Term>,
}

impl Lazy {
    /// The body with the substitution applied one level down (cached).
    pub fn forced(&self) -> &Term {
        self.forced.get_or_init(|| apply(&self.body, &self.map))
    }

    /// The body and, if it was forced, the cached result.
    pub(super) fn raw_terms(&self, out: &mut Vec<Term>) {
        out.push(self.body.clone());
        if let Some(forced) = self.forced.get() {
            out.push(forced.clone());
        }
    }
}

impl Clone for Lazy {
    fn clone(&self) -> Lazy {
        Lazy { body: self.body.clone(), map: self.map.clone(), forced: self.forced.clone() }
    }
}

impl fmt::Debug for Lazy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.forced())
    }
}

/// `E2[E1 / X]`: every occurrence of the identifier `x` in `body` replaced by `value`.
pub fn substitute(body: &Term, x: &Sym, value: &Term) -> Term {
    apply(body, &SubstMap::unit(x.clone(), value.clone()))
}

/// `m_first` applied, then `m_then`: the first map wins on common names because after it no
/// occurrence of those names is left.
fn compose(m_first: &SubstMap, m_then: &SubstMap) -> SubstMap {
    if m_then.len() <= m_first.len() {
        let mut out = m_first.clone();
        for (x, v) in m_then {
            if !out.contains_key(x) {
                out.insert(x.clone(), v.clone());
            }
        }
        out
    } else {
        let mut out = m_then.clone();
        for (x, v) in m_first {
            out.insert(x.clone(), v.clone());
        }
        out
    }
}

/// A `let` body under `map`: recorded, not yet applied.
fn delay(body: &Term, map: &SubstMap) -> Term {
    match &body.0.node {
        Node::Subst(lazy) => lazy_term(&lazy.body, compose(&lazy.map, map)),
        _ => lazy_term(body, map.clone()),
    }
}

fn lazy_term(body: &Term, map: SubstMap) -> Term {
    Term::new(Node::Subst(Box::new(Lazy { body: body.clone(), map, forced: OnceCell::new() })), body.span())
}

enum Task {
    Visit(Term),
    /// A `let` body: recorded under the map, not visited.
    Delay(Term),
    /// Rebuild this term from the last `n` results.
    Build(Term, usize),
}

/// Applies `map` to `term`, eagerly except below `let` bodies. Unchanged subterms are shared.
fn apply(term: &Term, map: &SubstMap) -> Term {
    let mut tasks = vec![Task::Visit(term.clone())];
    // Each result: the new term and whether it differs from the old one.
    let mut results: Vec<(Term, bool)> = Vec::new();
    while let Some(task) = tasks.pop() {
        match task {
            Task::Visit(t) => match &t.0.node {
                Node::Subst(lazy) => results.push((delay(&lazy.body, &compose(&lazy.map, map)), true)),
                Node::Id(x) => match map.get(x) {
                    Some(value) => results.push((Term::new(value.node().clone(), t.span()), true)),
                    None => results.push((t.clone(), false)),
                },
                node => {
                    let mut n = 0;
                    for_each_child(node, |_| n += 1);
                    if n == 0 {
                        results.push((t.clone(), false));
                        continue;
                    }
                    let mut children = Vec::with_capacity(n);
                    for_each_child(node, |c| children.push(c.clone()));
                    let is_let = matches!(node, Node::Let { .. } | Node::LetFunc { .. });
                    tasks.push(Task::Build(t.clone(), n));
                    for (k, child) in children.into_iter().enumerate().rev() {
                        if is_let && k == n - 1 {
                            tasks.push(Task::Delay(child));
                        } else {
                            tasks.push(Task::Visit(child));
                        }
                    }
                }
            },
            Task::Delay(body) => results.push((delay(&body, map), true)),
            Task::Build(t, n) => {
                let new: Vec<(Term, bool)> = results.split_off(results.len() - n);
                if new.iter().any(|(_, changed)| *changed) {
                    let node = rebuild(t.node(), &mut new.into_iter().map(|(c, _)| c));
                    results.push((Term::new(node, t.span()), true));
                } else {
                    results.push((t, false));
                }
            }
        }
    }
    results.pop().map(|(t, _)| t).expect("apply: one result")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Grammar, parse_program};
    use crate::term::term_of_program;

    fn term(source: &str) -> Term {
        term_of_program(&parse_program(source, Grammar::K).unwrap())
    }

    #[test]
    fn replaces_every_occurrence_including_binders() {
        let body = term("let x = 2.0 in x + y");
        let out = substitute(&body, &Sym::new("x"), &term("1.0"));
        assert_eq!(out.to_string(), "let 0.10000000000000000e1 = 0.20000000000000000e1 in 0.10000000000000000e1 + y");
    }

    #[test]
    fn earlier_substitutions_win_and_unrelated_terms_are_shared() {
        let body = term("let z = 3.0 in x * y");
        let once = substitute(&body, &Sym::new("x"), &term("1.0"));
        let twice = substitute(&once, &Sym::new("x"), &term("2.0"));
        let thrice = substitute(&twice, &Sym::new("y"), &term("4.0"));
        assert_eq!(
            thrice.to_string(),
            "let z = 0.30000000000000000e1 in 0.10000000000000000e1 * 0.40000000000000000e1"
        );
        let untouched = term("a + b");
        assert!(substitute(&untouched, &Sym::new("x"), &term("1.0")).ptr_eq(&untouched));
    }
}
