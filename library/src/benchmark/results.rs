//! Results CSVs: knn's own (`knn verify --instances -o`: a header, then
//! `network,property,answer,seconds[,proved_share]`) and other tools' in the VNN-COMP results
//! format (no header; `[benchmark,]network,property,prepare_time,result,run_time`, the lines
//! the competition publishes per tool and benchmark).

use std::path::Path;

use crate::error::{Failure, KnnError};

/// The header of knn's results CSV. `proved_share` came last, after the first four columns
/// (older files stop at `seconds`, and are read all the same).
pub const RESULTS_HEADER: &str = "network,property,answer,seconds,proved_share";

/// How an instance ended, whoever answered: the words of knn and of VNN-COMP mapped onto one
/// scale, so that two tools can be compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// knn's `holds`, VNN-COMP's `unsat` (no counterexample exists).
    Holds,
    /// knn's `violated`, VNN-COMP's `sat` (a counterexample was found).
    Violated,
    /// Undecided: a timeout, a limit, unsupported, `unknown`.
    Unknown,
    /// The tool could not run the instance.
    Error,
}

impl Outcome {
    /// The outcome an answer word names, or `None` for a word no tool writes.
    pub fn of_word(word: &str) -> Option<Outcome> {
        let word = word.trim().to_ascii_lowercase();
        Some(match word.as_str() {
            "holds" | "unsat" => Outcome::Holds,
            "violated" | "sat" => Outcome::Violated,
            "unknown" | "timeout" => Outcome::Unknown,
            // knn's `unknown:timeout` and the like; VNN-COMP's harness writes
            // `run_instance_timeout` and `prepare_instance_timeout` when it stops a tool.
            w if w.starts_with("unknown:") || w.ends_with("timeout") => Outcome::Unknown,
            // knn's `error`; VNN-COMP's `error`, `error_exit_code_N`, `error_nonmaximal`, …
            w if w.starts_with("error") => Outcome::Error,
            _ => return None,
        })
    }

    /// Whether the instance was decided: holds or violated.
    pub fn decided(self) -> bool {
        matches!(self, Outcome::Holds | Outcome::Violated)
    }

    /// Whether two tools contradict each other: one proved the property, the other refuted it.
    /// An undecided answer or an error contradicts nothing.
    pub fn contradicts(self, other: Outcome) -> bool {
        matches!((self, other), (Outcome::Holds, Outcome::Violated) | (Outcome::Violated, Outcome::Holds))
    }
}

/// Which format a results file was read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultsFormat {
    /// knn's results CSV, with its header.
    Knn,
    /// VNN-COMP's per-tool results: no header, `[benchmark,]network,property,prepare_time,result,run_time`.
    VnnComp,
}

/// One instance's line of a results file.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    /// The network's path as the file writes it.
    pub network: String,
    /// The property's path as the file writes it.
    pub property: String,
    /// The answer word as written (`holds`, `unknown:timeout`, `unsat`, …).
    pub answer: String,
    pub outcome: Outcome,
    /// knn: the instance's time, loading included. VNN-COMP: `run_time` (the preparation,
    /// written apart, is left out, as the competition scores it).
    pub seconds: f64,
    /// knn: the share of the region's volume proved (of the case searched last); `None` in
    /// the VNN-COMP format, in files written before the column existed, and for errors.
    pub proved_share: Option<f64>,
    /// Its line in the file (from 1).
    pub line: usize,
}

impl ResultRow {
    /// The instance's name, the same across tools whatever folders and formats they used.
    pub fn key(&self) -> InstanceKey {
        InstanceKey::of(&self.network, &self.property)
    }
}

/// An instance named by its network's and its property's file names without folders and
/// extensions: `./benchmarks/acasxu/onnx/ACASXU_experimental_v2a_1_1.onnx` and
/// `ACASXU_experimental_v2a_1_1.nnet` are the same network.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstanceKey {
    pub network: String,
    pub property: String,
}

impl InstanceKey {
    pub fn of(network: &str, property: &str) -> InstanceKey {
        InstanceKey { network: stem(network), property: stem(property) }
    }
}

/// A path's file name without its extensions, `.gz` included (VNN-COMP compresses models and
/// properties since 2023).
fn stem(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let name = name.strip_suffix(".gz").unwrap_or(name);
    match name.rfind('.') {
        Some(dot) if dot > 0 => name[..dot].to_string(),
        _ => name.to_string(),
    }
}

/// A results file read whole.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// The file as named when read (for the page and for messages).
    pub name: String,
    pub format: ResultsFormat,
    pub rows: Vec<ResultRow>,
}

/// Reads a results file, knn's or in the VNN-COMP format (told apart by knn's header); a
/// malformed line is a usage error naming `file:line`.
pub fn read_results(path: &Path) -> Result<Results, KnnError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| KnnError::new(Failure::Io, format!("cannot read {}: {e}", path.display())))?;
    parse_results(&text, &path.display().to_string())
}

/// Parses the text of a results file named `name` (see [`read_results`]).
pub fn parse_results(text: &str, name: &str) -> Result<Results, KnnError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let first = lines.clone().next();
    let format = match first {
        Some((_, line)) if line.trim().starts_with("network,property,answer,seconds") => {
            lines.next();
            ResultsFormat::Knn
        }
        _ => ResultsFormat::VnnComp,
    };
    let mut rows = Vec::new();
    for (index, line) in lines {
        let at = format!("{name}:{}", index + 1);
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let (network, property, answer, seconds, share) = match (format, fields.as_slice()) {
            (ResultsFormat::Knn, [n, p, a, s]) => (n, p, a, s, None),
            (ResultsFormat::Knn, [n, p, a, s, share]) => (n, p, a, s, Some(share)),
            (ResultsFormat::Knn, _) => {
                return Err(KnnError::usage(format!(
                    "{at}: expected {RESULTS_HEADER} (the last column may be missing)"
                )));
            }
            (ResultsFormat::VnnComp, [_, n, p, _, a, s] | [n, p, _, a, s]) => (n, p, a, s, None),
            (ResultsFormat::VnnComp, _) => {
                return Err(KnnError::usage(format!(
                    "{at}: expected [benchmark,]network,property,prepare_time,result,run_time (the VNN-COMP \
                     results format) or knn's results CSV with its header {RESULTS_HEADER}"
                )));
            }
        };
        let outcome = Outcome::of_word(answer).ok_or_else(|| {
            KnnError::usage(format!(
                "{at}: `{answer}` is not an answer (holds, violated, unknown…, error, or VNN-COMP's sat, unsat, timeout)"
            ))
        })?;
        let seconds = parse_number(seconds)
            .ok_or_else(|| KnnError::usage(format!("{at}: `{seconds}` is not a number of seconds")))?;
        let proved_share = match share {
            None | Some(&"") => None,
            Some(share) => Some(
                parse_number(share)
                    .filter(|s| *s <= 1.0)
                    .ok_or_else(|| KnnError::usage(format!("{at}: `{share}` is not a share between 0 and 1")))?,
            ),
        };
        rows.push(ResultRow {
            network: network.to_string(),
            property: property.to_string(),
            answer: answer.to_string(),
            outcome,
            seconds,
            proved_share,
            line: index + 1,
        });
    }
    Ok(Results { name: name.to_string(), format, rows })
}

/// A finite number, not negative.
fn parse_number(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0)
}

/// One line of knn's results CSV (with its newline), [`RESULTS_HEADER`]'s columns: the time to
/// the millisecond, the proved share to four places, empty when there is none (an error).
pub fn results_line(network: &str, property: &str, answer: &str, seconds: f64, proved_share: Option<f64>) -> String {
    let share = proved_share.map(|s| format!("{s:.4}")).unwrap_or_default();
    format!("{network},{property},{answer},{seconds:.3},{share}\n")
}
