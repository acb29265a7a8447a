//! The speed of one bound (issue 28): the verifier's work per subdomain on `mnist-net_256x6`
//! and the first case of `prop_0_0.03` (`knn_benches::crown`), for 1, 64 and 1,024
//! subdomains, each subdomain the root box's bounds with one or two unstable relus of the
//! first hidden layer fixed to a sign:
//!
//! - `crown/pass/{n}`: one CROWN pass per subdomain: the layers prepared on its bounds
//!   (rounding charges, relu lines), then the 9 atom rows carried back from the last layer to
//!   the input with both lower slopes (`back_substitute`);
//! - `crown/alpha-step/{n}`: one α step per subdomain on the first row (one back-substitution
//!   with given lines and one gradient pass: `optimise_row_from` with one step), on layers
//!   already prepared (as in the verifier, after the fixed slopes' pass).
//!
//! - `crown/batch-pass/{n}` and `crown/batch-alpha-step/{n}`: the same, all `n` subdomains in
//!   one batch (`back_substitute_batch`, `optimise_parts`): each subdomain's rows stacked
//!   into one product per dense layer, each with its own charges and lines.
//!
//! The subdomains run one after the other on one thread (the verifier runs them on the rayon
//! pool, one per thread). Setup is not timed. `benches/peers/crown` runs this and the numpy
//! peer in one command; `docs/performance.md` records the results.
//!
//! `cargo bench -p knn-benches --bench crown`

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use knn_benches::crown::mnist_case;

/// The subdomain counts measured.
const COUNTS: [usize; 3] = [1, 64, 1024];

fn crown(c: &mut Criterion) {
    let case = mnist_case().unwrap_or_else(|e| panic!("the bench's network and property: {e}"));
    let all = case.subdomains(*COUNTS.iter().max().expect("counts"));
    let mut group = c.benchmark_group("crown/pass");
    // A thousand passes take seconds: flat sampling, ten samples of one iteration at least.
    group.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in COUNTS {
        // About 3.2 ms a pass: ten samples of 1,024 passes take 33 s.
        let seconds = 3.0 + 0.04 * n as f64;
        group.throughput(Throughput::Elements(n as u64)).measurement_time(Duration::from_secs_f64(seconds));
        group.bench_with_input(BenchmarkId::from_parameter(n), &all[..n], |b, subdomains| {
            b.iter(|| {
                for bounds in subdomains {
                    black_box(case.pass(bounds));
                }
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("crown/alpha-step");
    group.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in COUNTS {
        let mut started: Vec<_> = all[..n].iter().map(|bounds| (bounds, case.alpha_start(bounds))).collect();
        group.throughput(Throughput::Elements(n as u64)).measurement_time(Duration::from_secs(3 + n as u64 / 256));
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                for (bounds, (prepared, start)) in started.iter_mut() {
                    black_box(case.alpha_step(bounds, prepared, start));
                }
            })
        });
    }
    group.finish();

    // The same work, every subdomain of a count in one batch.
    let mut group = c.benchmark_group("crown/batch-pass");
    group.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in COUNTS {
        let seconds = 3.0 + 0.04 * n as f64;
        group.throughput(Throughput::Elements(n as u64)).measurement_time(Duration::from_secs_f64(seconds));
        group.bench_with_input(BenchmarkId::from_parameter(n), &all[..n], |b, subdomains| {
            b.iter(|| black_box(case.batch_pass(subdomains)))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("crown/batch-alpha-step");
    group.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in COUNTS {
        let mut started: Vec<_> = all[..n].iter().map(|bounds| (bounds, case.alpha_start(bounds))).collect();
        group.throughput(Throughput::Elements(n as u64)).measurement_time(Duration::from_secs(3 + n as u64 / 256));
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| black_box(case.batch_alpha_step(&mut started)))
        });
    }
    group.finish();
}

criterion_group!(benches, crown);
criterion_main!(benches);
