use knn_benches::{ACAS_XU, inputs, mlp_program};
use knn_interpreter::bigstep::{Binding, ExecOptions, InputData, compile, run_rows};
use knn_semantics::syntax::{Grammar, parse_program};
fn main() {
    let program = parse_program(&mlp_program(&ACAS_XU, 7), Grammar::Relaxed).unwrap();
    let plan = compile(&program, &[Binding { name: "x".into(), shape: vec![5], data: InputData::Symbolic }]);
    let xs = inputs(1, 5, 3);
    let rows: Vec<Vec<&[f64]>> = xs.iter().map(|x| vec![x.as_slice()]).collect();
    for _ in 0..1_000_000 {
        std::hint::black_box(run_rows(&plan, &rows, ExecOptions::default()));
    }
}
