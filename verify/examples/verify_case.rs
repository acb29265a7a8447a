//! Branch and bound alone on each case of a VNN-LIB property, without the falsifier: boxes
//! examined, share proved, time. For profiling the bounds (`perf record` this) and comparing
//! search strategies by box counts, which machine load does not change. Every ten seconds it
//! prints the boxes examined and the share proved so far: where a search stalls.
//!
//! `cargo run --release --example verify_case -- NET.nnet PROP.vnnlib [SECONDS]`

use std::path::Path;
use std::time::{Duration, Instant};

use knn_formats::import::{ImportOptions, emit::emit, import_file};
use knn_semantics::syntax::{Grammar, parse_program};
use knn_verify::Target;
use knn_verify::bab::CaseSearch;
use knn_verify::queue::CaseOutcome;
use knn_verify::vnnlib::parse_vnnlib;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, net, property, rest @ ..] = args.as_slice() else {
        return Err("usage: verify_case NET.nnet PROP.vnnlib [SECONDS]".into());
    };
    let seconds: f64 = rest.first().map_or(Ok(60.0), |s| s.parse()).map_err(|e| format!("{e}"))?;
    let network = import_file(Path::new(net), None, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let program = parse_program(&emit(&network), Grammar::Relaxed).map_err(|e| e.message)?;
    let text = std::fs::read_to_string(property).map_err(|e| e.to_string())?;
    let property = parse_vnnlib(&text).map_err(|e| e.message)?;
    let target = Target::new(program, &network.input, vec![network.input_len], vec![]).map_err(|u| u.what)?;
    for (index, case) in property.cases.iter().enumerate() {
        let Some(search) = CaseSearch::new(&target.net, &target.plan, case) else {
            println!("case {index}: no binary64 point");
            continue;
        };
        let started = Instant::now();
        let mut last: knn_verify::queue::CaseProgress = Default::default();
        let mut shown = 0.0;
        let outcome = search.run(Some(started + Duration::from_secs_f64(seconds)), 64, &|_| true, &mut |p| {
            // The search's course, every ten seconds: where it stalls.
            let at = started.elapsed().as_secs_f64();
            if at >= shown + 10.0 {
                shown = at;
                println!("  {at:.0} s: {} boxes, {:.4} proved", p.boxes, p.proved_share);
            }
            last = p;
        });
        let outcome = match outcome {
            CaseOutcome::Candidate(_) => "violated".to_string(),
            other => format!("{other:?}"),
        };
        println!(
            "case {index}: {outcome} in {:.3} s, {} boxes, {:.4} of the volume proved",
            started.elapsed().as_secs_f64(),
            last.boxes,
            last.proved_share
        );
    }
    Ok(())
}
