//! The machinery the Relu, Tanh and Sigmoid sections share: their rules are identical up to
//! the helper's name (`reluTensorHelper`, `tanhTensorHelper`, `sigmoidTensorHelper`) and the
//! element rule. Each section file declares its own rules (IDs, K text) on top of these.

use super::{Rewrite, lt};
use crate::config::KItem;
use crate::syntax::Span;
use crate::term::{Act, FuncTerm, HelperArgs, Ints, Node, Term};

/// `E:Exp [ I:Int ] [ J:Int ]`: the base and both indices.
pub fn as_double_index(t: &Term) -> Option<(&Term, i64, i64)> {
    let (inner, j) = t.as_single_index()?;
    let (e, i) = inner.as_single_index()?;
    Some((e, i, j))
}

fn helper(act: Act, y: Term, x: Term, args: HelperArgs, span: Span) -> Term {
    Term::new(Node::ActHelper { act, y, x, args }, span)
}

/// The activation's helper on the top of `<k>`: `(y, x, args, span)`.
fn top_helper(r: &Rewrite<'_>, act: Act) -> Option<(Term, Term, HelperArgs, Span)> {
    let top = r.top()?;
    match top.node() {
        Node::ActHelper { act: a, y, x, args } if *a == act => Some((y.clone(), x.clone(), args.clone(), top.span())),
        _ => None,
    }
}

/// `let X:Id = actTensor(Y:Id) in E => defineTensor(X,Is) ~> actTensorHelper(Y, X, Is) ~> E`
/// with `<shape>... Y |-> Is ...</shape>` (R21, R38, R49).
pub fn let_tensor(r: &mut Rewrite<'_>, act: Act) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LetFunc { target: x, func: FuncTerm::Apply(name, y), body: e, .. } = top.node() else {
        return false;
    };
    if name.tensor_act() != Some(act) || x.as_id().is_none() {
        return false;
    }
    let Some(y_id) = y.as_id() else { return false };
    let Some(is) = r.cfg.shape_of(y_id).cloned() else {
        return false;
    };
    let span = top.span();
    let define = Term::new(Node::DefineTensor { x: x.clone(), ints: is.clone() }, span);
    let helper = helper(act, y.clone(), x.clone(), HelperArgs::Dims(is), span);
    let e = e.clone();
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(e)]);
    true
}

/// `actTensorHelper(Y, X, I:Int, Is:Ints) => actTensorHelper(Y, X, 0 ...I, Is)` (R22, R39, R50)
pub fn nd_range(r: &mut Rewrite<'_>, act: Act) -> bool {
    let Some((y, x, HelperArgs::Dims(ints), span)) = top_helper(r, act) else {
        return false;
    };
    let Some((i, rest)) = ints.split_first() else {
        return false;
    };
    r.cfg.replace_top_term(helper(act, y, x, HelperArgs::RangeDims { from: 0, to: i, rest }, span));
    true
}

/// `actTensorHelper(Y, X, I:Int) => actTensorHelper(Y, X, 0 ...I)` (R23, R40, R51)
pub fn range_1d(r: &mut Rewrite<'_>, act: Act) -> bool {
    let Some((y, x, HelperArgs::Dims(ints), span)) = top_helper(r, act) else {
        return false;
    };
    let Some(i) = ints.single() else { return false };
    r.cfg.replace_top_term(helper(act, y, x, HelperArgs::Range { from: 0, to: i }, span));
    true
}

/// `actTensorHelper(Y, X, I...J:Int, Is:Ints) => actTensorHelper(Y[I], X[I], Is:Ints)
///  ~> actTensorHelper(Y, X, (I +Int 1)...J:Int, Is:Ints) when I <Int J` (R24, R41, R52)
pub fn nd_step(r: &mut Rewrite<'_>, act: Act) -> bool {
    let Some((y, x, HelperArgs::RangeDims { from: i, to: j, rest }, span)) = top_helper(r, act) else {
        return false;
    };
    if !lt(i, j) {
        return false;
    }
    let (y_i, x_i) = (r.index1(y.clone(), i, span), r.index1(x.clone(), i, span));
    let inner = helper(act, y_i, x_i, HelperArgs::Dims(rest.clone()), span);
    let next = helper(act, y, x, HelperArgs::RangeDims { from: i + 1, to: j, rest }, span);
    r.cfg.replace_top([KItem::Term(inner), KItem::Term(next)]);
    true
}

/// `actTensorHelper(Y, X, I...J:Int) => actTensorHelper(Y[I], X[I])
///  ~> actTensorHelper(Y, X, (I +Int 1)...J:Int) when I <Int J` (R25, R42, R53)
pub fn range_step(r: &mut Rewrite<'_>, act: Act) -> bool {
    let Some((y, x, HelperArgs::Range { from: i, to: j }, span)) = top_helper(r, act) else {
        return false;
    };
    if !lt(i, j) {
        return false;
    }
    let (y_i, x_i) = (r.index1(y.clone(), i, span), r.index1(x.clone(), i, span));
    let element = helper(act, y_i, x_i, HelperArgs::Elem, span);
    let next = helper(act, y, x, HelperArgs::Range { from: i + 1, to: j }, span);
    r.cfg.replace_top([KItem::Term(element), KItem::Term(next)]);
    true
}

/// `actTensorHelper(_, _, I...I:Int, _:Ints) => .` (R26, R43, R54)
pub fn nd_done(r: &mut Rewrite<'_>, act: Act) -> bool {
    let Some((_, _, HelperArgs::RangeDims { from, to, .. }, _)) = top_helper(r, act) else {
        return false;
    };
    if from != to {
        return false;
    }
    r.cfg.pop_top();
    true
}

/// `actTensorHelper(_, _, I...I:Int) => .` (R27, R44, R55)
pub fn range_done(r: &mut Rewrite<'_>, act: Act) -> bool {
    let Some((_, _, HelperArgs::Range { from, to }, _)) = top_helper(r, act) else {
        return false;
    };
    if from != to {
        return false;
    }
    r.cfg.pop_top();
    true
}

/// `actTensorHelper(E1:Exp[I:Int], E2:Exp[J:Int]) => let E2[J] = item(E1[I]) in unit`
/// (R28 with `item` the identity, R45 `tanhItem`, R56 `sigmoidItem`; `unit` is `0`, or `#skip`
/// under Rev-1).
pub fn elem(r: &mut Rewrite<'_>, act: Act, item: fn(Term, Span) -> Term, unit: fn(Span) -> Term) -> bool {
    let Some((y, x, HelperArgs::Elem, span)) = top_helper(r, act) else {
        return false;
    };
    if y.as_single_index().is_none() || x.as_single_index().is_none() {
        return false;
    }
    let value = item(y, span);
    let assign = Term::new(Node::Let { target: x, value, body: unit(span) }, span);
    r.cfg.replace_top_term(assign);
    true
}

/// `actItem(E:Exp[I:Int][J:Int]) => actItem(E:Exp[I:Int,J:Int])` (R47, R58)
pub fn item_merge_index(r: &mut Rewrite<'_>, act: Act) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::ActItem { act: a, arg } = top.node() else {
        return false;
    };
    if *a != act {
        return false;
    }
    let Some((e, i, j)) = as_double_index(arg) else {
        return false;
    };
    let (e, span) = (e.clone(), top.span());
    let merged = r.index(e, Ints::cons(i, &Ints::one(j)), span);
    r.cfg.replace_top_term(Term::new(Node::ActItem { act, arg: merged }, span));
    true
}

/// `let E:Exp[I:Int][J:Int] = actItem(E2:Exp) in E3:Exp => let E:Exp[I,J] = actItem(E2:Exp) in E3:Exp`
/// (R48, R59)
pub fn let_2d_item(r: &mut Rewrite<'_>, act: Act) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::Let { target, value, body: e3 } = top.node() else {
        return false;
    };
    let Node::ActItem { act: a, .. } = value.node() else {
        return false;
    };
    if *a != act {
        return false;
    }
    let Some((e, i, j)) = as_double_index(target) else {
        return false;
    };
    let (e, value, e3, span) = (e.clone(), value.clone(), e3.clone(), top.span());
    let target = r.index(e, Ints::cons(i, &Ints::one(j)), span);
    r.cfg.replace_top_term(Term::new(Node::Let { target, value, body: e3 }, span));
    true
}

/// The `0` that ends the published helpers' element writes (`… in 0`).
pub fn int_zero(span: Span) -> Term {
    Term::int(0, span)
}
