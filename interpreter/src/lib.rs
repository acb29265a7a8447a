//! knn-interpreter: the big-step evaluator and its tensor core, data formats, and the `knn`
//! command-line tool.

pub mod bigstep;
pub mod cli;
pub mod data;
pub mod fuzzing;
pub mod import;
pub mod tensor;
pub mod verify;
