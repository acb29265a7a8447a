//! Rule coverage over many programs (`knn coverage`, the spec corpus's coverage test): each
//! program run on the small-step engine (and, when asked, searched), how often each rule fired
//! summed over all of them, and the rules that never fired.
//!
//! Unlike `run`, a program the revised static checks reject still runs: the run-time errors it
//! would raise are rules too (`rev-unbound-identifier` fires only in such programs). A program
//! the grammar rejects is listed as not run.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use knn_semantics::engine::{Coverage, Outcome, SearchOptions, search};
use knn_semantics::inputs::{TensorInput, initial_config};
use knn_semantics::profile::Priorities;
use knn_semantics::syntax::diagnostic::line_col;
use knn_semantics::syntax::parse_program;
use knn_semantics::term::term_of_program;
use knn_semantics::{Config, Profile};
use knn_semantics::{StepOptions, run};
use serde_json::{Value, json};

use super::inputs::parse_input;
use super::program::read_source;
use super::render::explain;
use super::report::{Report, Wanted};
use super::source::Source;

/// How one program went.
pub struct ProgramRun {
    pub file: String,
    /// `done`, `stuck`, `error`… (the `status` of the JSON report), or `parse-error`.
    pub status: String,
    pub steps: u64,
    /// Why the program ended without a value or could not run, on one line
    /// (`FILE:LINE:COL: detail [kind]` for a run-time error); `None` when it gave a result.
    pub message: Option<String>,
    /// The whole message of a program that could not run (a parse error with its source
    /// line), for standard error.
    pub details: Option<String>,
}

impl ProgramRun {
    /// Whether the program ran (its status is a run's, `error` included), as opposed to a
    /// `parse-error`, `input-error` or `io-error`.
    fn ran(&self) -> bool {
        !self.status.ends_with("-error") || self.status == "error"
    }
}

/// Coverage summed over programs.
pub struct Collected {
    pub coverage: Coverage,
    pub programs: Vec<ProgramRun>,
}

/// CoverageOptions of [`collect`].
#[derive(Clone, Copy, Debug)]
pub struct CoverageOptions {
    /// `Some(max_states)`: also count the rules of `search`.
    pub search: Option<usize>,
    pub max_steps: u64,
}

/// Every `.knn` file named or below a named directory, sorted within each directory. Symbolic
/// links are followed, but every directory is read once (by its canonical path), so a link to
/// an enclosing directory ends the walk instead of looping forever.
pub fn expand(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut visited = std::collections::HashSet::new();
    for path in paths {
        if path.is_dir() {
            let mut below = Vec::new();
            let mut dirs = vec![path.clone()];
            while let Some(dir) = dirs.pop() {
                if !visited.insert(dir.canonicalize()?) {
                    continue;
                }
                for entry in std::fs::read_dir(&dir)? {
                    let p = entry?.path();
                    if p.is_dir() {
                        dirs.push(p);
                    } else if p.extension().is_some_and(|e| e == "knn") {
                        below.push(p);
                    }
                }
            }
            below.sort();
            files.extend(below);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// The `// input: NAME=VALUE` lines of a program's leading comment.
fn header_inputs(text: &str) -> Result<Vec<TensorInput>, String> {
    text.lines()
        .map(str::trim)
        .take_while(|l| l.starts_with("//"))
        .filter_map(|l| l.strip_prefix("//")?.trim_start().strip_prefix("input:"))
        .map(|spec| parse_input(spec.trim()).map_err(|e| e.message.clone()))
        .collect()
}

/// Why a run ended without a value, on one line, or `None` for a result: `run`'s message
/// ([`explain`]), its first line, after the file's name; a run-time error as its first line
/// reads (`FILE:LINE:COL: detail [kind]`), without the snippet or colours.
fn no_value_line(outcome: &Outcome, config: &Config, name: &str, text: &str) -> Option<String> {
    if let Outcome::Error { kind, detail, span } = outcome {
        let (line, column) = line_col(text, span.start as usize);
        return Some(format!("{name}:{line}:{column}: {detail} [{kind}]"));
    }
    if matches!(outcome, Outcome::Value(_) | Outcome::Empty | Outcome::Paused) {
        return None;
    }
    let source = Arc::new(Source { name: name.to_string(), text: text.to_string() });
    let report = Report::of_end(outcome.clone(), config.clone(), 0, None, None, Wanted::default(), &source).ok()?;
    let message = explain(&report.answer, false)?;
    Some(format!("{name}: {}", message.lines().next().unwrap_or_default()))
}

/// Runs one program: its status, steps and, when it ended without a value, why; `Err` with
/// its status and the full message when it cannot run.
fn run_one(
    path: &Path,
    text: &str,
    profile: &'static Profile,
    inputs: &[TensorInput],
    options: CoverageOptions,
    total: &mut Coverage,
) -> Result<(String, u64, Option<String>), (String, String)> {
    let name = path.display().to_string();
    let program =
        parse_program(text, profile.grammar).map_err(|e| ("parse-error".to_string(), e.render(&name, text, false)))?;
    let mut bound = header_inputs(text).map_err(|e| ("input-error".to_string(), format!("{name}: {e}")))?;
    bound.extend(inputs.iter().filter(|i| !bound.iter().any(|b| b.name == i.name)).cloned().collect::<Vec<_>>());
    let config = initial_config(profile, term_of_program(&program), &bound)
        .map_err(|e| ("input-error".to_string(), format!("{name}: {e}\n")))?;
    let ran = run(profile, config.clone(), StepOptions { max_steps: Some(options.max_steps), trace: false });
    total.merge(&ran.coverage);
    if let Some(max_states) = options.search {
        let found = search(profile, config, SearchOptions { max_states, priorities: Priorities::Krun });
        total.merge(&found.coverage);
    }
    Ok((ran.outcome.status().to_string(), ran.steps, no_value_line(&ran.outcome, &ran.config, &name, text)))
}

/// Runs every program under `profile` and sums the rules they fire. Programs that cannot run
/// (parse errors, inputs that do not bind) are listed with their status and their message.
pub fn collect(
    files: &[PathBuf],
    profile: &'static Profile,
    inputs: &[TensorInput],
    options: CoverageOptions,
) -> Collected {
    let mut coverage = Coverage::new(profile);
    let mut programs = Vec::new();
    for path in files {
        let file = path.display().to_string();
        let text = match read_source(path) {
            Ok(source) => source.text,
            Err(e) => {
                let message = Some(format!("{file}: cannot read the file"));
                let details = Some(e.render_for_stderr());
                programs.push(ProgramRun { file, status: "io-error".into(), steps: 0, message, details });
                continue;
            }
        };
        match run_one(path, &text, profile, inputs, options, &mut coverage) {
            Ok((status, steps, message)) => programs.push(ProgramRun { file, status, steps, message, details: None }),
            Err((status, message)) => {
                // The report keeps the first line; the full message is for standard error.
                let first = message.lines().next().unwrap_or_default().trim_start_matches("Error: ").to_string();
                programs.push(ProgramRun { file, status, steps: 0, message: Some(first), details: Some(message) });
            }
        }
    }
    Collected { coverage, programs }
}

impl Collected {
    /// Programs that could not run.
    pub fn failed(&self) -> impl Iterator<Item = &ProgramRun> {
        self.programs.iter().filter(|p| !p.ran())
    }

    /// Programs that ran and ended without a value: a run-time error, stuck, krun's abort, a
    /// limit.
    pub fn without_value(&self) -> impl Iterator<Item = &ProgramRun> {
        self.programs.iter().filter(|p| p.ran() && p.message.is_some())
    }

    fn fireable(&self) -> usize {
        self.coverage.profile().fireable().count()
    }

    /// The report as JSON: every fireable rule with its count (zeros included), the rules
    /// never fired, and each program's status.
    pub fn json(&self) -> Value {
        let profile = self.coverage.profile();
        let rules: serde_json::Map<String, Value> =
            profile.fireable().map(|r| (r.id.to_string(), json!(self.coverage.count(r.id)))).collect();
        let never: Vec<&str> = self.coverage.never_fired().map(|r| r.id).collect();
        let programs: Vec<Value> = self
            .programs
            .iter()
            .map(|p| {
                let mut entry = json!({ "file": p.file, "status": p.status, "steps": p.steps });
                if let Some(message) = &p.message {
                    entry["message"] = json!(message);
                }
                entry
            })
            .collect();
        json!({
            "semantics": profile.name,
            "programs": programs,
            "fireable": self.fireable(),
            "fired": self.fireable() - never.len(),
            "firings": self.coverage.total(),
            "rules": rules,
            "never_fired": never,
        })
    }

    /// The report as text: a summary line, the count of each rule that fired (inventory order),
    /// the rules that never fired, the programs that ended without a value (one line each, with
    /// why), then the programs that could not run.
    pub fn text(&self) -> String {
        let never: Vec<&str> = self.coverage.never_fired().map(|r| r.id).collect();
        let mut out = format!(
            "{} programs, {} semantics: {} of {} fireable rules fired ({} firings)\n",
            self.programs.len(),
            self.coverage.profile().name,
            self.fireable() - never.len(),
            self.fireable(),
            self.coverage.total()
        );
        for (rule, n) in self.coverage.fired() {
            out.push_str(&format!("{n:>10}  {}\n", rule.id));
        }
        out.push_str(&format!("never fired ({}): {}\n", never.len(), never.join(", ")));
        let ended: Vec<&str> = self.without_value().filter_map(|p| p.message.as_deref()).collect();
        if !ended.is_empty() {
            out.push_str(&format!("ended without a value ({}):\n", ended.len()));
            for line in ended {
                out.push_str(&format!("  {line}\n"));
            }
        }
        let failed: Vec<String> =
            self.failed().map(|p| format!("{} ({})", p.message.as_deref().unwrap_or(&p.file), p.status)).collect();
        if !failed.is_empty() {
            out.push_str(&format!("not run ({}):\n", failed.len()));
            for line in failed {
                out.push_str(&format!("  {line}\n"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn counts_are_summed_over_programs_and_parse_errors_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(dir.path(), "a.knn", "2.0 + 3.0");
        let b = write(dir.path(), "b.knn", "1.0 + 1.0 + 1.0");
        let c = write(dir.path(), "c.knn", "1.0+");
        let files = expand(&[dir.path().to_path_buf()]).unwrap();
        assert_eq!(files, vec![a, b, c]);
        let options = CoverageOptions { search: None, max_steps: 1000 };
        let collected = collect(&files, Profile::published(), &[], options);
        assert!(collected.programs[2].details.as_deref().is_some_and(|d| d.contains("1.0+")), "the source line");
        // `2.0 + 3.0` adds once; `(1.0 + 1.0) + 1.0` heats the left sum, adds, cools, adds.
        assert_eq!(collected.coverage.count("add-float"), 3);
        assert_eq!(collected.coverage.count("heat-add-1"), 1);
        assert_eq!(collected.coverage.count("heat-add-2"), 0);
        let report = collected.json();
        assert_eq!(report["rules"]["add-float"], 3);
        assert_eq!(report["rules"]["mul-float"], 0);
        assert!(report["never_fired"].as_array().unwrap().contains(&json!("mul-float")));
        assert_eq!(report["programs"][2]["status"], "parse-error");
        assert!(collected.text().contains("not run (1):\n  "), "{}", collected.text());
        assert!(collected.text().contains("c.knn:1:5: "), "the parse error's place: {}", collected.text());
    }

    #[test]
    fn search_counts_the_rules_krun_never_prefers_and_headers_bind_inputs() {
        let dir = tempfile::tempdir().unwrap();
        // krun heats the base of a 2-D write (heat-storeval-base); only search also takes
        // storeval-split (docs/semantics.md §2.9).
        let p = write(dir.path(), "p.knn", "// input: m=[[1.0, 2.0]]\nlet m[0, 1] = 5.0 in m[0, 1]");
        let run_only = collect(
            std::slice::from_ref(&p),
            Profile::published(),
            &[],
            CoverageOptions { search: None, max_steps: 1000 },
        );
        assert_eq!(run_only.coverage.count("storeval-split"), 0);
        assert_eq!(run_only.coverage.count("heat-storeval-base"), 1);
        assert_eq!(run_only.programs[0].status, "done");
        let searched =
            collect(&[p], Profile::published(), &[], CoverageOptions { search: Some(1000), max_steps: 1000 });
        assert!(searched.coverage.count("storeval-split") > 0);
    }
}
