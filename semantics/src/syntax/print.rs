//! Programs back to source text: the inverse of the parser. Parentheses are inserted exactly
//! where K's priorities require them, floats print in the shortest form that reads back to the
//! same bits, so `parse(to_source(p)) == p` for every program `p` the parser can produce.

use super::ast::{BATCH_NORM_EPSILON, Exp, ExpKind, Func, FuncKind};
use super::elements::{Elements, Number};

/// K's priority groups, loosest first: how loosely an expression binds. A position that needs
/// a tighter one adds parentheses. Shared by the source printer and krun's term printer.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    LetFunc,
    LetExp,
    Sum,
    Product,
    Atom,
}

fn level(e: &Exp) -> Level {
    match e.kind {
        ExpKind::LetFunc { .. } => Level::LetFunc,
        ExpKind::Let { .. } => Level::LetExp,
        ExpKind::Add(..) | ExpKind::Sub(..) => Level::Sum,
        ExpKind::Mul(..) | ExpKind::Div(..) => Level::Product,
        _ => Level::Atom,
    }
}

enum Piece<'e> {
    Text(&'static str),
    Owned(String),
    Exp(&'e Exp, Level),
}

/// A float literal that K reads back as the same binary64 value.
pub fn float_literal(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "Infinity".into() } else { "-Infinity".into() }
    } else if x.is_nan() {
        "NaN".into()
    } else {
        // `{:?}` is the shortest round-trip form and always has a `.` or an exponent.
        format!("{x:?}")
    }
}

/// One element of a tensor literal as it reads back.
pub fn number_literal(n: Number) -> String {
    match n {
        Number::Int(i) => i.to_string(),
        Number::Float(x) => float_literal(x),
    }
}

/// The elements of a tensor literal, `, `-separated.
pub fn elements_text(elements: &Elements) -> String {
    let mut out = String::with_capacity(elements.len() * 8);
    for (k, n) in elements.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        out.push_str(&number_literal(n));
    }
    out
}

pub fn ints_text(ints: &[i64]) -> String {
    ints.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// The program as source text, without recursion on its depth.
pub fn to_source(exp: &Exp) -> String {
    let mut out = String::new();
    let mut stack = vec![Piece::Exp(exp, Level::LetFunc)];
    while let Some(piece) = stack.pop() {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Owned(t) => out.push_str(&t),
            Piece::Exp(e, needed) if level(e) < needed => {
                stack.extend([Piece::Text(")"), Piece::Exp(e, Level::LetFunc), Piece::Text("(")]);
            }
            Piece::Exp(e, _) => push_pieces(e, &mut stack),
        }
    }
    out
}

/// The expression as source text (the printer is a loop), with its span: a derived `Debug`
/// would recurse once per `let`.
impl std::fmt::Debug for Exp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Exp({:?} @ {:?})", to_source(self), self.span)
    }
}

/// Pushes the pieces of `e` in reverse order (the stack pops them left to right).
fn push_pieces<'e>(e: &'e Exp, stack: &mut Vec<Piece<'e>>) {
    use Piece::{Exp as P, Owned, Text};
    let mut pieces: Vec<Piece<'e>> = match &e.kind {
        ExpKind::Float(x) => vec![Owned(float_literal(*x))],
        ExpKind::Int(n) => vec![Owned(n.to_string())],
        ExpKind::Id(name) => vec![Owned(name.clone())],
        ExpKind::Index(base, ints) => vec![P(base, Level::Atom), Owned(format!("[{}]", ints_text(ints)))],
        ExpKind::Max(a, b) => vec![Text("max("), P(a, Level::LetFunc), Text(", "), P(b, Level::LetFunc), Text(")")],
        ExpKind::Min(a, b) => vec![Text("min("), P(a, Level::LetFunc), Text(", "), P(b, Level::LetFunc), Text(")")],
        ExpKind::ArgMax(a) => vec![Text("ArgMax("), P(a, Level::LetFunc), Text(")")],
        ExpKind::Mul(a, b) => vec![P(a, Level::Product), Text(" * "), P(b, Level::Atom)],
        ExpKind::Add(a, b) => vec![P(a, Level::Sum), Text(" + "), P(b, Level::Product)],
        ExpKind::Sub(a, b) => vec![P(a, Level::Sum), Text(" - "), P(b, Level::Product)],
        ExpKind::Div(a, b) => vec![P(a, Level::Product), Text(" / "), P(b, Level::Atom)],
        ExpKind::Let { target, value, body } => vec![
            Text("let "),
            P(target, Level::LetFunc),
            Text(" = "),
            P(value, Level::LetFunc),
            Text(" in "),
            P(body, Level::LetExp),
        ],
        ExpKind::LetFunc { target, func, body } => {
            let mut v = vec![Text("let "), P(target, Level::LetFunc), Text(" = ")];
            push_func(func, &mut v);
            v.extend([Text(" in "), P(body, Level::LetFunc)]);
            v
        }
    };
    pieces.reverse();
    stack.append(&mut pieces);
}

fn push_func<'e>(func: &'e Func, out: &mut Vec<Piece<'e>>) {
    out.push(Piece::Owned(format!("{}(", func.keyword())));
    match &func.kind {
        FuncKind::InitTensor(shape) => out.push(Piece::Owned(ints_text(shape))),
        FuncKind::TensorLiteral(shape, elements) => {
            out.push(Piece::Owned(format!("{})[{}]", ints_text(shape), elements_text(elements))));
            return;
        }
        FuncKind::Linear(w, x) => out.push(Piece::Owned(format!("{}, {}", w.name, x.name))),
        _ => {
            for (k, arg) in func.arguments().into_iter().enumerate() {
                if k > 0 {
                    out.push(Piece::Text(", "));
                }
                out.push(Piece::Exp(arg, Level::LetFunc));
            }
            if let FuncKind::Conv2d(.., attrs) | FuncKind::Pool2d(.., attrs) = &func.kind
                && !attrs.is_empty()
            {
                out.push(Piece::Owned(format!(", {attrs}")));
            }
            if let FuncKind::Reshape(_, Some(ints)) | FuncKind::Transpose(_, ints) = &func.kind {
                out.push(Piece::Owned(format!(", {}", ints_text(ints))));
            }
            if let FuncKind::TensorMath(_, _, axes) = &func.kind
                && !axes.is_empty()
            {
                out.push(Piece::Owned(format!(", {}", ints_text(axes))));
            }
            if let FuncKind::Concat(_, axis) = &func.kind {
                out.push(Piece::Owned(format!(", {axis}")));
            }
            if let FuncKind::Slice(_, ints) = &func.kind {
                out.push(Piece::Owned(format!(", {}", ints_text(ints))));
            }
            if let FuncKind::Pad(_, value, pads) = &func.kind {
                out.push(Piece::Owned(format!(", {}, {}", float_literal(*value), ints_text(pads))));
            }
            // Ext-14: the default epsilon is left out, as a program may leave it out.
            if let FuncKind::BatchNorm(_, epsilon) = &func.kind
                && epsilon.to_bits() != BATCH_NORM_EPSILON.to_bits()
            {
                out.push(Piece::Owned(format!(", epsilon = {}", float_literal(*epsilon))));
            }
        }
    }
    out.push(Piece::Text(")"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Grammar, parse_program};

    fn round_trip(source: &str) -> String {
        let e = parse_program(source, Grammar::K).unwrap();
        let printed = to_source(&e);
        let again = parse_program(&printed, Grammar::K).unwrap_or_else(|err| panic!("{printed}: {err}"));
        assert!(e == again, "{source} printed as {printed}");
        printed
    }

    #[test]
    fn parentheses_only_where_priorities_need_them() {
        assert_eq!(round_trip("a*(b+c)"), "a * (b + c)");
        assert_eq!(round_trip("(a*b)+c"), "a * b + c");
        assert_eq!(round_trip("a+(b+c)"), "a + (b + c)");
        assert_eq!(round_trip("(a+b)+c"), "a + b + c");
        assert_eq!(round_trip("(a + b)[0, 1]"), "(a + b)[0, 1]");
        assert_eq!(
            round_trip("let t = initTensor(2) in let t[0] = 1.0 in (let u = reluTensor(t) in u[0])"),
            "let t = initTensor(2) in let t[0] = 1.0 in (let u = reluTensor(t) in u[0])"
        );
        assert_eq!(round_trip("1.0 + (let x = 1.0 in x)"), "1.0 + (let x = 1.0 in x)");
    }

    #[test]
    fn add_tensor_round_trips_in_the_relaxed_grammar() {
        // Operands are free positions, like the arguments of `max`: no parentheses needed.
        for (source, expected) in [
            ("let z = addTensor(h, b) in z", "let z = addTensor(h, b) in z"),
            (
                "let z = addTensor(1.0+2.0, (let x = 1.0 in x)) in z",
                "let z = addTensor(1.0 + 2.0, let x = 1.0 in x) in z",
            ),
        ] {
            let e = parse_program(source, Grammar::Relaxed).unwrap();
            let printed = to_source(&e);
            assert_eq!(printed, expected);
            assert!(parse_program(&printed, Grammar::Relaxed).unwrap() == e);
        }
    }

    #[test]
    fn conv2d_round_trips_with_its_attributes_as_written() {
        for (source, expected) in [
            ("let y = conv2d(x, w) in y", "let y = conv2d(x, w) in y"),
            ("let y = conv2d(x,w,b) in y", "let y = conv2d(x, w, b) in y"),
            (
                "let y = conv2d(x, w, group=2, strides=[2,1]) in y",
                "let y = conv2d(x, w, group = 2, strides = [2, 1]) in y",
            ),
            (
                "let y = conv2d(x, w, b, pads = [1, 0, 1, 0], dilations = [2, 2]) in y",
                "let y = conv2d(x, w, b, pads = [1, 0, 1, 0], dilations = [2, 2]) in y",
            ),
        ] {
            let e = parse_program(source, Grammar::Relaxed).unwrap();
            let printed = to_source(&e);
            assert_eq!(printed, expected);
            assert!(parse_program(&printed, Grammar::Relaxed).unwrap() == e);
        }
        // The attributes are compared: another stride is another program.
        let a = parse_program("let y = conv2d(x, w, strides = [2, 2]) in y", Grammar::Relaxed).unwrap();
        let b = parse_program("let y = conv2d(x, w, strides = [2, 1]) in y", Grammar::Relaxed).unwrap();
        assert!(a != b);
    }

    #[test]
    fn pools_round_trip_with_their_attributes_as_written() {
        for (source, expected) in [
            ("let y = maxPool2d(x,kernel=[2,2]) in y", "let y = maxPool2d(x, kernel = [2, 2]) in y"),
            (
                "let y = avgPool2d(x, pads = [1, 1, 0, 0], kernel = [3, 1], countPad = 1) in y",
                "let y = avgPool2d(x, pads = [1, 1, 0, 0], kernel = [3, 1], countPad = 1) in y",
            ),
        ] {
            let e = parse_program(source, Grammar::Relaxed).unwrap();
            let printed = to_source(&e);
            assert_eq!(printed, expected);
            assert!(parse_program(&printed, Grammar::Relaxed).unwrap() == e);
        }
        let a = parse_program("let y = maxPool2d(x, kernel = [2, 2]) in y", Grammar::Relaxed).unwrap();
        let b = parse_program("let y = avgPool2d(x, kernel = [2, 2]) in y", Grammar::Relaxed).unwrap();
        assert!(a != b);
    }

    #[test]
    fn reshape_and_flatten_round_trip() {
        for (source, expected) in [
            ("let y = reshape(x,2,3) in y", "let y = reshape(x, 2, 3) in y"),
            ("let y = flatten( x ) in y", "let y = flatten(x) in y"),
        ] {
            let e = parse_program(source, Grammar::Relaxed).unwrap();
            let printed = to_source(&e);
            assert_eq!(printed, expected);
            assert!(parse_program(&printed, Grammar::Relaxed).unwrap() == e);
        }
        let a = parse_program("let y = reshape(x, 6) in y", Grammar::Relaxed).unwrap();
        assert!(a != parse_program("let y = flatten(x) in y", Grammar::Relaxed).unwrap());
        assert!(a != parse_program("let y = reshape(x, 6, 1) in y", Grammar::Relaxed).unwrap());
    }

    #[test]
    fn transpose_round_trips() {
        let e = parse_program("let y = transpose( x,1 ,0) in y", Grammar::Relaxed).unwrap();
        let printed = to_source(&e);
        assert_eq!(printed, "let y = transpose(x, 1, 0) in y");
        assert!(parse_program(&printed, Grammar::Relaxed).unwrap() == e);
        let other = parse_program("let y = transpose(x, 0, 1) in y", Grammar::Relaxed).unwrap();
        assert!(e != other, "the axes are part of the function");
        assert!(other != parse_program("let y = reshape(x, 0, 1) in y", Grammar::Relaxed).unwrap());
    }

    #[test]
    fn tensor_math_round_trips() {
        for (written, printed) in [
            ("let y = expTensor( x ) in y", "let y = expTensor(x) in y"),
            ("let y = logTensor(x) in y", "let y = logTensor(x) in y"),
            ("let y = softmax(x,1) in y", "let y = softmax(x, 1) in y"),
            ("let y = logSoftmax(x, 0) in y", "let y = logSoftmax(x, 0) in y"),
            ("let y = reduceSum(x, 0,2) in y", "let y = reduceSum(x, 0, 2) in y"),
            ("let y = reduceMean(x, 1) in y", "let y = reduceMean(x, 1) in y"),
            ("let y = reduceMax(x, 1, 0) in y", "let y = reduceMax(x, 1, 0) in y"),
            ("let y = reduceMin(x, 0) in y", "let y = reduceMin(x, 0) in y"),
        ] {
            let e = parse_program(written, Grammar::Relaxed).unwrap();
            assert_eq!(to_source(&e), printed);
            assert!(parse_program(printed, Grammar::Relaxed).unwrap() == e);
        }
        let sum = parse_program("let y = reduceSum(x, 0) in y", Grammar::Relaxed).unwrap();
        assert!(sum != parse_program("let y = reduceMean(x, 0) in y", Grammar::Relaxed).unwrap());
        assert!(sum != parse_program("let y = reduceSum(x, 1) in y", Grammar::Relaxed).unwrap());
    }

    #[test]
    fn concat_round_trips() {
        let e = parse_program("let y = concat( a,1 ,b,0) in y", Grammar::Relaxed).unwrap();
        let printed = to_source(&e);
        assert_eq!(printed, "let y = concat(a, 1, b, 0) in y");
        assert!(parse_program(&printed, Grammar::Relaxed).unwrap() == e);
        let other = parse_program("let y = concat(a, 1, b, 1) in y", Grammar::Relaxed).unwrap();
        assert!(e != other, "the axis is part of the function");
    }

    #[test]
    fn pad_round_trips() {
        let e = parse_program("let y = pad( x,-0.0 ,1,0 ,2, 3) in y", Grammar::Relaxed).unwrap();
        let printed = to_source(&e);
        assert_eq!(printed, "let y = pad(x, -0.0, 1, 0, 2, 3) in y");
        assert!(parse_program(&printed, Grammar::Relaxed).unwrap() == e);
        let zero = parse_program("let y = pad(x, 0.0, 1, 0, 2, 3) in y", Grammar::Relaxed).unwrap();
        assert!(e != zero, "the value is part of the function, -0.0 is not 0.0");
        assert!(zero != parse_program("let y = pad(x, 0.0, 1, 0, 3, 2) in y", Grammar::Relaxed).unwrap());
    }

    #[test]
    fn batch_norm_round_trips_with_its_epsilon() {
        let e = parse_program("let y = batchNorm( x,s , b,m,v ,epsilon=0.5) in y", Grammar::Relaxed).unwrap();
        let printed = to_source(&e);
        assert_eq!(printed, "let y = batchNorm(x, s, b, m, v, epsilon = 0.5) in y");
        assert!(parse_program(&printed, Grammar::Relaxed).unwrap() == e);
        // ONNX's default `1e-05` is left out, and reads back as itself.
        let default = parse_program("let y = batchNorm(x, s, b, m, v, epsilon = 0.00001) in y", Grammar::Relaxed);
        let default = default.unwrap();
        assert_eq!(to_source(&default), "let y = batchNorm(x, s, b, m, v) in y");
        assert!(parse_program("let y = batchNorm(x, s, b, m, v) in y", Grammar::Relaxed).unwrap() == default);
        assert!(e != default, "the epsilon is part of the function");
    }

    #[test]
    fn floats_read_back_bit_for_bit() {
        for x in [0.1, -0.0, 1e300, 5e-324, -2.5, f64::INFINITY, f64::NEG_INFINITY] {
            let printed = round_trip(&float_literal(x));
            let e = parse_program(&printed, Grammar::K).unwrap();
            assert!(matches!(e.kind, ExpKind::Float(y) if y.to_bits() == x.to_bits()), "{x}");
        }
        round_trip("NaN");
    }
}
