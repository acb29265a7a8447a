//! Unit tests of `float.rs`.

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
            let magnitude: f64 = c.iter().zip(&x).map(|(c, x)| (c * if *c >= 0.0 { x.lo } else { x.hi }).abs()).sum();
            let slack = num_rational::BigRational::from_float(magnitude * n as f64 * 2f64.powi(-50) + 1e-300).unwrap();
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
