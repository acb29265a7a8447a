//! The paths whose speed the criterion benches time, run a fixed number of times, for counting
//! instructions with callgrind (`scripts/count-instructions`): a count is the same from run to
//! run whatever else the machine does, so two builds compare to a fraction of a percent where
//! their timings drift by 5% between sessions.
//!
//! `cargo run --release -p knn-benches --example counted -- PATH N` with PATH one of
//! - `parse`: `parse/linear-50x50` (the K grammar, then the tree's size);
//! - `compile-and-run`: `engines/acasxu-one-input/big-step/compile-and-run`;
//! - `latency`: `latency/acasxu` (one input on a compiled plan).
//!
//! Every path does the same set-up first; with N = 0 it does only that, which the script
//! counts too and takes away.

use std::hint::black_box;
use std::process::ExitCode;

use knn_benches::{ACAS_XU, inputs, linear_program, mlp_program};
use knn_interpreter::bigstep::{BigStep, Binding, ExecOptions, InputData, compile, run_rows};
use knn_semantics::engine::Engine;
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{Grammar, parse_program};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, times) = match args.as_slice() {
        [path, times] => match times.parse::<usize>() {
            Ok(times) => (path.as_str(), times),
            Err(_) => return usage(&format!("`{times}` is not a count")),
        },
        _ => return usage("expected two arguments"),
    };
    let linear = linear_program(50);
    let acasxu = parse_program(&mlp_program(&ACAS_XU, 7), Grammar::Relaxed).expect("the benchmark program parses");
    let x = inputs(1, ACAS_XU[0], 5);
    let one: Vec<Vec<&[f64]>> = x.iter().map(|row| vec![row.as_slice()]).collect();
    let input = [TensorInput { name: "x".into(), shape: vec![ACAS_XU[0]], data: x[0].clone() }];
    let binding = Binding { name: "x".into(), shape: vec![ACAS_XU[0]], data: InputData::Symbolic };
    let plan = compile(&acasxu, &[binding]);
    let big = BigStep::new();
    match path {
        "parse" => {
            for _ in 0..times {
                black_box(parse_program(black_box(&linear), Grammar::K).map(|e| e.size()).ok());
            }
        }
        "compile-and-run" => {
            for _ in 0..times {
                black_box(big.evaluate(black_box(&acasxu), &input).ok());
            }
        }
        "latency" => {
            for _ in 0..times {
                black_box(run_rows(&plan, black_box(&one), ExecOptions::default()));
            }
        }
        other => return usage(&format!("no path `{other}`")),
    }
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("error: {problem}\nusage: counted parse|compile-and-run|latency N");
    ExitCode::from(2)
}
