//! The quirks of the published rules (docs/semantics.md §3), each with its final configuration
//! as derived by hand from the rules (the reading that page summarises). The expected texts come
//! from that derivation, not from the engine's output.
//!
//! One module per kind of quirk: `activations.rs` ((a), (b), (c), (g), (j)), `tensors.rs` ((d),
//! (e), (h), (k), (m)) and `scalars_and_names.rs` ((f), (i), (l)).

mod activations;
#[path = "../common/mod.rs"]
mod common;
mod scalars_and_names;
mod tensors;

use common::*;
use knn_semantics::engine::Outcome;

fn lines(text: &str) -> Vec<String> {
    text.split(';').map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect()
}

fn as_f64(text: &str) -> f64 {
    text.parse().unwrap_or_else(|_| panic!("not a float: {text}"))
}
