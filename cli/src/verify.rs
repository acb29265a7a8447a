//! `knn verify`: prove or refute a claim about a network on a region of inputs.
//! What is asked comes from `--box`/`--around` with `--claim`, or from `--vnnlib`; a whole
//! VNN-COMP instance list from `--instances` (`verify_instances.rs`). The answers and their
//! exit codes are in docs/cli.md; the method in docs/verification.md.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use super::Exit;
use super::program::{fail, parse_inputs, usage};
use super::report::ReportRequest;
use super::verify_flags::{QuestionArgs, question_of};
use super::verify_instances;
use knn::render::{answer_word, results_text, verification_json, verification_note, verification_text};
use knn::{
    Asked, Bounds, CaseProgress, ImageShape, Split, Verification, VerifyOptions, check_threads, empty_region_note,
    load, witness_picture,
};

#[derive(Args)]
pub struct VerifyArgs {
    /// The network: a .knn program (revised semantics), a .nnet file or an ONNX model (imported
    /// as `knn import` does, without --normalize). Not with --instances.
    pub(super) net: Option<PathBuf>,
    #[command(flatten)]
    pub(super) question: QuestionArgs,
    /// A VNN-COMP instance list (network,property,timeout per line): verify each instance and
    /// write a results CSV (with -o) and a summary.
    #[arg(long, value_name = "FILE.csv")]
    instances: Option<PathBuf>,
    /// The folder that the instance list's paths are relative to (default: the list's folder).
    #[arg(long, value_name = "DIR", requires = "instances")]
    root: Option<PathBuf>,
    /// With --instances: write the results CSV here (network,property,answer,seconds,proved_share).
    #[arg(short = 'o', long = "out", value_name = "RESULTS.csv", requires = "instances")]
    out: Option<PathBuf>,
    /// With --instances: also write the report's page, DIR/index.html (cactus plot, answers
    /// per property, table of instances), as `knn report` does.
    #[arg(long, value_name = "DIR", requires = "instances")]
    report: Option<PathBuf>,
    /// With --report: another tool's results to show beside knn's (VNN-COMP results format or
    /// knn's); repeatable.
    #[arg(long = "compare", value_name = "NAME=RESULTS.csv", requires = "report")]
    compare: Vec<String>,
    /// Overwrite the results file (-o), the report's page (--report) or the image
    /// (--witness-image) if it exists.
    #[arg(long)]
    force: bool,
    /// Write the answer in the VNN-COMP results format (sat and the witness, unsat, timeout or
    /// unknown) to this file.
    #[arg(long, value_name = "FILE", conflicts_with = "instances")]
    results: Option<PathBuf>,
    /// When the answer is violated, draw the counterexample, the centre of the region and their
    /// difference (its L∞ size written on it) side by side in this PNG file. Nothing is written
    /// otherwise.
    #[arg(long, value_name = "FILE.png", conflicts_with = "instances")]
    witness_image: Option<PathBuf>,
    /// The image's shape for --witness-image: H×W (grey) or H×W×C (C = 1 or 3), the elements
    /// read channel first. Default: 784 elements are 28×28, 3072 are 32×32×3.
    #[arg(long, value_name = "H×W[×C]", value_parser = ImageShape::parse, requires = "witness_image")]
    image_shape: Option<ImageShape>,
    /// Bind another input of the program to fixed values: NAME=[…] or NAME=FILE.npy.
    #[arg(long = "input", value_name = "NAME=VALUE")]
    inputs: Vec<String>,
    /// The program's input that the box or property ranges over (default: its only free name).
    #[arg(long, value_name = "NAME")]
    input_name: Option<String>,
    /// The shape of that input, its elements those of the region in row-major order: `1,28,28`
    /// for a C×H×W image. Default: an imported network's own input shape, or a vector.
    #[arg(long, value_name = "D,D,…", value_parser = parse_shape, conflicts_with = "instances")]
    input_shape: Option<Shape>,
    /// Give up after this many seconds (answer: unknown, timeout). Per instance with
    /// --instances, where the list's own timeouts apply unless this is given.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    timeout: Option<f64>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// What branch and bound splits: input sides, the signs of unstable relus (then inputs),
    /// relus with the hidden bounds refined by relu splits from the start (auto and relus
    /// refine them once a search without has not ended), or auto (relus for networks with
    /// more than 16 inputs, else inputs).
    #[arg(long, value_enum, default_value_t = SplitChoice::Auto)]
    split: SplitChoice,
    /// How the region's bounds are read: as written (the binary64 points between the decimals
    /// as real numbers), or each as the binary64 number nearest it (as VNN-COMP's tools read
    /// VNN-LIB files).
    #[arg(long, value_enum, default_value_t = BoundsChoice::AsWritten)]
    bounds: BoundsChoice,
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
    /// Relus, with the whole box's hidden bounds refined by relu splits from the start.
    RefinedRelus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BoundsChoice {
    AsWritten,
    Nearest,
}

impl From<BoundsChoice> for Bounds {
    fn from(choice: BoundsChoice) -> Bounds {
        match choice {
            BoundsChoice::AsWritten => Bounds::AsWritten,
            BoundsChoice::Nearest => Bounds::Nearest,
        }
    }
}

impl From<SplitChoice> for Split {
    fn from(choice: SplitChoice) -> Split {
        match choice {
            SplitChoice::Auto => Split::Auto,
            SplitChoice::Inputs => Split::Inputs,
            SplitChoice::Relus => Split::Relus,
            SplitChoice::RefinedRelus => Split::RefinedRelus,
        }
    }
}

/// How `knn verify` prints its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VerifyFormat {
    Text,
    /// One JSON object (docs/cli.md).
    Json,
}

/// A tensor's shape (a newtype: clap reads a bare `Vec` as many values).
#[derive(Clone, Debug)]
pub struct Shape(Vec<usize>);

/// `D,D,…`: positive lengths, at most eight.
fn parse_shape(text: &str) -> Result<Shape, String> {
    let dims: Vec<usize> = text
        .split(',')
        .map(|d| d.trim().parse::<usize>().ok().filter(|&d| d > 0))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("`{text}`: expected positive lengths separated by commas, such as 1,28,28"))?;
    if dims.len() > 8 {
        return Err(format!("`{text}`: a tensor has at most 8 dimensions"));
    }
    Ok(Shape(dims))
}

/// With no --timeout, a single question gets this long.
const DEFAULT_TIMEOUT: f64 = 600.0;

pub fn verify(args: VerifyArgs) -> Exit {
    match run(&args) {
        Ok(exit) | Err(exit) => exit,
    }
}

fn run(args: &VerifyArgs) -> Result<Exit, Exit> {
    // The timeout counts from here: reading the property and loading the network count.
    let started = Instant::now();
    if let Some(threads) = args.threads {
        check_threads(threads).map_err(|e| usage(format!("--threads {threads}: {e}")))?;
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
        let inputs: Vec<&Path> = std::iter::once(list.as_path()).chain(args.out.as_deref()).collect();
        let report = args.report.as_deref().map(|dir| ReportRequest { dir, compare: &args.compare, inputs: &inputs });
        let run = verify_instances::ListRun {
            list,
            root: &root,
            out: args.out.as_deref(),
            force: args.force,
            timeout: timeout.map(Duration::from_secs_f64),
            threads: args.threads,
            bounds: args.bounds.into(),
            quiet: args.quiet,
            report,
        };
        return run.run();
    }
    let Some(net_path) = &args.net else {
        return Err(usage("name the network to verify (a .knn, .nnet or .onnx file), or pass --instances"));
    };
    let inputs: Vec<&Path> = std::iter::once(net_path.as_path()).chain(args.question.vnnlib.as_deref()).collect();
    if let Some(results) = &args.results {
        super::output::check_output(results, true, &inputs).map_err(usage)?;
    }
    if let Some(image) = &args.witness_image {
        if args.results.as_ref() == Some(image) {
            return Err(usage(format!("--results and --witness-image both name {}", image.display())));
        }
        super::output::check_output(image, args.force, &inputs).map_err(usage)?;
    }
    let fixed = parse_inputs(&args.inputs)?;
    let asked = question_of(&args.question)?;
    // The image's shape is checked before the search, which may take long.
    let image_shape = match &args.witness_image {
        Some(_) => {
            Some(ImageShape::resolve(args.image_shape, &[asked.input_len()], "the region's input").map_err(fail)?)
        }
        None => None,
    };
    let input_name = match (&asked.input_name, &args.input_name) {
        (Some(region), Some(flag)) if region != flag => {
            return Err(usage(format!("the region is over `{region}` but --input-name says `{flag}`")));
        }
        (region, flag) => region.clone().or(flag.clone()),
    };
    let program = load(net_path).map_err(fail)?;
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    });
    let mut on_progress = |case: usize, p: CaseProgress| {
        if let Some(bar) = &bar {
            bar.set_message(format!(
                "case {}: {} boxes, {:.1}% of the volume proved",
                case + 1,
                p.boxes,
                100.0 * p.proved_share
            ));
        }
    };
    let options = VerifyOptions {
        input_name,
        fixed,
        timeout: Some(Duration::from_secs_f64(timeout.unwrap_or(DEFAULT_TIMEOUT))),
        started: Some(started),
        threads: args.threads,
        split: args.split.into(),
        progress: Some(&mut on_progress),
        region_words: Some(asked.region_words.clone()),
        input_shape: args.input_shape.clone().map(|s| s.0).or_else(|| asked.input_shape.clone()),
        bounds_only: false,
        bounds: args.bounds.into(),
    };
    let report = program.verify(&asked.question, options).map_err(fail);
    // The process ends with the answer: the system frees the network at once, where dropping
    // its syntax tree node by node would delay the exit by a good part of a second.
    std::mem::forget(program);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let report = report?;
    if let Some(path) = &args.results {
        let text = results_text(&report.conclusion);
        super::output::write_file(path, true, |w| w.write_all(text.as_bytes())).map_err(usage)?;
    }
    let not_drawn = match (&args.witness_image, image_shape) {
        (Some(path), Some(shape)) => draw_witness(path, args.force, &report, &asked, shape)?,
        _ => None,
    };
    let exit = print_report(args.output, &report);
    if let Some(note) = not_drawn {
        eprintln!("{note}");
    }
    if let Some(note) = empty_region_note(&asked.question.with_bounds(args.bounds.into())) {
        eprintln!("{note}");
    }
    exit
}

/// Writes the counterexample's picture to `path`, or says why there is none.
fn draw_witness(
    path: &Path,
    force: bool,
    report: &Verification,
    asked: &Asked,
    shape: ImageShape,
) -> Result<Option<String>, Exit> {
    match witness_picture(report, asked, shape).map_err(fail)? {
        Some(picture) => {
            super::output::write_file(path, force, |w| picture.write_png(w)).map_err(usage)?;
            Ok(None)
        }
        None => Ok(Some(format!(
            "note: {} not written: there is no counterexample (the answer is {})",
            path.display(),
            answer_word(&report.conclusion)
        ))),
    }
}

/// Prints the verifier's report; its exit code is the answer's.
fn print_report(format: VerifyFormat, report: &Verification) -> Result<Exit, Exit> {
    match format {
        VerifyFormat::Json => outln!("{}", verification_json(report)),
        VerifyFormat::Text => {
            outln!("{}", verification_text(report));
            if let Some(note) = verification_note(report, std::io::stderr().is_terminal()) {
                eprint!("{note}");
            }
        }
    }
    Ok(report.exit())
}
