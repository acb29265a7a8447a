//! Trained networks (`.nnet`, ONNX MLPs) as K-NN programs: [`import_model`] reads a model
//! once, and the [`Imported`] network becomes a program in memory (`Imported::program`, in
//! program.rs: what [`super::load`] runs) or its text (what `knn import` writes). docs/importing.md says what each format maps to.

use std::io;
use std::path::Path;

use super::error::{Failure, KnnError};
use knn_formats::import::emit::{Style, emit_to};
use knn_formats::import::import_file;
use knn_formats::import::lint::non_finite_values;

pub use knn_formats::import::{Format, ImportOptions, Network};

/// A network read from a model file.
#[derive(Clone, Debug)]
pub struct Imported {
    pub network: Network,
}

/// Reads the model at `path` (its format from `format`, else from the file's extension). A
/// malformed or unsupported model is an import error naming the file and the place in it
/// (exit code 1); a network whose program would not fit in the memory budget is a limit.
pub fn import_model(path: &Path, format: Option<Format>, options: &ImportOptions) -> Result<Imported, KnnError> {
    let network = import_file(path, format, options).map_err(|e| match e.too_large {
        Some(too_large) => KnnError::memory(&format!("{}: the program for this network", path.display()), too_large),
        None => KnnError::new(Failure::Import, e.to_string()),
    })?;
    Ok(Imported { network })
}

impl Imported {
    /// One line for each step that holds a value that is not finite (the network's outputs
    /// would be NaN or infinite): which step, how many values, the first of them.
    pub fn suspicious_values(&self) -> Vec<String> {
        non_finite_values(&self.network)
    }

    /// Writes the program's text: one tensor literal a layer (docs/importing.md).
    pub fn write_program(&self, out: &mut dyn io::Write) -> io::Result<()> {
        emit_to(&self.network, Style::Literals, out)
    }
}
