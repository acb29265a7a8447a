//! `knn verify`: prove or refute a claim about a network on a region of inputs.
//! What is asked comes from `--box`/`--around` with `--claim`, or from `--vnnlib`; a whole
//! VNN-COMP instance list from `--instances` (`verify_instances.rs`). The answers and their
//! exit codes are in docs/cli.md; the method in docs/verification.md.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use knn_semantics::syntax::diagnostic::render_report;

use super::Exit;
use super::program::{fail, parse_inputs, read_source, usage};
use super::verify_instances;
use super::verify_report::{Report, UNKNOWN_RESULT, VerifyFormat, print_report, results_text, write_atomically};
use super::verify_target::{NotVerifiable, load_network, prepare_target};
use crate::api::KnnError;
use crate::data::npy::read_npy;
use crate::verify::claim::{Claim, ball};
use crate::verify::property::{Constant, InputBox};
use crate::verify::split::Split;
use crate::verify::vnnlib::parse_vnnlib;
use crate::verify::{Options, Question, verify as run_verify};

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
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    eps: Option<String>,
    /// Cut the ball to this range in every element (e.g. 0:1 for pixel values).
    #[arg(long, value_name = "LO:HI", requires = "around", allow_hyphen_values = true)]
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
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    timeout: Option<f64>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// What branch and bound splits: input sides, the signs of unstable relus (then inputs),
    /// or auto (relus for networks with more than 16 inputs, else inputs).
    #[arg(long, value_enum, default_value_t = SplitChoice::Auto)]
    split: SplitChoice,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = VerifyFormat::Text)]
    output: VerifyFormat,
    /// No progress bar on standard error.
    #[arg(long)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SplitChoice {
    Auto,
    Inputs,
    Relus,
}

impl From<SplitChoice> for Split {
    fn from(choice: SplitChoice) -> Split {
        match choice {
            SplitChoice::Auto => Split::Auto,
            SplitChoice::Inputs => Split::Inputs,
            SplitChoice::Relus => Split::Relus,
        }
    }
}

/// With no --timeout, a single question gets this long.
const DEFAULT_TIMEOUT: f64 = 600.0;

pub fn verify(args: VerifyArgs) -> Exit {
    match run(&args) {
        Ok(exit) | Err(exit) => exit,
    }
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
    if let Some(results) = &args.results {
        let inputs: Vec<&Path> = std::iter::once(net_path.as_path()).chain(args.vnnlib.as_deref()).collect();
        super::output::check_output(results, true, &inputs).map_err(usage)?;
    }
    let fixed = parse_inputs(&args.inputs)?;
    let asked = question_of(args)?;
    let input_name = match (&asked.input_name, &args.input_name) {
        (Some(region), Some(flag)) if region != flag => {
            return Err(usage(format!("the region is over `{region}` but --input-name says `{flag}`")));
        }
        (region, flag) => region.as_deref().or(flag.as_deref()),
    };
    let loaded = load_network(net_path, input_name, fixed)?;
    let target = match prepare_target(&loaded, asked.input_len, &asked.region) {
        Ok(target) => target,
        Err(NotVerifiable::Mismatch(message, span)) => {
            let source = &loaded.source;
            let color = std::io::stderr().is_terminal();
            match span {
                Some(span) => {
                    eprint!("{}", render_report(&source.name, &source.text, span, &message, "fails here", None, color));
                }
                None => eprintln!("error: {message}"),
            }
            return Err(Exit::Usage);
        }
        Err(NotVerifiable::Unsupported(unsupported)) => {
            if let Some(path) = &args.results {
                write_atomically(path, UNKNOWN_RESULT.as_bytes()).map_err(usage)?;
            }
            let report =
                Report { answer: None, unsupported: Some(&unsupported), seconds: 0.0, boxes: 0, proved_share: 0.0 };
            return Ok(print_report(args.output, &report, &loaded.source));
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
        split: args.split.into(),
        ..Options::default()
    };
    let answer = run_verify(&target, &asked.question, options).map_err(|m| usage(m.0))?;
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
        write_atomically(path, results_text(&answer).as_bytes()).map_err(usage)?;
    }
    Ok(print_report(args.output, &report, &loaded.source))
}

/// What the flags ask.
struct Asked {
    question: Question,
    /// The input the region ranges over, when the flags name it (`--box NAME=…`).
    input_name: Option<String>,
    input_len: usize,
    /// Where the region and its length come from, for messages.
    region: String,
}

/// What the flags ask: a VNN-LIB property, or a claim on a box or a ball.
fn question_of(args: &VerifyArgs) -> Result<Asked, Exit> {
    if let Some(path) = &args.vnnlib {
        let source = read_source(path)?;
        let property = parse_vnnlib(&source.text).map_err(|e| {
            eprint!("{}", e.render(&source.name, &source.text, std::io::stderr().is_terminal()));
            Exit::Parse
        })?;
        let input_len = property.inputs;
        let region = format!("{} declares {input_len} inputs X_i", source.name);
        return Ok(Asked { question: Question::Property(property), input_name: None, input_len, region });
    }
    let claim = parse_claim(args.claim.as_deref().unwrap_or("argmax-stable")).map_err(usage)?;
    let (name, region, what) = if let Some(text) = &args.region {
        let (name, region) = parse_box(text).map_err(usage)?;
        let what = format!("--box gives {} ranges", region.len());
        (name, region, what)
    } else if let Some(text) = &args.around {
        let (name, centre) = parse_point(text, args.row).map_err(fail)?;
        let eps_text = args.eps.as_deref().unwrap_or_default();
        let eps = Constant::parse(eps_text)
            .filter(|e| e.below >= 0.0 && e.above.is_finite())
            .ok_or_else(|| usage(format!("--eps {eps_text}: expected a non-negative decimal number")))?;
        let clip =
            args.clip.as_deref().map(|c| parse_range(c).map_err(|e| usage(format!("--clip {c}: {e}")))).transpose()?;
        let what = format!("the centre given by --around has {} elements", centre.len());
        (name, ball(&centre, &eps, clip.as_ref().map(|(l, h)| (l, h))), what)
    } else {
        return Err(usage("say what to verify: --box, --around with --eps, --vnnlib, or --instances"));
    };
    let input_len = region.len();
    Ok(Asked { question: Question::Class { region, claim }, input_name: Some(name), input_len, region: what })
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
fn parse_point(text: &str, row: Option<usize>) -> Result<(String, Vec<Constant>), KnnError> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| KnnError::usage(format!("--around {text}: expected NAME=[…] or NAME=POINTS.npy")))?;
    let value = value.trim();
    if let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        if let Some(r) = row {
            return Err(KnnError::usage(format!(
                "--row {r}: the centre is written out; --row picks a row of a .npy file"
            )));
        }
        let centre = list
            .split(',')
            .map(|t| {
                Constant::parse(t.trim()).ok_or_else(|| format!("--around: `{}` is not a decimal number", t.trim()))
            })
            .collect::<Result<Vec<Constant>, String>>()
            .map_err(KnnError::usage)?;
        return Ok((name.trim().to_string(), centre));
    }
    let array = read_npy(Path::new(value)).map_err(|e| match e.too_large {
        // A well-formed file larger than the memory budget is a limit (exit code 4).
        Some(too_large) => KnnError::memory(&format!("{value}:"), too_large),
        None => KnnError::usage(e.to_string()),
    })?;
    let data = match (array.shape.as_slice(), row) {
        ([_], None) => array.data,
        ([rows, cols], Some(r)) if r < *rows => array.data[r * cols..(r + 1) * cols].to_vec(),
        ([rows, _], Some(r)) => return Err(KnnError::usage(format!("--row {r}: {value} has {rows} rows"))),
        ([_, _], None) => return Err(KnnError::usage(format!("{value} is a matrix: pick the centre with --row"))),
        (shape, _) => {
            return Err(KnnError::usage(format!(
                "{value} has shape {shape:?}: expected a vector or a matrix of points"
            )));
        }
    };
    Ok((name.trim().to_string(), data.into_iter().map(Constant::exact).collect()))
}
