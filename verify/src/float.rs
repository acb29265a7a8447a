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
#[path = "float_tests.rs"]
mod tests;
