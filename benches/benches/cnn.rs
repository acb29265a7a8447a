//! The big-step engine on a small MNIST CNN (issue 29, point 2; `knn_benches::cnn`): conv2d
//! 1→32 channels (2×2, stride 1) on 1×28×28, relu, a 4×4 pool of stride 4 (`max`, and `avg` for
//! the variant), flatten, linear 1152 → 10, `ArgMax`, as one plan (`Op::Conv2d`, `Op::Activate`,
//! `Op::Pool2d`, `Op::Copy`, `Op::MatVec`, `Op::ArgMaxBuffer`):
//!
//! - `cnn/{max,avg}/threads-{1,2}/{1,64,4096}`: throughput in images per second;
//! - `cnn/cifar/threads-{1,2}/{1,64,4096}`: the same for the CIFAR-sized CNN of
//!   `knn_benches::cifar_cnn` (two strided convolutions, two dense layers);
//! - `cnn/verivital-{max,avg}/threads-{1,2}/{1,64,4096}`: the same for verivital's two MNIST
//!   CNNs themselves, imported from `data/verivital/*.onnx` (`knn_benches::verivital`), on the
//!   small CNN's images.
//!
//! `cargo bench -p knn-benches --bench cnn`; `benches/peers/cnn.py` times the same float64
//! model in onnxruntime; `docs/performance.md` records both. Before timing, the plan's classes
//! of the first rows are checked against the small-step reference, and printed (the peer
//! prints its own).

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use knn_benches::cifar_cnn::{self, CifarCnn, compile_cifar_cnn};
use knn_benches::cnn::{Cnn, CnnPool, IMAGE, compile_cnn, images};
use knn_benches::verivital::Verivital;
use knn_benches::{parse_mlp, rows};
use knn_engine::bigstep::ops::Op;
use knn_engine::bigstep::{ExecOptions, Plan, run_rows};
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::Exp;

/// The seeds of the weights and of the images (`benches/peers/cnn.py` uses the same).
const WEIGHT_SEED: u64 = 29;
const IMAGE_SEED: u64 = 2029;
/// The CIFAR-sized CNN's seeds (`benches/peers/cnn.py` uses the same).
const CIFAR_WEIGHT_SEED: u64 = 31;
const CIFAR_IMAGE_SEED: u64 = 2031;

fn cnn(c: &mut Criterion) {
    let weights = Cnn::seeded(WEIGHT_SEED);
    let images = images(4096, IMAGE_SEED);
    for pool in [CnnPool::Max, CnnPool::Avg] {
        let program = parse_mlp(&weights.program(pool, "ArgMax(z)"));
        let plan = compile_cnn(&program);
        let fused = plan.ops.iter().filter(|op| matches!(op, Op::Conv2d { .. } | Op::Pool2d { .. } | Op::Copy { .. }));
        assert_eq!(fused.count(), 3, "the plan is fused: {:?}", plan.ops.len());
        let name = match pool {
            CnnPool::Max => "max",
            CnnPool::Avg => "avg",
        };
        check_and_bench(c, name, (&program, &plan), &IMAGE, &images);
    }
    let cifar = CifarCnn::seeded(CIFAR_WEIGHT_SEED);
    let program = parse_mlp(&cifar.program("ArgMax(z)"));
    let plan = compile_cifar_cnn(&program);
    let convolutions = plan.ops.iter().filter(|op| matches!(op, Op::Conv2d { .. })).count();
    assert_eq!(convolutions, 2, "the plan is fused: {:?}", plan.ops.len());
    check_and_bench(c, "cifar", (&program, &plan), &cifar_cnn::IMAGE, &cifar_cnn::images(4096, CIFAR_IMAGE_SEED));
    for net in Verivital::ALL {
        let program = parse_mlp(&net.program().unwrap_or_else(|e| panic!("{e}")));
        let plan = compile_cnn(&program);
        // The import gives the look-alikes' plan: the all-zero `Pad` is gone, the rest fused.
        let fused = plan.ops.iter().filter(|op| matches!(op, Op::Conv2d { .. } | Op::Pool2d { .. } | Op::Copy { .. }));
        assert_eq!(fused.count(), 3, "the plan is fused: {:?}", plan.ops.len());
        check_and_bench(c, net.name(), (&program, &plan), &IMAGE, &images);
    }
}

/// Checks the plan's classes of the first two images against the small-step reference, prints
/// the classes of images 0..64, then times batches of 1, 64 and 4,096 images on 1 and 2 threads.
fn check_and_bench(
    c: &mut Criterion,
    name: &str,
    (program, plan): (&Exp, &Plan),
    shape: &[usize],
    images: &[Vec<f64>],
) {
    let classes: Vec<i64> = run_rows(plan, &rows(&images[..64]), ExecOptions::default())
        .into_iter()
        .map(|r| match r {
            Ok(Observed::Int(k)) => k,
            other => panic!("{other:?}"),
        })
        .collect();
    for (k, image) in images.iter().take(2).enumerate() {
        let input = TensorInput { name: "x".into(), shape: shape.to_vec(), data: image.clone() };
        let reference = SmallStep::revised().evaluate(program, &[input]).expect("the image binds");
        assert!(matches!(reference, Verdict::Value(Observed::Int(c)) if c == classes[k]), "{reference}");
    }
    let text: String = classes.iter().map(|k| k.to_string()).collect();
    eprintln!("cnn/{name}: classes of images 0..64: {text}");
    for threads in [1, 2] {
        let workers = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
        let mut group = c.benchmark_group(format!("cnn/{name}/threads-{threads}"));
        group.sample_size(10).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
        for batch in [1usize, 64, 4096] {
            let rows = rows(&images[..batch]);
            group.throughput(Throughput::Elements(batch as u64));
            group.bench_with_input(BenchmarkId::from_parameter(batch), &rows, |b, rows| {
                workers.install(|| b.iter(|| run_rows(plan, rows, ExecOptions::default())))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, cnn);
criterion_main!(benches);
