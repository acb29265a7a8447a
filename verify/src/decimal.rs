//! Constants as written, with their exact values and their exact binary64 brackets.
//!
//! A bound such as `0.6` is no binary64 number, and which side of it a binary64 input or
//! output lies on is the verifier's answer, so every constant keeps its exact value (a
//! rational, [`Exact`]) and the two binary64 values around it, found by exact comparison.
//! Constants computed from others (a ball's `centre ± eps`, the tighter of two bounds) are
//! computed exactly too, so every bracket is exact: a region's binary64 points and its
//! emptiness are decided, never approximated (docs/verification.md, "Constants as written").

mod exact;

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

pub use exact::Exact;

use super::float::Interval;

/// A real constant as written, its exact value, and the binary64 values around it:
/// `below ≤ value ≤ above`, `below == above` exactly when the value is a binary64 number, else
/// `above == below.next_up()` (so the value lies strictly between them; beyond the finite range
/// the outer neighbour is infinite). Built by [`Constant::parse`], [`Constant::exact`] and the
/// exact operations below, which keep the three consistent.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    pub text: Arc<str>,
    pub below: f64,
    pub above: f64,
    value: Arc<Exact>,
}

impl Constant {
    /// A constant that is a binary64 value (±∞ included: an unbounded side of a box).
    ///
    /// # Panics
    ///
    /// On NaN, which is no value; callers refuse it first.
    pub fn exact(x: f64) -> Constant {
        let value = Exact::of_binary64(x).expect("NaN is no constant");
        Constant { text: format!("{x:?}").into(), below: x, above: x, value: Arc::new(value) }
    }

    /// The constant `text` of exact value `value`, bracketed (searching from `near`, a
    /// binary64 number close to it, when there is one).
    fn of_value(text: String, value: Exact, near: Option<f64>) -> Constant {
        let (below, above) = match near {
            Some(x) => value.bracket_near(x),
            None => value.bracket(),
        };
        Constant { text: text.into(), below, above, value: Arc::new(value) }
    }

    /// The exact value.
    pub fn value(&self) -> &Exact {
        &self.value
    }

    /// Compares exact values.
    pub fn cmp_value(&self, other: &Constant) -> Ordering {
        self.value.cmp(&other.value)
    }

    pub fn is_exact(&self) -> bool {
        self.below == self.above
    }

    pub fn interval(&self) -> Interval {
        Interval::new(self.below, self.above)
    }

    /// `−c`, exactly (the bracket of `−c` is the negated bracket of `c`).
    pub fn neg(&self) -> Constant {
        let text = match self.text.strip_prefix('-') {
            Some(positive) => positive.into(),
            // A computed constant's text is a sum: negate all of it.
            None if self.text.contains(' ') => format!("-({})", self.text).into(),
            None => format!("-{}", self.text).into(),
        };
        Constant { text, below: -self.above, above: -self.below, value: Arc::new(self.value.neg()) }
    }

    /// `a + b`, exactly; `None` when undefined (`∞ + (−∞)`).
    pub fn add(&self, other: &Constant) -> Option<Constant> {
        Some(Constant::of_value(format!("{self} + {other}"), self.value.add(&other.value)?, None))
    }

    /// `a − b`, exactly; `None` when undefined (`∞ − ∞`).
    pub fn sub(&self, other: &Constant) -> Option<Constant> {
        Some(Constant::of_value(format!("{self} - {other}"), self.value.add(&other.value.neg())?, None))
    }

    /// Whether the binary64 `x` is at least the constant. Exact: a constant strictly between
    /// two neighbours compares with every binary64 as the upper one does.
    pub fn at_most(&self, x: f64) -> bool {
        if self.is_exact() { x >= self.below } else { x >= self.above }
    }

    /// Whether the binary64 `x` is at most the constant.
    pub fn at_least(&self, x: f64) -> bool {
        if self.is_exact() { x <= self.above } else { x <= self.below }
    }

    /// The binary64 number nearest the constant, ties to the even one (as IEEE's conversion
    /// of a decimal, and VNN-COMP's readers of VNN-LIB, round it), as an exact constant; one
    /// beyond the finite range gives its finite neighbour (a bound stays a bound).
    pub fn nearest(&self) -> Constant {
        if self.is_exact() {
            return self.clone();
        }
        let x = if !self.above.is_finite() {
            self.below
        } else if !self.below.is_finite() {
            self.above
        } else {
            let exact = |v: f64| Exact::of_binary64(v).expect("finite");
            let to_below = self.value.add(&exact(self.below).neg()).expect("finite");
            let to_above = exact(self.above).add(&self.value.neg()).expect("finite");
            match to_below.cmp(&to_above) {
                Ordering::Less => self.below,
                Ordering::Greater => self.above,
                Ordering::Equal if self.below.to_bits() & 1 == 0 => self.below,
                Ordering::Equal => self.above,
            }
        };
        Constant::exact(x)
    }

    /// The tighter of two lower bounds, `max(a, b)`, by exact comparison: the larger as
    /// written, the first of two equal ones.
    pub fn max_lower(self, other: Constant) -> Constant {
        if other.cmp_value(&self) == Ordering::Greater { other } else { self }
    }

    /// The tighter of two upper bounds, `min(a, b)`: the smaller, the first of two equal ones.
    pub fn min_upper(self, other: Constant) -> Constant {
        if other.cmp_value(&self) == Ordering::Less { other } else { self }
    }
}

impl fmt::Display for Constant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Exact values are kept for decimals of magnitude below `10^RANGE` with at most `RANGE`
/// decimal places: far beyond binary64 (`10^-400 < 2^-1074`, `10^400 > MAX`; the exact
/// expansion of a binary64 number has at most 1074 places), and small enough to compute with
/// (`10^100000` has 332 193 bits).
pub const RANGE: i64 = 100_000;

/// Decimal exponents as written are clamped to this magnitude before the range is checked,
/// far below where digit counts could overflow an `i64`.
const EXPONENT_CAP: i64 = 1_000_000_000_000_000;

impl Constant {
    /// Parses a decimal as VNN-LIB files and users write it: an optional sign, digits with an
    /// optional fraction (`12`, `0.6`, `.5`, `5.`), an optional exponent (`1e-3`, `2E+5`).
    /// Refused, with the reason: anything else (`inf`, `nan`, hexadecimal, empty text), and
    /// decimals out of [`RANGE`] (`1e999999`), too costly to compute with exactly.
    ///
    /// The value is exact and bracketed as [`Constant`] says: `1e400` gives `[MAX, ∞]`,
    /// `-1e400` gives `[−∞, −MAX]`, a positive decimal below the smallest subnormal
    /// `[0, 2^-1074]`, a negative one `[−2^-1074, −0]`, and `-0` the binary64 `−0`. The text is
    /// kept as written, less a leading `+`.
    pub fn parse(text: &str) -> Result<Constant, String> {
        let written = Decimal::parse(text).ok_or_else(|| format!("`{}` is not a decimal number", shown(text)))?;
        let kept = text.strip_prefix('+').unwrap_or(text);
        if written.digits.is_empty() {
            let zero = if written.negative { -0.0 } else { 0.0 };
            return Ok(Constant { text: kept.into(), below: zero, above: zero, value: Arc::new(Exact::zero()) });
        }
        // `0.d₁…dₖ × 10^e` is the integer `d₁…dₖ` over `10^(k − e)`.
        let places = written.digits.len() as i64 - written.exponent;
        if written.exponent > RANGE || places > RANGE {
            return Err(format!(
                "`{}` is out of range: constants are kept exactly, below 1e{RANGE} in magnitude and with at most \
                 {RANGE} decimal places",
                shown(text)
            ));
        }
        let value = Exact::of_decimal(written.negative, &written.digits, -places);
        // Rust's parser rounds to nearest: the bracket is at most one step from it.
        Ok(Constant::of_value(kept.into(), value, text.parse().ok()))
    }
}

/// The text for a message: at most 40 characters.
fn shown(text: &str) -> String {
    if text.chars().count() <= 40 {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(32).collect::<String>())
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
