//! The generator's random source and the values it draws.

use knn_verify::falsify::SplitMix;

/// SplitMix64 (the verifier's generator): small, fast, and the same sequence everywhere for a
/// seed.
pub struct Rng(SplitMix);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix::new(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`%.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// An index into `weights`, chosen with those weights.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut at = self.below(total as usize) as u32;
        for (k, w) in weights.iter().enumerate() {
            if at < *w {
                return k;
            }
            at -= w;
        }
        weights.len() - 1
    }

    /// A Float worth testing: small values with ties likely, signed zeros, integers, values
    /// large enough for tanh/sigmoid saturation and overflow, rarely NaN or an infinity.
    pub fn float(&mut self) -> f64 {
        match self.weighted(&[30, 25, 8, 8, 6, 6, 3, 2, 2]) {
            0 => *self.pick(&[0.0, 1.0, -1.0, 2.5, -2.5, 0.5]),
            1 => (self.below(801) as f64 - 400.0) / 100.0,
            2 => *self.pick(&[0.0, -0.0]),
            3 => self.below(10) as f64 - 5.0,
            4 => *self.pick(&[400.0, -400.0, 710.0, -745.0, 30.0]),
            5 => *self.pick(&[1e308, -1e308, 1.7e308, 1e300, -1e300]),
            6 => *self.pick(&[5e-324, -2.2e-308, 1e-300]),
            7 => *self.pick(&[f64::INFINITY, f64::NEG_INFINITY]),
            _ => f64::NAN,
        }
    }

    /// A Float of moderate size with two decimals (ties and zeros likely): no overflow, no
    /// NaN, no subnormal.
    pub fn moderate_float(&mut self) -> f64 {
        match self.weighted(&[30, 60, 10]) {
            0 => *self.pick(&[0.0, 1.0, -1.0, 2.5, -2.5, 0.5]),
            1 => (self.below(2001) as f64 - 1000.0) / 100.0,
            _ => -0.0,
        }
    }

    /// A non-negative Int literal; rarely one whose product overflows 64 bits.
    pub fn int(&mut self) -> i64 {
        match self.weighted(&[70, 20, 10]) {
            0 => self.below(4) as i64,
            1 => self.below(100) as i64,
            // The largest literal the parser accepts (2^62 - 1): `+` and `*` of two overflow.
            _ => knn_semantics::syntax::lexer::MAX_INT_LITERAL,
        }
    }
}
