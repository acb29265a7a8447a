//! `knn verify --instances LIST.csv`: a VNN-COMP instance list (`network,property,timeout`
//! per line, paths relative to `--root`), each instance verified in turn with its timeout,
//! a results CSV (`network,property,answer,seconds`) and a summary per property.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use super::Exit;
use super::program::usage;
use super::verify_report::write_atomically;
use super::verify_target::{NotVerifiable, load_network, prepare_target};
use crate::verify::vnnlib::parse_vnnlib;
use crate::verify::{Answer, Options, Question, Unknown, verify};

/// One line of the list.
struct Instance {
    network: String,
    property: String,
    timeout: Duration,
}

/// The answer column: `holds`, `violated`, `unknown:REASON` (`timeout`, `limit`, `bug`,
/// `unsupported`), or `error` (the instance could not be run; the message goes to standard
/// error).
fn answer_word(answer: &Answer) -> String {
    match answer {
        Answer::Holds { .. } => "holds".into(),
        Answer::Violated(_) => "violated".into(),
        Answer::Unknown(Unknown::Timeout) => "unknown:timeout".into(),
        Answer::Unknown(Unknown::Limit(_)) => "unknown:limit".into(),
        Answer::Unknown(Unknown::Bug(_)) => "unknown:bug".into(),
    }
}

fn read_list(list: &Path) -> Result<Vec<Instance>, String> {
    let text = std::fs::read_to_string(list).map_err(|e| format!("cannot read {}: {e}", list.display()))?;
    let mut instances = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [network, property, timeout] = fields.as_slice() else {
            return Err(format!("{}:{}: expected network,property,timeout", list.display(), number + 1));
        };
        let seconds: f64 = timeout
            .parse()
            .ok()
            .filter(|t: &f64| *t > 0.0 && *t <= 1e9)
            .ok_or_else(|| format!("{}:{}: `{timeout}` is not a timeout in seconds", list.display(), number + 1))?;
        instances.push(Instance {
            network: network.to_string(),
            property: property.to_string(),
            timeout: Duration::from_secs_f64(seconds),
        });
    }
    Ok(instances)
}

/// Verifies one instance: its answer word, or why it could not be run.
fn run_instance(root: &Path, instance: &Instance, timeout: Duration) -> Result<String, String> {
    let property_path = root.join(&instance.property);
    let text =
        std::fs::read_to_string(&property_path).map_err(|e| format!("cannot read {}: {e}", property_path.display()))?;
    let property = parse_vnnlib(&text).map_err(|e| e.render(&property_path.display().to_string(), &text, false))?;
    let loaded = load_network(&root.join(&instance.network), None, Vec::new())
        .map_err(|_| "the network could not be loaded".to_string())?;
    let region = format!("{} declares {} inputs X_i", property_path.display(), property.inputs);
    let target = match prepare_target(&loaded, property.inputs, &region) {
        Ok(target) => target,
        Err(NotVerifiable::Unsupported(_)) => return Ok(UNSUPPORTED.into()),
        Err(NotVerifiable::Mismatch(message, _)) => return Err(message),
    };
    verify(&target, &Question::Property(property), Options { timeout: Some(timeout), ..Options::default() })
        .map(|answer| answer_word(&answer))
        .map_err(|m| m.0)
}

/// The answer word of a network the verifier cannot bound.
const UNSUPPORTED: &str = "unknown:unsupported";

pub fn run_list(
    list: &Path,
    root: &Path,
    out: Option<&Path>,
    force: bool,
    timeout: Option<Duration>,
    quiet: bool,
) -> Result<Exit, Exit> {
    if let Some(out) = out {
        super::output::check_output(out, force, &[list]).map_err(usage)?;
    }
    let instances = read_list(list).map_err(usage)?;
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(instances.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} instances {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let mut csv = String::from("network,property,answer,seconds\n");
    let mut totals: BTreeMap<String, [f64; 5]> = BTreeMap::new();
    let mut failed = false;
    for instance in &instances {
        let started = Instant::now();
        let answer = run_instance(root, instance, timeout.unwrap_or(instance.timeout));
        let seconds = started.elapsed().as_secs_f64();
        let word = match answer {
            Ok(word) => word,
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
        csv.push_str(&format!("{},{},{word},{seconds:.3}\n", instance.network, instance.property));
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
            write_atomically(path, csv.as_bytes()).map_err(usage)?;
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
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
