//! Trained networks (`.nnet`, ONNX MLPs) as K-NN programs: [`import_model`] reads a model
//! once, and the [`Imported`] network becomes a program in memory (what [`super::load`] runs)
//! or its text (what `knn import` writes). docs/importing.md says what each format maps to.

use std::io;
use std::path::Path;

use super::error::{Failure, KnnError};
use super::program::{Program, Semantics};
use super::source::Source;
use crate::import::emit::{Style, emit_to, skeleton};
use crate::import::import_file;
use crate::import::lint::non_finite_values;

pub use crate::import::{Format, ImportOptions, Network};

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

    /// The program the network is, built in memory: the weights go from the model to the
    /// literals as data (shared, not copied), and the text with each literal written `[…]`
    /// (named `name` in messages) is what errors point into. Parsed under `semantics`; its
    /// input is the network's.
    pub fn program(&self, name: String, semantics: Semantics) -> Result<Program, KnnError> {
        let (text, elements) = skeleton(self.network.clone());
        let mut program = Program::parse_with_elements(Source { name, text }, semantics, elements)?;
        program.input = Some((self.network.input.clone(), self.network.input_len));
        Ok(program)
    }

    /// Writes the program's text: one tensor literal a layer (docs/importing.md).
    pub fn write_program(&self, out: &mut dyn io::Write) -> io::Result<()> {
        emit_to(&self.network, Style::Literals, out)
    }
}
