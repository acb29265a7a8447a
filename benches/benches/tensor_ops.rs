//! Ext-15's `matmul` and Ext-10's `reduceMax` (and `reduceSum`) in the big-step engine (issue 29, point 2), one
//! plan operation each (`Op::MatMul`, `Op::Reduce`), on one thread:
//!
//! - `ops/matmul/{64,1024}`: `matmul(x, W)`, `x` a symbolic 16×128 input, `W` a constant
//!   128×64 literal (an imported model's `x·W`): rows per second;
//! - `ops/reduceMax/{64,1024}`: `reduceMax(x, 1, 2)` of a symbolic 64×16×16 input (a CNN's
//!   global max pool): rows per second;
//! - `ops/reduceSum/{64,1024}`: `reduceSum(x, 1, 2)` of the same input, for scale (the same
//!   reads and one add per element: what is left is mostly laying the rows out as lanes).
//!
//! `cargo bench -p knn-benches --bench tensor_ops`; `docs/performance.md` records the numbers.
//! Before timing, the plan's results for the first row are checked bit for bit against the
//! small-step reference.

use std::fmt::Write;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use knn_benches::{inputs, parse_mlp, rows};
use knn_engine::bigstep::{Binding, ExecOptions, InputData, compile, run_rows};
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;

/// `matmul(x, W)` with `W` a seeded `k × n` literal.
fn matmul_program(k: usize, n: usize) -> String {
    let mut source = format!("let W = initTensor({k}, {n})[");
    for (i, w) in inputs(1, k * n, 17).remove(0).into_iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        write!(source, "{sep}{w:?}").unwrap();
    }
    source + "] in let y = matmul(x, W) in y"
}

fn bench(c: &mut Criterion, name: &str, source: &str, shape: &[usize]) {
    let program = parse_mlp(source);
    let plan = compile(&program, &[Binding { name: "x".into(), shape: shape.to_vec(), data: InputData::Symbolic }]);
    let len = shape.iter().product();
    let data = inputs(1024, len, 2029);
    let input = TensorInput { name: "x".into(), shape: shape.to_vec(), data: data[0].clone() };
    let reference = SmallStep::revised().evaluate(&program, &[input]).expect("the input binds");
    let got = run_rows(&plan, &rows(&data[..1]), ExecOptions::default()).remove(0);
    match (&reference, &got) {
        (Verdict::Value(want), Ok(got @ Observed::Tensor(_))) => assert!(got.same_bits(want), "{name}"),
        other => panic!("{name}: {other:?}"),
    }
    let workers = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
    let mut group = c.benchmark_group(format!("ops/{name}"));
    group.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    for batch in [64usize, 1024] {
        let rows = rows(&data[..batch]);
        group.throughput(Throughput::Elements(batch as u64));
        group.bench_with_input(BenchmarkId::from_parameter(batch), &rows, |b, rows| {
            workers.install(|| b.iter(|| run_rows(&plan, rows, ExecOptions::default())))
        });
    }
    group.finish();
}

fn tensor_ops(c: &mut Criterion) {
    bench(c, "matmul", &matmul_program(128, 64), &[16, 128]);
    bench(c, "reduceMax", "let y = reduceMax(x, 1, 2) in y", &[64, 16, 16]);
    bench(c, "reduceSum", "let y = reduceSum(x, 1, 2) in y", &[64, 16, 16]);
}

criterion_group!(benches, tensor_ops);
criterion_main!(benches);
