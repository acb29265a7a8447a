//! Prints the size of the compiled plan of the benchmark networks.
use knn_benches::{ACAS_XU, WIDE, compile_mlp, mlp_program, parse_mlp};
use knn_engine::bigstep::ExecOptions;

fn main() {
    for sizes in [&ACAS_XU[..], &WIDE[..]] {
        let source = mlp_program(sizes, 7);
        let t = std::time::Instant::now();
        let program = parse_mlp(&source);
        let parsed = t.elapsed();
        let plan = compile_mlp(&program, sizes[0]);
        println!(
            "{sizes:?}: {} bytes of source, parse {parsed:?}, compile {:?}, {} ops, {} fregs, {} buffers, \
             {} rows a group",
            source.len(),
            t.elapsed(),
            plan.ops.len(),
            plan.fregs,
            plan.buffers.len(),
            ExecOptions::default().group_for(&plan)
        );
        let mut kinds = std::collections::BTreeMap::new();
        for op in &plan.ops {
            *kinds.entry(format!("{op:?}").split([' ', '{']).next().unwrap().to_string()).or_insert(0) += 1;
        }
        println!("  {kinds:?}");
    }
}
