//! Unit tests of the parser for the extensions Ext-11 … Ext-15 (`concat`, `slice`, `pad`,
//! `batchNorm`, `matmul`): relaxed grammar only, read back as written.

use super::*;
use crate::syntax::print::to_source;

fn parse(source: &str) -> Exp {
    parse_program(source, Grammar::K).unwrap_or_else(|e| panic!("{source}: {e}"))
}

fn error(source: &str) -> SyntaxError {
    parse_program(source, Grammar::K).expect_err(source)
}

#[test]
fn concat_takes_operands_then_an_int_axis() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let source = "let y = concat(a, b, c, 1) in y";
    let e = relaxed(source).unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    let FuncKind::Concat(xs, axis) = &func.kind else { panic!("{func:?}") };
    let names: Vec<&str> = xs.iter().map(|x| if let ExpKind::Id(x) = &x.kind { x.as_str() } else { "?" }).collect();
    assert_eq!((names, *axis), (vec!["a", "b", "c"], 1));
    assert_eq!(&source[func.span.range()], "concat(a, b, c, 1)");
    // An Int literal followed by `,` is an operand (an error when it runs), the last one the axis.
    let e = relaxed("let y = concat(a, 2, 0) in y").unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(matches!(&func.kind, FuncKind::Concat(xs, 0) if xs.len() == 2 && matches!(xs[1].kind, ExpKind::Int(2))));
    let message = |source: &str| relaxed(source).unwrap_err().to_string();
    assert!(message("let y = concat(a) in y").contains("`,`"), "an axis is required");
    assert!(message("let y = concat(a, b) in y").contains("`,`"), "the last argument is the axis");
    // K's grammar reads `concat` as an identifier.
    assert!(error("let y = concat(a, b, 0) in y").message.contains("unexpected `(`"));
    assert!(matches!(parse("let concat = 1.0 in concat").kind, ExpKind::Let { .. }));
}

#[test]
fn slice_takes_an_operand_and_three_or_four_ints() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let source = "let y = slice(x, 1, 0, 4, 2) in y";
    let e = relaxed(source).unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(matches!(&func.kind, FuncKind::Slice(_, ints) if ints == &[1, 0, 4, 2]));
    assert_eq!(&source[func.span.range()], "slice(x, 1, 0, 4, 2)");
    assert!(relaxed("let y = slice(x, 0, 1, 2) in y").is_ok());
    let message = |source: &str| relaxed(source).unwrap_err().to_string();
    assert!(message("let y = slice(x, 0, 1) in y").contains("3 or 4 Ints"));
    assert!(message("let y = slice(x, 0, 1, 2, 1, 1) in y").contains("3 or 4 Ints"));
    assert!(error("let y = slice(x, 0, 1, 2) in y").message.contains("unexpected `(`"));
    assert!(matches!(parse("let slice = 1.0 in slice").kind, ExpKind::Let { .. }));
}

#[test]
fn pad_takes_an_operand_a_float_and_its_pads() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let source = "let y = pad(x, -1.5, 1, 0, 2, 3) in y";
    let e = relaxed(source).unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(
        matches!(&func.kind, FuncKind::Pad(x, v, p) if matches!(&x.kind, ExpKind::Id(x) if x == "x") && *v == -1.5 && p == &[1, 0, 2, 3])
    );
    assert_eq!(&source[func.span.range()], "pad(x, -1.5, 1, 0, 2, 3)");
    let message = |source: &str| relaxed(source).unwrap_err().to_string();
    assert!(message("let y = pad(x) in y").contains("`,`"));
    assert!(message("let y = pad(x, 0, 1, 1) in y").contains("a float literal"), "the value is a Float");
    assert!(message("let y = pad(x, 0.0) in y").contains("`,`"));
    // A negative pad (a crop in ONNX) cannot be written: `-1` is the Float `-1.0`.
    assert!(message("let y = pad(x, 0.0, -1, 1) in y").contains("an integer literal"));
    // K's grammar reads `pad` as an identifier.
    assert!(error("let y = pad(x, 0.0, 1, 1) in y").message.contains("unexpected `(`"));
    assert!(matches!(parse("let pad = 1.0 in pad").kind, ExpKind::Let { .. }));
}

/// Ext-15: `matmul(E, E)` reads like `addTensor`, in the relaxed grammar only, and prints back.
#[test]
fn matmul_takes_two_operands() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let source = "let c = matmul(a, b) in c";
    let e = relaxed(source).unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    let FuncKind::Matmul(a, b) = &func.kind else { panic!("{func:?}") };
    assert!(matches!((&a.kind, &b.kind), (ExpKind::Id(a), ExpKind::Id(b)) if a == "a" && b == "b"));
    assert_eq!(&source[func.span.range()], "matmul(a, b)");
    assert_eq!(to_source(&e), source);
    assert!(error(source).message.contains("unexpected `(`"));
    assert!(relaxed("let c = matmul(a) in c").unwrap_err().expected.contains(&"`,`".to_string()));
    assert!(relaxed("matmul(a, b)").unwrap_err().message.contains("is a function"));
}

#[test]
fn batch_norm_takes_five_operands_and_an_optional_float_epsilon() {
    let relaxed = |source: &str| parse_program(source, Grammar::Relaxed);
    let epsilon_of = |source: &str| {
        let e = relaxed(source).unwrap_or_else(|e| panic!("{source}: {e}"));
        let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
        let FuncKind::BatchNorm(xs, epsilon) = &func.kind else { panic!("{func:?}") };
        let names: Vec<&str> = xs.iter().map(|x| if let ExpKind::Id(x) = &x.kind { x.as_str() } else { "?" }).collect();
        assert_eq!(names, ["x", "s", "b", "m", "v"]);
        *epsilon
    };
    assert_eq!(epsilon_of("let y = batchNorm(x, s, b, m, v, epsilon = 0.001) in y"), 0.001);
    assert_eq!(epsilon_of("let y = batchNorm(x, s, b, m, v) in y"), 1e-5, "ONNX's default");
    let source = "let y = batchNorm(x, s, b, m, v, epsilon = 1e-3) in y";
    let e = relaxed(source).unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert_eq!(&source[func.span.range()], "batchNorm(x, s, b, m, v, epsilon = 1e-3)");
    // An operand that is not a name parses (it is `unknown-tensor` when it runs).
    let e = relaxed("let y = batchNorm(x, 1.0, b, m, v) in y").unwrap();
    let ExpKind::LetFunc { func, .. } = &e.kind else { panic!("{e:?}") };
    assert!(matches!(&func.kind, FuncKind::BatchNorm(xs, _) if matches!(xs[1].kind, ExpKind::Float(_))));
    let message = |source: &str| relaxed(source).unwrap_err().to_string();
    assert!(message("let y = batchNorm(x, s, b, m) in y").contains("`,`"), "five operands");
    assert!(message("let y = batchNorm(x, s, b, m, v, w) in y").contains("`epsilon`"), "not six");
    assert!(message("let y = batchNorm(x, s, b, m, v, epsilon = 1) in y").contains("a float literal"));
    assert!(message("let y = batchNorm(x, s, b, m, v, eps = 0.1) in y").contains("`epsilon`"));
    // K's grammar reads `batchNorm` as an identifier.
    assert!(error("let y = batchNorm(x, s, b, m, v) in y").message.contains("unexpected `(`"));
    assert!(matches!(parse("let batchNorm = 1.0 in batchNorm").kind, ExpKind::Let { .. }));
}
