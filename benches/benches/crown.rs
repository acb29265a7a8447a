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
use knn_benches::crown::{CrownCase, mnist_case};
use knn_verify::interval::Bounds;
use knn_verify::linear::LowerBound;
use knn_verify::prepare::PreparedLayers;

/// The subdomain counts measured.
const COUNTS: [usize; 3] = [1, 64, 1024];

/// Subdomains with what an α step starts from on each.
type Started<'a> = Vec<(&'a Bounds, (PreparedLayers, LowerBound))>;

fn crown(c: &mut Criterion) {
    let case = mnist_case().unwrap_or_else(|e| panic!("the bench's network and property: {e}"));
    let all = case.subdomains(*COUNTS.iter().max().expect("counts"));
    passes(c, "crown/pass", &all, |subdomains| {
        for bounds in subdomains {
            black_box(case.pass(bounds));
        }
    });
    steps(c, "crown/alpha-step", &case, &all, |started| {
        for (bounds, (prepared, start)) in started.iter_mut() {
            black_box(case.alpha_step(bounds, prepared, start));
        }
    });
    // The same work, every subdomain of a count in batches.
    passes(c, "crown/batch-pass", &all, |subdomains| {
        black_box(case.batch_pass(subdomains));
    });
    steps(c, "crown/batch-alpha-step", &case, &all, |started| {
        black_box(case.batch_alpha_step(started));
    });
}

/// `pass` on the first N subdomains, for each N of [`COUNTS`]: a thousand passes take seconds,
/// so flat sampling, ten samples of one iteration at least (about 0.4–3.2 ms a pass).
fn passes(c: &mut Criterion, name: &str, all: &[Bounds], pass: impl Fn(&[Bounds])) {
    let mut group = c.benchmark_group(name);
    group.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in COUNTS {
        let seconds = 3.0 + 0.04 * n as f64;
        group.throughput(Throughput::Elements(n as u64)).measurement_time(Duration::from_secs_f64(seconds));
        group.bench_with_input(BenchmarkId::from_parameter(n), &all[..n], |b, subdomains| b.iter(|| pass(subdomains)));
    }
    group.finish();
}

/// `step` on the first N subdomains, each started (not timed), for each N of [`COUNTS`].
fn steps(c: &mut Criterion, name: &str, case: &CrownCase, all: &[Bounds], step: impl Fn(&mut Started<'_>)) {
    let mut group = c.benchmark_group(name);
    group.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in COUNTS {
        let mut started: Started<'_> = all[..n].iter().map(|bounds| (bounds, case.alpha_start(bounds))).collect();
        group.throughput(Throughput::Elements(n as u64)).measurement_time(Duration::from_secs(3 + n as u64 / 256));
        group.bench_function(BenchmarkId::from_parameter(n), |b| b.iter(|| step(&mut started)));
    }
    group.finish();
}

criterion_group!(benches, crown);
criterion_main!(benches);
