//! The differential properties under quickcheck. Each runs `KNN_DIFF_CASES` cases (10,000 by
//! default) of programs drawn from seeds; a failure is shrunk to a small program and printed
//! with its seed, its text, the two outcomes and where they differ. `KNN_DIFF_SEED=N` runs the
//! program of one seed alone, under every property.

use knn_differential::check::{self, Check};
use knn_differential::generate::{self, Shape};
use knn_differential::{Program, sound};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

fn cases() -> u64 {
    std::env::var("KNN_DIFF_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000)
}

fn only_seed() -> Option<u64> {
    std::env::var("KNN_DIFF_SEED").ok().and_then(|s| s.parse().ok())
}

/// A program of the full generator.
#[derive(Clone, Debug)]
struct Full(Program);

/// A program with an input of several rows (for the batch properties).
#[derive(Clone, Debug)]
struct Batched(Program);

/// A program with an input and moderate values.
#[derive(Clone, Debug)]
struct Moderate(Program);

/// A program of the full generator, short.
#[derive(Clone, Debug)]
struct Short(Program);

/// A program inside the published rules' sound fragment.
#[derive(Clone, Debug)]
struct Sound(Program);

fn full(seed: u64) -> Full {
    Full(generate::program(seed, Shape::default()))
}

fn batched(seed: u64) -> Batched {
    Batched(generate::program(seed, Shape::batched()))
}

/// A short program without the extensions ([`Shape::short`]): for `search` under the
/// published rules.
fn short(seed: u64) -> Short {
    Short(generate::program(seed, Shape::short()))
}

/// Moderate values only (no overflow): the programs of the fast-math tolerance.
fn moderate(seed: u64) -> Moderate {
    Moderate(generate::program(seed, Shape::moderate_values()))
}

fn in_fragment(seed: u64) -> Sound {
    Sound(sound::program(seed))
}

macro_rules! arbitrary_program {
    ($wrapper:ident, $make:expr) => {
        impl Arbitrary for $wrapper {
            fn arbitrary(g: &mut Gen) -> $wrapper {
                $make(u64::arbitrary(g))
            }

            fn shrink(&self) -> Box<dyn Iterator<Item = $wrapper>> {
                Box::new(self.0.shrink_candidates().into_iter().map($wrapper))
            }
        }
    };
}

arbitrary_program!(Full, full);
arbitrary_program!(Batched, batched);
arbitrary_program!(Short, short);
arbitrary_program!(Moderate, moderate);
arbitrary_program!(Sound, in_fragment);

fn result(check: Check) -> TestResult {
    match check {
        Check::Pass => TestResult::passed(),
        Check::Discard(_) => TestResult::discard(),
        Check::Fail(report) => TestResult::error(report),
    }
}

/// Runs `property` on `cases()` programs (or on the one of `KNN_DIFF_SEED`); at least 90% of
/// the cases must be conclusive.
fn hold<A: Arbitrary + std::fmt::Debug>(property: fn(A) -> TestResult, seeded: fn(u64) -> A) {
    if let Some(seed) = only_seed() {
        let outcome = property(seeded(seed));
        assert!(!outcome.is_failure(), "seed {seed}: {outcome:?}");
        return;
    }
    let n = cases();
    QuickCheck::new().tests(n).max_tests(n + n / 10).min_tests_passed(n * 9 / 10).quickcheck(property);
}

#[test]
fn engines_agree_bit_for_bit() {
    hold(|p: Full| result(check::engines_agree(&p.0)), full);
}

#[test]
fn a_batch_equals_its_rows_run_alone() {
    hold(|p: Batched| result(check::batch_equals_rows(&p.0)), batched);
}

#[test]
fn fast_math_stays_within_tolerance() {
    fn property(p: Moderate) -> TestResult {
        // Programs whose results are not comparable Floats pass vacuously here; the tolerance
        // is checked on every case that has some.
        match check::fast_math_close(&p.0) {
            Check::Discard(_) => TestResult::passed(),
            other => result(other),
        }
    }
    hold(property, moderate);
}

#[test]
fn published_run_is_among_search_outcomes() {
    hold(|p: Short| result(check::run_within_search(&p.0)), short);
}

#[test]
fn published_and_revised_agree_on_the_sound_fragment() {
    hold(|p: Sound| result(check::published_agrees_on_sound_fragment(&p.0)), in_fragment);
}

#[test]
fn printed_programs_parse_back_to_themselves() {
    fn property(p: Full, q: Sound) -> TestResult {
        match (check::round_trip(&p.0), check::round_trip(&q.0)) {
            (Check::Fail(report), _) | (_, Check::Fail(report)) => TestResult::error(report),
            _ => TestResult::passed(),
        }
    }
    if let Some(seed) = only_seed() {
        let outcome = property(full(seed), in_fragment(seed));
        assert!(!outcome.is_failure(), "seed {seed}: {outcome:?}");
        return;
    }
    // Every case must count: without `max_tests`, quickcheck stops after its default 10,000
    // draws whatever `tests` says, and a long run would silently be a short one.
    let n = cases();
    QuickCheck::new().tests(n).max_tests(n).min_tests_passed(n).quickcheck(property as fn(Full, Sound) -> TestResult);
}
