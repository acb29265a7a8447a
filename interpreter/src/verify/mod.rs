//! The verifier: proves or refutes a property of a program over a region of inputs, for the
//! binary64 values the engine computes (docs/verification.md). One file per concern.

pub mod bab;
pub mod float;
pub mod interval;
pub mod linear;
pub mod network;
pub mod property;
pub mod relax;
