//! What the verifier cannot read as a chain of layers, and where: the plan-reading of the
//! network and of each operator ([`crate::operator`]) refuse with it, and the answer is
//! `unknown: unsupported` (never an approximation).

use std::fmt;

use knn_semantics::syntax::Span;

/// A plan the verifier cannot read as a chain: what, and where when the plan knows.
#[derive(Clone, Debug, PartialEq)]
pub struct Unsupported {
    pub what: String,
    pub span: Option<Span>,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

pub fn unsupported(what: impl Into<String>, span: Option<Span>) -> Unsupported {
    Unsupported { what: what.into(), span }
}
