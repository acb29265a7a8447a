//! The big-step engine (issue 4's measurements):
//!
//! - `engines/…`: the same MLP (ACAS Xu's shape) with one input on the small-step reference
//!   (revised rules), on the big-step engine from source to result (compile, then run), and on
//!   a compiled plan (what each further input costs);
//! - `batch/{acasxu,wide,acasxu-1-1}/threads-{1,2}/{1,64,4096}`: throughput in inputs per
//!   second (`acasxu-1-1` is the real network, `data/acasxu/…_1_1.nnet`);
//! - `batch-fast-math/…`: the same with fused multiply-adds (`--fast-math`), batch 4096;
//! - `latency/acasxu`: one input on a compiled plan;
//! - `kernel/…`: the exact batched product alone, in multiply-adds per second;
//! - `kernel-zeros/…`: the dense kernel and the one that skips zero inputs on inputs with a
//!   given share of zeros, in multiply-adds of the dense product per second.
//!
//! `cargo bench -p knn-benches --bench big_step`; `docs/performance.md` records the results.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use knn_benches::{ACAS_XU, bench_networks, compile_mlp, inputs, mlp_program, parse_mlp, rows};
use knn_engine::bigstep::{BigStep, ExecOptions, Plan, run_rows};
use knn_engine::tensor::{
    Epilogue, Isa, Matrix, Precision, matmul_lanes, matmul_lanes_dense_on, matmul_lanes_skipping_zeros_on,
};
use knn_semantics::engine::{Engine, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::Exp;

fn network(sizes: &[usize]) -> (Exp, Plan) {
    let program = parse_mlp(&mlp_program(sizes, 7));
    let plan = compile_mlp(&program, sizes[0]);
    (program, plan)
}

fn engines(c: &mut Criterion) {
    let (program, plan) = network(&ACAS_XU);
    let x = inputs(1, ACAS_XU[0], 3);
    let input = [TensorInput { name: "x".into(), shape: vec![ACAS_XU[0]], data: x[0].clone() }];
    let reference = SmallStep::revised().evaluate(&program, &input).expect("the input binds");
    assert!(matches!(reference, Verdict::Value(_)), "{reference}");
    let big = BigStep::new();
    assert!(big.evaluate(&program, &input).expect("the input binds").agrees_with(&reference));

    let mut group = c.benchmark_group("engines/acasxu-one-input");
    group.sample_size(10).measurement_time(Duration::from_secs(5));
    group.bench_function("small-step", |b| b.iter(|| SmallStep::revised().evaluate(&program, &input)));
    group.bench_function("big-step/compile-and-run", |b| b.iter(|| big.evaluate(&program, &input)));
    let one = rows(&x);
    group.bench_function("big-step/compiled-plan", |b| b.iter(|| run_rows(&plan, &one, ExecOptions::default())));
    group.finish();
}

fn batches(c: &mut Criterion) {
    for net in bench_networks(4096) {
        let plan = compile_mlp(&parse_mlp(&net.mlp.program()), net.mlp.sizes[0]);
        let wide = net.mlp.sizes.iter().any(|&n| n > 100);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
            let mut group = c.benchmark_group(format!("batch/{}/threads-{threads}", net.name));
            let samples = if wide { 10 } else { 20 };
            group.sample_size(samples).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
            for batch in [1usize, 64, 4096] {
                let rows = rows(&net.inputs[..batch]);
                group.throughput(Throughput::Elements(batch as u64));
                group.bench_with_input(BenchmarkId::from_parameter(batch), &rows, |b, rows| {
                    pool.install(|| b.iter(|| run_rows(&plan, rows, ExecOptions::default())))
                });
            }
            group.finish();
        }
        // Fast math (fused multiply-adds) on both cores, for comparison with the exact figures.
        let mut group = c.benchmark_group(format!("batch-fast-math/{}/threads-2", net.name));
        group.sample_size(10).measurement_time(Duration::from_secs(3));
        let rows = rows(&net.inputs);
        group.throughput(Throughput::Elements(rows.len() as u64));
        let fast = ExecOptions { precision: Precision::Fast, group: None };
        group.bench_function("4096", |b| b.iter(|| run_rows(&plan, &rows, fast)));
        group.finish();
    }
}

fn latency(c: &mut Criterion) {
    let (_, plan) = network(&ACAS_XU);
    let x = inputs(1, ACAS_XU[0], 5);
    let one = rows(&x);
    c.bench_function("latency/acasxu", |b| b.iter(|| run_rows(&plan, &one, ExecOptions::default())));
}

fn kernel(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel/exact-matmul");
    for (rows, cols, lanes) in [(50, 50, 64), (256, 256, 64), (256, 784, 64)] {
        let w = Matrix::new(rows, cols, (0..rows * cols).map(|k| (k % 13) as f64 * 0.1 - 0.6).collect());
        let x: Vec<f64> = (0..cols * lanes).map(|k| (k % 7) as f64 - 3.0).collect();
        let mut out = vec![0.0; rows * lanes];
        group.throughput(Throughput::Elements((rows * cols * lanes) as u64));
        group.bench_function(format!("{rows}x{cols}-lanes-{lanes}"), |b| {
            b.iter(|| matmul_lanes(&w, &x, &mut out, lanes, Precision::Exact, Epilogue::default()))
        });
    }
    group.finish();
}

/// Inputs of which about `zeros` in a hundred are 0.0, at seeded places (a relu's pattern).
fn with_zeros(len: usize, zeros: u64) -> Vec<f64> {
    let mut state = 7u64;
    (0..len)
        .map(|k| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if (state >> 33) % 100 < zeros { 0.0 } else { (k % 7) as f64 * 0.5 + 0.25 }
        })
        .collect()
}

fn kernel_zeros(c: &mut Criterion) {
    if Isa::detect() < Isa::Avx2 {
        return;
    }
    let mut group = c.benchmark_group("kernel-zeros");
    group.sample_size(20).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    let lanes = 64;
    for (rows, cols) in [(50, 50), (256, 256)] {
        let w = Matrix::new(rows, cols, (0..rows * cols).map(|k| (k % 13) as f64 * 0.1 - 0.6).collect());
        let mut out = vec![0.0; rows * lanes];
        group.throughput(Throughput::Elements((rows * cols * lanes) as u64));
        for zeros in [0, 50, 75, 90] {
            let x = with_zeros(cols * lanes, zeros);
            let (isa, exact) = (Isa::detect(), Precision::Exact);
            group.bench_function(format!("{rows}x{cols}/zeros-{zeros}/dense"), |b| {
                b.iter(|| matmul_lanes_dense_on(isa, &w, &x, &mut out, lanes, exact, Epilogue::default()))
            });
            group.bench_function(format!("{rows}x{cols}/zeros-{zeros}/skipping"), |b| {
                b.iter(|| matmul_lanes_skipping_zeros_on(isa, &w, &x, &mut out, lanes, exact, Epilogue::default()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, engines, batches, latency, kernel, kernel_zeros);
criterion_main!(benches);
