//! Directed rounding without touching the FPU's rounding mode: each operation is computed in
//! round-to-nearest, its exact error is found by an error-free transformation (two-sum for
//! sums, a fused multiply-add for products), and the result moves one step outward only when
//! that error points outward. Round-to-nearest is within half an ulp of the exact result, so
//! the neighbour on the far side bounds it; exact operations stay exact, so ties between
//! outputs can be decided (docs/verification.md, "Rounding"). Where the error is not certain
//! (overflow, results near underflow, division) the result always moves. A NaN propagates and
//! every caller treats a NaN bound as "no bound".
//!
//! Also here: the a-priori error bound `γ_k` of a sequential sum (Higham, *Accuracy and
//! Stability of Numerical Algorithms*, §3.1) and rigorous sums of many terms.

/// The unit roundoff of binary64, `2^-53`.
pub const UNIT_ROUNDOFF: f64 = 1.0 / 9_007_199_254_740_992.0;

/// The smallest positive subnormal, `2^-1074`: a bound of the absolute error that underflow
/// adds to one rounded product (half of it, in fact) in the gradual-underflow model.
pub const ETA: f64 = f64::from_bits(1);

/// The exact result of `a + b` is at most this.
pub fn add_up(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return s.next_up();
    }
    match sum_error(a, b, s) {
        Some(e) if e <= 0.0 => s,
        _ => s.next_up(),
    }
}

/// The exact result of `a + b` is at least this.
pub fn add_down(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return s.next_down();
    }
    match sum_error(a, b, s) {
        Some(e) if e >= 0.0 => s,
        _ => s.next_down(),
    }
}

pub fn sub_up(a: f64, b: f64) -> f64 {
    add_up(a, -b)
}

pub fn sub_down(a: f64, b: f64) -> f64 {
    add_down(a, -b)
}

pub fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    match product_error(a, b, p) {
        Some(e) if e <= 0.0 => p,
        _ => p.next_up(),
    }
}

pub fn mul_down(a: f64, b: f64) -> f64 {
    let p = a * b;
    match product_error(a, b, p) {
        Some(e) if e >= 0.0 => p,
        _ => p.next_down(),
    }
}

/// Division is rare in bounds: the quotient always moves one step outward.
pub fn div_up(a: f64, b: f64) -> f64 {
    (a / b).next_up()
}

pub fn div_down(a: f64, b: f64) -> f64 {
    (a / b).next_down()
}

/// `a + b − s` exactly, for `s = fl(a + b)` finite (Knuth's two-sum, no branch on magnitudes),
/// or `None` when the two-sum cannot tell: its intermediate `s − a` overflows even though `s`
/// is finite when `a + b` lies within half an ulp of the overflow threshold's neighbourhood
/// (`1.359664768954739e307 − MAX`: `s − a` is `−(MAX + 2^970)`, a tie that rounds to `−∞`),
/// and the error then comes out NaN. Callers move outward on `None`.
pub fn sum_error(a: f64, b: f64, s: f64) -> Option<f64> {
    let bb = s - a;
    let error = (a - (s - bb)) + (b - bb);
    error.is_finite().then_some(error)
}

/// `a·b − p` exactly for `p = fl(a·b)`, when that is certain: `p` finite and at least
/// `2^-969`, where the error of a product is a binary64 value and the fused multiply-add
/// returns it exactly (Boldo and Muller); `None` otherwise (then callers move outward).
fn product_error(a: f64, b: f64, p: f64) -> Option<f64> {
    const SAFE: f64 = f64::from_bits((1023 - 969) << 52); // 2^-969
    // A product by ±1 is the other factor, exactly, at any magnitude (constraints on outputs
    // such as `Y_0 − Y_1` are decided on subnormal outputs too).
    if a.abs() == 1.0 || b.abs() == 1.0 {
        return p.is_finite().then_some(0.0);
    }
    if !p.is_finite() || p.abs() < SAFE {
        return if p == 0.0 && (a == 0.0 || b == 0.0) { Some(0.0) } else { None };
    }
    Some(a.mul_add(b, -p))
}

/// `γ_k = k·u / (1 − k·u)`, rounded up: the relative error bound of a sum of `k` rounded
/// operations in sequence (`|fl(Σ) − Σ| ≤ γ_{k} Σ|terms|` for a sum of `k+1` terms, and for a
/// dot product of `k` terms including its products). Infinite when `k·u ≥ 1`.
pub fn gamma(k: usize) -> f64 {
    let ku = mul_up(k as f64, UNIT_ROUNDOFF);
    if ku >= 1.0 {
        return f64::INFINITY;
    }
    div_up(ku, sub_down(1.0, ku))
}

/// An upper bound of the exact `Σ terms` for terms that are each already upper bounds.
pub fn sum_up(terms: impl IntoIterator<Item = f64>) -> f64 {
    terms.into_iter().fold(0.0, add_up)
}

/// Rigorous upper bounds of non-negative sums of `n` rounded terms: a sum computed fast in
/// round-to-nearest is `fl(Σ) ≥ (1 − γ_n)·Σ − n·η`, so `Σ ≤ (fl(Σ) + n·η)·(1 + 2γ_n)` for
/// `γ_n ≤ 1/2` (docs/verification.md, "Rigorous dot products"). The constants are computed
/// once per length.
#[derive(Clone, Copy, Debug)]
pub struct NonNegativeSum {
    factor: f64,
    underflow: f64,
}

impl NonNegativeSum {
    pub fn new(n: usize) -> NonNegativeSum {
        let g = gamma(n.max(1));
        let factor = if g > 0.5 { f64::INFINITY } else { add_up(1.0, mul_up(2.0, g)) };
        NonNegativeSum { factor, underflow: mul_up(n as f64, ETA) }
    }

    /// An upper bound of the exact sum whose round-to-nearest sequential value is `s`.
    pub fn bound(&self, s: f64) -> f64 {
        mul_up(add_up(s, self.underflow), self.factor)
    }

    /// An upper bound of the exact `Σ a_i·b_i` for non-negative `a`, `b` of this length.
    pub fn dot(&self, a: &[f64], b: &[f64]) -> f64 {
        debug_assert_eq!(a.len(), b.len());
        self.bound(a.iter().zip(b).map(|(x, y)| x * y).sum())
    }
}

/// An upper bound of the exact `Σ a_i·b_i` for non-negative `a`, `b` (NaN when an input is
/// NaN).
pub fn dot_up_nonneg(a: &[f64], b: &[f64]) -> f64 {
    NonNegativeSum::new(a.len()).dot(a, b)
}

/// An upper bound of a non-negative exact sum of `n` rounded products whose round-to-nearest
/// sequential sum is `s`.
pub fn inflate_up(s: f64, n: usize) -> f64 {
    NonNegativeSum::new(n).bound(s)
}

/// A lower bound of the exact minimum of `Σ c_i·x_i` over the box `x`: the sum of `c_i` times
/// the end of `x_i` that makes the term smallest. Summed fast in four partial sums (any order
/// of a dot product of `n` terms is within `γ_n·Σ|c_i·e_i| + n·η` of the exact value: each
/// product rounds once and may lose `η/2` to underflow, and no path through the sum has more
/// than `n − 1` additions), then lowered by that bound, with `Σ|c_i·e_i|` bounded from above
/// by [`NonNegativeSum`]. Where a term, the sum or the bound is not finite, term by term with
/// directed rounding instead. (On 784 inputs the term-by-term sum had taken a third of the
/// search's time.)
pub fn min_dot(c: &[f64], x: &[Interval]) -> f64 {
    debug_assert_eq!(c.len(), x.len());
    let end = |c: f64, x: &Interval| if c >= 0.0 { x.lo } else { x.hi };
    let (mut sums, mut magnitudes) = ([0.0f64; 4], [0.0f64; 4]);
    let (c_chunks, x_chunks) = (c.chunks_exact(4), x.chunks_exact(4));
    let (c_tail, x_tail) = (c_chunks.remainder(), x_chunks.remainder());
    for (cs, xs) in c_chunks.zip(x_chunks) {
        for k in 0..4 {
            let p = cs[k] * end(cs[k], &xs[k]);
            sums[k] += p;
            magnitudes[k] += p.abs();
        }
    }
    for (k, (&ck, xk)) in c_tail.iter().zip(x_tail).enumerate() {
        let p = ck * end(ck, xk);
        sums[k] += p;
        magnitudes[k] += p.abs();
    }
    let n = c.len();
    let sum = (sums[0] + sums[1]) + (sums[2] + sums[3]);
    let magnitude = NonNegativeSum::new(n).bound((magnitudes[0] + magnitudes[1]) + (magnitudes[2] + magnitudes[3]));
    let error = add_up(mul_up(gamma(n), magnitude), mul_up(n as f64, ETA));
    if sum.is_finite() && error.is_finite() {
        return sub_down(sum, error);
    }
    c.iter().zip(x).fold(0.0, |s, (&c, x)| add_down(s, mul_down(c, end(c, x))))
}

/// The values `fl(s + t)` takes for `s` in `s` and `t` in `t` (neither NaN), as the engine
/// adds them (rounded to nearest, not outward), or `None` when one may be NaN: some `s` may be
/// `+∞` while some `t` is `−∞`, or the other way round. The two need not occur at the same
/// point, so this may refuse a sum that is never NaN, never the other way. Otherwise
/// `fl(s + t)` is monotone in both and the ends map to the ends.
pub fn engine_sum(s: Interval, t: Interval) -> Option<Interval> {
    let opposite_infinities =
        (s.hi == f64::INFINITY && t.lo == f64::NEG_INFINITY) || (s.lo == f64::NEG_INFINITY && t.hi == f64::INFINITY);
    if opposite_infinities || t.lo.is_nan() || t.hi.is_nan() {
        return None;
    }
    Some(Interval::new(s.lo + t.lo, s.hi + t.hi))
}

/// A closed interval of reals `[lo, hi]` (an enclosure: the value it stands for is inside).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

// Named methods rather than operator traits: each rounds outward, unlike `+` and `*` on f64.
#[allow(clippy::should_implement_trait)]
impl Interval {
    pub fn new(lo: f64, hi: f64) -> Interval {
        Interval { lo, hi }
    }

    pub fn point(x: f64) -> Interval {
        Interval { lo: x, hi: x }
    }

    /// The binary64 nearest the middle, `(lo + hi) / 2` without overflow (`hi − lo` of a box
    /// as wide as `[−MAX, MAX]` is `+∞`, and a middle at `+∞` lies outside it): a point of the
    /// interval for finite ends.
    pub fn midpoint(&self) -> f64 {
        self.lo.midpoint(self.hi)
    }

    /// `hi − lo`, saturated at `MAX` (a box as wide as `[−MAX, MAX]` would have an infinite
    /// width, and `∞ · 0` or `∞ / ∞` in a score a NaN).
    pub fn width(&self) -> f64 {
        (self.hi - self.lo).min(f64::MAX)
    }

    /// The largest magnitude in the interval (one of the ends, so no rounding).
    pub fn magnitude(&self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }

    /// The exact sum's enclosure, rounded outward.
    pub fn add(self, other: Interval) -> Interval {
        Interval { lo: add_down(self.lo, other.lo), hi: add_up(self.hi, other.hi) }
    }

    /// The exact product's enclosure, rounded outward (the four corner products; NaN when a
    /// corner is `0·∞`, which callers treat as no bound).
    pub fn mul(self, other: Interval) -> Interval {
        let (a, b) = (self, other);
        let lows = [mul_down(a.lo, b.lo), mul_down(a.lo, b.hi), mul_down(a.hi, b.lo), mul_down(a.hi, b.hi)];
        let highs = [mul_up(a.lo, b.lo), mul_up(a.lo, b.hi), mul_up(a.hi, b.lo), mul_up(a.hi, b.hi)];
        if lows.iter().chain(&highs).any(|v| v.is_nan()) {
            return Interval { lo: f64::NAN, hi: f64::NAN };
        }
        Interval {
            lo: lows.into_iter().fold(f64::INFINITY, f64::min),
            hi: highs.into_iter().fold(f64::NEG_INFINITY, f64::max),
        }
    }

    /// Widens by `err` on both sides, rounded outward.
    pub fn widen(self, err: f64) -> Interval {
        Interval { lo: sub_down(self.lo, err), hi: add_up(self.hi, err) }
    }

    /// The intersection, or `None` when empty (or when an end is NaN).
    pub fn meet(self, other: Interval) -> Option<Interval> {
        let lo = self.lo.max(other.lo);
        let hi = self.hi.min(other.hi);
        (lo <= hi).then_some(Interval { lo, hi })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact rational check of a rounded bound: `a + b` for binary64 `a`, `b` is exactly
    /// representable as a pair (two-sum), so the bound can be compared with the exact value.
    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bb = s - a;
        let err = (a - (s - bb)) + (b - bb);
        (s, err)
    }

    /// The exact minimum of `Σ c·x` over the box, as a rational (finite ends only).
    fn exact_min_dot(c: &[f64], x: &[Interval]) -> num_rational::BigRational {
        let exact = |v: f64| num_rational::BigRational::from_float(v).expect("finite");
        c.iter().zip(x).fold(exact(0.0), |s, (&c, x)| s + exact(c) * exact(if c >= 0.0 { x.lo } else { x.hi }))
    }

    #[test]
    fn min_dot_is_below_the_exact_minimum_and_close_to_it() {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut tight = 0;
        for case in 0..400 {
            let n = 1 + (next() % 300) as usize;
            // Scales from subnormal to near overflow, signs and zeros mixed.
            let mut value = |scale: f64| {
                let r = (next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                match next() % 10 {
                    0 => 0.0,
                    1 => r * 1e-310,
                    _ => r * scale,
                }
            };
            let scale = [1.0, 1e-150, 1e150, 1e300][case % 4];
            let c: Vec<f64> = (0..n).map(|_| value(scale)).collect();
            let x: Vec<Interval> = (0..n)
                .map(|_| {
                    let (a, b) = (value(1.0), value(1.0));
                    Interval::new(a.min(b), a.max(b))
                })
                .collect();
            let bound = min_dot(&c, &x);
            let exact = exact_min_dot(&c, &x);
            if bound.is_finite() {
                let b = num_rational::BigRational::from_float(bound).unwrap();
                assert!(b <= exact, "case {case}: {bound:e} above the exact minimum {exact}");
                // And close: within n·2^-50 of the terms' magnitude (plus underflow).
                let magnitude: f64 =
                    c.iter().zip(&x).map(|(c, x)| (c * if *c >= 0.0 { x.lo } else { x.hi }).abs()).sum();
                let slack =
                    num_rational::BigRational::from_float(magnitude * n as f64 * 2f64.powi(-50) + 1e-300).unwrap();
                if exact.clone() - b <= slack {
                    tight += 1;
                }
            }
        }
        assert!(tight > 350, "only {tight} of 400 bounds within the a-priori error");
        // Overflowing terms: the term-by-term path, still below the exact minimum.
        let c = [f64::MAX, f64::MAX, -1.0];
        let x = [Interval::new(1.5, 2.0), Interval::new(-1.0, 1.0), Interval::new(0.0, 3.0)];
        let bound = min_dot(&c, &x);
        assert!(bound.is_finite() && num_rational::BigRational::from_float(bound).unwrap() <= exact_min_dot(&c, &x));
        // An empty sum is 0.
        assert_eq!(min_dot(&[], &[]), 0.0);
    }

    #[test]
    fn sums_whose_two_sum_overflows_still_move_outward() {
        // 1.359664768954739e307 − MAX is exactly the midpoint of two binary64 values; the
        // two-sum's `s − a` is then −(MAX + 2^970), which rounds to −∞: no error term.
        let (a, b) = (1.359664768954739e307, -f64::MAX);
        let s = a + b;
        assert!(s.is_finite() && sum_error(a, b, s).is_none());
        let (lower, upper) = (add_down(a, b), add_up(a, b));
        // The exact sum, halved: the halves are exact and their two-sum does not overflow.
        let s2 = a / 2.0 + b / 2.0;
        let e2 = sum_error(a / 2.0, b / 2.0, s2).expect("no overflow at half the size");
        assert!(e2 != 0.0, "the exact sum is no binary64 value");
        // lower/2 and upper/2 are within a few steps of s2, so these differences are exact.
        assert!(lower / 2.0 - s2 <= e2 && e2 <= upper / 2.0 - s2, "[{lower:e}, {upper:e}] holds the exact sum");
    }

    #[test]
    fn directed_sums_bound_the_exact_sum() {
        let cases = [(0.1, 0.2), (1e16, 1.0), (-1e16, -1.0), (1.0, 1e-30), (3.0, -3.0), (f64::MIN_POSITIVE, -1e-310)];
        for (a, b) in cases {
            let (s, err) = two_sum(a, b);
            // exact = s + err; check down <= exact <= up through the error's sign.
            let upper = add_up(a, b);
            let lower = add_down(a, b);
            assert!(upper > s || (upper == s && err <= 0.0), "{a} + {b}");
            assert!(lower < s || (lower == s && err >= 0.0), "{a} + {b}");
            if err > 0.0 {
                assert!(upper > s);
            }
            if err < 0.0 {
                assert!(lower < s);
            }
        }
    }

    #[test]
    fn exact_operations_stay_exact_and_inexact_ones_move_outward() {
        assert_eq!(add_up(1.0, -1.0), 0.0);
        assert_eq!(add_down(0.5, 0.25), 0.75);
        assert_eq!(mul_up(3.0, 0.5), 1.5);
        assert_eq!(mul_down(-3.0, 0.5), -1.5);
        // 0.1·3 is not exact: the bounds straddle the rounded product.
        let p = 0.1 * 3.0;
        assert!(mul_down(0.1, 3.0) <= p && p <= mul_up(0.1, 3.0));
        assert!(mul_down(0.1, 3.0) < mul_up(0.1, 3.0));
        // fma(0.1, 3, −p) is the exact error; its sign says which bound equals p.
        let e = 0.1f64.mul_add(3.0, -p);
        if e > 0.0 {
            assert_eq!(mul_down(0.1, 3.0), p);
        } else {
            assert_eq!(mul_up(0.1, 3.0), p);
        }
        // Overflow: the exact sum is finite but beyond MAX; the bounds stay on the right side.
        assert_eq!(add_up(f64::MAX, f64::MAX), f64::INFINITY);
        assert_eq!(add_down(f64::MAX, f64::MAX), f64::MAX);
        // Near underflow the result always moves.
        assert!(mul_up(1e-200, 1e-200) > 0.0);
        assert_eq!(mul_down(1e-200, 1e-200), -ETA);
        assert_eq!(mul_up(0.0, 5.0), 0.0);
        // ±1 times anything is exact, subnormals included.
        assert_eq!(mul_up(-1.0, ETA), -ETA);
        assert_eq!(mul_down(ETA, 1.0), ETA);
    }

    #[test]
    fn gamma_is_k_u_over_one_minus_k_u_rounded_up() {
        // k = 2^50: k·u = 1/8, γ = (1/8)/(7/8) = 1/7 (not 1/8: the denominator matters).
        let g = gamma(1 << 50);
        assert!((1.0 / 7.0..1.0 / 7.0 + 1e-15).contains(&g), "{g}");
    }

    #[test]
    fn a_product_near_underflow_is_never_called_exact_when_its_error_underflows() {
        // a·b = (1 + 2^-52 + 2^-51 + 2^-103)·2^-1000 rounds to (1 + 3·2^-52)·2^-1000; the error
        // 2^-1103 is below the smallest subnormal, so a fused multiply-add returns 0 for it:
        // near underflow the result must move anyway.
        let a = 1.0 + f64::EPSILON;
        let b = (1.0 + 2.0 * f64::EPSILON) * 2f64.powi(-1000);
        let p = a * b;
        assert_eq!(p, (1.0 + 3.0 * f64::EPSILON) * 2f64.powi(-1000));
        assert!(mul_up(a, b) > p, "the exact product is above p");
        assert_eq!(mul_down(a, b), p.next_down());
        // At the threshold 2^-969 itself an exact product stays exact.
        let t = 2f64.powi(-969);
        assert_eq!(mul_up(2f64.powi(-968), 0.5), t);
        assert_eq!(mul_down(2f64.powi(-968), 0.5), t);
    }

    #[test]
    fn gamma_grows_with_the_number_of_operations_and_saturates() {
        assert!(gamma(1) > UNIT_ROUNDOFF);
        assert!(gamma(1) < 1.1 * UNIT_ROUNDOFF);
        assert!(gamma(100) > 100.0 * UNIT_ROUNDOFF);
        assert_eq!(gamma(usize::MAX), f64::INFINITY);
    }

    #[test]
    fn the_nonnegative_dot_product_bound_is_above_the_exact_value() {
        // Σ 0.1·0.1 ten times: each product and sum rounds; the exact value is 0.1 (of the
        // binary64 0.1, squared, times ten), which we bound from the decimal side: 0.1f64 >
        // 0.1, so the exact value exceeds 0.1 and the bound must too.
        let a = [0.1; 10];
        let up = dot_up_nonneg(&a, &a);
        assert!(up > 0.1);
        assert!(up < 0.1 + 1e-15);
    }

    #[test]
    fn interval_products_cover_every_corner_and_refuse_zero_times_infinity() {
        let p = Interval::new(-2.0, 3.0).mul(Interval::new(-5.0, 0.5));
        assert!(p.lo <= -15.0 && p.hi >= 10.0);
        assert!(p.lo > -15.0001 && p.hi < 10.0001);
        let bad = Interval::new(0.0, 1.0).mul(Interval::new(1.0, f64::INFINITY));
        assert!(bad.lo.is_nan());
    }
}
