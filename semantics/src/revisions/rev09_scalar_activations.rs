//! Rev-9: the scalar functions `relu`, `tanh`, `sigmoid`, which the grammar has but no rule
//! evaluates (§3(g)).

use super::Patch;
use crate::rules::{Head, Rewrite, Rule, Section};
use crate::term::{Act, FuncName, FuncTerm, Node, Term};

/// `let X:Id = f(E) in B => let X = rhs(E) in B` for the scalar function `name`.
fn let_scalar_function(r: &mut Rewrite<'_>, name: FuncName, rhs: fn(Term, crate::syntax::Span) -> Term) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LetFunc { target: x, func: FuncTerm::Apply(f, e), body: b, .. } = top.node() else { return false };
    if *f != name || x.as_id().is_none() {
        return false;
    }
    let span = top.span();
    let value = rhs(e.clone(), span);
    r.cfg.replace_top_term(Term::new(Node::Let { target: x.clone(), value, body: b.clone() }, span));
    true
}

/// `rule let X:Id = relu(E:Exp) in B:Exp => let X = max(E, 0.0) in B`
pub static LET_RELU: Rule = Rule::top(
    Section::Relu,
    "rev-let-relu",
    "Rev-9",
    "§4 Rev-9",
    "rule let X:Id = relu(E:Exp) in B:Exp => let X = max(E, 0.0) in B",
    &[Head::LetFunc],
    |r| let_scalar_function(r, FuncName::Relu, |e, span| Term::new(Node::Max(e, Term::float(0.0, span)), span)),
);

/// `rule let X:Id = tanh(E:Exp) in B:Exp => let X = tanhItem(E) in B`
pub static LET_TANH: Rule = Rule::top(
    Section::Tanh,
    "rev-let-tanh",
    "Rev-9",
    "§4 Rev-9",
    "rule let X:Id = tanh(E:Exp) in B:Exp => let X = tanhItem(E) in B",
    &[Head::LetFunc],
    |r| let_scalar_function(r, FuncName::Tanh, |e, span| Term::new(Node::ActItem { act: Act::Tanh, arg: e }, span)),
);

/// `rule let X:Id = sigmoid(E:Exp) in B:Exp => let X = sigmoidItem(E) in B`
pub static LET_SIGMOID: Rule = Rule::top(
    Section::Sigmoid,
    "rev-let-sigmoid",
    "Rev-9",
    "§4 Rev-9",
    "rule let X:Id = sigmoid(E:Exp) in B:Exp => let X = sigmoidItem(E) in B",
    &[Head::LetFunc],
    |r| {
        let_scalar_function(r, FuncName::Sigmoid, |e, span| {
            Term::new(Node::ActItem { act: Act::Sigmoid, arg: e }, span)
        })
    },
);

pub static PATCH: Patch = Patch {
    name: "Rev-9",
    title: "scalar relu, tanh and sigmoid",
    reason: "the grammar has them but no rule evaluates them: `let x = relu(3.0) in x` is stuck",
    removes: &[],
    adds: &[&LET_RELU, &LET_TANH, &LET_SIGMOID],
};
