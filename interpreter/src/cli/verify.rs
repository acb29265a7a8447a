//! `knn verify`: prove or refute a claim about a network on a region of inputs.
//! What is asked comes from `--box`/`--around` with `--claim`, or from `--vnnlib`; a whole
//! VNN-COMP instance list from `--instances` (`verify_instances.rs`). The answers and their
//! exit codes are in docs/cli.md; the method in docs/verification.md.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use knn_semantics::Profile;
use knn_semantics::check::check_program;
use knn_semantics::errors::ErrorKind;
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::diagnostic::render_report;
use knn_semantics::syntax::{Exp, parse_program};
use serde_json::{Value, json};

use super::Exit;
use super::program::{Source, parse, parse_inputs, read_source};
use super::verify_instances;
use crate::data::npy::read_npy;
use crate::import::{ImportOptions, emit::emit, import_file};
use crate::verify::claim::{Claim, ball};
use crate::verify::network::Unsupported;
use crate::verify::property::{Constant, InputBox};
use crate::verify::vnnlib::parse_vnnlib;
use crate::verify::{Answer, Options, Question, Target, Unknown, verify as run_verify};

#[derive(Args)]
pub struct VerifyArgs {
    /// The network: a .knn program (revised semantics), a .nnet file or an ONNX model (imported
    /// as `knn import` does, without --normalize). Not with --instances.
    net: Option<PathBuf>,
    /// The input box: NAME=LO:HI,LO:HI,… one range per element of the input vector.
    #[arg(long = "box", value_name = "NAME=LO:HI,…", conflicts_with_all = ["around", "vnnlib", "instances"])]
    region: Option<String>,
    /// The centre of an L∞ ball (with --eps): NAME=[v0, v1, …] or NAME=POINTS.npy (a vector,
    /// or with --row one row of a matrix).
    #[arg(long, value_name = "NAME=POINT", requires = "eps", conflicts_with_all = ["vnnlib", "instances"])]
    around: Option<String>,
    /// The radius of the ball around --around.
    #[arg(long, value_name = "E")]
    eps: Option<String>,
    /// Cut the ball to this range in every element (e.g. 0:1 for pixel values).
    #[arg(long, value_name = "LO:HI", requires = "around")]
    clip: Option<String>,
    /// The row of POINTS.npy to take as the centre.
    #[arg(long, value_name = "ROW", requires = "around")]
    row: Option<usize>,
    /// What is claimed on the box or ball: argmax=K, argmax!=K, or argmax-stable (one class on
    /// the whole region, reported with the class). Default: argmax-stable.
    #[arg(long, value_name = "CLAIM", conflicts_with_all = ["vnnlib", "instances"])]
    claim: Option<String>,
    /// A VNN-LIB property: X_i is element i of the input, Y_i of the result vector.
    #[arg(long, value_name = "PROP.vnnlib", conflicts_with = "instances")]
    vnnlib: Option<PathBuf>,
    /// A VNN-COMP instance list (network,property,timeout per line): verify each instance and
    /// write a results CSV (with -o) and a summary.
    #[arg(long, value_name = "FILE.csv")]
    instances: Option<PathBuf>,
    /// The folder that the instance list's paths are relative to (default: the list's folder).
    #[arg(long, value_name = "DIR", requires = "instances")]
    root: Option<PathBuf>,
    /// With --instances: write the results CSV here (network,property,answer,seconds).
    #[arg(short = 'o', long = "out", value_name = "RESULTS.csv", requires = "instances")]
    out: Option<PathBuf>,
    /// Overwrite the results file if it exists.
    #[arg(long)]
    force: bool,
    /// Write the answer in the VNN-COMP results format (sat and the witness, unsat, timeout or
    /// unknown) to this file.
    #[arg(long, value_name = "FILE", conflicts_with = "instances")]
    results: Option<PathBuf>,
    /// Bind another input of the program to fixed values: NAME=[…] or NAME=FILE.npy.
    #[arg(long = "input", value_name = "NAME=VALUE")]
    inputs: Vec<String>,
    /// The program's input that the box or property ranges over (default: its only free name).
    #[arg(long, value_name = "NAME")]
    input_name: Option<String>,
    /// Give up after this many seconds (answer: unknown, timeout). Per instance with
    /// --instances, where the list's own timeouts apply unless this is given.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = VerifyFormat::Text)]
    output: VerifyFormat,
    /// No progress bar on standard error.
    #[arg(long)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyFormat {
    Text,
    /// One JSON object (docs/cli.md).
    Json,
}

/// With no --timeout, a single question gets this long.
const DEFAULT_TIMEOUT: f64 = 600.0;

pub fn verify(args: VerifyArgs) -> Exit {
    match run(&args) {
        Ok(exit) | Err(exit) => exit,
    }
}

pub(super) fn usage(message: impl std::fmt::Display) -> Exit {
    eprintln!("error: {message}");
    Exit::Usage
}

fn run(args: &VerifyArgs) -> Result<Exit, Exit> {
    if let Some(threads) = args.threads {
        if threads == 0 || threads > 4096 {
            return Err(usage(format!("--threads {threads}: expected 1 to 4096")));
        }
        rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().map_err(usage)?;
    }
    let timeout = match args.timeout {
        Some(t) if !(t > 0.0 && t <= 1e9) => {
            return Err(usage(format!("--timeout {t}: expected a positive number of seconds")));
        }
        t => t,
    };
    if let Some(list) = &args.instances {
        if args.net.is_some() {
            return Err(usage("--instances takes the networks from the list: give no NET"));
        }
        let root = args.root.clone().unwrap_or_else(|| list.parent().map(Path::to_path_buf).unwrap_or_default());
        return verify_instances::run_list(
            list,
            &root,
            args.out.as_deref(),
            args.force,
            timeout.map(Duration::from_secs_f64),
            args.quiet,
        );
    }
    let Some(net_path) = &args.net else {
        return Err(usage("name the network to verify (a .knn, .nnet or .onnx file), or pass --instances"));
    };
    let fixed = parse_inputs(&args.inputs)?;
    let (question, input_name, input_len, property_source) = question_of(args)?;
    let loaded = load_network(net_path, input_name.as_deref().or(args.input_name.as_deref()), fixed)?;
    let target = match Target::new(loaded.program.clone(), &loaded.input_name, vec![input_len], loaded.fixed.clone()) {
        Ok(target) => target,
        Err(unsupported) => {
            let started = Instant::now();
            let report = Report {
                answer: None,
                unsupported: Some(&unsupported),
                seconds: started.elapsed().as_secs_f64(),
                boxes: 0,
                proved_share: 0.0,
            };
            return Ok(print_report(args, &report, &loaded.source, property_source.as_ref()));
        }
    };
    let started = Instant::now();
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    });
    let (mut boxes, mut proved_share) = (0u64, 0.0);
    let mut on_progress = |case: usize, p: crate::verify::bab::CaseProgress| {
        boxes = p.boxes;
        proved_share = p.proved_share;
        if let Some(bar) = &bar {
            bar.set_message(format!(
                "case {}: {} boxes, {:.1}% of the volume proved",
                case + 1,
                p.boxes,
                100.0 * p.proved_share
            ));
        }
    };
    let options = Options {
        timeout: Some(Duration::from_secs_f64(timeout.unwrap_or(DEFAULT_TIMEOUT))),
        progress: Some(&mut on_progress),
        ..Options::default()
    };
    let answer = run_verify(&target, &question, options).map_err(|m| usage(m.0))?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let report = Report {
        answer: Some(&answer),
        unsupported: None,
        seconds: started.elapsed().as_secs_f64(),
        boxes,
        proved_share,
    };
    if let Some(path) = &args.results {
        write_results_file(path, &answer, &target.input_name).map_err(usage)?;
    }
    Ok(print_report(args, &report, &loaded.source, property_source.as_ref()))
}

/// What is asked, the input it ranges over (when the flags name it), its length, and the
/// property file's source (for error places).
fn question_of(args: &VerifyArgs) -> Result<(Question, Option<String>, usize, Option<Source>), Exit> {
    if let Some(path) = &args.vnnlib {
        let source = read_source(path)?;
        let property = parse_vnnlib(&source.text).map_err(|e| {
            eprint!("{}", e.render(&source.name, &source.text, std::io::stderr().is_terminal()));
            Exit::Parse
        })?;
        let inputs = property.inputs;
        return Ok((Question::Property(property), None, inputs, Some(source)));
    }
    let claim = parse_claim(args.claim.as_deref().unwrap_or("argmax-stable")).map_err(usage)?;
    let (name, region) = if let Some(text) = &args.region {
        parse_box(text).map_err(usage)?
    } else if let Some(text) = &args.around {
        let (name, centre) = parse_point(text, args.row).map_err(usage)?;
        let eps_text = args.eps.as_deref().unwrap_or_default();
        let eps = Constant::parse(eps_text)
            .filter(|e| e.below >= 0.0 && e.above.is_finite())
            .ok_or_else(|| usage(format!("--eps {eps_text}: expected a non-negative decimal number")))?;
        let clip =
            args.clip.as_deref().map(|c| parse_range(c).map_err(|e| usage(format!("--clip {c}: {e}")))).transpose()?;
        (name, ball(&centre, &eps, clip.as_ref().map(|(l, h)| (l, h))))
    } else {
        return Err(usage("say what to verify: --box, --around with --eps, --vnnlib, or --instances"));
    };
    let len = region.len();
    Ok((Question::Class { region, claim }, Some(name), len, None))
}

fn parse_claim(text: &str) -> Result<Claim, String> {
    let class = |k: &str| {
        k.trim().parse::<usize>().map_err(|_| format!("--claim {text}: `{k}` is not a class index (0, 1, 2, …)"))
    };
    if text == "argmax-stable" {
        Ok(Claim::ArgmaxStable)
    } else if let Some(k) = text.strip_prefix("argmax!=") {
        Ok(Claim::ArgmaxIsNot(class(k)?))
    } else if let Some(k) = text.strip_prefix("argmax=") {
        Ok(Claim::ArgmaxIs(class(k)?))
    } else {
        Err(format!("--claim {text}: expected argmax=K, argmax!=K or argmax-stable"))
    }
}

/// `LO:HI` as two decimals with LO ≤ HI.
fn parse_range(text: &str) -> Result<(Constant, Constant), String> {
    let (lo, hi) = text.split_once(':').ok_or_else(|| format!("`{text}` is not a range LO:HI"))?;
    let number = |t: &str| Constant::parse(t.trim()).ok_or_else(|| format!("`{}` is not a decimal number", t.trim()));
    let (lo, hi) = (number(lo)?, number(hi)?);
    if lo.below > hi.above {
        return Err(format!("`{text}` is empty: {lo} is above {hi}"));
    }
    Ok((lo, hi))
}

/// `NAME=LO:HI,LO:HI,…`.
fn parse_box(text: &str) -> Result<(String, InputBox), String> {
    let (name, ranges) = text.split_once('=').ok_or_else(|| format!("--box {text}: expected NAME=LO:HI,LO:HI,…"))?;
    let mut region = InputBox { lower: Vec::new(), upper: Vec::new() };
    for (k, range) in ranges.split(',').enumerate() {
        let (lo, hi) = parse_range(range.trim()).map_err(|e| format!("--box: element {k}: {e}"))?;
        region.lower.push(lo);
        region.upper.push(hi);
    }
    Ok((name.trim().to_string(), region))
}

/// `NAME=[v0, v1, …]` (decimals as written) or `NAME=POINTS.npy` (binary64 values).
fn parse_point(text: &str, row: Option<usize>) -> Result<(String, Vec<Constant>), String> {
    let (name, value) =
        text.split_once('=').ok_or_else(|| format!("--around {text}: expected NAME=[…] or NAME=POINTS.npy"))?;
    let value = value.trim();
    if let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        let centre = list
            .split(',')
            .map(|t| {
                Constant::parse(t.trim()).ok_or_else(|| format!("--around: `{}` is not a decimal number", t.trim()))
            })
            .collect::<Result<Vec<Constant>, String>>()?;
        return Ok((name.trim().to_string(), centre));
    }
    let array = read_npy(Path::new(value)).map_err(|e| e.to_string())?;
    let data = match (array.shape.as_slice(), row) {
        ([_], None) => array.data,
        ([rows, cols], Some(r)) if r < *rows => array.data[r * cols..(r + 1) * cols].to_vec(),
        ([rows, _], Some(r)) => return Err(format!("--row {r}: {value} has {rows} rows")),
        ([_, _], None) => return Err(format!("{value} is a matrix: pick the centre with --row")),
        (shape, _) => return Err(format!("{value} has shape {shape:?}: expected a vector or a matrix of points")),
    };
    Ok((name.trim().to_string(), data.into_iter().map(Constant::exact).collect()))
}

/// A network ready for [`Target::new`]: its program, source and input.
pub(super) struct LoadedNetwork {
    pub source: Source,
    pub program: Exp,
    pub input_name: String,
    pub fixed: Vec<TensorInput>,
}

/// Reads a .knn program, or imports a .nnet/.onnx network, and finds the input to range over.
pub(super) fn load_network(
    path: &Path,
    input_name: Option<&str>,
    fixed: Vec<TensorInput>,
) -> Result<LoadedNetwork, Exit> {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    let (source, imported_input) = if extension == "nnet" || extension == "onnx" {
        let network = import_file(path, None, &ImportOptions::default()).map_err(usage)?;
        (Source { name: path.display().to_string(), text: emit(&network) }, Some(network.input.clone()))
    } else {
        (read_source(path)?, None)
    };
    let profile = Profile::revised();
    let bound: Vec<&str> = fixed.iter().map(|t| t.name.as_str()).collect();
    let input_name = match input_name.map(str::to_string).or(imported_input) {
        Some(name) => name,
        None => free_input(&source, profile, &bound)?,
    };
    let mut all_bound = bound.clone();
    all_bound.push(&input_name);
    let program = parse(&source, profile, &all_bound)?;
    Ok(LoadedNetwork { source, program, input_name, fixed })
}

/// The program's only free name (besides the fixed inputs).
fn free_input(source: &Source, profile: &Profile, bound: &[&str]) -> Result<String, Exit> {
    let program = parse_program(&source.text, profile.grammar).map_err(|e| {
        eprint!("{}", e.render(&source.name, &source.text, std::io::stderr().is_terminal()));
        Exit::Parse
    })?;
    let mut free: Vec<String> = check_program(&program, bound)
        .into_iter()
        .filter(|e| e.kind == ErrorKind::UnboundIdentifier)
        .filter_map(|e| source.text.get(e.span.start as usize..e.span.end as usize).map(str::to_string))
        .collect();
    free.sort();
    free.dedup();
    match free.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(usage(format!("{}: the program has no free input to verify over", source.name))),
        many => Err(usage(format!(
            "{}: the program has several free inputs ({}): name the one to verify over with --input-name and bind the others with --input",
            source.name,
            many.join(", ")
        ))),
    }
}

/// What is printed.
struct Report<'a> {
    answer: Option<&'a Answer>,
    unsupported: Option<&'a Unsupported>,
    seconds: f64,
    boxes: u64,
    proved_share: f64,
}

/// Prints the report and returns the exit code of the answer.
fn print_report(args: &VerifyArgs, report: &Report, source: &Source, _property: Option<&Source>) -> Exit {
    let exit = match report.answer {
        Some(Answer::Holds { .. }) => Exit::Result,
        Some(Answer::Violated(_)) => Exit::Violated,
        Some(Answer::Unknown(_)) | None => Exit::Unknown,
    };
    match args.output {
        VerifyFormat::Json => outln!("{}", report_json(report)),
        VerifyFormat::Text => {
            if let (Some(u), true) = (report.unsupported, args.output == VerifyFormat::Text) {
                outln!("unknown: unsupported: {}", u.what);
                if let Some(span) = u.span {
                    eprint!(
                        "{}",
                        render_report(
                            &source.name,
                            &source.text,
                            span,
                            &format!("unsupported: {}", u.what),
                            "the verifier cannot bound this",
                            None,
                            std::io::stderr().is_terminal()
                        )
                    );
                }
            }
            if let Some(answer) = report.answer {
                outln!("{}", answer_text(answer, report));
            }
        }
    }
    exit
}

/// Values printed so that they read back as the same binary64 values.
fn vector(values: &[f64]) -> String {
    let items: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[{}]", items.join(", "))
}

fn answer_text(answer: &Answer, report: &Report) -> String {
    let stats = format!("{:.3} s, {} boxes", report.seconds, report.boxes);
    match answer {
        Answer::Holds { class: Some(k) } => format!("holds: the class is {k} on the whole region ({stats})"),
        Answer::Holds { class: None } => format!("holds: no input of the region reaches an unsafe output ({stats})"),
        Answer::Violated(c) => {
            let what = match (c.class, c.expected_class) {
                (Some(found), Some(expected)) => format!("the class is {found}, not {expected}"),
                (Some(found), None) => format!("the class is {found}"),
                _ => "the output is unsafe".to_string(),
            };
            format!(
                "violated: {what} (case {}; confirmed on the small-step reference and the big-step engine; {stats})\n  input  = {}\n  output = {}\n  witness: {}",
                c.case,
                vector(&c.input),
                vector(&c.output),
                witness(&c.input, &c.output).replace("\n ", " ")
            )
        }
        Answer::Unknown(Unknown::Timeout) => {
            format!("unknown: timeout ({stats}; {:.1}% of the region's volume proved)", 100.0 * report.proved_share)
        }
        Answer::Unknown(Unknown::Limit(why)) => format!("unknown: limit: {why} ({stats})"),
        Answer::Unknown(Unknown::Bug(why)) => format!("unknown: bug: {why} ({stats}); please report it"),
    }
}

fn report_json(report: &Report) -> Value {
    let mut object = json!({
        "schema_version": 1,
        "seconds": report.seconds,
        "boxes": report.boxes,
        "proved_share": report.proved_share,
    });
    let fields: Value = match (report.answer, report.unsupported) {
        (_, Some(u)) => json!({
            "answer": "unknown",
            "reason": "unsupported",
            "detail": u.what,
            "span": u.span.map(|s| json!({"start": s.start, "end": s.end})),
        }),
        (Some(Answer::Holds { class }), _) => json!({"answer": "holds", "class": class}),
        (Some(Answer::Violated(c)), _) => json!({
            "answer": "violated",
            "counterexample": {
                "case": c.case,
                "input": c.input,
                "output": c.output,
                "class": c.class,
                "expected_class": c.expected_class,
                "witness": witness(&c.input, &c.output),
            }
        }),
        (Some(Answer::Unknown(u)), _) => {
            let (reason, detail) = match u {
                Unknown::Timeout => ("timeout", String::new()),
                Unknown::Limit(why) => ("limit", why.clone()),
                Unknown::Bug(why) => ("bug", why.clone()),
            };
            json!({"answer": "unknown", "reason": reason, "detail": detail})
        }
        (None, None) => json!({"answer": "unknown"}),
    };
    if let (Value::Object(o), Value::Object(f)) = (&mut object, fields) {
        o.extend(f);
    }
    object
}

/// The VNN-COMP witness: `((X_0 v) (X_1 v) … (Y_0 v) …)`, one pair a line.
pub(super) fn witness(input: &[f64], output: &[f64]) -> String {
    let pairs: Vec<String> = input
        .iter()
        .enumerate()
        .map(|(i, v)| format!("(X_{i} {v:?})"))
        .chain(output.iter().enumerate().map(|(i, v)| format!("(Y_{i} {v:?})")))
        .collect();
    format!("({})", pairs.join("\n "))
}

/// The VNN-COMP results file: `sat` and the witness, `unsat`, `timeout` or `unknown`.
pub(super) fn results_text(answer: &Answer) -> String {
    match answer {
        Answer::Holds { .. } => "unsat\n".into(),
        Answer::Violated(c) => format!("sat\n{}\n", witness(&c.input, &c.output)),
        Answer::Unknown(Unknown::Timeout) => "timeout\n".into(),
        Answer::Unknown(_) => "unknown\n".into(),
    }
}

fn write_results_file(path: &Path, answer: &Answer, _input: &str) -> Result<(), String> {
    write_atomically(path, results_text(answer).as_bytes())
}

/// Writes `bytes` to a temporary file beside `path`, then renames it into place: a reader
/// never sees a partial file, and an interrupted run leaves the old file as it was.
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| format!("{}: not a file name", path.display()))?;
    let temporary: PathBuf = dir.join(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    std::fs::write(&temporary, bytes).map_err(|e| format!("cannot write {}: {e}", temporary.display()))?;
    std::fs::rename(&temporary, path).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot write {}: {e}", path.display())
    })
}
