//! The search for wrong answers of `knn verify` on regions small enough to enumerate: a
//! generated case (a small network whose weights include ±0, subnormals, the overflow
//! threshold, ±∞ and NaN; a region a few ulps wide, centred where a class, a NaN or an
//! infinity starts; a claim or a VNN-LIB property) is asked of the verifier through the
//! library, and its answer is held to the semantics at every binary64 point of the region,
//! computed apart from the verifier (`oracle`: the small-step reference, exact rationals).
//!
//! `holds` must have no violated point; `violated` must come with a point of the region (its
//! ends computed exactly from the decimal texts) that breaks the claim on the reference;
//! `unknown` is allowed and counted. A wrong answer panics with the commands that reproduce it.
//! docs/testing.md, "Exhaustive checks of the verifier", says how to run it.

pub mod case;
pub mod check;
pub mod choices;
pub mod exact;
pub mod front;
mod generate;
pub mod network;
pub mod oracle;
mod region;

use super::Handled;
use case::Case;
use check::{Decided, Settings, check};
use choices::Choices;

pub use region::MOST_POINTS;

/// The case the bytes choose (the fuzz target's input).
pub fn case_of_bytes(bytes: &[u8]) -> Case {
    generate::case(&mut Choices::from_bytes(bytes))
}

/// The case a seed chooses (the integration test's).
pub fn case_of_seed(seed: u64) -> Case {
    generate::case(&mut Choices::from_seed(seed))
}

/// The case a seed chooses among networks that start with a window front (`conv2d`, a pool:
/// [`front`]); the seeds of [`case_of_seed`] keep their cases.
pub fn window_case_of_seed(seed: u64) -> Case {
    generate::window_case(&mut Choices::from_seed(seed))
}

/// The case a seed chooses among networks whose dense layers scale their products,
/// `z[i] * a + b` ([`generate::scaled_case`]).
pub fn scaled_case_of_seed(seed: u64) -> Case {
    generate::scaled_case(&mut Choices::from_seed(seed))
}

/// The case of a seed whose network branches: residual sums, a softmax before the `ArgMax`
/// ([`generate::branched_case`]).
pub fn branched_case_of_seed(seed: u64) -> Case {
    generate::branched_case(&mut Choices::from_seed(seed))
}

/// The case of a seed whose activations are mostly `expTensor` and `logTensor`
/// ([`generate::exp_log_case`]).
pub fn exp_log_case_of_seed(seed: u64) -> Case {
    generate::exp_log_case(&mut Choices::from_seed(seed))
}

/// The case of a seed whose tensors meet as products or quotients, some through a softmax
/// first ([`generate::product_case`]).
pub fn product_case_of_seed(seed: u64) -> Case {
    generate::product_case(&mut Choices::from_seed(seed))
}

/// The bytes that make the fuzz target build the case of `seed` (to keep a seed's case in the
/// fuzz corpus).
pub fn bytes_of_seed(seed: u64) -> Vec<u8> {
    let mut choices = Choices::recording(seed);
    generate::case(&mut choices);
    choices.recorded()
}

/// The fuzz target: the case the bytes choose, checked. Accepted when the verifier decided
/// it (rightly), refused when it answered `unknown`; a wrong answer panics with the case.
pub fn verify_exhaustive(bytes: &[u8]) -> Handled {
    let case = case_of_bytes(bytes);
    match check(&case, Settings::default()) {
        Ok(Decided::Unknown(_)) => Handled::Refused,
        Ok(Decided::Holds | Decided::Violated) => Handled::Accepted,
        Err(wrong) => panic!("{}", wrong.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_s_bytes_make_the_seed_s_case() {
        for seed in 0..50 {
            let (from_seed, from_bytes) = (case_of_seed(seed), case_of_bytes(&bytes_of_seed(seed)));
            assert_eq!(from_bytes.to_string(), from_seed.to_string(), "seed {seed}");
        }
    }
}
