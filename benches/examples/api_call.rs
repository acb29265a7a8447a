//! The library calls under the `knn` command and the Python package on the benchmark networks:
//! `Batch::run` (a result per row, what `knn batch` makes) and `Batch::run_values` (one array,
//! what `Network.run` makes), after `Program::batch`, from a thread outside the pool as callers
//! make them, one JSON object per line (`net`, `threads`, `batch`, `latency_us` and
//! `inputs_per_second` of `Batch::run`, `values_latency_us` of `Batch::run_values`); also writes each network's program to `DIR/NET/net.knn` for the Python
//! side (`benches/peers/python.py`), which puts its own calls beside these.
//!
//! Usage: `cargo run --release -p knn-benches --example api_call -- DIR [SECONDS_PER_POINT]`

use std::path::PathBuf;
use std::time::Duration;

use knn::{Semantics, ValuesOptions, load_source};
use knn_benches::{bench_networks, best_time};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: api_call DIR [SECONDS]")?);
    let budget = std::env::args().nth(2).and_then(|s| s.parse::<f64>().ok()).unwrap_or(1.0);
    for net in bench_networks(4096) {
        let text = net.mlp.program();
        std::fs::create_dir_all(dir.join(net.name))?;
        std::fs::write(dir.join(net.name).join("net.knn"), &text)?;
        let program = load_source("net.knn", &text, Semantics::Revised)?;
        let width = net.mlp.sizes[0];
        let batch = program.batch("x", width, &[])?;
        let rows: Vec<f64> = net.inputs.concat();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
            for count in [1usize, 4096] {
                let slice = &rows[..count * width];
                let budget = Duration::from_secs_f64(budget);
                // As a caller outside the pool makes it (the `knn` command's main thread, or
                // Python's): one row runs on the calling thread, more are handed to the pool.
                // As the package calls it: NaNs refused, group by group.
                let values_options = ValuesOptions { refuse_nan: true, ..ValuesOptions::default() };
                let time = |call: &(dyn Fn() + Sync)| {
                    if count == 1 { best_time(call, budget) } else { best_time(|| pool.install(call), budget) }
                };
                let per_call = time(&|| {
                    std::hint::black_box(batch.run(slice, false, |_| {}).ok());
                });
                let values_call = time(&|| {
                    std::hint::black_box(batch.run_values(slice, values_options).ok());
                });
                println!(
                    "{{\"net\": \"{}\", \"threads\": {threads}, \"batch\": {count}, \"latency_us\": {:.3}, \
                     \"inputs_per_second\": {:.0}, \"values_latency_us\": {:.3}}}",
                    net.name,
                    per_call * 1e6,
                    count as f64 / per_call,
                    values_call * 1e6
                );
            }
        }
    }
    Ok(())
}
