//! Batch throughput of the big-step engine on the benchmark networks, one JSON object per line
//! (`net`, `threads`, `batch`, `inputs_per_second`, `latency_us`): the peer harness
//! (`benches/peers/compare.py`) reads these to put them beside onnxruntime's. The criterion
//! benches (`cargo bench -p knn-benches --bench big_step`) are the record; this is the same
//! measurement in one quick run.
//!
//! Usage: `cargo run --release -p knn-benches --example throughput [-- SECONDS_PER_POINT]`

use std::time::Duration;

use knn_benches::{bench_networks, best_time, compile_mlp, parse_mlp, rows};
use knn_engine::bigstep::{ExecOptions, run_rows};

fn main() {
    let budget = std::env::args().nth(1).and_then(|s| s.parse::<f64>().ok()).unwrap_or(1.0);
    for net in bench_networks(4096) {
        let plan = compile_mlp(&parse_mlp(&net.mlp.program()), net.mlp.sizes[0]);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
            for batch in [1usize, 64, 4096] {
                let rows = rows(&net.inputs[..batch]);
                let run = || std::hint::black_box(run_rows(&plan, &rows, ExecOptions::default()));
                let per_batch = pool.install(|| best_time(run, Duration::from_secs_f64(budget)));
                println!(
                    "{{\"net\": \"{}\", \"threads\": {threads}, \"batch\": {batch}, \
                     \"inputs_per_second\": {:.0}, \"latency_us\": {:.3}}}",
                    net.name,
                    batch as f64 / per_batch,
                    per_batch * 1e6
                );
            }
        }
    }
}
