//! Unstable relus per layer on each case's whole box, and the fixed-slope bounds of `y_t − y_j`
//! (`t` the class at the box's centre), after intervals, fixed slopes, optimised slopes, and
//! each hidden layer refined by relu splits (`verify/src/refine.rs`, PARTS parts per end,
//! default 16) with the later layers tightened again; with the seconds each step took.
//!
//! With SECONDS, the layers share that budget as `knn verify`'s refinement shares its own
//! (`refine::refine_hidden`: each layer an equal share of the time left).
//!
//! `cargo run --release --example root_bounds -- NET PROP.vnnlib [PARTS [SECONDS]]`

use std::path::Path;
use std::time::Instant;

use knn_formats::import::{ImportOptions, emit::emit, import_file};
use knn_semantics::syntax::{Grammar, parse_program};
use knn_verify::Target;
use knn_verify::deadline::Deadline;
use knn_verify::interval::{Bounds, network_bounds};
use knn_verify::prepare::PreparedLayers;
use knn_verify::tighten::{Slopes, tighten};
use knn_verify::vnnlib::parse_vnnlib;

fn unstable(bounds: &Bounds) -> Vec<usize> {
    bounds.layers.iter().map(|l| l.iter().filter(|z| z.lo < 0.0 && z.hi > 0.0).count()).collect()
}

/// The sum over unstable relu inputs of the upper line's height at 0, −lo·hi / (hi − lo).
fn gaps(layer: &[knn_verify::float::Interval]) -> f64 {
    layer.iter().filter(|z| z.lo < 0.0 && z.hi > 0.0).map(|z| -z.lo * z.hi / (z.hi - z.lo)).sum()
}

/// The lower bounds of `y_t − y_j` for the class `t` at the box's centre, every other `j`.
fn margins(target: &Target, bounds: &Bounds) -> Vec<f64> {
    let layers = &target.net.layers;
    let centre: Vec<f64> = bounds.input.iter().map(|x| x.midpoint()).collect();
    let y = target.net.eval(&centre);
    let t = (0..y.len()).max_by(|&a, &b| y[a].total_cmp(&y[b])).unwrap();
    let width = y.len();
    let mut rows = Vec::new();
    for j in (0..width).filter(|&j| j != t) {
        let mut row = vec![0.0; width];
        row[t] = 1.0;
        row[j] = -1.0;
        rows.extend(row);
    }
    let mut prepared = PreparedLayers::new(layers.len());
    knn_verify::linear::back_substitute(layers, bounds, &mut prepared, layers.len() - 1, rows, width)
        .iter()
        .map(|b| (b.value * 100.0).round() / 100.0)
        .collect()
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, net, property, rest @ ..] = args.as_slice() else {
        return Err("usage: root_bounds NET PROP.vnnlib [PARTS [SECONDS]]".into());
    };
    let parts: usize = rest.first().map_or(Ok(16), |s| s.parse()).map_err(|e| format!("{e}"))?;
    let seconds: Option<f64> = rest.get(1).map(|s| s.parse()).transpose().map_err(|e| format!("{e}"))?;
    if seconds.is_some_and(|s: f64| !(s.is_finite() && s >= 0.0)) {
        return Err("SECONDS must be a non-negative number".into());
    }
    let network = import_file(Path::new(net), None, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let program = parse_program(&emit(&network), Grammar::Relaxed).map_err(|e| e.message)?;
    let text = std::fs::read_to_string(property).map_err(|e| e.to_string())?;
    let property = parse_vnnlib(&text).map_err(|e| e.message)?;
    let target = Target::new(program, &network.input, vec![network.input_len], vec![]).map_err(|u| u.what)?;
    let layers = &target.net.layers;
    for case in &property.cases {
        let input = case.input.outer();
        let mut bounds = Bounds { layers: network_bounds(layers, &input).ok_or("NaN")?, input };
        println!("intervals: {:?}", unstable(&bounds));
        for slopes in [Slopes::Fixed, Slopes::Optimised] {
            let started = Instant::now();
            let mut prepared = PreparedLayers::new(layers.len());
            tighten(layers, &mut bounds, &mut prepared, slopes, Deadline::NEVER).map_err(|e| format!("{e:?}"))?;
            println!(
                "{slopes:?}: {:?} in {:.2} s; margins {:?}",
                unstable(&bounds),
                started.elapsed().as_secs_f64(),
                margins(&target, &bounds)
            );
        }
        let refined_layers = knn_verify::refine::refined_layers(layers);
        let budget_end = seconds.map(|s| Instant::now() + std::time::Duration::from_secs_f64(s));
        for (n, &k) in refined_layers.iter().enumerate() {
            let started = Instant::now();
            let before = gaps(&bounds.layers[k]);
            let until = budget_end.map_or(Deadline::NEVER, |end| {
                Deadline::at(started + end.saturating_duration_since(started) / (refined_layers.len() - n) as u32)
            });
            knn_verify::refine::refine_layer(layers, &mut bounds, k, parts, until).map_err(|e| format!("{e:?}"))?;
            let refined = started.elapsed().as_secs_f64();
            println!("layer {k}: relu gaps {before:.1} -> {:.1}", gaps(&bounds.layers[k]));
            for slopes in [Slopes::Fixed, Slopes::Optimised] {
                let mut prepared = PreparedLayers::new(layers.len());
                knn_verify::tighten::tighten_from(layers, &mut bounds, &mut prepared, slopes, k, Deadline::NEVER)
                    .map_err(|e| format!("{e:?}"))?;
            }
            println!(
                "refined layer {k} in {refined:.2} s, then: {:?} in {:.2} s; margins {:?}",
                unstable(&bounds),
                started.elapsed().as_secs_f64(),
                margins(&target, &bounds)
            );
        }
    }
    Ok(())
}
