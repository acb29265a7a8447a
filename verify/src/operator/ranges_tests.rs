//! The engine's products, quotients and differences over ranges, against the operations
//! themselves at points of the ranges: every value computed lies in the range returned, and a
//! range is returned only where no NaN is computed.

use super::*;

/// Values where the bugs live: signed zeros, subnormals, one, the overflow threshold, infinities.
const SPECIAL: [f64; 15] = [
    f64::NEG_INFINITY,
    -f64::MAX,
    -1.5,
    -1.0,
    -f64::MIN_POSITIVE,
    -5e-324,
    -0.0,
    0.0,
    5e-324,
    f64::MIN_POSITIVE,
    0.75,
    1.0,
    3.0,
    f64::MAX,
    f64::INFINITY,
];

/// A small xorshift: the tests' draws are reproducible.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A binary64 value in `[lo, hi]`: an end, a special value inside, or random bits inside.
    fn inside(&mut self, x: Interval) -> f64 {
        let candidates: Vec<f64> = SPECIAL.iter().copied().filter(|v| x.lo <= *v && *v <= x.hi).collect();
        match self.next() % 4 {
            0 => x.lo,
            1 => x.hi,
            2 if !candidates.is_empty() => candidates[(self.next() % candidates.len() as u64) as usize],
            _ => {
                let (v, middle) = (f64::from_bits(self.next()), x.lo.midpoint(x.hi));
                if x.lo <= v && v <= x.hi {
                    v
                } else if x.lo <= middle && middle <= x.hi {
                    middle
                } else {
                    x.lo
                }
            }
        }
    }
}

/// Every range with special ends, and some with random ends.
fn ranges(draw: &mut Draw) -> Vec<Interval> {
    let mut out = Vec::new();
    for &lo in &SPECIAL {
        for &hi in &SPECIAL {
            if lo <= hi {
                out.push(Interval::new(lo, hi));
            }
        }
    }
    for _ in 0..40 {
        let (a, b) = (f64::from_bits(draw.next()), f64::from_bits(draw.next()));
        if !a.is_nan() && !b.is_nan() {
            out.push(Interval::new(a.min(b), a.max(b)));
        }
    }
    out
}

fn check(name: &str, bound: fn(Interval, Interval) -> Option<Interval>, f: fn(f64, f64) -> f64) {
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    let all = ranges(&mut draw);
    let (mut bounded, mut refused) = (0, 0);
    for &a in &all {
        for &b in &all {
            let range = bound(a, b);
            match range {
                Some(_) => bounded += 1,
                None => refused += 1,
            }
            for _ in 0..12 {
                let (x, y) = (draw.inside(a), draw.inside(b));
                let value = f(x, y);
                if let Some(r) = range {
                    assert!(
                        !value.is_nan() && r.lo <= value && value <= r.hi,
                        "{name}: {x:e} and {y:e} give {value:e}, outside {r:?} for {a:?}, {b:?}"
                    );
                }
            }
        }
    }
    // Both answers occur, and most ranges are bounded.
    assert!(bounded > refused && refused > 0, "{name}: {bounded} bounded, {refused} refused");
}

#[test]
fn every_product_at_points_of_the_ranges_is_in_the_range() {
    check("product", engine_product, |x, y| x * y);
}

#[test]
fn every_quotient_at_points_of_the_ranges_is_in_the_range() {
    check("quotient", engine_quotient, |x, y| x / y);
}

#[test]
fn every_difference_at_points_of_the_ranges_is_in_the_range() {
    check("difference", engine_difference, |x, y| x - y);
}

#[test]
fn a_nan_inside_is_refused_and_finite_corners_are_exact() {
    let i = Interval::new;
    // 0·∞ and ∞/∞ inside the ranges, not at the corners that would be computed.
    assert_eq!(engine_product(i(-1.0, 1.0), i(2.0, f64::INFINITY)), None);
    assert_eq!(engine_quotient(i(-1.0, 1.0), i(-2.0, 3.0)), None);
    assert_eq!(engine_quotient(i(1.0, f64::INFINITY), i(2.0, f64::INFINITY)), None);
    assert_eq!(engine_difference(i(0.0, f64::INFINITY), i(1.0, f64::INFINITY)), None);
    // A divisor that reaches 0 from one side: both infinities (−0 is in [0, 1]).
    assert_eq!(engine_quotient(i(1.0, 2.0), i(0.0, 1.0)), Some(i(f64::NEG_INFINITY, f64::INFINITY)));
    // Worked by hand: [−2, 3]·[−5, 4] is [−15, 12]; [1, 3]/[−4, −2] is [−1.5, −0.25];
    // [0.1, 0.2] − [0.3, 0.3] rounds at each end as the engine does.
    assert_eq!(engine_product(i(-2.0, 3.0), i(-5.0, 4.0)), Some(i(-15.0, 12.0)));
    assert_eq!(engine_quotient(i(1.0, 3.0), i(-4.0, -2.0)), Some(i(-1.5, -0.25)));
    assert_eq!(engine_difference(i(0.1, 0.2), i(0.3, 0.3)), Some(i(0.1 - 0.3, 0.2 - 0.3)));
}

#[test]
fn substitution_pays_each_output_at_its_worse_end_and_carries_nothing() {
    let ranges = Ranges(vec![Interval::new(-1.0, 2.0), Interval::new(f64::NEG_INFINITY, 5.0), Interval::new(3.0, 4.0)]);
    // Row 0: 2·y0 − 1·y2 ≥ 2·(−1) − 4 = −6, plus its constant 1; the infinite range has
    // coefficient 0 and costs nothing. Row 1: 1·y1 ≥ −∞.
    let mut pass = Pass { g: vec![2.0, 0.0, -1.0, 0.0, 1.0, 0.0], width: 3, count: 2, acc: vec![1.0, 0.0] };
    ranges.substitute(&mut pass, 5);
    assert!(pass.acc[0] <= -5.0 && pass.acc[0] >= -5.0 - 1e-12, "{}", pass.acc[0]);
    assert_eq!(pass.acc[1], f64::NEG_INFINITY);
    assert_eq!((pass.width, pass.g.len()), (5, 10));
    assert!(pass.g.iter().all(|&g| g == 0.0));
}
