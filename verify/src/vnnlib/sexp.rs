//! S-expressions, the surface syntax of SMT-LIB and so of VNN-LIB: atoms, parenthesised lists,
//! white space and `;` comments. Tokens are recognised with nom; lists are assembled on an
//! explicit stack, so an unclosed parenthesis is reported where it opens and deep nesting is a
//! clear error instead of a stack overflow in the passes that follow.

use nom::branch::alt;
use nom::bytes::complete::{take_till, take_while1};
use nom::character::complete::{char, multispace1};
use nom::combinator::{recognize, value};
use nom::multi::many0_count;
use nom::{IResult, Parser};

use knn_semantics::syntax::Span;

use super::VnnlibError;

/// Lists nested deeper than this are refused: VNN-COMP files nest four or five levels, and the
/// passes after reading recurse once per level.
pub const MAX_DEPTH: usize = 200;

#[derive(Clone, Debug, PartialEq)]
pub enum Sexp<'a> {
    Atom(&'a str, Span),
    List(Vec<Sexp<'a>>, Span),
}

impl<'a> Sexp<'a> {
    pub fn span(&self) -> Span {
        match self {
            Sexp::Atom(_, span) | Sexp::List(_, span) => *span,
        }
    }

    /// The head of a list when it is an atom (an operator or command name) and the rest.
    pub fn application(&self) -> Option<(&'a str, Span, &[Sexp<'a>])> {
        match self {
            Sexp::List(items, _) => match items.split_first() {
                Some((Sexp::Atom(head, span), rest)) => Some((*head, *span, rest)),
                _ => None,
            },
            Sexp::Atom(..) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Token<'a> {
    Open,
    Close,
    Atom(&'a str),
}

/// White space and comments (`;` to the end of the line).
fn layout(input: &str) -> IResult<&str, usize> {
    many0_count(alt((multispace1, recognize((char(';'), take_till(|c| c == '\n')))))).parse(input)
}

/// Anything but white space, parentheses, comments and the quotes of SMT-LIB's quoted symbols
/// and strings, which VNN-LIB properties do not use.
fn is_atom_char(c: char) -> bool {
    !c.is_whitespace() && !matches!(c, '(' | ')' | ';' | '"' | '|')
}

fn token(input: &str) -> IResult<&str, Token<'_>> {
    alt((value(Token::Open, char('(')), value(Token::Close, char(')')), take_while1(is_atom_char).map(Token::Atom)))
        .parse(input)
}

/// Every top-level S-expression of `source`, in order.
pub fn read(source: &str) -> Result<Vec<Sexp<'_>>, VnnlibError> {
    let offset = |rest: &str| source.len() - rest.len();
    // The open lists, innermost last: where each opened and what it holds so far.
    let mut open: Vec<(usize, Vec<Sexp<'_>>)> = Vec::new();
    let mut top = Vec::new();
    let mut rest = source;
    loop {
        rest = layout(rest).map_or(rest, |(after, _)| after);
        if rest.is_empty() {
            break;
        }
        let start = offset(rest);
        let Ok((after, token)) = token(rest) else {
            let c = rest.chars().next().unwrap_or(' ');
            return Err(VnnlibError::new(Span::new(start, start + c.len_utf8()), format!("unexpected `{c}`"))
                .hint("quoted symbols and strings are not part of the VNN-LIB subset read here"));
        };
        rest = after;
        let end = offset(rest);
        let finished = match token {
            Token::Open => {
                if open.len() >= MAX_DEPTH {
                    return Err(VnnlibError::new(
                        Span::new(start, end),
                        format!("lists are nested more than {MAX_DEPTH} deep"),
                    ));
                }
                open.push((start, Vec::new()));
                continue;
            }
            Token::Close => match open.pop() {
                Some((opened, items)) => Sexp::List(items, Span::new(opened, end)),
                None => {
                    return Err(VnnlibError::new(Span::new(start, end), "unexpected `)`")
                        .hint("this parenthesis closes nothing"));
                }
            },
            Token::Atom(text) => Sexp::Atom(text, Span::new(start, end)),
        };
        match open.last_mut() {
            Some((_, items)) => items.push(finished),
            None => top.push(finished),
        }
    }
    match open.last() {
        Some(&(opened, _)) => Err(VnnlibError::new(Span::new(opened, opened + 1), "this parenthesis is never closed")
            .hint("the file ends before its matching `)`")),
        None => Ok(top),
    }
}
