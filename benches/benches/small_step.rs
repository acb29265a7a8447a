//! Rule applications per second of the small-step engine (published rules, krun's choices) on
//! a program with 2,550 element writes and a 50×50 `linear`. Criterion reports the throughput
//! in "elements": here one element is one rule application.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use knn_benches::linear_program;
use knn_semantics::syntax::parse_program;
use knn_semantics::term::term_of_program;
use knn_semantics::{Config, Outcome, Profile, StepOptions, run};

fn small_step(c: &mut Criterion) {
    let source = linear_program(50);
    for profile in [Profile::published(), Profile::revised()] {
        let program = term_of_program(&parse_program(&source, profile.grammar).expect("benchmark program parses"));
        let probe = run(profile, Config::initial(program.clone()), StepOptions::default());
        assert!(matches!(probe.outcome, Outcome::Value(_)), "{:?}", probe.outcome);

        let mut group = c.benchmark_group(format!("small-step/{}", profile.name));
        group.throughput(Throughput::Elements(probe.steps));
        group.bench_function("linear-50x50/rule-applications", |b| {
            b.iter(|| run(profile, Config::initial(program.clone()), StepOptions::default()).steps)
        });
        group.finish();
    }
    let profile = Profile::published();

    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(source.len() as u64));
    group.bench_function("linear-50x50", |b| b.iter(|| parse_program(&source, profile.grammar).map(|e| e.size())));
    group.finish();
}

criterion_group!(benches, small_step);
criterion_main!(benches);
