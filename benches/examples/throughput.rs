//! A quick look at batch throughput and latency (the criterion benches are the record).
use knn_benches::{ACAS_XU, WIDE, inputs, mlp_program};
use knn_interpreter::bigstep::{Binding, ExecOptions, InputData, compile, run_rows};
use knn_semantics::syntax::{Grammar, parse_program};
use std::time::Instant;

fn main() {
    for (name, sizes) in [("acasxu", &ACAS_XU[..]), ("wide", &WIDE[..])] {
        let program = parse_program(&mlp_program(sizes, 7), Grammar::Relaxed).unwrap();
        let plan = compile(&program, &[Binding { name: "x".into(), shape: vec![sizes[0]], data: InputData::Symbolic }]);
        for batch in [1usize, 64, 4096] {
            let xs = inputs(batch, sizes[0], 3);
            let rows: Vec<Vec<&[f64]>> = xs.iter().map(|x| vec![x.as_slice()]).collect();
            let reps = (200_000 / batch).max(3).min(if name == "wide" { 50 } else { 100000 });
            let t = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(run_rows(&plan, &rows, ExecOptions::default()));
            }
            let el = t.elapsed().as_secs_f64();
            println!(
                "{name} batch {batch:5}: {:10.0} inputs/s, {:8.3} us per batch",
                (reps * batch) as f64 / el,
                el / reps as f64 * 1e6
            );
        }
    }
}
