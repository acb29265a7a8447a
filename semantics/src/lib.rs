//! knn-semantics: the K-NN language (`k-nn.md`) as a parser and a small-step rewriting engine
//! that mirrors the K definition rule by rule.
//!
//! Reading order: [`syntax`] (what programs are), [`term`] and [`config`] (the state K
//! rewrites), [`rules`] (one item per K rule, one file per section of `k-nn.md`), [`profile`]
//! (rule sets), [`engine`] (`successors`, `run`, `search`).

pub mod broadcast;
pub mod check;
pub mod config;
pub mod engine;
pub mod errors;
pub mod matmul;
pub mod memory;
pub mod numeric;
pub mod observables;
pub mod profile;
pub mod report;
pub mod revisions;
pub mod rules;
pub mod syntax;
pub mod term;
pub mod window;

pub use config::Config;
/// Tensors bound before a program runs: part of the engine, since binding them runs the
/// profile's rules ([`engine::inputs`]).
pub use engine::inputs;
pub use engine::{Outcome, Run, StepOptions, run, run_until, search, successors};
pub use profile::Profile;
