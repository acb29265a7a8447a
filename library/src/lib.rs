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
//! use knn::{Answer, RunOptions, load, parse_input};
//!
//! let net = load(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/mlp.knn"))?;
//! let x = parse_input("x=[1.0, -2.0, 0.5]")?;
//! let report = net.run(&[x], &RunOptions::default())?;
//! let Answer::Value { value, .. } = &report.answer else { panic!("no value") };
//! assert_eq!(value.to_string(), "0"); // the class, as `knn run` prints it
//! # assert_eq!(report.exit_code(), 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod arrays;
mod batch;
pub mod benchmark;
pub mod coverage;
mod error;
mod exit;
mod image;
mod import;
mod inputs;
mod instances;
mod program;
mod question;
pub mod render;
mod report;
mod source;
mod threads;
mod verify;

// The reference's types that the API takes and hands out.
pub use knn_semantics::engine::{Coverage, Limit, Observed, SearchOptions};
pub use knn_semantics::errors::ErrorKind;
pub use knn_semantics::inputs::TensorInput;
pub use knn_semantics::memory::{parse_size, set_budget as set_memory_budget};
pub use knn_semantics::observables::DenseTensor;
pub use knn_semantics::profile::{Priorities, Profile};
pub use knn_semantics::rules::Rule;

pub use arrays::{Array, FloatType, read_array, results_array};
pub use batch::{BATCH_BLOCK, Batch, BatchFailure, RowValues, ValuesOptions};
pub use benchmark::{BenchmarkReport, RESULTS_HEADER, read_results, results_line, write_report};
pub use error::{Diagnostic, ErrorData, Failure, Fault, KnnError, MAX_DIAGNOSTICS};
pub use exit::Exit;
pub use image::{ImageShape, NOT_FINITE, Picture, input_picture, witness_picture};
pub use import::{Format, ImportOptions, Imported, Network, import_model};
pub use inputs::{parse_inline, parse_input};
pub use instances::{Instance, read_instances};
pub use knn_engine::bigstep::RowResult;
pub use knn_engine::bigstep::rows::first_nan;
pub use knn_verify::claim::Claim;
pub use knn_verify::property::{InputBox, Property};
pub use knn_verify::queue::CaseProgress;
pub use knn_verify::split::Split;
pub use knn_verify::{Bounds, Conclusion, Counterexample, Question, Unknown};
pub use program::{Program, RunOptions, Searched, Semantics, load, load_source, load_with, read_source};
pub use question::{Asked, QuestionText};
pub use report::limit_error;
pub use report::{Answer, Effort, EngineKind, Report, Verification};
pub use source::{Place, Source};
pub use threads::{MAX_THREADS, check_threads};
pub use verify::{VerifyOptions, empty_region_note, read_property};
