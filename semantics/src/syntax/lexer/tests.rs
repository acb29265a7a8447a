//! The lexer's unit tests: token kinds, values and spans, layout, the scanner's refusals.

use super::*;

fn kinds(source: &str) -> Vec<TokenKind> {
    tokenize(source).unwrap().into_iter().map(|t| t.kind).collect()
}

/// The names of the identifier tokens: their text in the source.
fn ids(source: &str) -> Vec<&str> {
    tokenize(source).unwrap().into_iter().filter(|t| t.kind == TokenKind::Id).map(|t| &source[t.span.range()]).collect()
}

#[test]
fn ints_and_floats_follow_k_precedence() {
    assert_eq!(kinds("1"), vec![TokenKind::Int(1), TokenKind::Eof]);
    assert_eq!(kinds("1.0"), vec![TokenKind::Float(1.0), TokenKind::Eof]);
    assert_eq!(kinds("1."), vec![TokenKind::Float(1.0), TokenKind::Eof]);
    assert_eq!(kinds(".5"), vec![TokenKind::Float(0.5), TokenKind::Eof]);
    assert_eq!(kinds("-1"), vec![TokenKind::Float(-1.0), TokenKind::Eof]);
    assert_eq!(kinds("+2"), vec![TokenKind::Float(2.0), TokenKind::Eof]);
    assert_eq!(kinds("1e3"), vec![TokenKind::Float(1000.0), TokenKind::Eof]);
    assert_eq!(kinds("2.5E-1d"), vec![TokenKind::Float(0.25), TokenKind::Eof]);
    assert_eq!(kinds("3p53x11"), vec![TokenKind::Float(3.0), TokenKind::Eof]);
    assert_eq!(kinds("1.0+2.0"), vec![TokenKind::Float(1.0), TokenKind::Float(2.0), TokenKind::Eof]);
    assert_eq!(kinds("a +b"), vec![TokenKind::Id, TokenKind::Plus, TokenKind::Id, TokenKind::Eof]);
    assert_eq!(ids("a +b"), ["a", "b"]);
}

#[test]
fn special_floats_beat_identifiers() {
    assert_eq!(kinds("Infinity"), vec![TokenKind::Float(f64::INFINITY), TokenKind::Eof]);
    assert_eq!(kinds("-Infinity"), vec![TokenKind::Float(f64::NEG_INFINITY), TokenKind::Eof]);
    assert!(matches!(kinds("NaN")[0], TokenKind::Float(x) if x.is_nan()));
    assert_eq!(kinds("Infinityx"), vec![TokenKind::Id, TokenKind::Eof]);
    assert_eq!(ids("Infinityx"), ["Infinityx"]);
}

#[test]
fn keywords_are_reserved_but_tensor_is_an_identifier() {
    assert_eq!(kinds("let"), vec![TokenKind::Keyword(Keyword::Let), TokenKind::Eof]);
    assert_eq!(kinds("lets"), vec![TokenKind::Id, TokenKind::Eof]);
    assert_eq!(ids("lets tensor _x9"), ["lets", "tensor", "_x9"]);
    assert!(is_identifier("tensor"));
    assert!(!is_identifier("linear"));
    assert!(!is_identifier("9a"));
}

#[test]
fn comments_are_layout() {
    assert_eq!(kinds("1 // one\n/* two\n */ 2"), vec![TokenKind::Int(1), TokenKind::Int(2), TokenKind::Eof]);
    let err = tokenize("1 /* open").unwrap_err();
    assert!(err.message.contains("never closed"));
}

#[test]
fn bad_literals_are_errors() {
    assert!(tokenize("1.0f").unwrap_err().message.contains("binary64"));
    assert!(tokenize("99999999999999999999").unwrap_err().message.contains("too large"));
    assert!(tokenize("2x").unwrap_err().message.contains("cannot start right after"));
    assert!(tokenize("a $ b").unwrap_err().message.contains("unexpected character `$`"));
}

#[test]
fn keywords_read_back() {
    for keyword in Keyword::ALL {
        assert_eq!(Keyword::from_text(keyword.text()), Some(keyword));
        assert_eq!(kinds(keyword.text()), vec![TokenKind::Keyword(keyword), TokenKind::Eof]);
    }
    assert_eq!(Keyword::from_text("Let"), None);
    assert_eq!(Keyword::from_text("argmax"), None);
}

/// `next_token` tries a class only when the next byte is in its set of first bytes. The
/// sets are exact: a byte is in a class's set if and only if the class's matcher accepts
/// some input that starts with it. (Only the "only if" keeps the tokens right; the "if"
/// keeps the sets from growing into trying every matcher everywhere.)
#[test]
fn classes_start_with_exactly_their_first_bytes() {
    type Matcher = fn(&str) -> bool;
    type FirstBytes = fn(u8) -> bool;
    let classes: [(&str, FirstBytes, Matcher); 4] = [
        ("float", may_start_float, |s| float_literal(s).is_ok()),
        ("special float", may_start_special_float, |s| special_float_literal(s).is_ok()),
        ("int", |b| b.is_ascii_digit(), |s| digit1::<&str, ()>(s).is_ok()),
        ("word", may_start_word, |s| word(s).is_ok()),
    ];
    // After any first byte, tails that complete every class that can start with it.
    let tails = ["", "0", "1.5", ".5e3", "Infinity", "nfinity", "NaN", "aN", "x", "_1", "+2", "e3", "d", " 1"];
    for (name, may_start, matches) in classes {
        let mut starts = 0;
        for first in 0u8..=127 {
            let matched = tails.iter().any(|tail| matches(&format!("{}{tail}", first as char)));
            assert_eq!(may_start(first), matched, "{name} and the byte {:?}", first as char);
            starts += usize::from(matched);
        }
        assert!(starts > 0, "{name} starts with some byte");
    }
}

/// Ext-7: the relaxed grammar's `-` and `/`; a sign that starts a Float still does, and `//`,
/// `/*` are still comments. K's scanner has neither symbol.
#[test]
fn minus_and_slash_are_symbols_of_the_relaxed_grammar_only() {
    let relaxed = |source: &str| -> Vec<TokenKind> {
        tokenize_in(source, Grammar::Relaxed).unwrap().into_iter().map(|t| t.kind).collect()
    };
    use TokenKind::{Eof, Float, Id, Minus, Slash};
    assert_eq!(relaxed("a - b"), vec![Id, Minus, Id, Eof]);
    assert_eq!(relaxed("a / b"), vec![Id, Slash, Id, Eof]);
    assert_eq!(relaxed("a -1.0"), vec![Id, Float(-1.0), Eof]);
    assert_eq!(relaxed("a--1.0"), vec![Id, Minus, Float(-1.0), Eof]);
    assert_eq!(relaxed("a - -Infinity"), vec![Id, Minus, Float(f64::NEG_INFINITY), Eof]);
    assert_eq!(relaxed("a /* c */ / b // d"), vec![Id, Slash, Id, Eof]);
    assert!(tokenize("a - b").unwrap_err().message.contains("unexpected character `-`"));
    assert!(tokenize("a / b").unwrap_err().message.contains("unexpected character `/`"));
}
