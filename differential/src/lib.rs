//! Differential testing: generated programs run on both engines through their shared trait
//! (`knn_semantics::engine::Engine`), and on both rule sets, and must agree.
//!
//! - [`generate`]: revised programs weighted to reach every construct and revised rule, from a
//!   seed ([`generate::program`]); [`sound`]: programs in the fragment where the published
//!   rules are sound;
//! - [`program`]: the program model, its source text, and shrinking that keeps programs
//!   well-formed;
//! - [`check`]: the properties (engines agree, batches equal rows, fast math within tolerance,
//!   `run` within `search`, published = revised on the sound fragment, print/parse round trip).
//!
//! `tests/properties.rs` runs them with quickcheck (`KNN_DIFF_CASES` cases each, 10,000 by
//! default; `KNN_DIFF_SEED` reruns one seed); `docs/testing.md` records the long runs.

pub mod check;
pub mod generate;
pub mod program;
pub mod sound;

pub use check::Check;
pub use program::Program;
