//! The exact ends of balls are checked against an oracle of their own: decimals and binary64
//! values as integers scaled by `10^SCALE` (num-bigint's parser, Rust's exact printing of
//! binary64 values), compared as integers. Expansions quoted in comments are Python's
//! `decimal.Decimal(float)`.

use num_bigint::BigInt;

use super::*;
use crate::float::Interval;
use crate::property::Truth;

fn truth_of(conjunctions: &[Conjunction], y: &[f64]) -> bool {
    conjunctions.iter().any(|c| c.atoms.iter().all(|a| a.truth_at(y) == Truth::True))
}

fn parsed(text: &str) -> Constant {
    Constant::parse(text).unwrap()
}

#[test]
fn class_regions_follow_the_first_maximal_index() {
    // Scores with a tie between 1 and 2: ArgMax is 1 (the first maximal index).
    let y = [0.0, 5.0, 5.0];
    assert!(!truth_of(&class_is_not(1, 3), &y), "the class is 1");
    assert!(truth_of(&class_is_not(2, 3), &y), "the class is not 2");
    assert!(truth_of(&[class_is(1, 3)], &y));
    assert!(!truth_of(&[class_is(2, 3)], &y));
    // A strict maximum at 0.
    let z = [3.0, 2.0, 2.0];
    assert!(!truth_of(&class_is_not(0, 3), &z));
    assert!(truth_of(&[class_is(0, 3)], &z));
}

#[test]
fn a_ball_is_cut_by_the_clip_range() {
    let centre = [Constant::exact(0.5), Constant::exact(0.0)];
    let eps = Constant::exact(0.25);
    let (low, high) = (Constant::exact(0.0), Constant::exact(0.6));
    let b = ball(&centre, &eps, Some((&low, &high))).unwrap();
    assert_eq!((b.lower[0].below, b.upper[0].above), (0.25, 0.6));
    assert_eq!((b.lower[1].below, b.upper[1].above), (0.0, 0.25));
    assert!(b.lower[0].is_exact());
}

#[test]
fn the_ends_of_a_ball_are_exact() {
    // 0.1 + 0.4 = 0.5 exactly: x = 0.5 is in the ball, the next binary64 up is not.
    let b = ball(&[parsed("0.1")], &parsed("0.4"), None).unwrap();
    assert!(b.upper[0].is_exact() && b.upper[0].below == 0.5, "{:?}", b.upper[0]);
    assert!(b.contains(&[0.5]) && !b.contains(&[0.5f64.next_up()]));
    assert_eq!(b.inner().unwrap()[0].hi, 0.5);
    // 0.1 − 0.4 = −0.3: −0.3f64 = −0.29999999999999998889… is in, the one below is not.
    assert!(b.contains(&[-0.3]) && !b.contains(&[(-0.3f64).next_down()]));
    assert_eq!(b.inner().unwrap()[0].lo, -0.3);
    // The mirror image: −0.1 − 0.4 = −0.5 exactly.
    let mirror = ball(&[parsed("-0.1")], &parsed("0.4"), None).unwrap();
    assert!(mirror.lower[0].is_exact() && mirror.contains(&[-0.5]) && !mirror.contains(&[(-0.5f64).next_down()]));
}

#[test]
fn a_clip_bound_at_a_computed_end_cuts_exactly_on_either_side() {
    // The clip range −0.3:0.5 meets the ball 0.1 ± 0.4 exactly at both ends: the ends are the
    // ball's (equal values keep the first), and the points at them are in.
    let (low, high) = (parsed("-0.3"), parsed("0.5"));
    let b = ball(&[parsed("0.1")], &parsed("0.4"), Some((&low, &high))).unwrap();
    assert_eq!((&*b.lower[0].text, &*b.upper[0].text), ("0.1 - 0.4", "0.1 + 0.4"));
    assert!(b.contains(&[-0.3]) && b.contains(&[0.5]));
    assert!(!b.contains(&[(-0.3f64).next_down()]) && !b.contains(&[0.5f64.next_up()]));
    // The ball −0.1 ± 0.4 = [−0.5, 0.3] clipped to [−0.5, 0.3] at the lower side, where the
    // computed end is a binary64 value.
    let (low, high) = (parsed("-0.5"), parsed("0.3"));
    let b = ball(&[parsed("-0.1")], &parsed("0.4"), Some((&low, &high))).unwrap();
    assert!(b.contains(&[-0.5]) && !b.contains(&[(-0.5f64).next_down()]));
    assert_eq!(b.inner(), Some(vec![Interval::new(-0.5, 0.3)]), "0.3f64 = 0.29999999999999998889… < 0.3");
    // A clip bound 1e-30 inside the computed end −0.5 cuts −0.5 off; 1e-30 outside does not.
    let inside = parsed("-0.499999999999999999999999999999");
    let b = ball(&[parsed("-0.1")], &parsed("0.4"), Some((&inside, &high))).unwrap();
    assert_eq!(&*b.lower[0].text, "-0.499999999999999999999999999999");
    assert!(!b.contains(&[-0.5]) && b.contains(&[(-0.5f64).next_up()]));
    let outside = parsed("-0.500000000000000000000000000001");
    let b = ball(&[parsed("-0.1")], &parsed("0.4"), Some((&outside, &high))).unwrap();
    assert_eq!(&*b.lower[0].text, "-0.1 - 0.4");
    assert!(b.contains(&[-0.5]));
}

#[test]
fn a_tiny_ball_holds_exactly_the_binary64_points_inside_it() {
    // 0.1f64 = 0.10000000000000000555… is 5.6e-18 above 0.1; the binary64 number below it,
    // 0.09999999999999999167…, is 8.3e-18 below; the one above, 0.10000000000000001942…, 1.9e-17
    // above. Radius 6e-18 holds only 0.1f64, radius 1e-17 both 0.1f64 and the one below.
    let one = ball(&[parsed("0.1")], &parsed("6e-18"), None).unwrap();
    assert_eq!(one.inner(), Some(vec![Interval::point(0.1)]));
    let two = ball(&[parsed("0.1")], &parsed("1e-17"), None).unwrap();
    assert_eq!(two.inner(), Some(vec![Interval::new(0.1f64.next_down(), 0.1)]));
    // Radius 5e-18 holds no point: 0.1f64 is 5.55e-18 away.
    let none = ball(&[parsed("0.1")], &parsed("5e-18"), None).unwrap();
    assert_eq!(none.inner(), None);
    assert!(!none.contains(&[0.1]));
}

#[test]
fn a_ball_needs_a_finite_centre_and_radius() {
    let infinity = Constant::exact(f64::INFINITY);
    assert!(ball(&[parsed("0"), infinity.clone()], &parsed("1"), None).unwrap_err().contains("element 1"));
    assert!(ball(&[parsed("0")], &infinity, None).unwrap_err().contains("not finite"));
}

/// Places of the oracle's fixed point: more than any value below needs (binary64 numbers
/// from 1e-5 up have at most 1100 − 5 significant places).
const SCALE: i64 = 1200;

/// `text` (a decimal, or a binary64 printed exactly) times `10^SCALE`, as an integer.
fn scaled(text: &str) -> BigInt {
    let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: BigInt = format!("{whole}{fraction}").parse().unwrap();
    let shift = exponent.parse::<i64>().unwrap() - fraction.len() as i64 + SCALE;
    assert!(shift >= 0, "{text} needs more places");
    digits * BigInt::from(10).pow(shift as u32)
}

fn scaled_binary64(x: f64) -> BigInt {
    scaled(&format!("{x:.1100e}"))
}

#[test]
fn every_binary64_point_near_the_ends_of_a_ball_is_in_it_exactly_when_the_oracle_says() {
    let balls = [
        ("0.1", "0.4", None),
        ("-0.1", "0.4", None),
        ("0.7", "0.1", None),
        ("0.3", "0.2", None),
        ("1e-3", "3e-4", None),
        ("0.1", "6e-18", None),
        ("0.1", "1e-17", None),
        ("2.675", "0.005", None),
        ("0.1", "0.4", Some(("-0.3", "0.5"))),
        ("0.1", "0.4", Some(("-0.29999999999999999", "0.49999999999999999"))),
        ("0.3", "0.2", Some(("0.1000000000000000055511151231257827021181583404541015625", "0.4"))),
    ];
    for (centre, eps, clip) in balls {
        let clip_constants = clip.map(|(lo, hi)| (parsed(lo), parsed(hi)));
        let region = ball(&[parsed(centre)], &parsed(eps), clip_constants.as_ref().map(|(l, h)| (l, h))).unwrap();
        let (c, e) = (scaled(centre), scaled(eps));
        let (mut lo, mut hi) = (&c - &e, &c + &e);
        if let Some((clip_lo, clip_hi)) = clip {
            lo = lo.max(scaled(clip_lo));
            hi = hi.min(scaled(clip_hi));
        }
        let inside = |x: f64| {
            let v = scaled_binary64(x);
            lo <= v && v <= hi
        };
        let (c64, e64): (f64, f64) = (centre.parse().unwrap(), eps.parse().unwrap());
        for end in [c64 - e64, c64 + e64] {
            let mut x = end;
            for _ in 0..8 {
                x = x.next_down();
            }
            for _ in 0..17 {
                assert_eq!(region.contains(&[x]), inside(x), "{centre} ± {eps} (clip {clip:?}) at {x:e}");
                x = x.next_up();
            }
        }
        // The hull's ends are in, and their outer neighbours are not.
        let hull = region.inner().unwrap()[0];
        assert!(inside(hull.lo) && inside(hull.hi), "{centre} ± {eps}: {hull:?}");
        assert!(!inside(hull.lo.next_down()) && !inside(hull.hi.next_up()), "{centre} ± {eps}: {hull:?}");
    }
}

#[test]
fn a_ball_around_binary64_values_takes_them_exactly() {
    use std::cmp::Ordering;
    let decimal = |text: &str| Constant::parse(text).unwrap();
    // The binary64 values nearest 0.1 and 0.4 sum to 0.500000000000000027755575615628913…
    // exactly: above 0.5, below the next decimal up at that precision.
    let region = InputBox::around(&[0.1, 0.9], 0.4, None).unwrap();
    assert_eq!(region.upper[0].cmp_value(&decimal("0.5")), Ordering::Greater);
    assert_eq!(region.upper[0].cmp_value(&decimal("0.50000000000000002775557561562892")), Ordering::Less);
    let clipped = InputBox::around(&[0.1, 0.9], 0.4, Some((0.0, 1.0))).unwrap();
    assert_eq!(clipped.lower[0].cmp_value(&decimal("0")), Ordering::Equal);
    assert_eq!(clipped.upper[1].cmp_value(&decimal("1")), Ordering::Equal);
    assert!(InputBox::around(&[0.0], -1.0, None).is_err());
    assert!(InputBox::around(&[0.0], f64::NAN, None).is_err());
    assert!(InputBox::around(&[0.0], 1.0, Some((1.0, 0.0))).is_err());
    assert!(InputBox::around(&[f64::INFINITY], 1.0, None).is_err());
}
