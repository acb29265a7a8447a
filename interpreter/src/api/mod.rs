//! The library: one pipeline from a file to an answer, shared by the `knn` command, the tests,
//! the benchmarks and the bindings for other languages (docs/architecture.md, "The library").
//!
//! ```text
//! load (source | .nnet | .onnx)  →  Program            one loader, one validation
//! Program::run(inputs, options)  →  Report             either engine, one result type
//! any failure                    →  KnnError           what, where, whose fault
//! Report | KnnError  →  render (value, config, json)  →  exit code
//! ```
//!
//! ```
//! use knn_interpreter::{Answer, RunOptions, load, parse_input};
//!
//! let net = load(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/mlp.knn"))?;
//! let x = parse_input("x=[1.0, -2.0, 0.5]")?;
//! let report = net.run(&[x], &RunOptions::default())?;
//! let Answer::Value { value, .. } = &report.answer else { panic!("no value") };
//! assert_eq!(value.to_string(), "0"); // the class, as `knn run` prints it
//! # assert_eq!(report.exit_code(), 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod batch;
mod error;
mod inputs;
mod instances;
mod program;
pub mod render;
mod report;
mod source;
mod threads;
mod verify;

pub use crate::verify::claim::Claim;
pub use crate::verify::property::{InputBox, Property};
pub use crate::verify::split::Split;
pub use crate::verify::{Counterexample, Question, Unknown};
pub use batch::{BATCH_BLOCK, Batch, BatchFailure, RowValues, ValuesOptions};
pub use error::{Diagnostic, ErrorData, Failure, Fault, KnnError, MAX_DIAGNOSTICS};
pub use inputs::{parse_inline, parse_input};
pub use instances::{Instance, read_instances};
pub use program::{Program, RunOptions, Searched, Semantics, load, load_source, load_with, read_source};
pub use report::{Answer, Effort, EngineKind, Report};
pub(crate) use report::{Wanted, limit_error};
pub use source::{Place, Source};
pub use threads::{MAX_THREADS, check_threads};
pub use verify::{VerifyOptions, read_property};
