//! Where the generator's choices come from: the fuzzer's bytes first (one byte per small
//! choice, so that a mutated byte changes one decision), then a generator seeded from those
//! bytes. A seed alone (the integration test) is the same with no bytes. The generator is the
//! verifier's SplitMix64, whose published sequence `verify/falsify.rs` tests.

use knn_verify::falsify::SplitMix;

/// The source of every decision the generator makes.
pub struct Choices<'a> {
    bytes: &'a [u8],
    rng: SplitMix,
    /// The bytes that make the same decisions, when asked to keep them.
    record: Option<Vec<u8>>,
}

impl<'a> Choices<'a> {
    /// Decisions from a seed only.
    pub fn from_seed(seed: u64) -> Choices<'static> {
        Choices { bytes: &[], rng: SplitMix::new(seed), record: None }
    }

    /// Decisions from a seed, kept as the bytes that make them ([`Choices::recorded`]): a
    /// seed's case as an input of the fuzz target.
    pub fn recording(seed: u64) -> Choices<'static> {
        Choices { record: Some(Vec::new()), ..Choices::from_seed(seed) }
    }

    /// The bytes that make the decisions taken so far (empty unless recording).
    pub fn recorded(self) -> Vec<u8> {
        self.record.unwrap_or_default()
    }

    /// Decisions from the bytes, then from a generator seeded with their hash (FNV-1a), so
    /// that short inputs still make whole cases.
    pub fn from_bytes(bytes: &'a [u8]) -> Choices<'a> {
        let hash =
            bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        Choices { bytes, rng: SplitMix::new(hash), record: None }
    }

    fn byte(&mut self) -> Option<u8> {
        let (&first, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(first)
    }

    /// Uniform-ish in `0..n` (`n ≥ 1`).
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n >= 1);
        if n <= 256 {
            if let Some(b) = self.byte() {
                return usize::from(b) % n;
            }
            let choice = (self.rng.next_u64() % n as u64) as usize;
            if let Some(record) = &mut self.record {
                record.push(choice as u8);
            }
            return choice;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// Eight bytes when there are, else the generator.
    pub fn next_u64(&mut self) -> u64 {
        if self.bytes.len() >= 8 {
            let (head, rest) = self.bytes.split_at(8);
            self.bytes = rest;
            return u64::from_le_bytes(head.try_into().expect("eight bytes"));
        }
        let value = self.rng.next_u64();
        if let Some(record) = &mut self.record {
            record.extend(value.to_le_bytes());
        }
        value
    }

    /// True with probability about `numerator / denominator`.
    pub fn chance(&mut self, numerator: usize, denominator: usize) -> bool {
        self.below(denominator) < numerator
    }

    /// One of `items`.
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    /// Uniform in `lo..=hi`.
    pub fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_decide_first_then_the_seeded_generator() {
        let mut c = Choices::from_bytes(&[7, 1]);
        assert_eq!(c.below(5), 2);
        assert_eq!(c.below(2), 1);
        // The bytes are used up: the same bytes give the same continuation.
        let (a, b) = (c.below(1000), Choices::from_bytes(&[7, 1]).next_u64());
        let mut again = Choices::from_bytes(&[7, 1]);
        again.below(5);
        again.below(2);
        assert_eq!(again.below(1000), a);
        assert_ne!(b, 0);
        // A seed alone is deterministic.
        assert_eq!(Choices::from_seed(3).next_u64(), Choices::from_seed(3).next_u64());
    }

    #[test]
    fn recorded_bytes_make_the_same_decisions() {
        let decide = |c: &mut Choices| (c.below(7), c.next_u64(), c.below(1000), c.pick(&[1, 2, 3]), c.between(-5, 5));
        let mut seeded = Choices::recording(42);
        let made = decide(&mut seeded);
        let bytes = seeded.recorded();
        assert_eq!(bytes.len(), 1 + 8 + 8 + 1 + 1);
        assert_eq!(decide(&mut Choices::from_bytes(&bytes)), made);
        assert_eq!(made, decide(&mut Choices::from_seed(42)));
    }
}
