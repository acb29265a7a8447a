//! Expected brackets are written by hand from exact expansions (Python's `decimal.Decimal(float)`
//! printed them), or built by exact digit arithmetic in this file, never by the parser itself.

use quickcheck::{QuickCheck, TestResult};

use super::*;

fn bracket(text: &str) -> (f64, f64) {
    let c = Constant::parse(text).unwrap_or_else(|e| panic!("{text} should parse: {e}"));
    assert_eq!(&*c.text, text.strip_prefix('+').unwrap_or(text));
    (c.below, c.above)
}

#[test]
fn rust_prints_binary64_values_exactly_at_any_precision() {
    // 0.1f64 = 0.1000000000000000055511151231257827021181583404541015625 (55 digits).
    assert_eq!(format!("{:.54e}", 0.1), "1.000000000000000055511151231257827021181583404541015625e-1");
    assert_eq!(format!("{:.56e}", 0.1), "1.00000000000000005551115123125782702118158340454101562500e-1");
    // 2^-1074 = 5^1074 × 10^-1074 (751 digits) and the largest subnormal
    // (2^52 − 1)·5^1074 × 10^-1074 (767 digits, the longest expansion of all).
    let mut five_power = vec![1u8];
    for _ in 0..1074 {
        five_power = times_small(&five_power, 5);
    }
    assert_eq!(five_power.len(), 751);
    let largest_subnormal = times_small(&five_power, (1 << 52) - 1);
    assert_eq!(largest_subnormal.len(), 767);
    for (x, digits) in [(f64::from_bits(1), five_power), (f64::from_bits((1 << 52) - 1), largest_subnormal)] {
        let (printed, _) = exact_digits(x);
        let printed: Vec<u8> = printed.into_iter().rev().skip_while(|&d| d == 0).collect();
        let printed: Vec<u8> = printed.into_iter().rev().collect();
        assert_eq!(printed, digits);
    }
}

#[test]
fn decimals_that_are_binary64_values_are_exact() {
    for (text, value) in [("0.5", 0.5), ("-2", -2.0), ("1e3", 1000.0), ("0.125", 0.125), ("12", 12.0), ("1E+3", 1000.0)]
    {
        assert_eq!(bracket(text), (value, value), "{text}");
    }
    let (below, above) = bracket("-0");
    assert!(below == 0.0 && above == 0.0 && below.is_sign_negative());
}

#[test]
fn inexact_decimals_lie_between_neighbours_on_the_right_side() {
    // 0.6f64 = 0.59999999999999997779… < 0.6.
    assert_eq!(bracket("0.6"), (0.6, 0.6f64.next_up()));
    // 0.1f64 = 0.10000000000000000555… > 0.1.
    assert_eq!(bracket("0.1"), (0.1f64.next_down(), 0.1));
    // 3.9911256459f64 = 3.99112564589999996300… < 3.9911256459.
    assert_eq!(bracket("3.9911256459"), (3.9911256459, 3.9911256459f64.next_up()));
    // 3.991125645861615f64 = 3.99112564586161511215… > 3.991125645861615.
    assert_eq!(bracket("3.991125645861615"), (3.991125645861615f64.next_down(), 3.991125645861615));
    // -0.499999896f64 = -0.49999989599999999922…, above -0.499999896.
    assert_eq!(bracket("-0.499999896"), ((-0.499999896f64).next_down(), -0.499999896));
    // 0.679857769f64 = 0.67985776899999994515… < 0.679857769.
    assert_eq!(bracket("0.679857769"), (0.679857769, 0.679857769f64.next_up()));
}

#[test]
fn forty_digit_decimals() {
    // Nearest: 1234567890123456846996462118072609669120, above the decimal.
    let nearest: f64 = 1.2345678901234568e39;
    assert_eq!(bracket("1234567890123456789012345678901234567890"), (nearest.next_down(), nearest));
    // Nearest: 0.12345678901234567736988623209981597028672695159912109375, below it.
    let nearest: f64 = 0.12345678901234568;
    assert_eq!(bracket("0.1234567890123456789012345678901234567891"), (nearest, nearest.next_up()));
    // The same value with zeros around it and an exponent.
    assert_eq!(bracket("000.0001234567890123456789012345678901234567891000e3"), (nearest, nearest.next_up()));
}

#[test]
fn a_decimal_halfway_between_neighbours_rounds_to_even_but_is_bracketed() {
    // 2^53 + 1 lies halfway between 2^53 and 2^53 + 2; round-to-nearest picks 2^53.
    let two_53 = 9007199254740992.0;
    assert_eq!(bracket("9007199254740993"), (two_53, two_53 + 2.0));
    assert_eq!(bracket("-9007199254740993"), (-two_53 - 2.0, -two_53));
    // 2^53 + 3 lies halfway between 2^53 + 2 and 2^53 + 4; the even one is 2^53 + 4.
    assert_eq!(bracket("9007199254740995"), (two_53 + 2.0, two_53 + 4.0));
}

#[test]
fn beyond_the_binary64_range() {
    let smallest = f64::from_bits(1);
    assert_eq!(bracket("1e-400"), (0.0, smallest));
    let (below, above) = bracket("-1e-400");
    assert_eq!(below, -smallest);
    assert!(above == 0.0 && above.is_sign_negative());
    assert_eq!(bracket("1e400"), (f64::MAX, f64::INFINITY));
    assert_eq!(bracket("-1e400"), (f64::NEG_INFINITY, f64::MIN));
    // Zero is zero at any exponent.
    assert_eq!(bracket("0e99999999999999999999999"), (0.0, 0.0));
    // Above MAX by less than half an ulp: rounds to MAX, still bracketed by MAX and ∞.
    assert_eq!(bracket("1.797693134862315709e308"), (f64::MAX, f64::INFINITY));
}

#[test]
fn accepted_and_rejected_spellings() {
    assert_eq!(bracket(".5"), (0.5, 0.5));
    assert_eq!(bracket("5."), (5.0, 5.0));
    assert_eq!(bracket("-.5"), (-0.5, -0.5));
    assert_eq!(bracket("+5"), (5.0, 5.0));
    assert_eq!(bracket("00012"), (12.0, 12.0));
    for bad in [
        "", ".", "-", "+", "e5", "1e", "1e+", "1.2.3", "1e5.0", " 1", "1 ", "--1", "inf", "-inf", "nan", "NaN",
        "infinity", "0x1p3", "0x10", "1_000", "1,5", "1d", "½",
    ] {
        let refused = Constant::parse(bad).expect_err(bad);
        assert!(refused.ends_with("is not a decimal number"), "{bad:?}: {refused}");
    }
}

#[test]
fn decimals_beyond_the_range_kept_exactly_are_refused_with_the_reason() {
    // 1e100000 = 0.1 × 10^100001 is not below 10^100000; 1e-100001 has 100001 places; so do
    // 100001 written digits after the point.
    let many_places = format!("0.{}", "3".repeat(100_001));
    for out in ["1e100000", "-1e100000", "1e-100001", "1e99999999999999999999999", "-1e-99999999999999999999999"]
        .into_iter()
        .chain([many_places.as_str()])
    {
        let why = Constant::parse(out).expect_err(out);
        assert!(why.contains("is out of range") && why.contains("100000 decimal places"), "{why}");
        assert!(why.chars().count() < 200, "the text is shortened: {why}");
    }
    // Just inside: 9.99 × 10^99999 and 10^-100000 are kept, the one above MAX, the other below
    // the smallest subnormal.
    assert_eq!(bracket("9.99e99999"), (f64::MAX, f64::INFINITY));
    assert_eq!(bracket("-1e-100000"), (-f64::from_bits(1), -0.0));
    assert_eq!(bracket(&format!("0.{}", "3".repeat(100_000))), (1.0 / 3.0, (1.0f64 / 3.0).next_up()));
}

#[test]
fn computed_constants_are_exact() {
    let c = |t: &str| Constant::parse(t).unwrap();
    // 0.1 + 0.4 is 0.5, a binary64 value: exact, though neither term is.
    let half = c("0.1").add(&c("0.4")).unwrap();
    assert!(half.is_exact() && half.below == 0.5, "{half:?}");
    assert_eq!(half.to_string(), "0.1 + 0.4");
    // 0.1 + 0.2 is 0.3, whose bracket is [0.3f64, next] (0.3f64 = 0.29999999999999998889…),
    // not around 0.1f64 + 0.2f64 = 0.30000000000000004441.
    let tenths = c("0.1").add(&c("0.2")).unwrap();
    assert_eq!((tenths.below, tenths.above), (0.3, 0.3f64.next_up()));
    // 0.1 − 0.4 = −0.3, bracketed by −0.3f64 (−0.29999999999999998889…) and the next one down.
    let minus = c("0.1").sub(&c("0.4")).unwrap();
    assert_eq!((minus.below, minus.above), ((-0.3f64).next_down(), -0.3));
    assert_eq!(minus.to_string(), "0.1 - 0.4");
    assert_eq!(minus.neg().to_string(), "-(0.1 - 0.4)");
    assert_eq!((minus.neg().below, minus.neg().above), (0.3, 0.3f64.next_up()));
    // Infinities: a side of a box may be unbounded.
    let infinity = Constant::exact(f64::INFINITY);
    assert_eq!(infinity.add(&c("1e400")).unwrap().below, f64::INFINITY);
    assert_eq!(infinity.sub(&infinity), None);
    assert_eq!(infinity.add(&infinity.neg()), None);
}

#[test]
fn the_tighter_bound_is_chosen_by_exact_value() {
    let c = |t: &str| Constant::parse(t).unwrap();
    // Both lie between 0.1f64 (0.10000000000000000555…) and the binary64 number below it:
    // the same bracket, different values.
    let (a, b) = (c("0.100000000000000000000000000001"), c("0.100000000000000000000000000002"));
    assert_eq!((a.below, a.above), (b.below, b.above));
    assert_eq!(a.clone().max_lower(b.clone()).text, b.text);
    assert_eq!(b.clone().max_lower(a.clone()).text, b.text);
    assert_eq!(a.clone().min_upper(b.clone()).text, a.text);
    assert_eq!(b.clone().min_upper(a.clone()).text, a.text);
    // Equal values keep the first as written.
    let (half, also_half) = (c("0.5"), c("5e-1"));
    assert_eq!(half.clone().max_lower(also_half.clone()).text, half.text);
    assert_eq!(also_half.clone().min_upper(half.clone()).text, also_half.text);
    // Infinite bounds are the loosest.
    let infinity = Constant::exact(f64::INFINITY);
    assert_eq!(infinity.clone().min_upper(c("1e400")).text, c("1e400").text);
    assert_eq!(infinity.neg().max_lower(c("-1e400")).text, c("-1e400").text);
}

#[test]
#[should_panic(expected = "NaN is no constant")]
fn nan_is_no_constant() {
    Constant::exact(f64::NAN);
}

#[test]
fn a_constant_displays_as_written() {
    // The text is what reports and counterexamples print, less a leading `+`.
    assert_eq!(Constant::parse("+0.6").unwrap().to_string(), "0.6");
    assert_eq!(Constant::parse("1E-3").unwrap().to_string(), "1E-3");
    assert_eq!(Constant::parse("0.6").unwrap().neg().to_string(), "-0.6");
    assert_eq!(Constant::exact(0.5).to_string(), "0.5");
}

#[test]
fn constants_are_ordered_by_value_with_both_zeros_equal() {
    // Ascending, worked by hand: negatives by decreasing magnitude, the two zeros, positives
    // by exponent then digits (0.12 is a proper prefix of 0.125, and smaller); 0.1 and its
    // binary64 neighbours (0.1f64 = 0.10000000000000000555…, the one below 0.09999999999999999167…).
    let ascending = [
        "-10",
        "-1.5",
        "-1",
        "-0.5",
        "-1e-400",
        "0",
        "1e-400",
        "0.09999999999999999167332731531132594682276248931884765625",
        "0.1",
        "0.1000000000000000055511151231257827021181583404541015625",
        "0.12",
        "0.125",
        "0.13",
        "0.5",
        "1",
        "1.5",
        "10",
        "1e400",
    ];
    let parsed: Vec<Constant> = ascending.iter().map(|t| Constant::parse(t).unwrap()).collect();
    for (i, a) in parsed.iter().enumerate() {
        for (j, b) in parsed.iter().enumerate() {
            assert_eq!(a.cmp_value(b), i.cmp(&j), "{} vs {}", ascending[i], ascending[j]);
        }
    }
    // Binary64 values compare as their exact expansions; the infinities bound everything.
    let (below, above) = (0.1f64.next_down(), 0.1f64);
    assert_eq!(Constant::exact(below).cmp_value(&parsed[7]), Ordering::Equal);
    assert_eq!(Constant::exact(above).cmp_value(&parsed[9]), Ordering::Equal);
    assert_eq!(Constant::exact(f64::INFINITY).cmp_value(&parsed[17]), Ordering::Greater);
    assert_eq!(Constant::exact(f64::NEG_INFINITY).cmp_value(&parsed[0]), Ordering::Less);
    // Every spelling of zero is zero, whatever its sign, exponent or number of zeros.
    let zero = Constant::parse("0").unwrap();
    for text in ["-0", "+0.000", "0e5", "-0.0e-7", ".0", "0."] {
        let z = Constant::parse(text).unwrap();
        assert_eq!(z.cmp_value(&zero), Ordering::Equal, "{text}");
        assert_eq!(zero.cmp_value(&z), Ordering::Equal, "{text}");
        assert!(z.cmp_value(&parsed[6]).is_lt() && z.cmp_value(&parsed[4]).is_gt(), "{text}");
    }
}

#[test]
fn exponents_are_signed_digits_clamped_to_the_cap() {
    assert_eq!(parse_exponent("12"), Some(12));
    assert_eq!(parse_exponent("+12"), Some(12));
    assert_eq!(parse_exponent("-007"), Some(-7));
    assert_eq!(parse_exponent("0"), Some(0));
    assert_eq!(parse_exponent("99999999999999999999999"), Some(EXPONENT_CAP));
    assert_eq!(parse_exponent("-99999999999999999999999"), Some(-EXPONENT_CAP));
    // No digits, or something else than digits.
    for bad in ["", "+", "-", "5.0", "1_0", "+-1", " 1", "e1"] {
        assert_eq!(parse_exponent(bad), None, "{bad:?}");
    }
    for bad in ["1e", "1e+", "1e-", "1e5.0", "2E1x"] {
        assert_eq!(Decimal::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn exact_expansions_are_exact_and_midpoints_are_bracketed_by_their_neighbours() {
    fn property(bits: u64) -> TestResult {
        let x = f64::from_bits(bits);
        let y = x.next_up();
        if !y.is_finite() || !x.is_finite() {
            return TestResult::discard();
        }
        // The exact expansion is exact; the shortest decimal that reads back as x (`0.1`) need
        // not be, but x is one end of its bracket.
        let exact = format!("{x:.800e}");
        let c = Constant::parse(&exact).unwrap();
        if c.below.to_bits() != x.to_bits() || c.above.to_bits() != x.to_bits() {
            return TestResult::error(format!("{exact} gave {c:?}"));
        }
        for shortest in [format!("{x:e}"), format!("{x:?}")] {
            let c = Constant::parse(&shortest).unwrap();
            let adjacent = c.is_exact() || c.above == c.below.next_up();
            if !adjacent || (c.below != x && c.above != x) {
                return TestResult::error(format!("{shortest} gave {c:?}"));
            }
        }
        // The midpoint (|x| + |y|)/2 and decimals within 10^-29 of it, relatively: all lie
        // strictly between x and y (half an ulp is at least 2^-54 relatively).
        let negative = x < 0.0;
        let middle = times_five(add(exact_digits(x.abs()), exact_digits(y.abs())));
        let truncated = truncate(middle.clone(), 30);
        let bumped = bump(truncated.clone());
        for decimal in [middle, truncated, bumped] {
            let text = to_text(negative, &decimal);
            let c = Constant::parse(&text).unwrap();
            if c.below != x || c.above != y {
                return TestResult::error(format!("{text} gave {c:?}, want [{x:e}, {y:e}]"));
            }
        }
        TestResult::passed()
    }
    QuickCheck::new().tests(3000).quickcheck(property as fn(u64) -> TestResult);
    for x in [0.0, -0.0, f64::from_bits(1), -f64::from_bits(1), 1.0, -1.0, f64::MIN_POSITIVE, f64::MAX.next_down()] {
        assert!(!property(x.to_bits()).is_failure(), "{x:e}");
    }
}

// Exact decimal arithmetic for the oracle: `(digits, e)` is the integer `digits` (most
// significant first) times `10^e`.

fn exact_digits(x: f64) -> (Vec<u8>, i64) {
    let text = format!("{x:.800e}");
    let (mantissa, exponent) = text.split_once('e').unwrap();
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
    (digits, exponent.parse::<i64>().unwrap() - 800)
}

fn times_small(digits: &[u8], factor: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(digits.len() + 20);
    let mut carry: u128 = 0;
    for &d in digits.iter().rev() {
        let v = u128::from(d) * u128::from(factor) + carry;
        out.push((v % 10) as u8);
        carry = v / 10;
    }
    while carry > 0 {
        out.push((carry % 10) as u8);
        carry /= 10;
    }
    while out.len() > 1 && out.last() == Some(&0) {
        out.pop();
    }
    out.reverse();
    out
}

fn add((mut a, ea): (Vec<u8>, i64), (mut b, eb): (Vec<u8>, i64)) -> (Vec<u8>, i64) {
    let e = ea.min(eb);
    a.resize(a.len() + (ea - e) as usize, 0);
    b.resize(b.len() + (eb - e) as usize, 0);
    let (mut sum, mut carry) = (Vec::new(), 0);
    for i in 0..a.len().max(b.len()) {
        let digit = |v: &[u8]| if i < v.len() { v[v.len() - 1 - i] } else { 0 };
        let s = digit(&a) + digit(&b) + carry;
        sum.push(s % 10);
        carry = s / 10;
    }
    sum.push(carry);
    sum.reverse();
    (sum, e)
}

/// Halves: `×5`, then one decimal place less.
fn times_five((digits, e): (Vec<u8>, i64)) -> (Vec<u8>, i64) {
    (times_small(&digits, 5), e - 1)
}

fn without_leading_zeros((digits, e): (Vec<u8>, i64)) -> (Vec<u8>, i64) {
    (digits.into_iter().skip_while(|&d| d == 0).collect(), e)
}

/// Toward zero, to `n` significant digits (padded to exactly `n`).
fn truncate(decimal: (Vec<u8>, i64), n: usize) -> (Vec<u8>, i64) {
    let (mut digits, e) = without_leading_zeros(decimal);
    let shift = digits.len() as i64 - n as i64;
    digits.resize(n, 0);
    (digits, e + shift)
}

/// One unit more in the last place.
fn bump((mut digits, e): (Vec<u8>, i64)) -> (Vec<u8>, i64) {
    for d in digits.iter_mut().rev() {
        if *d < 9 {
            *d += 1;
            return (digits, e);
        }
        *d = 0;
    }
    digits.insert(0, 1);
    (digits, e)
}

fn to_text(negative: bool, decimal: &(Vec<u8>, i64)) -> String {
    let digits: String = decimal.0.iter().map(|d| char::from(b'0' + d)).collect();
    format!("{}{digits}e{}", if negative { "-" } else { "" }, decimal.1)
}

#[test]
fn nearest_rounds_a_decimal_to_the_binary64_number_nearest_it_ties_to_even() {
    let nearest = |text: &str| Constant::parse(text).unwrap().nearest(); // 1 + 2^-53 is halfway between 1 and 1 + 2^-52: 1; 1 + 3·2^-53 gives 1 + 2^-51 (even).
    assert_eq!(nearest("-1.00000000000000011102230246251565404236316680908203125").below, -1.0);
    assert_eq!(nearest("1.000000000000000333066907387546962127089500427246093750").below, 1.0 + 2f64.powi(-51));
    // Beyond the finite range a bound keeps its finite neighbour; exact constants stay.
    assert_eq!((nearest("1e400").below, nearest("-1e400").below), (f64::MAX, f64::MIN));
    assert_eq!(nearest("0.25"), Constant::parse("0.25").unwrap());
    // Against std's correctly rounded parser: 1 to 40 digits, exponents to the subnormals.
    let mut rng = crate::falsify::SplitMix::new(11);
    for _ in 0..20_000 {
        let digits: String =
            (0..1 + rng.next_u64() % 40).map(|_| char::from(b'0' + (rng.next_u64() % 10) as u8)).collect();
        let text =
            format!("{}0.{digits}e{}", ["", "-"][(rng.next_u64() % 2) as usize], (rng.next_u64() % 630) as i64 - 330);
        assert_eq!(nearest(&text).below.to_bits(), text.parse::<f64>().unwrap().to_bits(), "{text}");
        assert!(nearest(&text).is_exact());
    }
}
