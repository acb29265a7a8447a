//! How often the generated programs reach the plan's fused window operations: `cargo run
//! --release -p knn-differential --example window_plans -- FIRST COUNT` compiles the program of
//! each seed (the full and the batched shapes) with its input symbolic, as the staged engine
//! and the batch property do, and counts the programs whose plan holds an `Op::Conv2d`, an
//! `Op::Pool2d`, an `Op::Copy` (`conv2d`, the pools, `reshape`/`flatten` of an image computed
//! from the input). docs/testing.md records the counts.

use knn_differential::generate::{self, Shape};
use knn_engine::bigstep::ops::Op;
use knn_engine::bigstep::{Binding, InputData, compile};
use knn_semantics::syntax::{Grammar, parse_program};

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("FIRST COUNT")).collect();
    let [first, count] = args[..] else {
        eprintln!("usage: window_plans FIRST COUNT");
        std::process::exit(1);
    };
    for (name, shape) in [("full", Shape::default()), ("batched", Shape::batched())] {
        let (mut inputs, mut images, mut conv, mut pool, mut copy) = (0, 0, 0, 0, 0);
        for seed in first..first + count {
            let program = generate::program(seed, shape);
            let Some(input) = &program.input else { continue };
            inputs += 1;
            images += usize::from(input.shape.len() == 3);
            let Ok(exp) = parse_program(&program.source(), Grammar::Relaxed) else { continue };
            let binding = Binding { name: input.name.clone(), shape: input.shape.clone(), data: InputData::Symbolic };
            let plan = compile(&exp, &[binding]);
            let has = |f: fn(&Op) -> bool| usize::from(plan.ops.iter().any(f));
            conv += has(|op| matches!(op, Op::Conv2d { .. }));
            pool += has(|op| matches!(op, Op::Pool2d { .. }));
            copy += has(|op| matches!(op, Op::Copy { .. }));
        }
        println!(
            "{name}: seeds {first}..{}: {inputs} with an input ({images} images C×H×W); plans with \
             Conv2d {conv}, Pool2d {pool}, Copy {copy}",
            first + count
        );
    }
}
