//! The verifier's answers held to every binary64 point of small regions
//! (`knn_fuzzing::verify_exhaustive`, docs/testing.md "Exhaustive checks of the
//! verifier"): generated cases with extreme weights (±0, subnormals, the overflow threshold,
//! ±∞, NaN), regions centred where a NaN, an overflow or a class starts, every kind of region
//! and claim; and, by name, the wrong answers that earlier tests never drew.
//!
//! `KNN_EXHAUSTIVE_CASES` sets the number of cases (default 1500: 20 to 50 s in `cargo test
//! --release` on two cores), `KNN_EXHAUSTIVE_SEED` the first seed (default 0), so that a long
//! run splits into chunks run side by side; `KNN_EXHAUSTIVE_SEEDS=3,17,…` replays the seeds a
//! run reported:
//!
//! ```sh
//! KNN_EXHAUSTIVE_CASES=250000 KNN_EXHAUSTIVE_SEED=250000 cargo test --release \
//!     -p knn-fuzzing --test verify_exhaustive -- --nocapture every_answer
//! ```

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use knn::Split;
use knn_fuzzing::verify_exhaustive::case::{Ask, Case, ClassClaim, Comparison, Expr, Op, Region};
use knn_fuzzing::verify_exhaustive::check::{Decided, Settings, Wrong, check};
use knn_fuzzing::verify_exhaustive::{
    branched_case_of_seed, case_of_seed, exp_log_case_of_seed, product_case_of_seed, scaled_case_of_seed,
    window_case_of_seed,
};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name}={v}: not a number")))
}

/// What a run found.
#[derive(Default)]
struct Tally {
    holds: usize,
    violated: usize,
    /// Why, by reason (the first words of it).
    unknown: BTreeMap<String, usize>,
    /// `unknown: bug` (the verifier saw its engines disagree): allowed, but worth reading,
    /// with the case.
    bugs: Vec<(u64, String)>,
    wrong: Vec<(u64, Wrong)>,
}

impl Tally {
    fn record(&mut self, seed: u64, case: &Case, result: Result<Decided, Wrong>) {
        let answered = match &result {
            Ok(d) => Some(d.clone()),
            Err(w) => w.answered.clone(),
        };
        match answered {
            Some(Decided::Holds) => self.holds += 1,
            Some(Decided::Violated) => self.violated += 1,
            Some(Decided::Unknown(why)) => {
                let reason: String = why.chars().take_while(|c| *c != '(' && *c != '"').collect();
                if reason == "Bug" {
                    self.bugs.push((seed, format!("{why}\n{case}")));
                }
                *self.unknown.entry(reason).or_default() += 1;
            }
            None => {}
        }
        if let Err(wrong) = result {
            self.wrong.push((seed, wrong));
        }
    }
}

/// The seeds to run: `KNN_EXHAUSTIVE_SEEDS=3,17,…` (to replay the seeds a run reported), or
/// `KNN_EXHAUSTIVE_CASES` of them (default `default_cases`) from `KNN_EXHAUSTIVE_SEED` on.
fn seeds(default_cases: u64) -> Vec<u64> {
    if let Ok(list) = std::env::var("KNN_EXHAUSTIVE_SEEDS") {
        return list.split(',').map(|s| s.trim().parse().unwrap_or_else(|_| panic!("`{s}`: not a seed"))).collect();
    }
    let first = env_u64("KNN_EXHAUSTIVE_SEED", 0);
    (first..first + env_u64("KNN_EXHAUSTIVE_CASES", default_cases)).collect()
}

#[test]
fn every_answer_holds_on_every_point_of_small_regions() {
    every_answer_holds(case_of_seed, 1500, Settings::default());
}

/// The same with the verifier deciding by its bounds and search alone: it would otherwise run
/// every point of these small regions itself, and its interval and linear bounds (with their
/// rounding charges) would never be held to the points here.
#[test]
fn every_answer_holds_by_the_bounds_alone() {
    every_answer_holds(case_of_seed, 300, Settings { bounds_only: true, ..Settings::default() });
}

/// The dense cases with branch and bound splitting relu signs (filtered smart branching, the
/// sign multipliers, the conjunctions a part inherits), decided by the bounds alone.
#[test]
fn every_answer_holds_when_splitting_relus() {
    every_answer_holds(case_of_seed, 300, Settings { bounds_only: true, split: Split::Relus, ..Settings::default() });
}

/// The same, with the hidden bounds of each case's whole box refined by relu splits first
/// (`verify/src/refine.rs`).
#[test]
fn every_answer_holds_when_refining_hidden_bounds() {
    let settings = Settings { bounds_only: true, split: Split::RefinedRelus, ..Settings::default() };
    every_answer_holds(case_of_seed, 300, settings);
}

/// Networks that start with a window front — the input reshaped into an image of at most four
/// elements, `conv2d` (strides, padding, dilations, groups; weights with the extremes), an
/// optional relu, an optional max or average pool, `flatten`, then dense layers — decided by
/// the bounds alone (the window layers' bounds are what is new there).
#[test]
fn every_answer_holds_on_networks_with_convolutions_and_pools() {
    every_answer_holds(window_case_of_seed, 300, Settings { bounds_only: true, ..Settings::default() });
}

/// Networks whose dense layers multiply their products by a factor before the bias,
/// `z[i] * a + b` with the extremes (the plan's `Elementwise`, the verifier's `Scale`),
/// decided by the bounds alone.
#[test]
fn every_answer_holds_on_networks_that_scale_their_products() {
    every_answer_holds(scaled_case_of_seed, 300, Settings { bounds_only: true, ..Settings::default() });
}

/// Networks whose tensors branch (residual sums of computed tensors, a broadcast of a
/// length-1 one) and `ArgMax` through a softmax, decided by the bounds alone.
#[test]
fn every_answer_holds_on_networks_that_branch() {
    every_answer_holds(branched_case_of_seed, 300, Settings { bounds_only: true, ..Settings::default() });
}

/// Networks whose activations are mostly `expTensor` and `logTensor` (with the extremes:
/// `exp` overflowing, `log` of negative numbers and zeros), decided by the bounds alone.
#[test]
fn every_answer_holds_on_networks_with_exp_and_log() {
    every_answer_holds(exp_log_case_of_seed, 300, Settings { bounds_only: true, ..Settings::default() });
}

/// Networks whose tensors meet as products or quotients of two computed tensors, some with a
/// `softmax` or `logSoftmax` in the middle (layers bounded by ranges), decided by the bounds
/// alone.
#[test]
fn every_answer_holds_on_networks_with_products_and_softmax() {
    every_answer_holds(product_case_of_seed, 300, Settings { bounds_only: true, ..Settings::default() });
}

/// The cases `case_of` makes of the seeds, checked on as many threads as there are cores;
/// every wrong answer reported with its seed, then the run fails.
fn every_answer_holds(case_of: fn(u64) -> Case, default_cases: u64, settings: Settings) {
    let seeds = seeds(default_cases);
    let cases = seeds.len();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = AtomicUsize::new(0);
    let tally = Mutex::new(Tally::default());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&seed) = seeds.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let case = case_of(seed);
                    let result = check(&case, settings);
                    tally.lock().unwrap().record(seed, &case, result);
                }
            });
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    let tally = tally.into_inner().unwrap();
    let unknown: usize = tally.unknown.values().sum();
    println!(
        "{cases} cases (seeds {} to {}): {} holds, {} violated, {unknown} unknown {:?}, {} wrong; \
         {seconds:.1} s, {:.1} cases/s on {workers} threads",
        seeds.first().unwrap_or(&0),
        seeds.last().unwrap_or(&0),
        tally.holds,
        tally.violated,
        tally.unknown,
        tally.wrong.len(),
        cases as f64 / seconds,
    );
    for (seed, why) in &tally.bugs {
        println!("seed {seed}: unknown, {why}");
    }
    for (seed, wrong) in &tally.wrong {
        println!("seed {seed}: {}", wrong.message.lines().next().unwrap_or_default());
    }
    let shown: Vec<String> =
        tally.wrong.iter().take(5).map(|(seed, w)| format!("seed {seed}: {}", w.message)).collect();
    assert!(
        tally.wrong.is_empty(),
        "{} wrong answers (seeds {:?}); the first:\n\n{}",
        tally.wrong.len(),
        tally.wrong.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        shown.join("\n")
    );
    // A generator of trivial cases would say nothing: both answers must be common (in a run
    // long enough to say so; a replay of a few seeds need not be).
    let decided = tally.holds + tally.violated;
    assert!(
        cases < 100 || tally.holds * 5 >= decided && tally.violated * 5 >= decided && decided * 2 >= cases,
        "{} holds and {} violated of {cases}",
        tally.holds,
        tally.violated
    );
}

/// The wrong answers of the first long bounds-only runs (dense seeds 2,140,000–2,149,999 and
/// window seeds 40,000–59,999): weights near the overflow threshold made a coefficient of
/// `G·W` overflow to `±∞` in back-substitution, and `∞` times an input of the other sign gave a
/// lower bound of `+∞`. Each is now answered rightly by the bounds alone.
#[test]
fn overflowing_coefficients_give_no_bound() {
    let settings = Settings { bounds_only: true, ..Settings::default() };
    for seed in [2_140_183, 2_145_589, 2_145_590, 2_147_266] {
        if let Err(wrong) = check(&case_of_seed(seed), settings) {
            panic!("seed {seed}: {}", wrong.message);
        }
    }
    for seed in [42_984, 46_108, 55_239] {
        if let Err(wrong) = check(&window_case_of_seed(seed), settings) {
            panic!("window seed {seed}: {}", wrong.message);
        }
    }
}

fn answer(case: &Case) -> Decided {
    match check(case, Settings::default()) {
        Ok(decided) => decided,
        Err(wrong) => panic!("{}", wrong.message),
    }
}

/// `1e308·x0 − 1e308·x1` is `∞ − ∞ = NaN` where both products overflow (at `x = [2, 2]`):
/// the scores are `[NaN, 5]` and the class 0 (a NaN first element wins `ArgMax`).
#[test]
fn a_nan_born_inside_a_layer_breaks_argmax_is_1() {
    let case = Case {
        program: "let W0 = initTensor(2, 2) in let W0[0, 0] = 1e+308 in let W0[0, 1] = -1e+308 in \
                  let z0 = linear(W0, x) in let h1 = tanhTensor(z0) in let h1[1] = h1[1] + 5.0 in ArgMax(h1)"
            .into(),
        outputs: 2,
        region: Region::Box { ranges: vec![("-2".into(), "2".into()), ("-2".into(), "2".into())] },
        ask: Ask::Class(ClassClaim::Is(1)),
    };
    assert_eq!(answer(&case), Decided::Violated);
}

/// `[−1/x, 1/x]` with `x` in `[0, 5e-324]`: the region holds `−0` as well as `+0` (they compare
/// equal), and the engine tells them apart: `[−∞, +∞]` at `+0` and at `5e-324` (class 1), but
/// `[+∞, −∞]` at `−0` (class 0). The first product family (seed 717) found the verifier running
/// only `+0` of such a region.
#[test]
fn a_quotient_by_an_input_that_may_be_minus_zero_has_both_classes() {
    let case = Case {
        program: "let W0 = initTensor(2, 1) in let z0 = linear(W0, x) in \
                  let z0[0] = z0[0] + -1.0 in let z0[1] = z0[1] + 1.0 in let q = divTensor(z0, x) in ArgMax(q)"
            .into(),
        outputs: 2,
        region: Region::Box { ranges: vec![("0".into(), "5e-324".into())] },
        ask: Ask::Class(ClassClaim::Is(1)),
    };
    assert_eq!(answer(&case), Decided::Violated);
    let positive = Case { region: Region::Box { ranges: vec![("5e-324".into(), "1e-323".into())] }, ..case };
    assert_eq!(answer(&positive), Decided::Holds);
}

/// `--around x=[0.1] --eps 0.4` ends at exactly 0.5, where the score `x` beats
/// `0.49999999999999994`: class 1 there.
#[test]
fn a_ball_s_computed_upper_end_is_in_the_region() {
    let case = Case {
        program: "let W0 = initTensor(2, 1) in let W0[1, 0] = 1.0 in let z0 = linear(W0, x) in \
                  let z0[0] = z0[0] + 0.49999999999999994 in ArgMax(z0)"
            .into(),
        outputs: 2,
        region: Region::Around { centre: vec!["0.1".into()], eps: "0.4".into(), clip: None },
        ask: Ask::Class(ClassClaim::Is(0)),
    };
    assert_eq!(answer(&case), Decided::Violated);
}

/// `∞·0` is NaN: at `x = ±0` the relu meets `NaN + -1.14` and the program fails, which
/// breaks every claim (found as seeds 497 and 1983 of the generated cases).
#[test]
fn an_infinite_weight_times_a_zero_input_fails_at_the_relu() {
    let case = Case {
        program: "let W0 = initTensor(1, 1) in let W0[0, 0] = Infinity in let z0 = linear(W0, x) in \
                  let z0[0] = z0[0] + -1.14 in let h0 = reluTensor(z0) in h0"
            .into(),
        outputs: 1,
        region: Region::Box { ranges: vec![("-1e-320".into(), "1e-320".into())] },
        ask: Ask::Class(ClassClaim::Is(0)),
    };
    assert_eq!(answer(&case), Decided::Violated);
}

/// `tanh(∞·0)` is a NaN output at `x = ±0`: a NaN output breaks a property whatever its
/// constraints say (seeds 285 and 1565).
#[test]
fn a_nan_output_breaks_a_property() {
    let case = Case {
        program: "let W0 = initTensor(1, 1) in let W0[0, 0] = Infinity in let z0 = linear(W0, x) in \
                  let h0 = tanhTensor(z0) in h0"
            .into(),
        outputs: 1,
        region: Region::Box { ranges: vec![("-1e-320".into(), "1e-320".into())] },
        ask: Ask::Property(vec![vec![Comparison {
            op: Op::Ge,
            left: Expr::Output(0),
            right: Expr::Number("2".into()),
        }]]),
    };
    assert_eq!(answer(&case), Decided::Violated);
}

/// `0.1 ± 1e-17` holds two binary64 points (`0.09999999999999999` and `0.1f64`), both of
/// class 0 on a one-score program: `argmax!=0` is broken at both, though the enclosures of
/// the computed ends `0.1 − 1e-17` and `0.1 + 1e-17` overlap (seeds 73, 211, 2757).
#[test]
fn a_ball_narrower_than_an_ulp_still_has_points() {
    let case = Case {
        program: "let W0 = initTensor(1, 1) in let W0[0, 0] = 1.0 in let z0 = linear(W0, x) in z0".into(),
        outputs: 1,
        region: Region::Around { centre: vec!["0.1".into()], eps: "1e-17".into(), clip: None },
        ask: Ask::Class(ClassClaim::IsNot(0)),
    };
    assert_eq!(answer(&case), Decided::Violated);
}

/// Two outputs that are both `+∞` at `x = 1`, asked whether `conjunction` can hold there.
fn two_infinite_outputs(conjunction: Vec<Comparison>) -> Case {
    Case {
        program: "let W0 = initTensor(2, 1) in let W0[0, 0] = Infinity in let W0[1, 0] = Infinity in \
                  let z0 = linear(W0, x) in z0"
            .into(),
        outputs: 2,
        region: Region::Box { ranges: vec![("1".into(), "1".into())] },
        ask: Ask::Property(vec![conjunction]),
    }
}

/// At `x = 1` both outputs are `+∞`: `Y_0 < Y_1` has the terms `+∞` and `−∞`, which is
/// undefined in the extended reals; an undefined constraint cannot rule the point out, so the
/// property is violated there. Found by the generated cases (seed 1000881).
#[test]
fn a_constraint_on_two_infinite_outputs_is_undefined_so_violated() {
    let less = Comparison { op: Op::Lt, left: Expr::Output(0), right: Expr::Output(1) };
    assert_eq!(answer(&two_infinite_outputs(vec![less])), Decided::Violated);
}

/// The same constraint beside a false one: `Y_0 < 0.5` is false at `Y_0 = +∞`, which rules the
/// conjunction out whatever the undefined one would say: the property holds.
#[test]
fn an_undefined_constraint_beside_a_false_one_rules_nothing_in() {
    let less = Comparison { op: Op::Lt, left: Expr::Output(0), right: Expr::Output(1) };
    let small = Comparison { op: Op::Lt, left: Expr::Output(0), right: Expr::Number("0.5".into()) };
    assert_eq!(answer(&two_infinite_outputs(vec![less, small])), Decided::Holds);
}
