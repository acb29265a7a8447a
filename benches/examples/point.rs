//! One point of the throughput example: the best time of a whole batch over a second, as
//! inputs per second. Built at two commits (a git worktree each) and run alternately, it
//! compares them on a machine whose speed drifts (`docs/performance.md`).
//!
//! Usage: `cargo run --release -p knn-benches --example point -- NET THREADS BATCH`, where NET is
//! `acasxu`, `wide` or `acasxu-1-1` (the real network, `data/acasxu/…_1_1.nnet`).

use std::time::{Duration, Instant};

use knn_benches::{bench_networks, compile_mlp, parse_mlp, rows};
use knn_engine::bigstep::{ExecOptions, run_rows};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, threads, batch] = args.as_slice() else {
        return Err("usage: point NET THREADS BATCH".into());
    };
    let (threads, batch): (usize, usize) = (threads.parse()?, batch.parse()?);
    let net = bench_networks(batch)
        .into_iter()
        .find(|net| net.name == name)
        .ok_or_else(|| format!("no network {name} (acasxu, wide, acasxu-1-1)"))?;
    let plan = compile_mlp(&parse_mlp(&net.mlp.program()), net.mlp.sizes[0]);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let rows = rows(&net.inputs);
    let start = Instant::now();
    let mut best = Duration::MAX;
    pool.install(|| {
        while start.elapsed() < Duration::from_secs(1) {
            let run = Instant::now();
            std::hint::black_box(run_rows(&plan, &rows, ExecOptions::default()));
            best = best.min(run.elapsed());
        }
    });
    println!("{name} threads {threads} batch {batch}: {:.0} inputs/s", batch as f64 / best.as_secs_f64());
    Ok(())
}
