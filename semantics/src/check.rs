//! Static checks for revised programs. Under the revised rules scoping is lexical (Rev-12), so
//! whether a name is bound where it is used is known before the program runs, and so is the
//! shape of every `let` target. A program that fails a check would fail at run time with the
//! same error kind once evaluation reached that place; reporting all of them up front, with
//! their spans, is what a compiler does. The published rules have no such discipline (names
//! leak out of their `let`, §3(i)), so these checks belong to the revised profile only.

use imbl::OrdSet;

use crate::errors::ErrorKind;
use crate::syntax::{Exp, ExpKind, Func, FuncKind, Span};
use crate::window::WindowAttrs;

/// A static error: its kind (the run-time error it would become), where, and what to say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticError {
    pub kind: ErrorKind,
    pub span: Span,
    pub message: String,
    pub hint: Option<String>,
}

type Scope = OrdSet<String>;

/// Every static error of `program`, in source order. `bound` are the names bound before the
/// program starts (`--input`).
pub fn check_program(program: &Exp, bound: &[&str]) -> Vec<StaticError> {
    let mut errors = Vec::new();
    let scope: Scope = bound.iter().map(|s| s.to_string()).collect();
    let mut stack: Vec<(&Exp, Scope)> = vec![(program, scope)];
    while let Some((e, scope)) = stack.pop() {
        match &e.kind {
            ExpKind::Float(_) | ExpKind::Int(_) => {}
            ExpKind::Id(x) => require_bound(x, e.span, &scope, &mut errors),
            ExpKind::Index(base, _) => stack.push((base, scope)),
            ExpKind::ArgMax(arg) => match &arg.kind {
                ExpKind::Id(x) => require_bound(x, arg.span, &scope, &mut errors),
                _ => errors.push(StaticError {
                    kind: ErrorKind::ArgmaxNotAVector,
                    span: arg.span,
                    message: "ArgMax takes the name of a vector".into(),
                    hint: Some("bind the vector first: `let v = … in ArgMax(v)`".into()),
                }),
            },
            ExpKind::Max(a, b)
            | ExpKind::Min(a, b)
            | ExpKind::Mul(a, b)
            | ExpKind::Add(a, b)
            | ExpKind::Sub(a, b)
            | ExpKind::Div(a, b) => {
                stack.push((b, scope.clone()));
                stack.push((a, scope));
            }
            ExpKind::Let { target, value, body } => {
                let inner = match &target.kind {
                    ExpKind::Id(x) => scope.update(x.clone()),
                    _ => {
                        check_assignment_target(target, &scope, &mut errors);
                        scope.clone()
                    }
                };
                stack.push((body, inner));
                stack.push((value, scope));
            }
            ExpKind::LetFunc { target, func, body } => {
                let name = match &target.kind {
                    ExpKind::Id(x) => Some(x.clone()),
                    _ => {
                        errors.push(StaticError {
                            kind: ErrorKind::InvalidLetTarget,
                            span: target.span,
                            message: format!("the result of `{}` must be bound to a name", func.keyword()),
                            hint: None,
                        });
                        None
                    }
                };
                check_function(func.keyword(), &func.kind, name.as_deref(), &scope, &mut errors);
                check_attributes(func, &mut errors);
                let inner = name.map_or_else(|| scope.clone(), |x| scope.update(x));
                stack.push((body, inner));
                if let Some(arg) = func.argument()
                    && !is_tensor_function(&func.kind)
                {
                    stack.push((arg, scope));
                }
            }
        }
    }
    errors.sort_by_key(|e| (e.span.start, e.span.end));
    errors
}

fn require_bound(x: &str, span: Span, scope: &Scope, errors: &mut Vec<StaticError>) {
    if !scope.contains(x) {
        errors.push(StaticError {
            kind: ErrorKind::UnboundIdentifier,
            span,
            message: format!("`{x}` is not bound here"),
            hint: Some("names are bound by an enclosing `let`, or with `--input NAME=…`".into()),
        });
    }
}

/// `let X[i]… = v`: the target must be an element of a bound name.
fn check_assignment_target(target: &Exp, scope: &Scope, errors: &mut Vec<StaticError>) {
    let mut base = target;
    while let ExpKind::Index(inner, _) = &base.kind {
        base = inner;
    }
    match &base.kind {
        ExpKind::Id(x) if !std::ptr::eq(base, target) => require_bound(x, base.span, scope, errors),
        _ => errors.push(StaticError {
            kind: ErrorKind::InvalidLetTarget,
            span: target.span,
            message: "a `let` binds a name or assigns an element `t[i, …]`".into(),
            hint: None,
        }),
    }
}

fn is_tensor_function(kind: &FuncKind) -> bool {
    matches!(kind, FuncKind::ReluTensor(_) | FuncKind::TanhTensor(_) | FuncKind::SigmoidTensor(_))
}

/// The operands of `reluTensor(Y)`, `linear(W, X)`…: names of tensors in scope, not the output.
fn check_function(keyword: &str, kind: &FuncKind, output: Option<&str>, scope: &Scope, errors: &mut Vec<StaticError>) {
    let operands: Vec<(&str, Span)> = match kind {
        FuncKind::ReluTensor(arg) | FuncKind::TanhTensor(arg) | FuncKind::SigmoidTensor(arg) => {
            tensor_names(keyword, &[arg], errors)
        }
        FuncKind::Linear(w, x) => vec![(w.name.as_str(), w.span), (x.name.as_str(), x.span)],
        // Ext-1: both operands name tensors. Shapes are not tracked here, so a shape mismatch
        // is found when the program runs.
        FuncKind::AddTensor(a, b) | FuncKind::TensorArith(_, a, b) | FuncKind::Matmul(a, b) => {
            tensor_names(keyword, &[a, b], errors)
        }
        // Ext-3: the tensor operands name tensors; an attribute of 0 is known before running.
        FuncKind::Conv2d(x, w, b, _) => {
            let operands: Vec<&Exp> = [&**x, &**w].into_iter().chain(b.as_deref()).collect();
            tensor_names(keyword, &operands, errors)
        }
        // Ext-4: the input names a tensor; an invalid attribute is known before running.
        FuncKind::Pool2d(_, x, _) => tensor_names(keyword, &[x], errors),
        // Ext-5: the input names a tensor; element counts are compared when the program runs.
        FuncKind::Reshape(x, _) => tensor_names(keyword, &[x], errors),
        // Ext-6: the input names a tensor; the axes are checked against its rank when the
        // program runs.
        FuncKind::Transpose(x, _) => tensor_names(keyword, &[x], errors),
        // Ext-9, Ext-10: the input names a tensor; the axes are checked against its rank when
        // the program runs.
        FuncKind::TensorMath(_, x, _) => tensor_names(keyword, &[x], errors),
        // Ext-11: every operand names a tensor; shapes and the axis are checked when the
        // program runs.
        FuncKind::Concat(xs, _) => tensor_names(keyword, &xs.iter().collect::<Vec<_>>(), errors),
        // Ext-12: the input names a tensor; the attributes are checked against its shape when
        // the program runs.
        FuncKind::Slice(x, _) => tensor_names(keyword, &[x], errors),
        // Ext-13: the input names a tensor; the number of pads is checked against its rank
        // when the program runs.
        FuncKind::Pad(x, ..) => tensor_names(keyword, &[x], errors),
        // Ext-14: the five operands name tensors; their shapes are compared when the program
        // runs.
        FuncKind::BatchNorm(xs, _) => tensor_names(keyword, &xs.iter().collect::<Vec<_>>(), errors),
        _ => return,
    };
    for (name, span) in operands {
        if Some(name) == output {
            errors.push(StaticError {
                kind: ErrorKind::AliasedOutput,
                span,
                message: format!("`{name}` cannot be both an operand and the output of `{keyword}`"),
                hint: Some("bind the result to a new name".into()),
            });
        } else {
            require_bound(name, span, scope, errors);
        }
    }
}

/// The attributes of a window operator (Ext-3): a stride, dilation or group of 0 is known
/// before running (`invalid-attribute`, after the operands' errors as the rules order them).
fn check_attributes(func: &Func, errors: &mut Vec<StaticError>) {
    let (FuncKind::Conv2d(.., attrs) | FuncKind::Pool2d(.., attrs)) = &func.kind else { return };
    if let Some(message) = WindowAttrs::of(attrs).invalid(func.keyword()) {
        errors.push(StaticError {
            kind: ErrorKind::InvalidAttribute,
            span: func.span,
            message,
            hint: Some(
                match &func.kind {
                    FuncKind::Conv2d(..) => "strides, dilations and group are at least 1",
                    _ => "kernel, strides and dilations are at least 1; countPad is 0 or 1",
                }
                .into(),
            ),
        });
    }
}

/// The operands of a tensor function that the grammar lets be any expression but the rules
/// want to be names (`reluTensor(Y)`, `addTensor(Y, Z)`): the names, and `unknown-tensor` for
/// each operand that is not one.
fn tensor_names<'e>(keyword: &str, args: &[&'e Exp], errors: &mut Vec<StaticError>) -> Vec<(&'e str, Span)> {
    let (what, call) = match (keyword, args.len()) {
        ("conv2d", _) => ("the names of tensors: its input, kernel and optional bias", "x, w"),
        ("concat", _) => ("the names of tensors, then an Int axis", "t, b, 0"),
        (_, 1) => ("the name of a tensor", "t"),
        _ => ("the names of two tensors", "t, b"),
    };
    let mut names = Vec::with_capacity(args.len());
    for arg in args {
        match &arg.kind {
            ExpKind::Id(x) => names.push((x.as_str(), arg.span)),
            _ => errors.push(StaticError {
                kind: ErrorKind::UnknownTensor,
                span: arg.span,
                message: format!("`{keyword}` takes {what}"),
                hint: Some(format!("bind it first: `let t = … in let u = {keyword}({call}) in …`")),
            }),
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Grammar, parse_program};

    fn kinds(source: &str, bound: &[&str]) -> Vec<(ErrorKind, String)> {
        let program = parse_program(source, Grammar::Relaxed).unwrap();
        check_program(&program, bound).into_iter().map(|e| (e.kind, source[e.span.range()].to_string())).collect()
    }

    #[test]
    fn well_scoped_programs_pass() {
        assert!(kinds("let x = 1.0 in let y = x + 2.0 in y", &[]).is_empty());
        assert!(kinds("let t = initTensor(2) in let t[0] = 1.0 in let u = reluTensor(t) in ArgMax(u)", &[]).is_empty());
        assert!(kinds("let y = linear(W, x) in y[0]", &["W", "x"]).is_empty());
        assert!(kinds("let x = relu(3.0) in x", &[]).is_empty());
    }

    #[test]
    fn names_used_outside_their_let_are_unbound() {
        assert_eq!(kinds("(let u = initTensor(1) in 2.0) + u[0]", &[]), [(ErrorKind::UnboundIdentifier, "u".into())]);
        assert_eq!(kinds("let x = x in x", &[]), [(ErrorKind::UnboundIdentifier, "x".into())]);
        assert_eq!(kinds("let z[0] = 1.0 in 2.0", &[]), [(ErrorKind::UnboundIdentifier, "z".into())]);
    }

    #[test]
    fn targets_operands_and_outputs_are_checked() {
        assert_eq!(kinds("let 1.0 = 2.0 in 3.0", &[]), [(ErrorKind::InvalidLetTarget, "1.0".into())]);
        assert_eq!(kinds("let t[0] = initTensor(2) in 1.0", &["t"]), [(ErrorKind::InvalidLetTarget, "t[0]".into())]);
        assert_eq!(kinds("let y = reluTensor(3.0) in y", &[]), [(ErrorKind::UnknownTensor, "3.0".into())]);
        assert_eq!(kinds("let t = reluTensor(t) in t", &["t"]), [(ErrorKind::AliasedOutput, "t".into())]);
        assert_eq!(kinds("let y = linear(W, y) in y", &["W"]), [(ErrorKind::AliasedOutput, "y".into())]);
        assert_eq!(kinds("ArgMax(t[0])", &["t"]), [(ErrorKind::ArgmaxNotAVector, "t[0]".into())]);
    }

    #[test]
    fn conv2d_operands_are_names_and_zero_attributes_are_invalid() {
        assert!(kinds("let y = conv2d(x, w, b, strides = [2, 2]) in y", &["x", "w", "b"]).is_empty());
        assert_eq!(kinds("let y = conv2d(x, 1.0) in y", &["x"]), [(ErrorKind::UnknownTensor, "1.0".into())]);
        assert_eq!(kinds("let y = conv2d(x, w, y) in y", &["x", "w", "y"]), [(ErrorKind::AliasedOutput, "y".into())]);
        assert_eq!(kinds("let y = conv2d(x, v) in y", &["x"]), [(ErrorKind::UnboundIdentifier, "v".into())]);
        assert_eq!(
            kinds("let y = conv2d(x, w, dilations = [1, 0]) in y", &["x", "w"]),
            [(ErrorKind::InvalidAttribute, "conv2d(x, w, dilations = [1, 0])".into())]
        );
    }

    #[test]
    fn pool_operands_are_names_and_invalid_attributes_are_known() {
        assert!(kinds("let y = maxPool2d(x, kernel = [2, 2]) in y", &["x"]).is_empty());
        assert_eq!(
            kinds("let y = avgPool2d(2.0, kernel = [2, 2]) in y", &[]),
            [(ErrorKind::UnknownTensor, "2.0".into())]
        );
        assert_eq!(
            kinds("let y = maxPool2d(y, kernel = [1, 1]) in y", &["y"]),
            [(ErrorKind::AliasedOutput, "y".into())]
        );
        assert_eq!(
            kinds("let y = avgPool2d(x, kernel = [2, 2], countPad = 2) in y", &["x"]),
            [(ErrorKind::InvalidAttribute, "avgPool2d(x, kernel = [2, 2], countPad = 2)".into())]
        );
        assert_eq!(
            kinds("let y = maxPool2d(x, kernel = [0, 2]) in y", &["x"]),
            [(ErrorKind::InvalidAttribute, "maxPool2d(x, kernel = [0, 2])".into())]
        );
    }

    #[test]
    fn reshape_operands_are_names() {
        assert!(kinds("let y = reshape(x, 2, 3) in let z = flatten(y) in z", &["x"]).is_empty());
        assert_eq!(kinds("let y = flatten(2.0) in y", &[]), [(ErrorKind::UnknownTensor, "2.0".into())]);
        assert_eq!(kinds("let y = reshape(y, 1) in y", &["y"]), [(ErrorKind::AliasedOutput, "y".into())]);
    }

    #[test]
    fn add_tensor_operands_are_names_of_tensors_in_scope() {
        assert!(kinds("let z = addTensor(h, b) in z", &["h", "b"]).is_empty());
        assert_eq!(
            kinds("let z = addTensor(1.0, b[0]) in z", &["b"]),
            [(ErrorKind::UnknownTensor, "1.0".into()), (ErrorKind::UnknownTensor, "b[0]".into())]
        );
        assert_eq!(kinds("let b = addTensor(h, b) in b", &["h", "b"]), [(ErrorKind::AliasedOutput, "b".into())]);
        assert_eq!(kinds("let z = addTensor(h, c) in z", &["h"]), [(ErrorKind::UnboundIdentifier, "c".into())]);
    }

    #[test]
    fn every_error_is_reported_in_source_order() {
        let found = kinds("a + (let y = linear(W, x) in b)", &[]);
        let names: Vec<&str> = found.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(names, ["a", "W", "x", "b"]);
    }
}
