//! A program's text and where it came from: what every error's place points into.

use knn_semantics::syntax::Span;
use knn_semantics::syntax::diagnostic::line_col;

/// A place in a file, 1-based, columns in characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A program's text and where it came from (a path, `<stdin>`, `NET.onnx (imported)`).
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
}

impl Source {
    /// The place of `span`'s start.
    pub fn place(&self, span: Span) -> Place {
        let (line, column) = line_col(&self.text, span.start as usize);
        Place { file: self.name.clone(), line, column }
    }
}
