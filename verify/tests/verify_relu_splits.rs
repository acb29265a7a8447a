//! Soundness of branch and bound on relu signs (`Split::Relus`, which the default search uses
//! only for networks with many inputs, and `Split::RefinedRelus`, its whole box's hidden
//! bounds refined by relu splits first), without the falsifier so that the search alone must
//! find what is there: on random ReLU networks deep enough that boxes get split, with the
//! claim "the class is never k" for the class k that random points give least often,
//! `holds` must agree with 10^4 random points of the box, and a candidate must be a point of
//! the box of class k. `KNN_VERIFY_CASES` sets the number of networks (default 100).

mod verify_support;

use std::time::{Duration, Instant};

use knn_engine::bigstep::ops::argmax;
use knn_engine::bigstep::{ExecOptions, run_rows};
use knn_formats::import::Activation;
use knn_semantics::engine::Observed;
use knn_verify::Target;
use knn_verify::bab::{CaseSearch, Examined};
use knn_verify::claim::class_property;
use knn_verify::falsify::SplitMix;
use knn_verify::queue::CaseOutcome;
use knn_verify::split::Split;
use verify_support::{Dense, exact_box, program_text, target};

struct Case {
    source: String,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

fn random_case(seed: u64) -> Case {
    let mut rng = SplitMix::new(seed);
    let mut uniform = |lo: f64, hi: f64| lo + rng.unit() * (hi - lo);
    let inputs = 3;
    let mut layers = Vec::new();
    let mut cols = inputs;
    for k in 0..4 {
        let rows = if k == 3 { 3 } else { 8 };
        let weights = (0..rows * cols).map(|_| uniform(-1.0, 1.0)).collect();
        let bias = (0..rows).map(|_| uniform(-0.5, 0.5)).collect();
        let activation = (k < 3).then_some(Activation::Relu);
        layers.push(Dense { rows, cols, weights, bias, activation });
        cols = rows;
    }
    let eps = uniform(0.1, 0.8);
    let centre: Vec<f64> = (0..inputs).map(|_| uniform(-1.0, 1.0)).collect();
    Case {
        source: program_text(inputs, &layers),
        lo: centre.iter().map(|c| c - eps).collect(),
        hi: centre.iter().map(|c| c + eps).collect(),
    }
}

fn classes(t: &Target, points: &[Vec<f64>]) -> Vec<usize> {
    let rows: Vec<Vec<&[f64]>> = points.iter().map(|x| vec![x.as_slice()]).collect();
    run_rows(&t.plan, &rows, ExecOptions::default())
        .into_iter()
        .map(|r| match r {
            Ok(Observed::Tensor(y)) => argmax(y.data.iter().copied()) as usize,
            other => panic!("no vector: {other:?}"),
        })
        .collect()
}

fn random_points(case: &Case, count: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = SplitMix::new(seed);
    (0..count)
        .map(|_| case.lo.iter().zip(&case.hi).map(|(l, h)| (l + rng.unit() * (h - l)).clamp(*l, *h)).collect())
        .collect()
}

#[derive(Default)]
struct Tally {
    searched_holds: usize,
    searched_candidates: usize,
}

fn check(seed: u64, tally: &mut Tally) {
    let case = random_case(seed);
    let t = target(&case.source, case.lo.len());
    let few = classes(&t, &random_points(&case, 200, seed ^ 1));
    let rare = (0..3).min_by_key(|&k| few.iter().filter(|&&c| c == k).count()).expect("three classes");
    let points = random_points(&case, 10_000, seed ^ 2);
    let seen_rare = classes(&t, &points).into_iter().zip(&points).find(|(c, _)| *c == rare).map(|(_, x)| x.clone());
    // Unsafe where the class is `rare`.
    let property = class_property(exact_box(&case.lo, &case.hi), rare, 3, true);
    let case_box = &property.cases[0];
    // Each case twice: as the search starts, and with the whole box's hidden bounds refined
    // by relu splits first (the search's second phase on wide networks).
    for split in [Split::Relus, Split::RefinedRelus] {
        let search = CaseSearch::new(&t.net, &t.plan, case_box).expect("a box of binary64 points").splitting(split);
        // Only boxes that the root bound does not decide exercise the split.
        let searched = !matches!(search.examine(&case_box.input.outer(), None, 0, &[]), Examined::Proved);
        let deadline = Instant::now() + Duration::from_secs(1);
        match search.run(Some(deadline), 64, &|_| true, &mut |_| {}) {
            CaseOutcome::Holds => {
                if let Some(x) = &seen_rare {
                    panic!(
                        "seed {seed} ({split:?}): holds (never class {rare}) but class {rare} at {x:?}\n{}",
                        case.source
                    );
                }
                tally.searched_holds += usize::from(searched);
            }
            CaseOutcome::Candidate(x) => {
                let inside = x.iter().zip(case.lo.iter().zip(&case.hi)).all(|(v, (l, h))| l <= v && v <= h);
                let class = classes(&t, std::slice::from_ref(&x))[0];
                assert!(
                    inside && class == rare,
                    "seed {seed} ({split:?}): candidate {x:?} of class {class}, not {rare}"
                );
                tally.searched_candidates += usize::from(searched);
            }
            CaseOutcome::Timeout | CaseOutcome::Stuck => {}
        }
    }
}

#[test]
fn relu_splits_prove_only_what_holds_and_find_what_does_not() {
    let cases: u64 = std::env::var("KNN_VERIFY_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    let mut tally = Tally::default();
    for seed in 0..cases {
        check(0x7e1u64.wrapping_mul(seed + 1), &mut tally);
    }
    // The search itself must often decide both ways past the root bound.
    let (holds, candidates) = (tally.searched_holds, tally.searched_candidates);
    eprintln!("past the root: {holds} proved and {candidates} refuted of {cases} cases, each searched twice");
    assert!(
        holds * 10 >= 2 * cases as usize && candidates * 10 >= 2 * cases as usize,
        "past the root: {holds} proved and {candidates} refuted of {cases}"
    );
}
