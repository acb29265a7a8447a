//! knn-interpreter: the library ([`api`]: load a program, run it, one report, one error), the
//! big-step evaluator and its tensor core, data formats, the verifier, and the `knn`
//! command-line tool.

pub mod api;
pub mod bigstep;
pub mod cli;
pub mod data;
pub mod fuzzing;
pub mod import;
pub mod tensor;
pub mod verify;

// The library's API, as the crate's root: what the `knn` command and the Python package name.
pub use api::*;
