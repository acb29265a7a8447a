//! The error of an import: a model file that cannot be imported, where in it, and why.

use std::fmt;
use std::path::{Path, PathBuf};

use knn_semantics::memory::TooLarge;
use knn_semantics::syntax::diagnostic::escape_controls;

/// A model file that cannot be imported: the file, where in it (a line and column for text
/// formats, a node for ONNX), and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportError {
    pub path: PathBuf,
    /// `line:col`, `node "name" (Gemm)`, … or empty.
    pub location: String,
    pub message: String,
    /// Set when the model is well formed but its program would not fit in the memory budget.
    pub too_large: Option<TooLarge>,
}

impl ImportError {
    pub fn new(path: &Path, location: impl Into<String>, message: impl Into<String>) -> ImportError {
        ImportError { path: path.to_path_buf(), location: location.into(), message: message.into(), too_large: None }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Node names and tokens come from the file: escaped, they cannot drive the terminal.
        let path = self.path.display().to_string();
        let (path, message) = (escape_controls(&path), escape_controls(&self.message));
        if self.location.is_empty() {
            write!(f, "{path}: {message}")
        } else {
            write!(f, "{path}:{}: {message}", escape_controls(&self.location))
        }
    }
}

impl std::error::Error for ImportError {}
