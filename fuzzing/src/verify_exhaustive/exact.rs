//! Exact arithmetic for the oracle: decimal texts and binary64 values as rationals, and the
//! binary64 points of a real interval.
//!
//! Written apart from the verifier's own decimal code (`verify/decimal.rs`) on purpose: the
//! oracle must not share a mistake with the code it judges.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

pub type Rational = BigRational;

/// The exact value of a decimal as the generator writes it: `[+-]?digits[.digits]([eE][+-]?digits)?`.
/// `None` for anything else (the generator never writes `inf` or `nan` as a bound).
pub fn decimal(text: &str) -> Option<Rational> {
    let (negative, unsigned) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], unsigned[at + 1..].parse::<i32>().ok()?),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let integer: BigInt = digits.parse().ok()?;
    let scale = exponent.checked_sub(i32::try_from(fraction.len()).ok()?)?;
    let magnitude = Rational::from_integer(integer) * power_of_ten(scale);
    Some(if negative { -magnitude } else { magnitude })
}

/// `10^e` for any integer `e`.
fn power_of_ten(e: i32) -> Rational {
    let p = Rational::from_integer(BigInt::from(10).pow(e.unsigned_abs()));
    if e >= 0 { p } else { p.recip() }
}

/// The exact value of a finite binary64 number (both zeros are 0).
pub fn of_f64(x: f64) -> Rational {
    Rational::from_float(x).expect("a finite binary64 value")
}

/// The exact decimal expansion of a rational whose denominator divides a power of ten (every
/// binary64 value, and sums and differences of such values with short decimals): `None`
/// otherwise.
pub fn decimal_text(r: &Rational) -> Option<String> {
    let mut denominator = r.denom().clone();
    let (two, five) = (BigInt::from(2), BigInt::from(5));
    let (mut twos, mut fives) = (0u32, 0u32);
    while (&denominator % &two).is_zero() {
        denominator /= &two;
        twos += 1;
    }
    while (&denominator % &five).is_zero() {
        denominator /= &five;
        fives += 1;
    }
    if !denominator.is_one() {
        return None;
    }
    let places = twos.max(fives);
    let scaled = (r * Rational::from_integer(BigInt::from(10).pow(places))).to_integer();
    let digits = scaled.abs().to_string();
    let sign = if scaled.is_negative() { "-" } else { "" };
    if places == 0 {
        return Some(format!("{sign}{digits}.0"));
    }
    let padded = format!("{digits:0>width$}", width = places as usize + 1);
    let (whole, fraction) = padded.split_at(padded.len() - places as usize);
    Some(format!("{sign}{whole}.{fraction}"))
}

/// The exact decimal text of a finite binary64 value.
pub fn exact_text(x: f64) -> String {
    let text = decimal_text(&of_f64(x)).expect("a binary64 value has a finite decimal expansion");
    if x == 0.0 && x.is_sign_negative() { "-0.0".into() } else { text }
}

/// Binary64 values ordered as the reals they are, both zeros at 0: consecutive finite values
/// have consecutive keys.
pub fn key(x: f64) -> i64 {
    let magnitude = (x.to_bits() & !(1 << 63)) as i64;
    if x.is_sign_negative() { -magnitude } else { magnitude }
}

/// The binary64 value of a key (`+0.0` for 0).
pub fn of_key(k: i64) -> f64 {
    let magnitude = f64::from_bits(k.unsigned_abs());
    if k < 0 { -magnitude } else { magnitude }
}

/// The smallest finite binary64 value at least `r`, if any.
pub fn ceiling(r: &Rational) -> Option<f64> {
    if *r > of_f64(f64::MAX) {
        return None;
    }
    let mut x = near(r);
    while of_f64(x) < *r {
        x = x.next_up();
    }
    while x > f64::MIN && of_f64(x.next_down()) >= *r {
        x = x.next_down();
    }
    Some(x)
}

/// The largest finite binary64 value at most `r`, if any.
pub fn floor(r: &Rational) -> Option<f64> {
    ceiling(&-r).map(|x| -x)
}

/// A finite binary64 value near `r` (a starting point for the exact searches).
fn near(r: &Rational) -> f64 {
    r.to_f64().filter(|x| x.is_finite()).unwrap_or(if r.is_negative() { f64::MIN } else { f64::MAX })
}

/// The keys of the first and last finite binary64 points of `[lo, hi]`, if it has any.
fn key_range(lo: &Rational, hi: &Rational) -> Option<(i64, i64)> {
    let (a, b) = (key(ceiling(lo)?), key(floor(hi)?));
    (a <= b).then_some((a, b))
}

/// How many finite binary64 points the real interval `[lo, hi]` holds (both zeros count).
pub fn count(lo: &Rational, hi: &Rational) -> u64 {
    key_range(lo, hi).map_or(0, |(a, b)| (b - a) as u64 + 1 + u64::from(a <= 0 && 0 <= b))
}

/// The finite binary64 points of the real interval `[lo, hi]`, both zeros when 0 is in it, in
/// increasing order; `None` when there are more than `limit`.
pub fn points(lo: &Rational, hi: &Rational, limit: u64) -> Option<Vec<f64>> {
    let Some((a, b)) = key_range(lo, hi) else { return Some(Vec::new()) };
    let count = count(lo, hi);
    if count > limit {
        return None;
    }
    let mut out = Vec::with_capacity(count as usize);
    for k in a..=b {
        if k == 0 {
            out.push(-0.0);
        }
        out.push(of_key(k));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rat(text: &str) -> Rational {
        decimal(text).unwrap()
    }

    #[test]
    fn decimals_are_read_exactly() {
        assert_eq!(rat("0.1") * Rational::from_integer(10.into()), Rational::one());
        assert_eq!(rat("-2.5e-3"), Rational::new((-25).into(), 10_000.into()));
        assert_eq!(rat("+12"), Rational::from_integer(12.into()));
        assert_eq!(rat("5."), Rational::from_integer(5.into()));
        assert_eq!(rat(".5"), Rational::new(1.into(), 2.into()));
        assert!(decimal("inf").is_none() && decimal("1e").is_none() && decimal("").is_none());
        // 0.1 is not the binary64 value 0.1 (which is above it).
        assert!(of_f64(0.1) > rat("0.1"));
    }

    #[test]
    fn exact_texts_read_back_to_the_same_value() {
        for x in [0.1, -0.3, 5e-324, f64::MAX, 1.0, -0.0, 0.49999999999999994, 1e-7] {
            assert_eq!(rat(&exact_text(x)), of_f64(x), "{x:?}: {}", exact_text(x));
        }
        assert_eq!(exact_text(0.5), "0.5");
        assert_eq!(exact_text(-0.0), "-0.0");
        assert_eq!(decimal_text(&Rational::new(1.into(), 3.into())), None);
    }

    #[test]
    fn the_points_of_an_interval_are_every_binary64_value_in_it() {
        // [0.1, 0.1]: 0.1 itself is no binary64 value: no point.
        assert_eq!(points(&rat("0.1"), &rat("0.1"), 10), Some(vec![]));
        // [-0.3, 0.5] (as reals) holds 0.5 and starts at the binary64 value just above -0.3.
        let lo = ceiling(&rat("-0.3")).unwrap();
        assert!(of_f64(lo) >= rat("-0.3") && of_f64(lo.next_down()) < rat("-0.3"));
        assert_eq!(floor(&(rat("0.1") + rat("0.4"))), Some(0.5));
        // Around zero: both zeros, and the subnormals on each side.
        let around_zero = points(&rat("-1e-323"), &rat("5e-324"), 10).unwrap();
        let bits: Vec<u64> = around_zero.iter().map(|x| x.to_bits()).collect();
        let expected: Vec<u64> = [-1e-323, -5e-324, -0.0, 0.0, 5e-324].iter().map(|x: &f64| x.to_bits()).collect();
        assert_eq!(bits, expected);
        // Beyond the finite range: nothing above MAX, MAX itself included.
        assert_eq!(points(&rat("1e309"), &rat("1e310"), 10), Some(vec![]));
        assert_eq!(points(&of_f64(f64::MAX), &rat("1e310"), 10), Some(vec![f64::MAX]));
        assert_eq!(points(&rat("-1"), &rat("1"), 1000), None);
    }
}
