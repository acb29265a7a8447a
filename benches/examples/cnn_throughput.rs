//! The small MNIST CNN's throughput (`knn_benches::cnn`) measured the way the peers measure
//! onnxruntime (`benches/peers/cnn.py`: the best mean time of one call over rounds of calls),
//! one line per point: on a shared machine the best round is steadier than criterion's mean.
//! The criterion bench (`cargo bench -p knn-benches --bench cnn`) measures the same plans.
//!
//! Usage: `cargo run --release -p knn-benches --example cnn_throughput [-- SECONDS_PER_POINT]`

use std::time::Duration;

use knn_benches::cnn::{Cnn, CnnPool, compile_cnn, images};
use knn_benches::{best_time, parse_mlp, rows};
use knn_engine::bigstep::{ExecOptions, run_rows};

fn main() {
    let budget = std::env::args().nth(1).and_then(|s| s.parse::<f64>().ok()).unwrap_or(2.0);
    // The seeds of `benches/benches/cnn.rs` and `benches/peers/cnn.py`.
    let weights = Cnn::seeded(29);
    let images = images(4096, 2029);
    for pool in [CnnPool::Max, CnnPool::Avg] {
        let plan = compile_cnn(&parse_mlp(&weights.program(pool, "ArgMax(z)")));
        for threads in [1, 2] {
            let workers = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
            for batch in [1usize, 64, 4096] {
                let rows = rows(&images[..batch]);
                let run = || std::hint::black_box(run_rows(&plan, &rows, ExecOptions::default()));
                let seconds = workers.install(|| best_time(run, Duration::from_secs_f64(budget)));
                println!(
                    "cnn/{} knn threads {threads} batch {batch:>4}: {:>12.0} images/s",
                    pool.keyword(),
                    batch as f64 / seconds
                );
            }
        }
    }
}
