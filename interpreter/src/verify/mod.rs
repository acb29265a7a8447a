//! The verifier: proves or refutes a property of a program over a region of inputs, for the
//! binary64 values the engine computes (docs/verification.md). One file per concern.

pub mod decimal;
pub mod float;
pub mod property;
pub mod vnnlib;
