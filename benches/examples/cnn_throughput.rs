//! The small MNIST CNN's throughput (`knn_benches::cnn`), and the CIFAR-sized one's
//! (`knn_benches::cifar_cnn`), and verivital's two MNIST CNNs themselves, imported from
//! `data/verivital/*.onnx` (`knn_benches::verivital`), measured the way the peers measure
//! onnxruntime (`benches/peers/cnn.py`: the best mean time of one call over rounds of calls),
//! one line per point: on a shared machine the best round is steadier than criterion's mean.
//! The criterion bench (`cargo bench -p knn-benches --bench cnn`) measures the same plans.
//!
//! Usage: `cargo run --release -p knn-benches --example cnn_throughput [-- SECONDS_PER_POINT [MODEL [BATCH]]]`
//! (`MODEL`: `maxPool2d`, `avgPool2d`, `cifar`, `verivital-max` or `verivital-avg`, and `BATCH`
//! one batch size, to time one point).

use std::time::Duration;

use knn_benches::cifar_cnn::{CifarCnn, compile_cifar_cnn};
use knn_benches::cnn::{Cnn, CnnPool, compile_cnn, images};
use knn_benches::verivital::Verivital;
use knn_benches::{best_time, parse_mlp, rows};
use knn_engine::bigstep::{ExecOptions, run_rows};
use knn_semantics::engine::Observed;

fn main() {
    let budget = std::env::args().nth(1).and_then(|s| s.parse::<f64>().ok()).unwrap_or(2.0);
    let only_model = std::env::args().nth(2);
    let only_batch = std::env::args().nth(3).and_then(|s| s.parse::<usize>().ok());
    // The seeds of `benches/benches/cnn.rs` and `benches/peers/cnn.py`.
    let weights = Cnn::seeded(29);
    let images = images(4096, 2029);
    let mut plans = Vec::new();
    for pool in [CnnPool::Max, CnnPool::Avg] {
        plans.push((pool.keyword(), compile_cnn(&parse_mlp(&weights.program(pool, "ArgMax(z)"))), &images));
    }
    let cifar = CifarCnn::seeded(31);
    let cifar_images = knn_benches::cifar_cnn::images(4096, 2031);
    plans.push(("cifar", compile_cifar_cnn(&parse_mlp(&cifar.program("ArgMax(z)"))), &cifar_images));
    // verivital's networks take the look-alikes' images (1×28×28, in [0, 1)).
    for net in Verivital::ALL {
        let program = net.program().unwrap_or_else(|e| panic!("{e}"));
        plans.push((net.name(), compile_cnn(&parse_mlp(&program)), &images));
    }
    for (name, plan, images) in plans.into_iter().filter(|(name, ..)| only_model.as_deref().is_none_or(|m| m == *name))
    {
        // The classes of images 0..64, to compare with the peer's.
        let classes: String = run_rows(&plan, &rows(&images[..64]), ExecOptions::default())
            .into_iter()
            .map(|r| match r {
                Ok(Observed::Int(k)) => k.to_string(),
                other => panic!("{other:?}"),
            })
            .collect();
        println!("cnn/{name} knn: classes of images 0..64: {classes}");
        for threads in [1, 2] {
            let workers = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
            for batch in [1usize, 64, 4096].into_iter().filter(|&b| only_batch.is_none_or(|only| only == b)) {
                let rows = rows(&images[..batch]);
                let run = || std::hint::black_box(run_rows(&plan, &rows, ExecOptions::default()));
                let seconds = workers.install(|| best_time(run, Duration::from_secs_f64(budget)));
                println!(
                    "cnn/{name} knn threads {threads} batch {batch:>4}: {:>12.0} images/s",
                    batch as f64 / seconds
                );
            }
        }
    }
}
