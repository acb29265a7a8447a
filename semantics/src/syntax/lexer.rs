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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keyword {
    Let,
    In,
    Max,
    Min,
    ArgMax,
    InitTensor,
    Relu,
    ReluTensor,
    Tanh,
    TanhTensor,
    Sigmoid,
    SigmoidTensor,
    Linear,
    /// `addTensor` (Ext-1): a keyword of the relaxed grammar only; the K grammar reads it as an
    /// identifier (see [`Keyword::in_grammar`]).
    AddTensor,
}

impl Keyword {
    pub const ALL: [Keyword; 14] = [
        Keyword::Let,
        Keyword::In,
        Keyword::Max,
        Keyword::Min,
        Keyword::ArgMax,
        Keyword::InitTensor,
        Keyword::Relu,
        Keyword::ReluTensor,
        Keyword::Tanh,
        Keyword::TanhTensor,
        Keyword::Sigmoid,
        Keyword::SigmoidTensor,
        Keyword::Linear,
        Keyword::AddTensor,
    ];

    pub fn text(self) -> &'static str {
        match self {
            Keyword::Let => "let",
            Keyword::In => "in",
            Keyword::Max => "max",
            Keyword::Min => "min",
            Keyword::ArgMax => "ArgMax",
            Keyword::InitTensor => "initTensor",
            Keyword::Relu => "relu",
            Keyword::ReluTensor => "reluTensor",
            Keyword::Tanh => "tanh",
            Keyword::TanhTensor => "tanhTensor",
            Keyword::Sigmoid => "sigmoid",
            Keyword::SigmoidTensor => "sigmoidTensor",
            Keyword::Linear => "linear",
            Keyword::AddTensor => "addTensor",
        }
    }

    fn from_text(text: &str) -> Option<Keyword> {
        // Every word of a program is looked up here: a match on the text, not a search of ALL
        // (the test `keywords_read_back` holds the two together).
        Some(match text {
            "let" => Keyword::Let,
            "in" => Keyword::In,
            "max" => Keyword::Max,
            "min" => Keyword::Min,
            "ArgMax" => Keyword::ArgMax,
            "initTensor" => Keyword::InitTensor,
            "relu" => Keyword::Relu,
            "reluTensor" => Keyword::ReluTensor,
            "tanh" => Keyword::Tanh,
            "tanhTensor" => Keyword::TanhTensor,
            "sigmoid" => Keyword::Sigmoid,
            "sigmoidTensor" => Keyword::SigmoidTensor,
            "linear" => Keyword::Linear,
            "addTensor" => Keyword::AddTensor,
            _ => return None,
        })
    }

    /// Keywords that start a `Func` (the right-hand side of a let-Func).
    pub fn is_func(self) -> bool {
        !matches!(self, Keyword::Let | Keyword::In | Keyword::Max | Keyword::Min | Keyword::ArgMax)
    }

    /// Whether the keyword belongs to the grammar's syntax: the extensions' keywords
    /// (`addTensor`, Ext-1) are not in `KNN-SYNTAX`, so K reads them as identifiers.
    pub fn in_grammar(self, grammar: Grammar) -> bool {
        grammar == Grammar::Relaxed || self != Keyword::AddTensor
    }
}

/// Whether `name` can be written as an identifier in a program.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && Keyword::from_text(name).is_none()
}

/// A token's kind and value. An identifier's name is its text (`Token::span` in the source), so
/// a token is copied without allocating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TokenKind {
    Float(f64),
    Int(i64),
    Id,
    Keyword(Keyword),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Equals,
    Star,
    Plus,
    /// `…`: the elements of a tensor literal held as data beside the text (a network built in
    /// memory, [`super::parser::parse_program_with_elements`]); no production of K-NN has it.
    Ellipsis,
    Eof,
}

impl TokenKind {
    /// How the token is named in "expected …, found …" messages.
    pub fn describe(&self, text: &str) -> String {
        match self {
            TokenKind::Float(_) => format!("float `{text}`"),
            TokenKind::Int(_) => format!("integer `{text}`"),
            TokenKind::Id => format!("identifier `{text}`"),
            TokenKind::Eof => "end of program".to_string(),
            _ => format!("`{text}`"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// Splits `source` into tokens, ending with [`TokenKind::Eof`].
pub fn tokenize(source: &str) -> Result<Vec<Token>, SyntaxError> {
    let mut tokens = Vec::new();
    let mut pos = skip_layout(source, 0)?;
    while pos < source.len() {
        let token = next_token(source, pos)?;
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

fn next_token(source: &str, pos: usize) -> Result<Token, SyntaxError> {
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
    if let Some(symbol) = symbol(rest) {
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
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<TokenKind> {
        tokenize(source).unwrap().into_iter().map(|t| t.kind).collect()
    }

    /// The names of the identifier tokens: their text in the source.
    fn ids(source: &str) -> Vec<&str> {
        tokenize(source)
            .unwrap()
            .into_iter()
            .filter(|t| t.kind == TokenKind::Id)
            .map(|t| &source[t.span.range()])
            .collect()
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
}
