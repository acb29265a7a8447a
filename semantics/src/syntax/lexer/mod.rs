//! Tokens of K-NN exactly as K's scanner produces them (docs/semantics.md §2.2).
//!
//! K's scanner takes the longest match and breaks ties by `prec`:
//! * Float `([+-]?[0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?([fFdD]|[pP][0-9]+[xX][0-9]+)?`
//!   has `prec(1)`; `[+-]?Infinity…` and `NaN…` have `prec(3)`;
//! * Int `[0-9]+` (`UNSIGNED-INT-SYNTAX`) has `prec(2)`, so `1` is an Int but `-1`, `+2` and
//!   `1.` are Floats, and `1.0+2.0` is the two Floats `1.0` `+2.0`;
//! * Id `(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*`; the terminals of the grammar (`let`, `in`,
//!   `max`, …) are reserved, except `tensor`, which the grammar declares as an `Id` token.
//!
//! Layout is K's default: white space, `// …` and `/* … */`.
//!
//! The relaxed grammar (Ext-7) adds the symbols `-` and `/`, tried after everything else, so a
//! sign still starts a Float where one matches (`-1.0` is one token, as in K) and `//`, `/*`
//! still start comments; the K grammar has neither symbol, so a lone `-` or `/` stays the
//! scanner's "unexpected character", exactly as K refuses it.
//!
//! The token kinds and keywords are in `tokens.rs`, the scanner here.

mod tokens;

pub use tokens::{Keyword, Token, TokenKind, is_identifier};

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::{digit0, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::{IResult, Parser};

use super::ast::Span;
use super::diagnostic::SyntaxError;
use super::grammar::Grammar;

/// The largest Int literal accepted: locations are computed as `L + I + 1` in 64 bits.
pub const MAX_INT_LITERAL: i64 = (1 << 62) - 1;

/// Splits `source` into tokens as K's scanner does, ending with [`TokenKind::Eof`].
pub fn tokenize(source: &str) -> Result<Vec<Token>, SyntaxError> {
    tokenize_in(source, Grammar::K)
}

/// Splits `source` into the tokens of `grammar`: the relaxed one also has `-` and `/` (Ext-7).
pub fn tokenize_in(source: &str, grammar: Grammar) -> Result<Vec<Token>, SyntaxError> {
    let mut tokens = Vec::new();
    let mut pos = skip_layout(source, 0)?;
    while pos < source.len() {
        let token = next_token(source, pos, grammar)?;
        pos = skip_layout(source, token.span.end as usize)?;
        tokens.push(token);
    }
    tokens.push(Token { kind: TokenKind::Eof, span: Span::new(source.len(), source.len()) });
    Ok(tokens)
}

fn skip_layout(source: &str, mut pos: usize) -> Result<usize, SyntaxError> {
    let bytes = source.as_bytes();
    loop {
        while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if source[pos..].starts_with("//") {
            pos = source[pos..].find('\n').map_or(source.len(), |n| pos + n + 1);
        } else if source[pos..].starts_with("/*") {
            match source[pos + 2..].find("*/") {
                Some(n) => pos = pos + 2 + n + 2,
                None => {
                    return Err(SyntaxError::new(Span::new(pos, pos + 2), "this block comment is never closed")
                        .expected(["`*/`"]));
                }
            }
        } else {
            return Ok(pos);
        }
    }
}

/// A candidate match at one position: its length and K `prec`.
struct Candidate {
    len: usize,
    prec: u8,
    kind: CandidateKind,
}

enum CandidateKind {
    Float,
    SpecialFloat,
    Int,
    Word,
    Symbol(TokenKind),
}

/// The first bytes each token class can start with. A class whose set does not hold the next
/// byte cannot match there, so its matcher is not tried: the longest match is the same, found
/// with fewer matchers (the test `classes_start_with_exactly_their_first_bytes` checks the sets).
fn may_start_float(first: u8) -> bool {
    first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'.')
}

fn may_start_special_float(first: u8) -> bool {
    matches!(first, b'+' | b'-' | b'I' | b'N')
}

fn may_start_word(first: u8) -> bool {
    first.is_ascii_alphabetic() || first == b'_'
}

fn next_token(source: &str, pos: usize, grammar: Grammar) -> Result<Token, SyntaxError> {
    let rest = &source[pos..];
    let first = rest.as_bytes().first().copied().unwrap_or(0);
    // Longest match first, then the higher `prec`; of equals, the later one below.
    let mut best: Option<Candidate> = None;
    let mut consider = |len: usize, prec: u8, kind: CandidateKind| {
        if best.as_ref().is_none_or(|b| (len, prec) >= (b.len, b.prec)) {
            best = Some(Candidate { len, prec, kind });
        }
    };
    if may_start_float(first)
        && let Ok((after, _)) = float_literal(rest)
    {
        consider(rest.len() - after.len(), 1, CandidateKind::Float);
    }
    if may_start_special_float(first)
        && let Ok((after, _)) = special_float_literal(rest)
    {
        consider(rest.len() - after.len(), 3, CandidateKind::SpecialFloat);
    }
    if first.is_ascii_digit()
        && let Ok((after, _)) = digit1::<&str, ()>(rest)
    {
        consider(rest.len() - after.len(), 2, CandidateKind::Int);
    }
    if may_start_word(first)
        && let Ok((after, _)) = word(rest)
    {
        consider(rest.len() - after.len(), 1, CandidateKind::Word);
    }
    if let Some(symbol) = symbol(rest).or_else(|| relaxed_symbol(rest, grammar)) {
        consider(1, 0, CandidateKind::Symbol(symbol));
    }
    if rest.starts_with('…') {
        consider('…'.len_utf8(), 0, CandidateKind::Symbol(TokenKind::Ellipsis));
    }
    let Some(best) = best else {
        let c = rest.chars().next().unwrap_or(' ');
        return Err(SyntaxError::new(Span::new(pos, pos + c.len_utf8()), format!("unexpected character `{c}`")));
    };
    let span = Span::new(pos, pos + best.len);
    let text = &rest[..best.len];
    let kind = match best.kind {
        CandidateKind::Float | CandidateKind::SpecialFloat => TokenKind::Float(float_value(text, span)?),
        CandidateKind::Int => TokenKind::Int(int_value(text, span)?),
        CandidateKind::Word => word_token(source, pos, text, span)?,
        CandidateKind::Symbol(symbol) => symbol,
    };
    Ok(Token { kind, span })
}

fn word_token(source: &str, pos: usize, text: &str, span: Span) -> Result<TokenKind, SyntaxError> {
    if let Some(keyword) = Keyword::from_text(text) {
        return Ok(TokenKind::Keyword(keyword));
    }
    // K's Id regex has the look-behind `(?<![A-Za-z0-9_])`: `2x` is not `2` followed by `x`.
    let glued = source[..pos].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    if glued {
        return Err(SyntaxError::new(
            span,
            format!("the identifier `{text}` cannot start right after a number or a letter"),
        )
        .hint("put a space or an operator between them"));
    }
    Ok(TokenKind::Id)
}

fn symbol(rest: &str) -> Option<TokenKind> {
    Some(match rest.as_bytes().first()? {
        b'(' => TokenKind::LParen,
        b')' => TokenKind::RParen,
        b'[' => TokenKind::LBracket,
        b']' => TokenKind::RBracket,
        b',' => TokenKind::Comma,
        b'=' => TokenKind::Equals,
        b'*' => TokenKind::Star,
        b'+' => TokenKind::Plus,
        _ => return None,
    })
}

/// `-` and `/` (Ext-7): symbols of the relaxed grammar only. Being one byte long with the
/// lowest `prec`, `-` loses to any Float that starts with it (`-1.0`, `-Infinity`).
fn relaxed_symbol(rest: &str, grammar: Grammar) -> Option<TokenKind> {
    if grammar != Grammar::Relaxed {
        return None;
    }
    Some(match rest.as_bytes().first()? {
        b'-' => TokenKind::Minus,
        b'/' => TokenKind::Slash,
        _ => return None,
    })
}

type Lex<'a> = IResult<&'a str, &'a str, ()>;

fn word(input: &str) -> Lex<'_> {
    recognize((
        nom::bytes::complete::take_while_m_n(1, 1, |c: char| c.is_ascii_alphabetic() || c == '_'),
        nom::bytes::complete::take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
    ))
    .parse(input)
}

fn float_suffix(input: &str) -> Lex<'_> {
    recognize(alt((recognize(one_of("fFdD")), recognize((one_of("pP"), digit1, one_of("xX"), digit1))))).parse(input)
}

fn float_literal(input: &str) -> Lex<'_> {
    let mantissa =
        alt((recognize((opt(one_of("+-")), digit1, opt((tag("."), digit0)))), recognize((tag("."), digit1))));
    let exponent = (one_of("eE"), opt(one_of("+-")), digit1);
    recognize((mantissa, opt(exponent), opt(float_suffix))).parse(input)
}

fn special_float_literal(input: &str) -> Lex<'_> {
    alt((
        recognize((opt(one_of("+-")), tag("Infinity"), opt(float_suffix))),
        recognize((tag("NaN"), opt(float_suffix))),
    ))
    .parse(input)
}

/// The value of a Float token: the decimal rounded to nearest binary64, as K does for literals
/// without a suffix (and with `d`, `D` or `p53x11`). Other precisions are refused: the engines
/// compute in binary64 only.
fn float_value(text: &str, span: Span) -> Result<f64, SyntaxError> {
    let (number, suffix) = split_suffix(text);
    match suffix.to_ascii_lowercase().as_str() {
        "" | "d" | "p53x11" => {}
        _ => {
            return Err(SyntaxError::new(
                span,
                format!("the float `{text}` asks for a precision other than binary64 (suffix `{suffix}`)"),
            )
            .hint("knn computes in IEEE binary64 only: drop the suffix or use `d`"));
        }
    }
    let value = match number.trim_start_matches(['+', '-']) {
        "Infinity" => f64::INFINITY,
        "NaN" => f64::NAN,
        _ => number.parse::<f64>().map_err(|_| SyntaxError::new(span, format!("malformed float `{text}`")))?,
    };
    Ok(if number.starts_with('-') && value.is_infinite() { f64::NEG_INFINITY } else { value })
}

fn split_suffix(text: &str) -> (&str, &str) {
    if let Some(p) = text.rfind(['p', 'P'])
        && text[p + 1..].starts_with(|c: char| c.is_ascii_digit())
    {
        return (&text[..p], &text[p..]);
    }
    match text.as_bytes().last() {
        Some(b'f' | b'F' | b'd' | b'D') => (&text[..text.len() - 1], &text[text.len() - 1..]),
        _ => (text, ""),
    }
}

fn int_value(text: &str, span: Span) -> Result<i64, SyntaxError> {
    match text.parse::<i64>() {
        Ok(n) if n <= MAX_INT_LITERAL => Ok(n),
        _ => Err(SyntaxError::new(span, format!("the integer `{text}` is too large"))
            .hint(format!("integer literals are at most {MAX_INT_LITERAL} (2^62 - 1)"))),
    }
}

#[cfg(test)]
mod tests;
