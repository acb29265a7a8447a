//! Unit tests of `bab.rs` and `queue.rs`: the search's account of the volume it proves, boxes
//! too narrow to split decided point by point, a box unsafe everywhere, the centre, and the
//! sensitivity weights that choose the side to split.

use super::*;
use crate::queue::{CaseOutcome, CaseProgress};
use crate::test_support::{IDENTITY, IDENTITY_ARGMAX, property_2d, target_and_property as setup};

/// `y0 = relu(x0 − 0.5) − relu(x0 − 0.5)`, `y1 = 0`.
const TWIN_RELUS: &str = "let W = initTensor(2, 2) in let W[0, 0] = 1.0 in let W[1, 0] = 1.0 in \
    let z = linear(W, x) in let z[0] = z[0] + -0.5 in let z[1] = z[1] + -0.5 in let h = reluTensor(z) in \
    let V = initTensor(2, 2) in let V[0, 0] = 1.0 in let V[0, 1] = -1.0 in let y = linear(V, h) in y";

#[test]
fn the_search_accounts_for_the_whole_volume_it_proves() {
    // y0 = relu(x0 − 0.5) − relu(x0 − 0.5) = 0 everywhere, so "y0 ≥ 0.001" never holds; but
    // bounds relax the two relus apart, and only boxes narrow around x0 = 0.5 show it: the
    // search splits, and proves every part.
    let (target, property) =
        setup(TWIN_RELUS, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], "(assert (>= Y_0 0.001))"));
    let case = &property.cases[0];
    let search = CaseSearch::new(&target.net, &target.plan, case).expect("points in the box");
    let mut reports: Vec<CaseProgress> = Vec::new();
    let outcome = search.run(None, 4, &|_| false, &mut |p| reports.push(p));
    assert!(matches!(outcome, CaseOutcome::Holds), "{outcome:?}");
    let last = reports.last().expect("progress was reported");
    assert!(last.boxes > 1, "the box needed splitting: {last:?}");
    assert!((last.proved_share - 1.0).abs() < 1e-9, "the parts proved add up to the box: {last:?}");
    for pair in reports.windows(2) {
        assert!(pair[1].boxes > pair[0].boxes && pair[1].proved_share >= pair[0].proved_share, "{pair:?}");
    }
    assert!(reports.iter().all(|p| p.proved_share <= 1.0 + 1e-9));
}

// One ulp above 1 and above 2, written out exactly.
const ONE_UP: &str = "1.0000000000000002220446049250313080847263336181640625";
const TWO_UP: &str = "2.000000000000000444089209850062616169452667236328125";

#[test]
fn a_box_too_narrow_to_split_is_decided_point_by_point() {
    let region = [Interval::new(1.0, 1.0f64.next_up()), Interval::new(2.0, 2.0f64.next_up())];
    let unsafe_at_the_top = format!("(assert (>= Y_0 {ONE_UP})) (assert (>= Y_1 {TWO_UP}))");
    for program in [IDENTITY, IDENTITY_ARGMAX] {
        let (target, property) = setup(program, 2, &property_2d(["1.0", "2.0"], [ONE_UP, TWO_UP], &unsafe_at_the_top));
        let search = CaseSearch::new(&target.net, &target.plan, &property.cases[0]).expect("points");
        assert_eq!(input_to_split(&region, search.root(), &[]), None, "no side can be halved");
        match search.exhaust(&region) {
            Examined::Candidate(x) => assert_eq!(x, vec![1.0f64.next_up(), 2.0f64.next_up()]),
            other => panic!("the top corner is unsafe: {other:?}"),
        }
        // No point reaches 5: all four decided safe.
        let (target, property) =
            setup(program, 2, &property_2d(["1.0", "2.0"], [ONE_UP, TWO_UP], "(assert (>= Y_0 5.0))"));
        let search = CaseSearch::new(&target.net, &target.plan, &property.cases[0]).expect("points");
        assert!(matches!(search.exhaust(&region), Examined::Proved));
        // Only the bottom corner is unsafe: the points with a side at `lo` are tried too.
        let (target, property) = setup(
            program,
            2,
            &property_2d(["1.0", "2.0"], [ONE_UP, TWO_UP], "(assert (<= Y_0 1.0)) (assert (<= Y_1 2.0))"),
        );
        let search = CaseSearch::new(&target.net, &target.plan, &property.cases[0]).expect("points");
        match search.exhaust(&region) {
            Examined::Candidate(x) => assert_eq!(x, vec![1.0, 2.0]),
            other => panic!("the bottom corner is unsafe: {other:?}"),
        }
    }
}

#[test]
fn a_box_unsafe_everywhere_gives_its_centre() {
    let (target, property) =
        setup(IDENTITY, 2, &property_2d(["0.0", "-4.0"], ["2.0", "-2.0"], "(assert (>= Y_0 -10.0))"));
    let search = CaseSearch::new(&target.net, &target.plan, &property.cases[0]).expect("points");
    let root = search.root().to_vec();
    match search.examine(&root, None, 0, &[]) {
        Examined::Candidate(x) => assert_eq!(x, vec![1.0, -3.0]),
        other => panic!("every point is unsafe: {other:?}"),
    }
    assert_eq!(search.centre(&root), vec![1.0, -3.0]);
    // A centre outside the box as written is clamped into it.
    assert_eq!(search.centre(&[Interval::new(1.0, 5.0), Interval::new(-3.0, -3.0)]), vec![2.0, -3.0]);
    assert!(search.is_unsafe(&[0.5, -2.5]));
}

#[test]
fn sensitivity_adds_each_coefficients_share_of_the_total() {
    let mut weights = vec![0.5, 0.0, 0.0];
    add_sensitivity(&mut weights, &[1.0, -3.0, 0.0]);
    assert_eq!(weights, vec![0.75, 0.75, 0.0]);
    // No coefficient, or an infinite one, adds nothing.
    add_sensitivity(&mut weights, &[0.0, 0.0, 0.0]);
    add_sensitivity(&mut weights, &[f64::INFINITY, 1.0, 0.0]);
    assert_eq!(weights, vec![0.75, 0.75, 0.0]);
}

#[test]
fn a_box_without_bounds_is_proved_only_when_relu_signs_leave_no_point() {
    // Bounds that do not meet in a part cut out by relu signs: no point has those signs. Any
    // other failure (a NaN bound, or bounds not meeting on a whole box) proves nothing.
    let (target, property) = setup(IDENTITY, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], "(assert (>= Y_0 2.0))"));
    let search = CaseSearch::new(&target.net, &target.plan, &property.cases[0]).expect("points");
    let region = search.root().to_vec();
    assert!(matches!(search.without_bounds(NoBound::Empty, &region, true), Examined::Proved));
    for (failure, relu_part) in [(NoBound::Empty, false), (NoBound::NotANumber, true), (NoBound::NotANumber, false)] {
        let examined = search.without_bounds(failure, &region, relu_part);
        assert!(matches!(examined, Examined::Split { .. }), "{failure:?}, relu part {relu_part}: {examined:?}");
    }
}

/// `y0 = relu(x0 − 0.5) − relu(x0 − 0.5)`, `y1 = relu(x0)`.
const TWIN_RELUS_AND_X: &str = "let W = initTensor(3, 2) in let W[0, 0] = 1.0 in let W[1, 0] = 1.0 in \
    let W[2, 0] = 1.0 in let z = linear(W, x) in let z[0] = z[0] + -0.5 in let z[1] = z[1] + -0.5 in \
    let h = reluTensor(z) in let V = initTensor(2, 3) in let V[0, 0] = 1.0 in let V[0, 1] = -1.0 in \
    let V[1, 2] = 1.0 in let y = linear(V, h) in y";

#[test]
fn the_volume_cut_away_by_the_bounds_counts_as_proved() {
    // Unsafe needs y1 = x0 ≤ 0.25: the bounds cut the box to x0 ≤ 0.25 at once (three quarters
    // proved), where both twin relus are off and y0 = 0 < 0.001 (the rest proved). Splitting
    // inputs or relus, the shares proved add up to the whole box.
    let unsafe_when = "(assert (>= Y_0 0.001)) (assert (<= Y_1 0.25))";
    let (target, property) = setup(TWIN_RELUS_AND_X, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], unsafe_when));
    for split in [crate::split::Split::Inputs, crate::split::Split::Relus] {
        let search = CaseSearch::new(&target.net, &target.plan, &property.cases[0]).expect("points").splitting(split);
        let mut reports: Vec<CaseProgress> = Vec::new();
        let outcome = search.run(None, 1, &|_| false, &mut |p| reports.push(p));
        assert!(matches!(outcome, CaseOutcome::Holds), "{split:?}: {outcome:?}");
        let last = reports.last().expect("progress was reported");
        assert!((last.proved_share - 1.0).abs() < 1e-9, "{split:?}: {reports:?}");
        assert!(reports.iter().all(|p| (-1e-9..=1.0 + 1e-9).contains(&p.proved_share)), "{split:?}: {reports:?}");
    }
}

#[test]
fn a_box_examines_only_the_conjunctions_its_box_left_open() {
    // Two conjunctions: "y0 ≥ 0.001" (never: y0 = 0, but only narrow boxes show it) and
    // "y0 ≥ 5" (refuted by the intervals of the whole box). A part whose box left only the
    // second open is proved at once; one whose box left the first open is not.
    let (target, property) =
        setup(TWIN_RELUS, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], "(assert (or (>= Y_0 0.001) (>= Y_0 5.0)))"));
    let case = &property.cases[0];
    assert_eq!(case.unsafe_when.len(), 2, "two conjunctions");
    let search = CaseSearch::new(&target.net, &target.plan, case).expect("points in the box");
    let root = search.root().to_vec();
    let from = |open: &'static [usize]| Inherited { open: Some(open), ..Inherited::default() };
    assert!(matches!(search.examine_until(&root, from(&[1]), 0, Deadline::NEVER), Examined::Proved));
    let undecided = search.examine_until(&root, from(&[0]), 0, Deadline::NEVER);
    match undecided {
        Examined::Split { open: Some(open), .. } => assert_eq!(*open, vec![0], "what it passes on"),
        other => panic!("y0 ≥ 0.001 needs splitting: {other:?}"),
    }
    assert!(!matches!(search.examine(&root, None, 0, &[]), Examined::Proved));
}

#[test]
fn each_conjunction_cuts_the_box_by_its_own_atoms_only() {
    // y = x. Three conjunctions, each real somewhere: x0 ≥ 0.9, x0 ≤ 0.1, 0.4 ≤ x0 ≤ 0.6. Each
    // keeps the part of the box where its own atoms can hold, and the box is cut to the hull of
    // those parts (the whole box here). Cut by the other conjunctions' atoms, every part would
    // be empty and the box "proved".
    let unsafe_when = "(assert (or (and (>= Y_0 0.9)) (and (<= Y_0 0.1)) (and (>= Y_0 0.4) (<= Y_0 0.6))))";
    let (target, property) = setup(IDENTITY, 2, &property_2d(["0.0", "0.0"], ["1.0", "1.0"], unsafe_when));
    let case = &property.cases[0];
    assert_eq!(case.unsafe_when.len(), 3, "three conjunctions");
    let search = CaseSearch::new(&target.net, &target.plan, case).expect("points in the box");
    let root = search.root().to_vec();
    match search.examine(&root, None, 0, &[]) {
        Examined::Split { region, .. } => assert_eq!(region, root, "the parts' hull is the whole box"),
        Examined::Candidate(x) => assert!(search.is_unsafe(&x), "{x:?}"),
        other => panic!("unsafe points in all three parts: {other:?}"),
    }
    let outcome = search.run(None, 1, &|x| search.is_unsafe(x), &mut |_| {});
    assert!(matches!(outcome, CaseOutcome::Candidate(_)), "{outcome:?}");
}
