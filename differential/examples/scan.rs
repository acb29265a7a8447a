//! Runs one property over a range of seeds, outside quickcheck: `cargo run --release -p
//! knn-differential --example scan -- PROPERTY FIRST COUNT` (PROPERTY: engines, batch, fast,
//! search, sound, print). Prints every failing seed with its report, then a summary. Used for
//! long runs (`docs/testing.md`); the quickcheck tests are the CI gate.

use std::time::Instant;

use knn_differential::check::{self, Check};
use knn_differential::generate::{self, Shape};
use knn_differential::sound;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (property, first, count) = match &args[1..] {
        [p, f, c] => (p.clone(), f.parse::<u64>().expect("FIRST"), c.parse::<u64>().expect("COUNT")),
        _ => {
            eprintln!("usage: scan PROPERTY FIRST COUNT");
            std::process::exit(1);
        }
    };
    let full = Shape::default();
    let (batched, moderate, short) = (Shape::batched(), Shape::moderate_values(), Shape::short());
    let start = Instant::now();
    let (mut passed, mut discarded, mut failed) = (0u64, 0u64, 0u64);
    for seed in first..first + count {
        let outcome = match property.as_str() {
            "engines" => check::engines_agree(&generate::program(seed, full)),
            "batch" => check::batch_equals_rows(&generate::program(seed, batched)),
            "fast" => check::fast_math_close(&generate::program(seed, moderate)),
            "search" => check::run_within_search(&generate::program(seed, short)),
            "sound" => check::published_agrees_on_sound_fragment(&sound::program(seed)),
            "print" => match check::round_trip(&generate::program(seed, full)) {
                Check::Pass => check::round_trip(&sound::program(seed)),
                other => other,
            },
            other => panic!("unknown property {other}"),
        };
        match outcome {
            Check::Pass => passed += 1,
            Check::Discard(_) => discarded += 1,
            Check::Fail(report) => {
                failed += 1;
                println!("FAIL seed {seed}\n{report}\n");
            }
        }
    }
    println!(
        "{property}: seeds {first}..{}: {passed} passed, {discarded} discarded, {failed} failed in {:.1} s",
        first + count,
        start.elapsed().as_secs_f64()
    );
}
