//! The generator reaches every rule of the revised profile: run on the reference with
//! coverage, a few thousand generated programs fire each revised rule at least once.

use knn_differential::generate::{self, Shape};
use knn_semantics::engine::Coverage;
use knn_semantics::inputs::initial_config;
use knn_semantics::syntax::{Grammar, parse_program};
use knn_semantics::term::term_of_program;
use knn_semantics::{Profile, StepOptions, run};

/// Revised rules no source program can fire: `alloc` of a negative dimension (dimensions are
/// Int literals, and `-1` is a Float in K).
const UNREACHABLE_FROM_SOURCE: [&str; 1] = ["rev-alloc-negative"];

#[test]
fn generated_programs_fire_every_revised_rule() {
    let profile = Profile::revised();
    let mut total = Coverage::new(profile);
    for seed in 0..3000 {
        let program = generate::program(seed, Shape::default());
        let exp = parse_program(&program.source(), Grammar::Relaxed).expect("generated programs parse");
        let config = initial_config(profile, term_of_program(&exp), &program.first_inputs()).expect("inputs bind");
        let ran = run(profile, config, StepOptions { max_steps: Some(1_000_000), trace: false });
        total.merge(&ran.coverage);
    }
    let never: Vec<&str> =
        total.never_fired().map(|r| r.id).filter(|id| !UNREACHABLE_FROM_SOURCE.contains(id)).collect();
    assert!(never.is_empty(), "no generated program fires {never:?}");
}
