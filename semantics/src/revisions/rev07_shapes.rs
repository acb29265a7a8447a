//! Rev-7: every tensor-producing `let` records its shape, by map update rather than
//! concatenation, so layers chain and shadowing does not crash krun (§3(i), §3(m)). With
//! Rev-12 each binding also restores `<env>` and `<shape>` after its body.

use super::Patch;
use crate::config::{KItem, MapKey};
use crate::errors::ErrorKind;
use crate::rules::{Class, Head, Rewrite, Rule, Section, relu, sigmoid, tanh, tensor};
use crate::term::{Act, FuncTerm, HelperArgs, Node, Term};

/// `restoreScope(Env, SH)` with the current `<env>` and `<shape>`.
pub fn scope_of(r: &Rewrite<'_>) -> KItem {
    KItem::RestoreScope { env: r.cfg.env.clone(), shape: r.cfg.shape.clone() }
}

/// `rule <k> let X:Id = initTensor(Is:Ints) in E:Exp => defineTensor(X, Is) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[X <- Is] </shape>` — replaces `let-init-tensor` (R05).
pub static LET_INIT_TENSOR: Rule = Rule::top(
    Section::Tensor,
    "rev-let-init-tensor",
    "Rev-7",
    "§4 Rev-7, Rev-12",
    "rule <k> let X:Id = initTensor(Is:Ints) in E:Exp => defineTensor(X, Is) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- Is] </shape>",
    &[Head::LetFunc],
    let_init_tensor,
);

fn let_init_tensor(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LetFunc { target: x, func: FuncTerm::InitTensor(is), body: e, .. } = top.node() else { return false };
    let Some(x_id) = x.as_id() else { return false };
    let define = Term::new(Node::DefineTensor { x: x.clone(), ints: is.clone() }, top.span());
    let (key, is, e) = (MapKey::id(x_id), is.clone(), e.clone());
    let scope = scope_of(r);
    r.cfg.shape.insert(key, is);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(e), scope]);
    true
}

/// `let X:Id = actTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> actTensorHelper(Y, X,
/// {SH[Y]}:>Ints) ~> E ~> restoreScope(Env, SH)` with `SH => SH[X <- SH[Y]]`, `requires Y
/// in_keys(SH) andBool X =/=K Y`.
fn let_act_tensor(r: &mut Rewrite<'_>, act: Act) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LetFunc { target: x, func: FuncTerm::Apply(name, y), body: e, .. } = top.node() else { return false };
    let (Some(x_id), Some(y_id)) = (x.as_id(), y.as_id()) else { return false };
    if name.tensor_act() != Some(act) || x_id == y_id {
        return false;
    }
    let Some(is) = r.cfg.shape_of(y_id).cloned() else { return false };
    let span = top.span();
    let define = Term::new(Node::DefineTensor { x: x.clone(), ints: is.clone() }, span);
    let helper =
        Term::new(Node::ActHelper { act, y: y.clone(), x: x.clone(), args: HelperArgs::Dims(is.clone()) }, span);
    let (key, e) = (MapKey::id(x_id), e.clone());
    let scope = scope_of(r);
    r.cfg.shape.insert(key, is);
    r.cfg.replace_top([KItem::Term(define), KItem::Term(helper), KItem::Term(e), scope]);
    true
}

/// `rule <k> let X:Id = reluTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> reluTensorHelper(Y, X, {SH[Y]}:>Ints) ~> E ~> restoreScope(Env, SH) ...</k>
///       <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape> requires Y in_keys(SH) andBool X =/=K Y`
/// — replaces `let-relu-tensor` (R21).
pub static LET_RELU_TENSOR: Rule = Rule::top(
    Section::Relu,
    "rev-let-relu-tensor",
    "Rev-7",
    "§4 Rev-7, Rev-12",
    "rule <k> let X:Id = reluTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> reluTensorHelper(Y, X, {SH[Y]}:>Ints) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape> requires Y in_keys(SH) andBool X =/=K Y",
    &[Head::LetFunc],
    |r| let_act_tensor(r, Act::Relu),
);

/// The same for `tanhTensor` — replaces `let-tanh-tensor` (R38).
pub static LET_TANH_TENSOR: Rule = Rule::top(
    Section::Tanh,
    "rev-let-tanh-tensor",
    "Rev-7",
    "§4 Rev-7, Rev-12",
    "rule <k> let X:Id = tanhTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> tanhTensorHelper(Y, X, {SH[Y]}:>Ints) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape> requires Y in_keys(SH) andBool X =/=K Y",
    &[Head::LetFunc],
    |r| let_act_tensor(r, Act::Tanh),
);

/// The same for `sigmoidTensor` — replaces `let-sigmoid-tensor` (R49).
pub static LET_SIGMOID_TENSOR: Rule = Rule::top(
    Section::Sigmoid,
    "rev-let-sigmoid-tensor",
    "Rev-7",
    "§4 Rev-7, Rev-12",
    "rule <k> let X:Id = sigmoidTensor(Y:Id) in E => defineTensor(X, {SH[Y]}:>Ints) ~> sigmoidTensorHelper(Y, X, {SH[Y]}:>Ints) ~> E ~> restoreScope(Env, SH) ...</k> <env> Env </env> <shape> SH => SH[X <- SH[Y]] </shape> requires Y in_keys(SH) andBool X =/=K Y",
    &[Head::LetFunc],
    |r| let_act_tensor(r, Act::Sigmoid),
);

/// `rule <k> let X = F:Func in _ => knnError(letFuncError(X, F)) ...</k> [owise]`: one rule for
/// every failing let-Func (§4 writes one per function for `reluTensor` and `linear`, each with a
/// fixed string). `letFuncError` names why, in this order: the target is not a name
/// (`"invalid let target"`), an operand is not a name or has no shape (`"unknown tensor"`), an
/// operand is unbound (`"unbound identifier"`), an operand is the output (`"output aliases
/// input"`).
pub static LET_FUNC_ERROR: Rule = Rule::top(
    Section::Tensor,
    "rev-let-func-error",
    "Rev-7",
    "§4 Rev-7, Rev-8",
    "rule <k> let X = F:Func in _ => knnError(letFuncError(X, F)) ...</k> [owise]",
    &[Head::LetFunc],
    let_func_error,
)
.with_class(Class::Owise);

fn let_func_error(r: &mut Rewrite<'_>) -> bool {
    let Some(top) = r.top() else { return false };
    let Node::LetFunc { target, func, func_span, .. } = top.node() else { return false };
    let (kind, detail) = diagnose(r, target, func);
    // An operand's fault is the call's place; a target that is not a name is the whole `let`'s.
    let span = if kind == ErrorKind::InvalidLetTarget { top.span() } else { *func_span };
    let error = Term::error(kind, detail, span);
    r.cfg.replace_top_term(error);
    true
}

/// Why no rule takes `let target = func in …`.
fn diagnose(r: &Rewrite<'_>, target: &Term, func: &FuncTerm) -> (ErrorKind, String) {
    let Some(x) = target.as_id() else {
        return (ErrorKind::InvalidLetTarget, format!("`{target}` cannot be bound: a function's result needs a name"));
    };
    if let FuncTerm::TensorLiteral(is, values) = func {
        // Only a term built without the parser can get here: it checks the count (Ext-2).
        return match is.as_slice().iter().find(|&&d| d < 0) {
            Some(d) => (ErrorKind::NegativeDimension, format!("a tensor dimension is {d}")),
            None => (
                ErrorKind::ShapeMismatch,
                format!("`initTensor({:?})` lists {} elements, not its size", is.as_slice(), values.len()),
            ),
        };
    }
    let operands: Vec<&Term> = match func {
        FuncTerm::InitTensor(_) | FuncTerm::TensorLiteral(..) => Vec::new(),
        FuncTerm::Apply(_, y) => vec![y],
        FuncTerm::Linear(w, y)
        | FuncTerm::AddTensor(w, y)
        | FuncTerm::TensorArith(_, w, y)
        | FuncTerm::Matmul(w, y) => vec![w, y],
        FuncTerm::Conv2d { x, w, b, .. } => [x, w].into_iter().chain(b).collect(),
        FuncTerm::Pool2d { x, .. }
        | FuncTerm::Reshape { x, .. }
        | FuncTerm::Transpose { x, .. }
        | FuncTerm::TensorMath { x, .. }
        | FuncTerm::Slice { x, .. }
        | FuncTerm::Pad { x, .. } => vec![x],
        FuncTerm::Concat { xs, .. } | FuncTerm::BatchNorm { xs, .. } => xs.iter().collect(),
    };
    let keyword = match func {
        FuncTerm::InitTensor(_) | FuncTerm::TensorLiteral(..) => "initTensor",
        FuncTerm::Apply(name, _) => name.keyword(),
        FuncTerm::Linear(..) => "linear",
        FuncTerm::AddTensor(..) => "addTensor",
        FuncTerm::Conv2d { .. } => "conv2d",
        FuncTerm::Pool2d { pool, .. } => pool.keyword(),
        FuncTerm::Reshape { dims: Some(_), .. } => "reshape",
        FuncTerm::Reshape { dims: None, .. } => "flatten",
        FuncTerm::Transpose { .. } => "transpose",
        FuncTerm::TensorArith(op, ..) => op.keyword(),
        FuncTerm::TensorMath { f, .. } => f.keyword(),
        FuncTerm::Concat { .. } => "concat",
        FuncTerm::Slice { .. } => "slice",
        FuncTerm::Pad { .. } => "pad",
        FuncTerm::Matmul(..) => "matmul",
        FuncTerm::BatchNorm { .. } => "batchNorm",
    };
    for operand in operands {
        match operand.as_id() {
            None => {
                return (ErrorKind::UnknownTensor, format!("`{keyword}` takes the name of a tensor, not `{operand}`"));
            }
            Some(y) if !r.cfg.env.contains_key(y) => {
                return (ErrorKind::UnboundIdentifier, format!("`{y}` is not bound here"));
            }
            Some(y) if r.cfg.shape_of(y).is_none() => {
                return (ErrorKind::UnknownTensor, format!("`{y}` is not a tensor with a known shape"));
            }
            Some(y) if y == x => {
                return (
                    ErrorKind::AliasedOutput,
                    format!("`{x}` cannot be both the input and the output of `{keyword}`"),
                );
            }
            Some(_) => {}
        }
    }
    (ErrorKind::InvalidLetTarget, format!("no rule binds `{x}` to `{keyword}(…)`"))
}

pub static PATCH: Patch = Patch {
    name: "Rev-7",
    title: "every tensor-producing let records its shape, by update",
    reason: "outputs had no <shape> entry, so layers could not chain; concatenation aborted krun on shadowing",
    removes: &[&tensor::LET_INIT_TENSOR, &relu::LET_RELU_TENSOR, &tanh::LET_TANH_TENSOR, &sigmoid::LET_SIGMOID_TENSOR],
    adds: &[&LET_INIT_TENSOR, &LET_RELU_TENSOR, &LET_TANH_TENSOR, &LET_SIGMOID_TENSOR, &LET_FUNC_ERROR],
};
