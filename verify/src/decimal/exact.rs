//! Exact values: the rationals that decimals and binary64 numbers are, and the infinities of an
//! unbounded side of a box (`InputBox::from_bounds` accepts ±∞) or of an overflowed output.
//!
//! A rational is kept as a numerator over a positive denominator, *not* reduced. Reducing
//! needs a gcd, and num-bigint's (Stein's algorithm) takes time quadratic in the size of a
//! denominator such as `10^100000`, while the few operations needed here (sums, products,
//! comparisons by cross-multiplication) take a few multiplications. Values are decimals,
//! binary64 numbers, and short sums and products of them, so sizes stay small multiples of the
//! written ones. num-rational's own operations are correct on unreduced values too.

use std::cmp::Ordering;

use num_bigint::{BigInt, Sign};
use num_rational::BigRational;
use num_traits::ToPrimitive;
use num_traits::float::FloatCore;

/// An extended real: −∞, a rational, or +∞, ordered so.
#[derive(Clone, Debug)]
pub enum Exact {
    NegInfinity,
    Finite(BigRational),
    Infinity,
}

impl Exact {
    pub fn zero() -> Exact {
        Exact::Finite(BigRational::new_raw(BigInt::ZERO, BigInt::from(1)))
    }

    /// The value of a binary64 number (exact: its significand over a power of two); `None`
    /// for NaN.
    pub fn of_binary64(x: f64) -> Option<Exact> {
        match x {
            f64::INFINITY => Some(Exact::Infinity),
            f64::NEG_INFINITY => Some(Exact::NegInfinity),
            _ => BigRational::from_float(x).map(Exact::Finite),
        }
    }

    /// `±digits × 10^exponent`, the digits (0 to 9) most significant first; `|exponent|`
    /// must fit a `u32` (callers cap it far lower).
    pub fn of_decimal(negative: bool, digits: &[u8], exponent: i64) -> Exact {
        let sign = if negative { Sign::Minus } else { Sign::Plus };
        let mantissa = BigInt::from_radix_be(sign, digits, 10).expect("decimal digits");
        let power = u32::try_from(exponent.unsigned_abs()).expect("a capped exponent");
        let scale = BigInt::from(10).pow(power);
        Exact::Finite(if exponent >= 0 {
            BigRational::new_raw(mantissa * scale, BigInt::from(1))
        } else {
            BigRational::new_raw(mantissa, scale)
        })
    }

    pub fn is_finite(&self) -> bool {
        matches!(self, Exact::Finite(_))
    }

    /// The rational, when finite.
    pub fn rational(&self) -> Option<&BigRational> {
        match self {
            Exact::Finite(r) => Some(r),
            _ => None,
        }
    }

    /// The sign: `Less` below zero, `Equal` at zero, `Greater` above.
    pub fn sign(&self) -> Ordering {
        match self {
            Exact::NegInfinity => Ordering::Less,
            Exact::Infinity => Ordering::Greater,
            Exact::Finite(r) => match r.numer().sign() {
                Sign::Minus => Ordering::Less,
                Sign::NoSign => Ordering::Equal,
                Sign::Plus => Ordering::Greater,
            },
        }
    }

    pub fn neg(&self) -> Exact {
        match self {
            Exact::NegInfinity => Exact::Infinity,
            Exact::Infinity => Exact::NegInfinity,
            Exact::Finite(r) => Exact::Finite(BigRational::new_raw(-r.numer(), r.denom().clone())),
        }
    }

    /// `self + other`; `None` when it is undefined (`∞ + (−∞)`).
    pub fn add(&self, other: &Exact) -> Option<Exact> {
        match (self, other) {
            (Exact::Finite(a), Exact::Finite(b)) => Some(Exact::Finite(sum(a, b))),
            (Exact::Infinity, Exact::NegInfinity) | (Exact::NegInfinity, Exact::Infinity) => None,
            (Exact::Infinity, _) | (_, Exact::Infinity) => Some(Exact::Infinity),
            _ => Some(Exact::NegInfinity),
        }
    }

    /// `self · other`, with `0 · (±∞) = 0`: a zero coefficient ignores its output, whatever it is.
    pub fn mul(&self, other: &Exact) -> Exact {
        if let (Exact::Finite(a), Exact::Finite(b)) = (self, other) {
            return Exact::Finite(BigRational::new_raw(a.numer() * b.numer(), a.denom() * b.denom()));
        }
        match (self.sign(), other.sign()) {
            (Ordering::Equal, _) | (_, Ordering::Equal) => Exact::zero(),
            (a, b) if a == b => Exact::Infinity,
            _ => Exact::NegInfinity,
        }
    }

    /// The binary64 bracket `below ≤ self ≤ above`: `below == above` when the value is a
    /// binary64 number, else its two neighbours (`above == below.next_up()`). Beyond the finite
    /// range the outer neighbour is infinite (`[MAX, ∞]`, `[−∞, −MAX]`); between zero and the
    /// smallest subnormal the bracket is `[0, 2^-1074]` or `[−2^-1074, −0]`.
    pub fn bracket(&self) -> (f64, f64) {
        match self {
            Exact::Finite(value) => bracket_near(value, value.to_f64().unwrap_or(0.0)),
            _ => self.bracket_near(0.0),
        }
    }

    /// [`Exact::bracket`], starting the search from `near`, a binary64 number close to the
    /// value (a correctly rounded parse is at most one step away).
    pub fn bracket_near(&self, near: f64) -> (f64, f64) {
        match self {
            Exact::NegInfinity => (f64::NEG_INFINITY, f64::NEG_INFINITY),
            Exact::Infinity => (f64::INFINITY, f64::INFINITY),
            Exact::Finite(value) => bracket_near(value, near),
        }
    }
}

/// Steps from `near` to the largest finite binary64 number at most `value`, comparing exactly.
fn bracket_near(value: &BigRational, near: f64) -> (f64, f64) {
    let side = |x: f64| compare(&rational_of(x), value);
    let mut below = if near.is_nan() { 0.0 } else { near.clamp(f64::MIN, f64::MAX) };
    let mut order = side(below);
    while order == Ordering::Greater {
        if below == f64::MIN {
            return (f64::NEG_INFINITY, f64::MIN);
        }
        below = below.next_down();
        order = side(below);
    }
    while order == Ordering::Less && below < f64::MAX {
        let up = below.next_up();
        match side(up) {
            Ordering::Greater => break,
            up_order => (below, order) = (up, up_order),
        }
    }
    // Zeros carry the value's sign: +0 below a positive value, −0 above a negative one.
    let below = if below == 0.0 { 0.0 } else { below };
    if order == Ordering::Equal {
        return (below, below);
    }
    let above = below.next_up();
    (below, if above == 0.0 { -0.0 } else { above })
}

impl Ord for Exact {
    fn cmp(&self, other: &Exact) -> Ordering {
        let rank = |x: &Exact| match x {
            Exact::NegInfinity => 0,
            Exact::Finite(_) => 1,
            Exact::Infinity => 2,
        };
        match (self, other) {
            (Exact::Finite(a), Exact::Finite(b)) => compare(a, b),
            _ => rank(self).cmp(&rank(other)),
        }
    }
}

impl PartialOrd for Exact {
    fn partial_cmp(&self, other: &Exact) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Exact {
    fn eq(&self, other: &Exact) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Exact {}

/// The exact value of a finite binary64 number, `±significand × 2^exponent` (not reduced).
fn rational_of(x: f64) -> BigRational {
    debug_assert!(x.is_finite());
    let (significand, exponent, sign) = FloatCore::integer_decode(x);
    let numer = BigInt::from(i64::from(sign) * significand as i64);
    let power = exponent.unsigned_abs() as usize;
    if exponent >= 0 {
        BigRational::new_raw(numer << power, BigInt::from(1))
    } else {
        BigRational::new_raw(numer, BigInt::from(1) << power)
    }
}

/// Compares by cross-multiplication (denominators are positive).
fn compare(a: &BigRational, b: &BigRational) -> Ordering {
    if a.denom() == b.denom() {
        return a.numer().cmp(b.numer());
    }
    (a.numer() * b.denom()).cmp(&(b.numer() * a.denom()))
}

fn sum(a: &BigRational, b: &BigRational) -> BigRational {
    if a.denom() == b.denom() {
        return BigRational::new_raw(a.numer() + b.numer(), a.denom().clone());
    }
    BigRational::new_raw(a.numer() * b.denom() + b.numer() * a.denom(), a.denom() * b.denom())
}
