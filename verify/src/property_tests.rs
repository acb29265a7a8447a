//! Exact expansions in the comments are Python's `decimal.Decimal(float)`.

use super::*;

fn constant(text: &str) -> Constant {
    let c = Constant::parse(text).unwrap();
    // 0.6 lies strictly between the binary64 values 0.59999999999999997780 and
    // 0.60000000000000008882; 0.6f64 is the lower one. The others are binary64 values.
    let expected = if text == "0.6" { (0.6, 0.6f64.next_up()) } else { (text.parse().unwrap(), text.parse().unwrap()) };
    assert_eq!((c.below, c.above), expected, "{text}");
    c
}

fn parsed(text: &str) -> Constant {
    Constant::parse(text).unwrap()
}

fn one_box(lower: Constant, upper: Constant) -> InputBox {
    InputBox { lower: vec![lower], upper: vec![upper] }
}

#[test]
fn a_bound_that_is_no_binary64_number_admits_exactly_the_points_inside_it() {
    let b = InputBox { lower: vec![constant("0.6")], upper: vec![constant("1.0")] };
    // 0.6f64 < 0.6, so it is outside the box as written; its neighbour is inside.
    assert!(!b.contains(&[0.6]));
    assert!(b.contains(&[0.6f64.next_up()]));
    assert_eq!(b.inner().unwrap()[0].lo, 0.6f64.next_up());
    assert_eq!(b.outer()[0].lo, 0.6);
    let c = InputBox { lower: vec![constant("0.0")], upper: vec![constant("0.6")] };
    assert!(c.contains(&[0.6]));
    assert!(!c.contains(&[0.6f64.next_up()]));
}

#[test]
fn an_empty_box_has_no_inner_points() {
    let b = InputBox { lower: vec![constant("1.0")], upper: vec![constant("0.0")] };
    assert_eq!(b.inner(), None);
}

#[test]
fn a_box_is_empty_exactly_when_it_holds_no_finite_binary64_point() {
    // 0.1f64 = 0.10000000000000000555… and the binary64 number below it, 0.09999999999999999167…,
    // lie on either side of [0.1 + 1e-30, 0.1 + 2e-30]: no point, though the brackets of the
    // two ends are the same pair of neighbours.
    let between = one_box(parsed("0.100000000000000000000000000001"), parsed("0.100000000000000000000000000002"));
    assert_eq!(between.inner(), None);
    assert!(!between.contains(&[0.1]) && !between.contains(&[0.1f64.next_down()]));
    // Reversed by less than an ulp: empty too.
    let reversed = one_box(parsed("0.100000000000000000000000000002"), parsed("0.100000000000000000000000000001"));
    assert_eq!(reversed.inner(), None);
    // 0.1f64's exact expansion ± 1e-36: exactly that point.
    let around = one_box(
        parsed("0.1000000000000000055511151231257827011181583404541015625"),
        parsed("0.1000000000000000055511151231257827031181583404541015625"),
    );
    assert_eq!(around.inner(), Some(vec![Interval::point(0.1)]));
    assert!(around.contains(&[0.1]) && !around.contains(&[0.1f64.next_up()]));
    // Bounds beyond the finite range: no finite point above 1e400 or below −1e400.
    assert_eq!(one_box(parsed("1e400"), parsed("1e401")).inner(), None);
    assert_eq!(one_box(parsed("-1e401"), parsed("-1e400")).inner(), None);
    let top = one_box(parsed("1.7976931348623157e308"), parsed("1e400"));
    assert_eq!(top.inner(), Some(vec![Interval::point(f64::MAX)]));
}

#[test]
fn the_outer_box_is_finite() {
    // Proofs cover [below(lo), above(hi)], cut to [−MAX, MAX]: no input is infinite.
    let wide = one_box(parsed("-1e400"), parsed("1e400"));
    assert_eq!(wide.outer(), vec![Interval::new(f64::MIN, f64::MAX)]);
    assert_eq!(wide.inner(), Some(vec![Interval::new(f64::MIN, f64::MAX)]));
    let unbounded = InputBox::from_bounds(&[f64::NEG_INFINITY], &[f64::INFINITY]).unwrap();
    assert_eq!(unbounded.outer(), vec![Interval::new(f64::MIN, f64::MAX)]);
    assert!(unbounded.contains(&[f64::MAX]) && unbounded.contains(&[-0.0]));
    assert!(!unbounded.contains(&[f64::INFINITY]) && !unbounded.contains(&[f64::NEG_INFINITY]));
    assert!(!unbounded.contains(&[f64::NAN]));
    // Within the range the outer ends are the brackets' outer ends.
    assert_eq!(one_box(constant("0.6"), constant("0.6")).outer(), vec![Interval::new(0.6, 0.6f64.next_up())]);
}

#[test]
fn strict_and_non_strict_differences_at_a_tie() {
    let y = [1.0, 1.0];
    assert_eq!(Atom::difference(0, 1, false).truth_at(&y), Truth::True);
    assert_eq!(Atom::difference(0, 1, true).truth_at(&y), Truth::False);
    let region = [Interval::new(0.0, 2.0), Interval::new(1.0, 1.0)];
    assert_eq!(Atom::difference(0, 1, false).truth(&region), Truth::Unknown);
}

#[test]
fn an_output_between_a_decimal_and_its_binary64_neighbour_is_decided_exactly() {
    // Y_0 − 0.6 ≤ 0 at Y_0 = 0.6f64 (below 0.6): true; at the next binary64: false.
    let atom = y0_plus(constant("0.6").neg(), false);
    assert_eq!(atom.truth_at(&[0.6]), Truth::True);
    assert_eq!(atom.truth_at(&[0.6f64.next_up()]), Truth::False);
}

fn y0_plus(constant: Constant, strict: bool) -> Atom {
    Atom { terms: vec![(0, Constant::exact(1.0))], constants: vec![constant], strict, span: None }
}

#[test]
fn a_side_touching_zero_is_decided_by_strictness_and_by_open_constants_only() {
    let exact = Constant::exact(0.0);
    // `Y_0 ≤ 0` on [0, 1]: true at 0, false above: undecided; on [−1, 0]: always.
    assert_eq!(y0_plus(exact.clone(), false).truth(&[Interval::new(0.0, 1.0)]), Truth::Unknown);
    assert_eq!(y0_plus(exact.clone(), false).truth(&[Interval::new(-1.0, 0.0)]), Truth::True);
    // `Y_0 < 0` on [−1, 0]: false at 0: undecided; on [0, 1]: never.
    assert_eq!(y0_plus(exact.clone(), true).truth(&[Interval::new(-1.0, 0.0)]), Truth::Unknown);
    assert_eq!(y0_plus(exact, true).truth(&[Interval::new(0.0, 1.0)]), Truth::False);
    // `Y_0 − 0.6 < 0`, 0.6 no binary64 number: the left side lies strictly inside its
    // enclosure, so an enclosure ending at 0 is strictly below it...
    let open_strict = y0_plus(constant("0.6").neg(), true);
    assert_eq!(open_strict.truth_of_side(Interval::new(-1.0, 0.0), true), Truth::True);
    // ...but one that reaches above 0 is not.
    assert_eq!(open_strict.truth_of_side(Interval::new(-1.0, 1.0), true), Truth::Unknown);
    // `Y_0 − 0.6 ≤ 0` with an enclosure starting at 0: strictly above it, never true;
    // starting below 0, undecided.
    let open = y0_plus(constant("0.6").neg(), false);
    assert_eq!(open.truth_of_side(Interval::new(0.0, 1.0), true), Truth::False);
    assert_eq!(open.truth_of_side(Interval::new(-1.0, 1.0), true), Truth::Unknown);
    assert_eq!(open.truth_of_side(Interval::new(0.0, 1.0), false), Truth::Unknown);
}

#[test]
fn a_constraint_false_above_a_lower_bound_is_never_true() {
    let atom = y0_plus(Constant::exact(-1.0), false);
    // Y_0 ≥ 2 gives Y_0 − 1 ≥ 1 > 0: never; Y_0 ≥ 0.5 does not decide.
    assert!(atom.never_given(2.0, Interval::point(-1.0)));
    assert!(!atom.never_given(0.5, Interval::point(-1.0)));
}

#[test]
fn an_exact_constant_at_the_bound_leaves_a_strict_atom_open() {
    // Y_0 − 0.5 < 0 with Y_0 in [0, 0.5]: 0.5 is a binary64 value, so Y_0 = 0.5 is possible
    // and makes it false; only a decimal strictly between two neighbours would decide it.
    let atom = |constant: Constant| y0_plus(constant.neg(), true);
    assert_eq!(atom(constant("0.5")).truth(&[Interval::new(0.0, 0.5)]), Truth::Unknown);
    // Y_0 − 0.6 < 0 with Y_0 in [0, 0.6f64]: 0.6f64 < 0.6, so it holds everywhere.
    assert_eq!(atom(constant("0.6")).truth(&[Interval::new(0.0, 0.6)]), Truth::True);
}

#[test]
fn a_non_strict_atom_reached_at_zero_is_not_refuted() {
    // Y_0 − 0.5 ≤ 0 with Y_0 in [0.5, 1]: true at Y_0 = 0.5, false above. A lower bound of
    // exactly 0 on the left side refutes nothing; one above 0 does.
    let atom = y0_plus(constant("0.5").neg(), false);
    assert_eq!(atom.truth(&[Interval::new(0.5, 1.0)]), Truth::Unknown);
    assert_eq!(atom.truth(&[Interval::new(0.5f64.next_up(), 1.0)]), Truth::False);
    assert!(!atom.never_given(0.5, Interval::point(-0.5)));
    assert!(atom.never_given(0.5f64.next_up(), Interval::point(-0.5)));
}

#[test]
fn a_decimal_constant_decides_only_what_lies_on_one_side_of_it() {
    // With 0.6 (strictly between two binary64 values) a left side that reaches 0 is
    // decided, but one on both sides of 0, or wholly on the other side, is what it is.
    let atom = |strict: bool| y0_plus(constant("0.6").neg(), strict);
    // Y_0 = 1: Y_0 < 0.6 and Y_0 ≤ 0.6 are false.
    assert_eq!(atom(true).truth_at(&[1.0]), Truth::False);
    assert_eq!(atom(false).truth_at(&[1.0]), Truth::False);
    // Y_0 in [0, 1]: either way.
    assert_eq!(atom(true).truth(&[Interval::new(0.0, 1.0)]), Truth::Unknown);
    assert_eq!(atom(false).truth(&[Interval::new(0.0, 1.0)]), Truth::Unknown);
}

#[test]
fn a_nan_end_of_the_left_side_decides_nothing() {
    // Either end NaN: the other end is not trusted alone (it would say "always" below 0 or
    // "never" above it).
    for strict in [false, true] {
        let atom = Atom { terms: vec![], constants: vec![], strict, span: None };
        for side in [Interval::new(f64::NAN, -1.0), Interval::new(1.0, f64::NAN), Interval::new(f64::NAN, f64::NAN)] {
            assert_eq!(atom.truth_of_side(side, false), Truth::Unknown, "{side:?}, strict {strict}");
            assert_eq!(atom.truth_of_side(side, true), Truth::Unknown, "{side:?}, strict {strict}, open");
        }
    }
}

#[test]
fn a_box_is_empty_when_it_has_no_dimension() {
    assert!(InputBox { lower: vec![], upper: vec![] }.is_empty());
    assert!(!InputBox { lower: vec![constant("0.0")], upper: vec![constant("1.0")] }.is_empty());
}

#[test]
fn an_inexact_coefficient_or_an_index_past_the_outputs_has_no_dense_form() {
    // 0.1 is no binary64 value: a bound on 0.1f64·Y_0 would bound another atom.
    let tenth =
        Atom { terms: vec![(0, Constant::parse("0.1").unwrap())], constants: vec![], strict: false, span: None };
    assert_eq!(tenth.dense(1), None);
    let past = Atom { terms: vec![(1, Constant::exact(1.0))], constants: vec![], strict: false, span: None };
    assert_eq!(past.dense(1), None);
    assert_eq!(past.dense(2).unwrap().0, vec![0.0, 1.0]);
}

#[test]
fn dense_coefficients_merge_repeated_indices_only_when_exact() {
    let atom = Atom {
        terms: vec![(0, Constant::exact(1.0)), (0, Constant::exact(2.0))],
        constants: vec![],
        strict: false,
        span: None,
    };
    assert_eq!(atom.dense(2).unwrap().0, vec![3.0, 0.0]);
    let inexact = Atom {
        terms: vec![(0, Constant::exact(1.0)), (0, Constant::exact(1e-30))],
        constants: vec![],
        strict: false,
        span: None,
    };
    assert_eq!(inexact.dense(1), None);
}

fn atom(terms: &[(usize, &str)], constants: &[&str], strict: bool) -> Atom {
    Atom {
        terms: terms.iter().map(|&(i, c)| (i, parsed(c))).collect(),
        constants: constants.iter().map(|c| parsed(c)).collect(),
        strict,
        span: None,
    }
}

#[test]
fn outputs_at_a_sum_of_decimals_are_decided_exactly() {
    // Y_0 − 0.1 − 0.4 ≤ 0: the constants add up to exactly −0.5, so Y_0 = 0.5 meets it
    // (with equality: not strictly) and the next binary64 up does not.
    let half = |strict| atom(&[(0, "1")], &["-0.1", "-0.4"], strict);
    assert_eq!(half(false).truth_at(&[0.5]), Truth::True);
    assert_eq!(half(true).truth_at(&[0.5]), Truth::False);
    assert_eq!(half(false).truth_at(&[0.5f64.next_up()]), Truth::False);
    assert_eq!(half(true).truth_at(&[0.5f64.next_down()]), Truth::True);
    // Y_0 − 0.1 − 0.2 ≤ 0: 0.3f64 = 0.29999999999999998889… is below 0.3, and
    // 0.1f64 + 0.2f64 = 0.30000000000000004441… above it.
    let tenths = |strict| atom(&[(0, "1")], &["-0.1", "-0.2"], strict);
    for strict in [false, true] {
        assert_eq!(tenths(strict).truth_at(&[0.3]), Truth::True, "strict {strict}");
        assert_eq!(tenths(strict).truth_at(&[0.1 + 0.2]), Truth::False, "strict {strict}");
    }
    // 0.1·Y_0 − 0.05 ≤ 0 is exactly 0 at Y_0 = 0.5 (an inexact coefficient, exact sum).
    assert_eq!(atom(&[(0, "0.1")], &["-0.05"], false).truth_at(&[0.5]), Truth::True);
    assert_eq!(atom(&[(0, "0.1")], &["-0.05"], true).truth_at(&[0.5]), Truth::False);
    // Y_0 − Y_1 + 1e-30 ≤ 0 at a tie: 1e-30 > 0, so false; − 1e-30: true.
    assert_eq!(atom(&[(0, "1"), (1, "-1")], &["1e-30"], false).truth_at(&[2.0, 2.0]), Truth::False);
    assert_eq!(atom(&[(0, "1"), (1, "-1")], &["-1e-30"], true).truth_at(&[2.0, 2.0]), Truth::True);
}

#[test]
fn outputs_at_a_computed_constant_are_decided_exactly() {
    // The constant 0.1 − 0.4 = −0.3 (computed exactly): Y_0 − (0.1 − 0.4) ≤ 0 means Y_0 ≤ −0.3;
    // −0.3f64 = −0.29999999999999998889… is above −0.3, the binary64 number below it is under.
    let minus = parsed("0.1").sub(&parsed("0.4")).unwrap();
    let at_most =
        Atom { terms: vec![(0, Constant::exact(1.0))], constants: vec![minus.neg()], strict: false, span: None };
    assert_eq!(at_most.truth_at(&[-0.3]), Truth::False);
    assert_eq!(at_most.truth_at(&[(-0.3f64).next_down()]), Truth::True);
    // 0.1 + 0.4 = 0.5 exactly: Y_0 − (0.1 + 0.4) < 0 is false at 0.5.
    let half = parsed("0.1").add(&parsed("0.4")).unwrap();
    let below = Atom { terms: vec![(0, Constant::exact(1.0))], constants: vec![half.neg()], strict: true, span: None };
    assert_eq!(below.truth_at(&[0.5]), Truth::False);
    assert_eq!(below.truth_at(&[0.5f64.next_down()]), Truth::True);
}

#[test]
fn infinite_outputs_are_points_of_the_extended_reals() {
    let difference = Atom::difference(0, 1, false);
    // ∞ − 5 > 0, −∞ − 5 < 0, 5 − ∞ < 0.
    assert_eq!(difference.truth_at(&[f64::INFINITY, 5.0]), Truth::False);
    assert_eq!(difference.truth_at(&[f64::NEG_INFINITY, 5.0]), Truth::True);
    assert_eq!(difference.truth_at(&[5.0, f64::INFINITY]), Truth::True);
    // ∞ − ∞ is undefined, whichever way it is asked.
    for strict in [false, true] {
        let d = Atom::difference(0, 1, strict);
        assert_eq!(d.truth_at(&[f64::INFINITY, f64::INFINITY]), Truth::Unknown);
        assert_eq!(d.truth_at(&[f64::NEG_INFINITY, f64::NEG_INFINITY]), Truth::Unknown);
        assert_eq!(d.truth_at(&[f64::INFINITY, f64::NEG_INFINITY]), Truth::False);
    }
    // A zero coefficient ignores its output: 0·Y_0 + Y_1 − 1 ≤ 0 at (∞, 0.5) is 0.5 − 1 ≤ 0.
    let ignoring = atom(&[(0, "0"), (1, "1")], &["-1"], false);
    assert_eq!(ignoring.truth_at(&[f64::INFINITY, 0.5]), Truth::True);
    assert_eq!(ignoring.truth_at(&[f64::NEG_INFINITY, 2.0]), Truth::False);
    // Against a constant beyond MAX: MAX ≤ 1e400 but ∞ is not; −0.5·∞ = −∞ is below anything.
    let huge = atom(&[(0, "1")], &["-1e400"], false);
    assert_eq!(huge.truth_at(&[f64::MAX]), Truth::True);
    assert_eq!(huge.truth_at(&[f64::INFINITY]), Truth::False);
    assert_eq!(atom(&[(0, "-0.5")], &["1e400"], true).truth_at(&[f64::INFINITY]), Truth::True);
    // NaN is no number: undecided (the judge of a point treats it on its own).
    assert_eq!(difference.truth_at(&[f64::NAN, 5.0]), Truth::Unknown);
    assert_eq!(atom(&[(0, "0")], &["-1"], false).truth_at(&[f64::NAN]), Truth::Unknown);
}

#[test]
fn a_case_is_unsafe_at_a_point_when_some_conjunction_holds_exactly() {
    // Unsafe when Y_0 ≤ 0.1 + 0.4 (= 0.5) and Y_1 ≥ 0, or when Y_1 < −1.
    let first =
        Conjunction { atoms: vec![atom(&[(0, "1")], &["-0.1", "-0.4"], false), atom(&[(1, "-1")], &[], false)] };
    let second = Conjunction { atoms: vec![atom(&[(1, "1")], &["1"], true)] };
    let case = Case { input: one_box(constant("0.0"), constant("1.0")), unsafe_when: vec![first, second] };
    assert_eq!(case.unsafe_at(&[0.5, 0.0]), Truth::True);
    assert_eq!(case.unsafe_at(&[0.5f64.next_up(), 0.0]), Truth::False);
    assert_eq!(case.unsafe_at(&[0.5f64.next_up(), -1.0]), Truth::False);
    assert_eq!(case.unsafe_at(&[0.5f64.next_up(), (-1.0f64).next_down()]), Truth::True);
    // Undefined in the first, false in the second: undecided; true in the second: unsafe.
    assert_eq!(case.unsafe_at(&[f64::NAN, 0.0]), Truth::Unknown);
    assert_eq!(case.unsafe_at(&[f64::NAN, -2.0]), Truth::True);
}

#[test]
fn a_combination_of_outputs_equal_to_an_inexact_constant_is_decided_exactly() {
    // Found by the exhaustive check (seed 638,815): Y_0 − Y_1 is exactly the decimal below, a
    // midpoint of two binary64 values, so `Y_0 − Y_1 < c` is false at this point.
    let c = "-166172665796684181542904357189428536818108709602059985832996407518351782727500653304466126328004868670582490266135714719884315416135504398955170610140214676378563366754743697335776463115463598717134708752181218776782556815235071853414071324338541208602138967813007662089775621540534185959028650822950340001792.0";
    let c = Constant::parse(c).unwrap();
    assert!(!c.is_exact());
    let atom = Atom {
        terms: vec![(0, Constant::exact(1.0)), (1, Constant::exact(-1.0))],
        constants: vec![c.neg()],
        strict: true,
        span: None,
    };
    let y = [1.359664768954739e307, 1.7976931348623157e308];
    let side = atom.left_side(&[Interval::point(y[0]), Interval::point(y[1])]);
    assert!(side.lo < 0.0 && 0.0 < side.hi, "the exact left side, 0, strictly inside its enclosure: {side:?}");
    assert_eq!(atom.truth_at(&y), Truth::False);
    assert_eq!(Atom { strict: false, ..atom }.truth_at(&y), Truth::True);
}
