//! The paths whose speed the criterion benches time, run a fixed number of times, for counting
//! instructions with callgrind (`scripts/count-instructions`): a count is the same from run to
//! run whatever else the machine does, so two builds compare to a fraction of a percent where
//! their timings drift by 5% between sessions.
//!
//! `cargo run --release -p knn-benches --example counted -- PATH N` with PATH one of
//! - `parse`: `parse/linear-50x50` (the K grammar, then the tree's size);
//! - `small-step-published`, `small-step-revised`: `small-step/{published,revised}/linear-50x50/
//!   rule-applications` (one run of the program on the reference engine);
//! - `compile-and-run`: `engines/acasxu-one-input/big-step/compile-and-run`;
//! - `latency`: `latency/acasxu` (one input on a compiled plan);
//! - `batch-acasxu-1-1`: `batch/acasxu-1-1/threads-1/4096` (the real network, 4096 rows on one
//!   thread);
//! - `batch-wide`: `batch/wide/threads-1/64`.
//!
//! The N iterations run inside [`measured`], which the script has callgrind count alone
//! (`--toggle-collect`): the set-up before it (generating and compiling the networks) is not
//! counted.

use std::hint::black_box;
use std::process::ExitCode;

use knn_benches::{ACAS_XU, bench_networks, compile_mlp, inputs, linear_program, mlp_program, parse_mlp, rows};
use knn_engine::bigstep::{BigStep, ExecOptions, run_rows};
use knn_semantics::engine::Engine;
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{Grammar, parse_program};
use knn_semantics::term::term_of_program;
use knn_semantics::{Config, Profile, StepOptions, run};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, times) = match args.as_slice() {
        [path, times] => match times.parse::<usize>() {
            Ok(times) => (path.as_str(), times),
            Err(_) => return usage(&format!("`{times}` is not a count")),
        },
        _ => return usage("expected two arguments"),
    };
    match path {
        "parse" => {
            let linear = linear_program(50);
            measured(times, || parse_program(black_box(&linear), Grammar::K).map(|e| e.size()).ok());
        }
        "small-step-published" | "small-step-revised" => {
            let profile = if path == "small-step-revised" { Profile::revised() } else { Profile::published() };
            let program = parse_program(&linear_program(50), profile.grammar).expect("the benchmark program parses");
            let program = term_of_program(&program);
            measured(times, || run(profile, Config::initial(program.clone()), StepOptions::default()).steps);
        }
        "compile-and-run" => {
            let acasxu = parse_mlp(&mlp_program(&ACAS_XU, 7));
            let x = inputs(1, ACAS_XU[0], 5);
            let input = [TensorInput { name: "x".into(), shape: vec![ACAS_XU[0]], data: x[0].clone() }];
            let big = BigStep::new();
            measured(times, || big.evaluate(black_box(&acasxu), &input).ok());
        }
        "latency" => {
            let plan = compile_mlp(&parse_mlp(&mlp_program(&ACAS_XU, 7)), ACAS_XU[0]);
            let x = inputs(1, ACAS_XU[0], 5);
            let one = rows(&x);
            measured(times, || run_rows(&plan, black_box(&one), ExecOptions::default()));
        }
        "batch-acasxu-1-1" | "batch-wide" => {
            let (name, batch) = if path == "batch-wide" { ("wide", 64) } else { ("acasxu-1-1", 4096) };
            let net = bench_networks(batch).into_iter().find(|net| net.name == name).expect("a benchmark network");
            let plan = compile_mlp(&parse_mlp(&net.mlp.program()), net.mlp.sizes[0]);
            let rows = rows(&net.inputs);
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
            pool.install(|| measured(times, || run_rows(&plan, black_box(&rows), ExecOptions::default())));
        }
        other => return usage(&format!("no path `{other}`")),
    }
    ExitCode::SUCCESS
}

/// Runs `path` `times` times: the only function whose instructions the script counts.
#[inline(never)]
fn measured<T>(times: usize, mut path: impl FnMut() -> T) {
    for _ in 0..times {
        black_box(path());
    }
}

fn usage(problem: &str) -> ExitCode {
    eprintln!(
        "error: {problem}\nusage: counted parse|small-step-published|small-step-revised|compile-and-run|latency|batch-acasxu-1-1|batch-wide N"
    );
    ExitCode::from(2)
}
