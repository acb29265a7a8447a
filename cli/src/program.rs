//! The command line's side of loading: the library's loader (`knn`) called, and its
//! errors printed with their exit code.

use std::path::Path;

pub use knn::Source;
use knn::{KnnError, TensorInput};

use super::Exit;

/// Prints `error` as knn prints errors and gives its exit code.
pub fn fail(error: KnnError) -> Exit {
    eprint!("{}", error.render_for_stderr());
    error.exit()
}

/// Prints a usage error (a flag, an argument, a file that knn cannot use as given): exit 1.
pub fn usage(message: impl std::fmt::Display) -> Exit {
    fail(KnnError::usage(message.to_string()))
}

pub fn read_source(path: &Path) -> Result<Source, Exit> {
    knn::read_source(path).map_err(fail)
}

/// Parses `--input` arguments; prints the error.
pub fn parse_inputs(arguments: &[String]) -> Result<Vec<TensorInput>, Exit> {
    arguments.iter().map(|a| knn::parse_input(a)).collect::<Result<Vec<TensorInput>, KnnError>>().map_err(fail)
}
