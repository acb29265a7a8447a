//! Decimal constants as written, bracketed exactly by binary64 values.
//!
//! A bound such as `0.6` is no binary64 number, and which side of it a binary64 input or
//! output lies on is the verifier's answer, so the bracket must be exact. Rust's parser rounds
//! correctly to the nearest binary64; what it cannot say is on which side of that nearest value
//! the decimal lies. Every finite binary64 value has a finite decimal expansion, and Rust's
//! fixed-precision formatting (`{:.Ne}`) prints it exactly, so the written decimal and the
//! nearest binary64 are compared as decimal digit strings, without any rounding.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use super::float::Interval;

/// A real constant as written, enclosed by binary64 values: `below ≤ exact ≤ above`, with
/// `below == above` exactly when the constant is that binary64 value. A decimal as written is
/// bracketed by two neighbours (`above == below.next_up()`), so its exact value is strictly
/// between them; constants computed from others (a ball's `centre − eps`, the tighter of two
/// bounds) may be wider enclosures, which every use below treats conservatively.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    pub text: Arc<str>,
    pub below: f64,
    pub above: f64,
}

impl Constant {
    /// A constant that is a binary64 value.
    pub fn exact(x: f64) -> Constant {
        Constant { text: format!("{x:?}").into(), below: x, above: x }
    }

    pub fn is_exact(&self) -> bool {
        self.below == self.above
    }

    pub fn interval(&self) -> Interval {
        Interval::new(self.below, self.above)
    }

    /// `−c`, exactly (negation is exact in binary64).
    pub fn neg(&self) -> Constant {
        let text = match self.text.strip_prefix('-') {
            Some(positive) => positive.into(),
            None => format!("-{}", self.text).into(),
        };
        Constant { text, below: -self.above, above: -self.below }
    }

    /// Whether the binary64 `x` is at least the constant as written. Exact: a constant
    /// strictly between two neighbours compares with every binary64 as the upper one does.
    pub fn at_most(&self, x: f64) -> bool {
        if self.is_exact() { x >= self.below } else { x >= self.above }
    }

    /// Whether the binary64 `x` is at most the constant as written.
    pub fn at_least(&self, x: f64) -> bool {
        if self.is_exact() { x <= self.above } else { x <= self.below }
    }

    /// Whether the constant is no binary64 value and lies strictly between two neighbours
    /// (a decimal as written): then it is strictly inside its enclosure.
    pub fn is_strictly_between_neighbours(&self) -> bool {
        self.below < self.above && self.above == self.below.next_up()
    }

    /// The tighter of two lower bounds: `max(a, b)`, enclosed end by end (max is monotone, so
    /// `max(a.below, b.below) ≤ max(a, b) ≤ max(a.above, b.above)`). Choosing one of the two by
    /// comparing enclosures would be wrong when they overlap.
    pub fn max_lower(self, other: Constant) -> Constant {
        // One known to be at least the other is kept as written; of two in the same gap
        // between neighbours (they admit the same binary64 points), the first.
        if self.below >= other.above || (self.below, self.above) == (other.below, other.above) {
            return self;
        }
        if other.below >= self.above {
            return other;
        }
        Constant {
            text: format!("max({}, {})", self.text, other.text).into(),
            below: self.below.max(other.below),
            above: self.above.max(other.above),
        }
    }

    /// The tighter of two upper bounds: `min(a, b)`, enclosed end by end.
    pub fn min_upper(self, other: Constant) -> Constant {
        if self.above <= other.below || (self.below, self.above) == (other.below, other.above) {
            return self;
        }
        if other.above <= self.below {
            return other;
        }
        Constant {
            text: format!("min({}, {})", self.text, other.text).into(),
            below: self.below.min(other.below),
            above: self.above.min(other.above),
        }
    }
}

impl fmt::Display for Constant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Significant digits that hold the exact expansion of every binary64 value: the longest,
/// that of the largest subnormal `(2^52 − 1)·2^-1074`, has 767.
const EXACT_DIGITS: usize = 800;

/// Decimal exponents are clamped to this magnitude: far beyond the binary64 range
/// (`10^-400 < 2^-1074`, `10^400 > MAX`), far below where digit counts could overflow an `i64`.
const EXPONENT_CAP: i64 = 1_000_000_000_000_000;

impl Constant {
    /// Parses a decimal as VNN-LIB files and users write it: an optional sign, digits with an
    /// optional fraction (`12`, `0.6`, `.5`, `5.`), an optional exponent (`1e-3`, `2E+5`).
    /// `None` for anything else (`inf`, `nan`, hexadecimal, empty text).
    ///
    /// The bracket is `below ≤ exact ≤ above`: one binary64 value when the decimal is one,
    /// else two neighbours (`above == below.next_up()`). Beyond the finite range the outer
    /// neighbour is infinite: `1e400` gives `[MAX, ∞]`, `-1e400` gives `[−∞, −MAX]`. Below the
    /// smallest subnormal a positive decimal gives `[0, 2^-1074]` and a negative one
    /// `[−2^-1074, −0]`. The text is kept as written, less a leading `+`.
    pub fn parse(text: &str) -> Option<Constant> {
        let written = Decimal::parse(text)?;
        let nearest: f64 = text.parse().ok()?;
        let (below, above) = if nearest.is_infinite() {
            // Rounding to infinity means the decimal is beyond MAX (by at least half an ulp).
            if nearest > 0.0 { (f64::MAX, f64::INFINITY) } else { (f64::NEG_INFINITY, f64::MIN) }
        } else {
            match written.cmp(&Decimal::of_binary64(nearest)) {
                Ordering::Equal => (nearest, nearest),
                Ordering::Less => (nearest.next_down(), nearest),
                Ordering::Greater => (nearest, nearest.next_up()),
            }
        };
        let text = text.strip_prefix('+').unwrap_or(text);
        Some(Constant { text: text.into(), below, above })
    }
}

/// A decimal `±0.d₁d₂…dₖ × 10^exponent` in lowest terms: `d₁` and `dₖ` are not zero, and
/// zero has no digits (and exponent 0), so equal values have equal representations.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    exponent: i64,
}

impl Decimal {
    fn parse(text: &str) -> Option<Decimal> {
        let (negative, unsigned) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (&unsigned[..at], parse_exponent(&unsigned[at + 1..])?),
            None => (unsigned, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let is_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if (whole.is_empty() && fraction.is_empty()) || !is_digits(whole) || !is_digits(fraction) {
            return None;
        }
        let all = whole.bytes().chain(fraction.bytes()).map(|b| b - b'0');
        let mut digits: Vec<u8> = all.skip_while(|&d| d == 0).collect();
        while digits.last() == Some(&0) {
            digits.pop();
        }
        if digits.is_empty() {
            return Some(Decimal { negative, digits, exponent: 0 });
        }
        // `whole.fraction × 10^e` = `0.digits × 10^(e + number of digits before the point)`,
        // counting the whole part without its leading zeros (a negative count when the
        // fraction starts with zeros).
        let leading_zeros = whole.bytes().chain(fraction.bytes()).take_while(|&b| b == b'0').count();
        let point = whole.len() as i64 - leading_zeros as i64;
        Some(Decimal { negative, digits, exponent: exponent + point })
    }

    /// The exact value of a finite binary64 number.
    fn of_binary64(x: f64) -> Decimal {
        debug_assert!(x.is_finite());
        let text = format!("{x:.EXACT_DIGITS$e}");
        Decimal::parse(&text).expect("Rust formats a finite binary64 as a decimal")
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// −1, 0 or 1.
    fn sign(&self) -> i8 {
        match (self.is_zero(), self.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }
    }

    /// Compares the absolute values of two non-zero decimals: the exponent first, then the
    /// digits; with no trailing zeros, a proper prefix is the smaller number.
    fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        self.exponent.cmp(&other.exponent).then_with(|| self.digits.cmp(&other.digits))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        match self.sign().cmp(&other.sign()) {
            Ordering::Equal if self.is_zero() => Ordering::Equal,
            Ordering::Equal if self.negative => other.cmp_magnitude(self),
            Ordering::Equal => self.cmp_magnitude(other),
            by_sign => by_sign,
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `[+-]?[0-9]+`, clamped to ±[`EXPONENT_CAP`].
fn parse_exponent(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().fold(0i64, |e, b| (e * 10 + i64::from(b - b'0')).min(EXPONENT_CAP));
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
#[path = "decimal_tests.rs"]
mod tests;
