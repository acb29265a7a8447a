//! Unit tests of the parser.

use super::*;
use crate::syntax::print::to_source;
use crate::syntax::{AttrName, Pool, TensorMath};

fn parse(source: &str) -> Exp {
    parse_program(source, Grammar::K).unwrap_or_else(|e| panic!("{source}: {e}"))
}

fn shape(source: &str) -> String {
    to_source(&parse(source))
}

fn error(source: &str) -> SyntaxError {
    parse_program(source, Grammar::K).expect_err(source)
}

#[test]
fn products_bind_tighter_than_sums_and_both_associate_left() {
    assert_eq!(shape("a * b + c"), "a * b + c");
    assert!(matches!(parse("a * b + c").kind, ExpKind::Add(..)));
    assert!(matches!(parse("a + b * c").kind, ExpKind::Add(_, ref r) if matches!(r.kind, ExpKind::Mul(..))));
    assert!(matches!(parse("a + b + c").kind, ExpKind::Add(ref l, _) if matches!(l.kind, ExpKind::Add(..))));
    assert!(matches!(parse("a * (b + c)").kind, ExpKind::Mul(_, ref r) if matches!(r.kind, ExpKind::Add(..))));
    assert!(matches!(parse("2.0*u[1,2]").kind, ExpKind::Mul(_, ref r) if matches!(r.kind, ExpKind::Index(..))));
}

#[test]
fn let_bodies_extend_as_far_as_possible() {
    let e = parse("let x = 1.0 in x + 2.0");
    let ExpKind::Let { body, .. } = &e.kind else { panic!() };
    assert!(matches!(body.kind, ExpKind::Add(..)));
    assert!(matches!(parse("let x = let y = 1.0 in y in x").kind, ExpKind::Let { .. }));
}

#[test]
fn let_func_may_nest_in_let_func_but_not_in_let_exp_bodies() {
    parse("let x = initTensor(2) in let W = initTensor(2, 2) in W[0, 1]");
    parse("let t = initTensor(1) in let t[0] = 1.0 in (let u = reluTensor(t) in u[0])");
    let err = error("let t = initTensor(1) in let t[0] = 1.0 in let u = reluTensor(t) in u[0]");
    assert!(err.message.contains("cannot be the body"), "{err}");
    assert!(err.hint.unwrap().contains("parentheses"));
    let relaxed =
        parse_program("let t = initTensor(1) in let t[0] = 1.0 in let u = reluTensor(t) in u[0]", Grammar::Relaxed);
    assert!(relaxed.is_ok());
}

#[test]
fn lets_are_not_operands_without_parentheses() {
    assert!(error("1.0 + let x = 1.0 in x").message.contains("cannot be an operand"));
    parse("1.0 + (let x = 1.0 in x)");
    assert!(error("(a + b)[0] + c [").message.contains("unexpected"));
    parse("(a + b)[0]");
}

#[test]
fn signed_float_after_an_operand_is_an_error_with_a_hint() {
    let err = error("1.0+2.0");
    assert!(err.hint.as_deref().unwrap_or("").contains("write `+ 2.0`"), "{err:?}");
    let e = parse_program("1.0+2.0", Grammar::Relaxed).unwrap();
    assert!(matches!(e.kind, ExpKind::Add(..)));
    assert!(error("x +1.0").message.contains("unexpected float `+1.0`"));
}

#[test]
fn an_unexpected_token_is_named_by_its_kind_and_text() {
    assert_eq!(error("ArgMax(t) 2").message, "unexpected integer `2`");
    assert_eq!(error("x y").message, "unexpected identifier `y`");
    assert_eq!(error("x in").message, "unexpected `in`");
    assert_eq!(error("x )").message, "unexpected `)`");
    assert_eq!(error("let x = ").message, "unexpected end of program");
}

#[test]
fn indices_and_shapes_are_integer_literals() {
    assert!(error("t[-1]").hint.unwrap().contains("negative"));
    assert!(error("t[i]").hint.unwrap().contains("no computed indices"));
    assert!(error("let t = initTensor(2.0) in t").hint.unwrap().contains("not floats"));
    assert!(error("let t = initTensor(-1) in t").hint.unwrap().contains("negative"));
}

#[test]
fn functions_only_on_the_right_of_a_let() {
    assert!(error("relu(3.0) + 1.0").message.contains("is a function"));
    assert!(error("let y = linear(W, 1.0) in y").message.contains("unexpected"));
    parse("let x = relu(3.0) in x");
    parse("let y = linear(W, x) in y[0]");
}

#[test]
fn add_tensor_is_a_function_of_the_relaxed_grammar_only() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let e = relaxed("let z = addTensor(h, b) in z").unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    let FuncKind::AddTensor(a, b) = &func.kind else { panic!("{func:?}") };
    assert!(matches!((&a.kind, &b.kind), (ExpKind::Id(a), ExpKind::Id(b)) if a == "h" && b == "b"));
    assert_eq!(&"let z = addTensor(h, b) in z"[func.span.range()], "addTensor(h, b)");
    // Operands are expressions, as for reluTensor: the rules say which are tensors.
    relaxed("let z = addTensor(1.0, t[0] + 2.0) in z").unwrap();
    assert!(relaxed("let z = addTensor(h) in z").unwrap_err().expected.contains(&"`,`".to_string()));
    assert!(relaxed("addTensor(h, b)").unwrap_err().message.contains("is a function"));
    // K's grammar has no addTensor: it is an identifier, and a call of it does not parse.
    let err = error("let z = addTensor(h, b) in z");
    assert!(err.message.contains("unexpected `(`"), "{err}");
    assert!(matches!(parse("let addTensor = 1.0 in addTensor").kind, ExpKind::Let { .. }));
}

#[test]
fn conv2d_takes_two_or_three_operands_then_attributes() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let source = "let y = conv2d(x, w, b, strides = [2, 1], group = 2) in y";
    let e = relaxed(source).unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    let FuncKind::Conv2d(_, _, Some(b), attrs) = &func.kind else { panic!("{func:?}") };
    assert!(matches!(&b.kind, ExpKind::Id(b) if b == "b"));
    assert_eq!(attrs.get(AttrName::Strides), Some(&[2, 1][..]));
    assert_eq!(attrs.get(AttrName::Group), Some(&[2][..]));
    assert_eq!(&source[func.span.range()], "conv2d(x, w, b, strides = [2, 1], group = 2)");
    let e = relaxed("let y = conv2d(x, w, pads = [0, 1, 0, 1]) in y").unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(matches!(&func.kind, FuncKind::Conv2d(_, _, None, a) if a.get(AttrName::Pads) == Some(&[0, 1, 0, 1][..])));
    // Attribute names are not reserved: `group` is an operand when no `=` follows.
    let e = relaxed("let group = 1.0 in let y = conv2d(x, w, group) in y").unwrap();
    let ExpKind::Let { body, .. } = &e.kind else { panic!("{e:?}") };
    let ExpKind::LetFunc { func, .. } = &body.kind else { panic!("{body:?}") };
    assert!(matches!(&func.kind, FuncKind::Conv2d(_, _, Some(_), a) if a.is_empty()));
    let message = |source: &str| relaxed(source).unwrap_err().to_string();
    assert!(message("let y = conv2d(x) in y").contains("`,`"));
    assert!(message("let y = conv2d(x, w, b, c) in y").contains("an attribute"));
    assert!(message("let y = conv2d(x, w, strides = [2]) in y").contains("has 2 values, not 1"));
    assert!(message("let y = conv2d(x, w, group = 1, group = 2) in y").contains("given twice"));
    assert!(message("let y = conv2d(x, w, kernel = [2, 2]) in y").contains("an attribute"));
    assert!(message("let y = conv2d(x, w, strides = [2, 2], b) in y").contains("an attribute"));
    // K's grammar has no conv2d.
    assert!(error("let y = conv2d(x, w) in y").message.contains("unexpected `(`"));
    assert!(matches!(parse("let conv2d = 1.0 in conv2d").kind, ExpKind::Let { .. }));
}

#[test]
fn pools_take_one_operand_then_their_attributes_kernel_required() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let source = "let y = maxPool2d(x, kernel = [2, 3], strides = [2, 2], dilations = [1, 2]) in y";
    let e = relaxed(source).unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    let FuncKind::Pool2d(Pool::Max, x, attrs) = &func.kind else { panic!("{func:?}") };
    assert!(matches!(&x.kind, ExpKind::Id(x) if x == "x"));
    assert_eq!(attrs.get(AttrName::Kernel), Some(&[2, 3][..]));
    assert_eq!(attrs.get(AttrName::Dilations), Some(&[1, 2][..]));
    assert_eq!(&source[func.span.range()], "maxPool2d(x, kernel = [2, 3], strides = [2, 2], dilations = [1, 2])");
    let e = relaxed("let y = avgPool2d(x, countPad = 1, kernel = [1, 1]) in y").unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(matches!(&func.kind, FuncKind::Pool2d(Pool::Avg, _, a) if a.get(AttrName::CountPad) == Some(&[1][..])));
    let message = |source: &str| relaxed(source).unwrap_err().to_string();
    assert!(message("let y = maxPool2d(x) in y").contains("needs its window"));
    assert!(message("let y = avgPool2d(x, strides = [1, 1]) in y").contains("needs its window"));
    assert!(message("let y = maxPool2d(x, w, kernel = [2, 2]) in y").contains("an attribute"));
    // Each pool has its own attributes: no `countPad` for max, no `dilations` for the average.
    assert!(message("let y = maxPool2d(x, kernel = [2, 2], countPad = 1) in y").contains("an attribute"));
    assert!(message("let y = avgPool2d(x, kernel = [2, 2], dilations = [2, 2]) in y").contains("an attribute"));
    assert!(message("let y = conv2d(x, w, countPad = 1) in y").contains("an attribute"));
    assert!(message("let y = avgPool2d(x, kernel = [2]) in y").contains("has 2 values, not 1"));
    // K's grammar has no pools.
    assert!(error("let y = maxPool2d(x, kernel = [2, 2]) in y").message.contains("unexpected `(`"));
    assert!(matches!(parse("let avgPool2d = 1.0 in avgPool2d").kind, ExpKind::Let { .. }));
}

#[test]
fn tensor_is_an_ordinary_name_and_targets_are_free() {
    parse("let tensor = initTensor(2) in tensor[1]");
    parse("let 1.0 = 2.0 in 1.0");
    parse("let (t)[0] = 1.0 in t[0]");
}

#[test]
fn spans_cover_the_source() {
    let source = "let x = 1.0 in max(x, 2.0)";
    let e = parse(source);
    assert_eq!(e.span.range(), 0..source.len());
    let ExpKind::Let { body, .. } = &e.kind else { panic!() };
    assert_eq!(&source[body.span.range()], "max(x, 2.0)");
}

#[test]
fn error_positions_and_expectations() {
    let source = "let x = 1.0\nx";
    let err = error(source);
    assert_eq!(err.line_col(source), (2, 1));
    assert_eq!(err.expected, vec!["`in`"]);
    let err = error("let x = 1.0 in");
    assert!(err.message.contains("unexpected end of program"), "{err}");
    assert_eq!(err.expected, vec!["an expression"]);
    assert!(error("max(1.0 2.0)").expected.contains(&"`,`".to_string()));
}

#[test]
fn deep_programs_parse_without_recursion() {
    let mut source = String::new();
    for i in 0..100_000 {
        source.push_str(&format!("let x{i} = 1.0 in "));
    }
    source.push_str("x0");
    let e = parse(&source);
    assert_eq!(e.size(), 300_001);
    let mut parens = "(".repeat(50_000);
    parens.push('1');
    parens.push_str(&")".repeat(50_000));
    assert!(matches!(parse(&parens).kind, ExpKind::Int(1)));
}

#[test]
fn reshape_takes_an_operand_and_dimensions_flatten_an_operand() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let source = "let y = reshape(x, 3, 1, 2) in y";
    let e = relaxed(source).unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(
        matches!(&func.kind, FuncKind::Reshape(x, Some(d)) if matches!(&x.kind, ExpKind::Id(x) if x == "x") && d == &[3, 1, 2])
    );
    assert_eq!(&source[func.span.range()], "reshape(x, 3, 1, 2)");
    let e = relaxed("let y = flatten(x) in y").unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(matches!(&func.kind, FuncKind::Reshape(_, None)));
    let message = |source: &str| relaxed(source).unwrap_err().to_string();
    assert!(message("let y = reshape(x) in y").contains("`,`"));
    assert!(message("let y = reshape(x, 2.0) in y").contains("an integer literal"));
    assert!(message("let y = flatten(x, 2) in y").contains("`)`"));
    // K's grammar has neither.
    assert!(error("let y = reshape(x, 2) in y").message.contains("unexpected `(`"));
    assert!(error("let y = flatten(x) in y").message.contains("unexpected `(`"));
    assert!(matches!(parse("let flatten = 1.0 in flatten").kind, ExpKind::Let { .. }));
}

#[test]
fn transpose_takes_an_operand_and_its_axes() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let source = "let y = transpose(x, 2, 0, 1) in y";
    let e = relaxed(source).unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(
        matches!(&func.kind, FuncKind::Transpose(x, p) if matches!(&x.kind, ExpKind::Id(x) if x == "x") && p == &[2, 0, 1])
    );
    assert_eq!(&source[func.span.range()], "transpose(x, 2, 0, 1)");
    let message = |source: &str| relaxed(source).unwrap_err().to_string();
    assert!(message("let y = transpose(x) in y").contains("`,`"));
    assert!(message("let y = transpose(x, 1.0) in y").contains("an integer literal"));
    // K's grammar reads `transpose` as an identifier.
    assert!(error("let y = transpose(x, 1, 0) in y").message.contains("unexpected `(`"));
    assert!(matches!(parse("let transpose = 1.0 in transpose").kind, ExpKind::Let { .. }));
}

/// Ext-7: `-` with the priority of `+`, `/` with that of `*`, both left-associative, in the
/// relaxed grammar only; a signed Float after an operand is split as `1.0+2.0` is.
#[test]
fn subtraction_and_division_parse_in_the_relaxed_grammar_only() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed).unwrap_or_else(|e| panic!("{source}: {e}"));
    let sub_of = |source: &str| match &relaxed(source).kind {
        ExpKind::Sub(a, b) => (to_source(a), to_source(b)),
        other => panic!("{source}: not a subtraction: {other:?}"),
    };
    assert_eq!(sub_of("x - 1.0"), ("x".into(), "1.0".into()));
    assert_eq!(sub_of("x-1.0"), ("x".into(), "1.0".into()));
    assert_eq!(sub_of("x - -1.0"), ("x".into(), "-1.0".into()));
    assert_eq!(sub_of("x--1.0"), ("x".into(), "-1.0".into()));
    assert_eq!(sub_of("2.0-1.0"), ("2.0".into(), "1.0".into()));
    assert_eq!(sub_of("x-Infinity"), ("x".into(), "Infinity".into()));
    // The scanner reads `-1` as a Float (K's float regex), so `x-1` subtracts the Float `1.0`.
    assert!(matches!(relaxed("x-1").kind, ExpKind::Sub(_, ref b) if matches!(b.kind, ExpKind::Float(1.0))));
    assert!(matches!(relaxed("x - 1").kind, ExpKind::Sub(_, ref b) if matches!(b.kind, ExpKind::Int(1))));
    // Left associative, `-` at the level of `+`, `/` at that of `*`.
    assert_eq!(sub_of("a - b - c"), ("a - b".into(), "c".into()));
    assert_eq!(sub_of("a - b * c"), ("a".into(), "b * c".into()));
    assert_eq!(sub_of("a / b - c"), ("a / b".into(), "c".into()));
    assert_eq!(sub_of("a-1.0*2.0"), ("a".into(), "1.0 * 2.0".into()));
    assert!(matches!(relaxed("a + b - c").kind, ExpKind::Sub(ref l, _) if matches!(l.kind, ExpKind::Add(..))));
    assert!(matches!(relaxed("a - b + c").kind, ExpKind::Add(ref l, _) if matches!(l.kind, ExpKind::Sub(..))));
    assert!(matches!(relaxed("a / b / c").kind, ExpKind::Div(ref l, _) if matches!(l.kind, ExpKind::Div(..))));
    assert!(matches!(relaxed("a * b / c").kind, ExpKind::Div(ref l, _) if matches!(l.kind, ExpKind::Mul(..))));
    assert!(matches!(relaxed("a + b / c").kind, ExpKind::Add(_, ref r) if matches!(r.kind, ExpKind::Div(..))));
    assert!(matches!(relaxed("x/-2.0").kind, ExpKind::Div(_, ref r) if matches!(r.kind, ExpKind::Float(-2.0))));
    // `//` and `/*` still start comments.
    assert!(matches!(relaxed("a // b\n").kind, ExpKind::Id(_)));
    // The printer adds the parentheses the priorities need, and the text reads back.
    for source in ["a - (b - c)", "a / (b / c)", "a / (b * c)", "(a - b) * c", "a - -1.0", "t[0] / 2 - 1"] {
        assert_eq!(to_source(&relaxed(source)), source);
    }
    // No unary minus.
    let err = parse_program("-x", Grammar::Relaxed).unwrap_err();
    assert!(err.hint.as_deref().unwrap_or("").contains("no unary minus"), "{err:?}");
    // The K grammar is unchanged: `-` and `/` are K's lexical errors, a signed Float after an
    // operand its parse error.
    assert_eq!(error("x - 1.0").message, "unexpected character `-`");
    assert_eq!(error("x / 2.0").message, "unexpected character `/`");
    assert_eq!(error("x-1.0").message, "unexpected float `-1.0`");
}

/// Ext-8: `subTensor`, `mulTensor`, `divTensor` read like `addTensor`, in the relaxed grammar
/// only, and print back.
#[test]
fn tensor_arithmetic_functions_take_two_operands() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    for (source, op) in [
        ("let z = subTensor(h, b) in z", TensorOp::Sub),
        ("let z = mulTensor(h, b) in z", TensorOp::Mul),
        ("let z = divTensor(h, b[0]) in z", TensorOp::Div),
    ] {
        let e = relaxed(source).unwrap();
        let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
        assert!(matches!(func.kind, FuncKind::TensorArith(o, ..) if o == op), "{source}");
        assert_eq!(to_source(&e), source);
        // K's grammar reads the keyword as an identifier: a call of it does not parse.
        assert!(error(source).message.contains("unexpected `(`"), "{source}");
    }
    assert!(relaxed("let z = mulTensor(h) in z").unwrap_err().expected.contains(&"`,`".to_string()));
    assert!(relaxed("divTensor(h, b)").unwrap_err().message.contains("is a function"));
}

#[test]
fn tensor_math_takes_an_operand_and_its_axes() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let e = relaxed("let y = softmax(x, 1) in y").unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(matches!(&func.kind, FuncKind::TensorMath(TensorMath::Softmax, _, a) if a == &[1]));
    let e = relaxed("let y = reduceMax(x, 2, 0) in y").unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(matches!(&func.kind, FuncKind::TensorMath(TensorMath::ReduceMax, _, a) if a == &[2, 0]));
    let e = relaxed("let y = expTensor(x) in y").unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(matches!(&func.kind, FuncKind::TensorMath(TensorMath::ExpTensor, _, a) if a.is_empty()));
    let message = |source: &str| relaxed(source).unwrap_err().to_string();
    assert!(message("let y = softmax(x) in y").contains("`,`"));
    assert!(message("let y = softmax(x, 0, 1) in y").contains("takes one axis"));
    assert!(message("let y = logTensor(x, 0) in y").contains("`)`"));
    assert!(message("let y = reduceSum(x) in y").contains("`,`"));
    assert!(message("let y = reduceSum(x, -1) in y").contains("an integer literal"));
    // K's grammar reads them as identifiers.
    assert!(error("let y = softmax(x, 0) in y").message.contains("unexpected `(`"));
    assert!(matches!(parse("let reduceSum = 1.0 in reduceSum").kind, ExpKind::Let { .. }));
}
