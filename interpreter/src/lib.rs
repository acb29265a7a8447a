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

pub use api::{
    Answer, Batch, BatchFailure, Claim, Counterexample, Effort, EngineKind, Failure, Fault, InputBox, KnnError, Place,
    Program, Property, Question, Report, RowValues, RunOptions, Semantics, Source, Split, Unknown, ValuesOptions,
    VerifyOptions, load, load_source, load_with, parse_input, read_instances, read_property,
};
