//! `knn verify --instances LIST.csv`: a VNN-COMP instance list (`network,property,timeout`
//! per line, paths relative to `--root`), each instance verified in turn with its timeout,
//! a results CSV (`network,property,answer,seconds,proved_share`) and a summary per property,
//! and with `--report DIR` the report's page (`knn report`, `report.rs`).

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use super::Exit;
use super::program::{fail, usage};
use knn::benchmark::parse_results;
use knn::render::answer_word;
use knn::{Bounds, RESULTS_HEADER, read_instances, results_line};

/// A run over an instance list.
pub struct ListRun<'a> {
    pub list: &'a Path,
    /// The folder the list's paths are relative to.
    pub root: &'a Path,
    /// Where to write the results CSV (standard output when `None`).
    pub out: Option<&'a Path>,
    /// Overwrite `out` if it exists.
    pub force: bool,
    /// Instead of the list's own timeouts.
    pub timeout: Option<Duration>,
    pub threads: Option<usize>,
    /// How the properties' bounds are read.
    pub bounds: Bounds,
    /// No progress bar.
    pub quiet: bool,
    /// Where to write the report's page (`DIR/index.html`), with the other tools' results.
    pub report: Option<super::report::ReportRequest<'a>>,
}

impl ListRun<'_> {
    /// Verifies every instance in turn; exit 11 when one could not be run or met a bug.
    pub fn run(&self) -> Result<Exit, Exit> {
        let ListRun { list, root, out, force, timeout, threads, bounds, quiet, report } = *self;
        if let Some(out) = out {
            super::output::check_output(out, force, &[list]).map_err(usage)?;
        }
        // The page's folder and the other tools' results are checked before the run, which may
        // take hours.
        let prepared = report.map(|r| r.prepare(force)).transpose()?;
        let instances = read_instances(list).map_err(fail)?;
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(instances.len() as u64);
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} instances {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        let mut csv = format!("{RESULTS_HEADER}\n");
        let mut totals: BTreeMap<String, [f64; 5]> = BTreeMap::new();
        let mut failed = false;
        for instance in &instances {
            let started = Instant::now();
            let answer = instance.verify_with(root, timeout, threads, bounds);
            let seconds = started.elapsed().as_secs_f64();
            let mut proved_share = None;
            let word = match answer {
                Ok(verification) => {
                    proved_share = Some(verification.effort.proved_share);
                    answer_word(&verification.conclusion).to_string()
                }
                Err(why) => {
                    failed = true;
                    let message = format!("{},{}: {why}", instance.network, instance.property);
                    match &bar {
                        Some(bar) => bar.suspend(|| eprintln!("error: {message}")),
                        None => eprintln!("error: {message}"),
                    }
                    "error".into()
                }
            };
            if word == "unknown:bug" {
                failed = true;
            }
            csv.push_str(&results_line(&instance.network, &instance.property, &word, seconds, proved_share));
            let row = totals.entry(instance.property.clone()).or_default();
            let column = match word.as_str() {
                "holds" => 0,
                "violated" => 1,
                w if w.starts_with("unknown") => 2,
                _ => 3,
            };
            row[column] += 1.0;
            row[4] += seconds;
            if let Some(bar) = &bar {
                bar.set_message(format!("{} {}: {word}", instance.network, instance.property));
                bar.inc(1);
            }
            // The results so far, replaced whole after each instance: a long run can be watched,
            // and an interrupted one leaves every finished line.
            if let Some(path) = out {
                super::output::write_file(path, true, |w| w.write_all(csv.as_bytes())).map_err(usage)?;
            }
        }
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        if let Some((page, others)) = prepared {
            let name = out.map_or_else(|| "(this run)".to_string(), |o| o.display().to_string());
            let knn = parse_results(&csv, &name).map_err(fail)?;
            super::report::write_page(knn, others, &page, force)?;
        }
        if out.is_none() {
            out!("{csv}");
        }
        let width = totals.keys().map(String::len).max().unwrap_or(0).max("property".len());
        let mut summary = format!(
            "{:<width$} {:>5} {:>8} {:>7} {:>6} {:>9}\n",
            "property", "holds", "violated", "unknown", "errors", "seconds"
        );
        let mut all = [0.0; 5];
        let mut line = |name: &str, row: &[f64; 5]| {
            summary.push_str(&format!(
                "{name:<width$} {:>5} {:>8} {:>7} {:>6} {:>9.2}\n",
                row[0], row[1], row[2], row[3], row[4]
            ));
        };
        for (property, row) in &totals {
            line(property, row);
            for (a, r) in all.iter_mut().zip(row) {
                *a += r;
            }
        }
        line("total", &all);
        eprint!("{summary}");
        Ok(if failed { Exit::Unknown } else { Exit::Result })
    }
}
