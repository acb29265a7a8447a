//! `knn`: the command line over the library's API (docs/architecture.md, "The `knn` command").
//! It names nothing but the API (`tests/one_door.rs`): what it adds is flags, printing and
//! files written atomically.

/// `println!` for results on standard output: a reader that closed the pipe early
/// (`knn run … | head`) is not an error, and a full disk is one with exit code 1, not a panic.
macro_rules! outln {
    ($($arg:tt)*) => { $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `print!` for results on standard output, as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::write_stdout(format_args!($($arg)*)) };
}

mod batch;
mod check;
mod coverage;
mod import;
pub mod output;
mod program;
mod report;
mod rules;
mod run;
mod search;
mod verify;
mod verify_flags;
mod verify_instances;

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use knn::{MAX_THREADS, check_threads};

pub use knn::Exit;

const EXAMPLES: &str = "\
Examples:
  knn run examples/argmax.knn
  knn run examples/linear.knn --semantics published --output config
  knn run net.knn --input x=[0.5,-1.0] --input W=weights.npy --output json
  knn run examples/tanh_rank2.knn --trace --coverage
  knn search examples/tanh_rank2.knn
  knn run examples/mlp.knn --engine big-step --input 'x=[1.0, -2.0, 0.5]'
  knn batch net.knn --input x=inputs.npy -o classes.npy
  knn import ACASXU_1_1.nnet -o acas.knn && knn batch acas.knn --input x=points.npy -o scores.npy
  knn import model.onnx -o net.knn --input-name x --output-name y
  knn rules --output json
  knn check net.knn
  knn verify examples/mlp.knn --box 'x=0.9:1.1,-2.1:-1.9,0.4:0.6' --claim argmax-stable
  knn verify ACASXU_1_1.nnet --vnnlib prop_1.vnnlib --timeout 116
  knn verify --instances data/acasxu/instances.csv -o results.csv
  knn verify --instances list.csv -o results.csv --report run/ --compare nnenum=nnenum.csv
  knn report results.csv --compare nnenum=nnenum.csv -o run/

Exit codes: 0 result (verify: holds), 1 usage or I/O error, 2 parse error, 3 stuck or run-time
error, 4 limit reached, 10 verify: violated, 11 verify: unknown.";

#[derive(Parser)]
#[command(
    name = "knn",
    version,
    about = "Run K-NN neural-network programs with the rules of the K definition",
    after_help = EXAMPLES
)]
pub struct Cli {
    /// The most memory one tensor, store, input file or report may take, in bytes (or with a
    /// suffix K, M, G, T: `512M`); a larger one stops knn with exit code 4. Default: half of
    /// the physical memory.
    #[arg(long, global = true, value_name = "BYTES", value_parser = knn::parse_size)]
    max_memory: Option<u64>,
    #[command(subcommand)]
    command: Command,
}

/// Parses `--threads N`: 1 to [`MAX_THREADS`] (the library's bound).
pub fn parse_threads(text: &str) -> Result<usize, String> {
    match text.trim().parse::<u128>() {
        Ok(n) if n <= MAX_THREADS as u128 && check_threads(n as usize).is_ok() => Ok(n as usize),
        Ok(_) => Err(format!("the number of threads must be between 1 and {MAX_THREADS}")),
        Err(_) => Err(format!("`{text}` is not a number of threads (1 to {MAX_THREADS})")),
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run a program to its result (the reference's result, on either engine).
    ///
    /// `--semantics revised` (the default) runs the patched rules, on the big-step engine unless
    /// an option needs the rewriting one; `--semantics published` runs the rules of k-nn.md
    /// exactly as krun does, choosing among rules as krun does, on the small-step engine.
    Run(RunArgs),
    /// Explore every rule choice and print every distinct final state (krun --search).
    Search(SearchArgs),
    /// List the rules of the definition: ID, kind, K source line, section.
    Rules(RulesArgs),
    /// Run a program over many inputs with the big-step engine: one input per row of a .npy file.
    Batch(batch::BatchArgs),
    /// Parse a program and report its errors without running it: syntax errors, and under the
    /// revised rules the static ones (unbound names, invalid let targets, aliased outputs).
    Check(CheckArgs),
    /// Run many programs and count how often each rule fires; list the rules that never do.
    Coverage(coverage::CoverageArgs),
    /// Turn a trained network (.nnet, or an ONNX MLP) into a K-NN program.
    Import(import::ImportArgs),
    /// Prove or refute a property of a network on a region of inputs: argmax claims on a box
    /// or a ball, VNN-LIB properties, VNN-COMP instance lists. Sound for the binary64 values
    /// the engine computes; every counterexample is replayed on the small-step reference.
    Verify(Box<verify::VerifyArgs>),
    /// Write the page of a benchmark run (DIR/index.html: cactus plot, answers per property,
    /// table of instances) from its results CSV, with other tools' results beside knn's.
    Report(report::ReportArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineChoice {
    /// The rewriting engine that mirrors the K rules (any semantics; traces, configurations).
    SmallStep,
    /// The big-step evaluator over dense tensors (revised semantics; bit-identical results).
    BigStep,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SemanticsChoice {
    /// The published rules with the patches Rev-0…Rev-13: deterministic, errors explicit.
    Revised,
    /// The rules of k-nn.md as published, quirks included (reproduces krun).
    Published,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The result alone.
    Value,
    /// The final configuration as krun prints it.
    Config,
    /// One JSON object (see docs/cli.md).
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PriorityChoice {
    /// krun's priority classes (cooling after everything else).
    Krun,
    /// llvm-backend >= 2023 search mode: cooling competes with every other rule.
    FlatCooling,
}

/// Options shared by `run` and `search`.
#[derive(Args)]
struct ProgramArgs {
    /// The program (`-` reads standard input).
    file: PathBuf,
    /// Which rule set.
    #[arg(long, value_enum, default_value_t = SemanticsChoice::Revised)]
    semantics: SemanticsChoice,
    /// Bind a tensor before the program runs: NAME=[1.0,2.0], NAME=[[1,2],[3,4]] or NAME=FILE.npy.
    #[arg(long = "input", value_name = "NAME=VALUE")]
    inputs: Vec<String>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = OutputFormat::Value)]
    output: OutputFormat,
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// Which engine runs the program. Default: big-step under the revised semantics, unless an
    /// option needs the rewriting engine (--output config, --trace, --coverage, --max-steps);
    /// small-step under the published semantics.
    #[arg(long, value_enum)]
    engine: Option<EngineChoice>,
    /// Stop after this many rewrite steps (exit code 4).
    #[arg(long, value_name = "N")]
    max_steps: Option<u64>,
    /// Print every rule applied, in order (on standard error, or in the JSON report).
    #[arg(long)]
    trace: bool,
    /// Print how often each rule fired (on standard error, or in the JSON report).
    #[arg(long)]
    coverage: bool,
    /// Big-step only: let the tensor kernels fuse multiply-adds (results may differ from the
    /// reference in the last bits).
    #[arg(long)]
    fast_math: bool,
    /// Draw an input as an image in this PNG file (the one --image-input names, else the only
    /// --input with an image's shape), as verify --witness-image draws a counterexample.
    #[arg(long, value_name = "FILE.png")]
    as_image: Option<PathBuf>,
    /// The image's shape for --as-image: H×W (grey) or H×W×C (C = 1 or 3), the elements read
    /// channel first. Default: 784 elements (or 28×28) are 28×28, 3072 are 32×32×3.
    #[arg(long, value_name = "H×W[×C]", value_parser = knn::ImageShape::parse, requires = "as_image")]
    image_shape: Option<knn::ImageShape>,
    /// The input that --as-image draws.
    #[arg(long, value_name = "NAME", requires = "as_image")]
    image_input: Option<String>,
    /// Overwrite the --as-image file if it exists.
    #[arg(long, requires = "as_image")]
    force: bool,
}

#[derive(Args)]
struct SearchArgs {
    #[command(flatten)]
    program: ProgramArgs,
    /// Stop after exploring this many distinct configurations (exit code 4).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_states: usize,
    /// How rules are grouped into priority classes while searching.
    #[arg(long, value_enum, default_value_t = PriorityChoice::Krun)]
    priorities: PriorityChoice,
}

#[derive(Args)]
struct RulesArgs {
    #[arg(long, value_enum, default_value_t = SemanticsChoice::Revised)]
    semantics: SemanticsChoice,
    /// `text` (a table) or `json`.
    #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
    output: RulesFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Text,
    Json,
}

#[derive(Args)]
struct CheckArgs {
    /// The program (`-` reads standard input).
    file: PathBuf,
    /// Names that `--input` will bind when the program runs.
    #[arg(long = "bound", value_name = "NAME")]
    bound: Vec<String>,
    #[arg(long, value_enum, default_value_t = SemanticsChoice::Revised)]
    semantics: SemanticsChoice,
}

fn main() -> std::process::ExitCode {
    run().into()
}

/// Parses the arguments and runs the command.
fn run() -> Exit {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => Exit::Result,
                _ => Exit::Usage,
            };
        }
    };
    if let Some(bytes) = cli.max_memory {
        knn::set_memory_budget(bytes);
    }
    output::remove_on_interrupt();
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Search(args) => search::search(args),
        Command::Rules(args) => rules::rules(args),
        Command::Batch(args) => batch::batch(args),
        Command::Check(args) => check::check(args),
        Command::Coverage(args) => coverage::coverage(args),
        Command::Import(args) => import::import(args),
        Command::Verify(args) => verify::verify(*args),
        Command::Report(args) => report::report(args),
    }
}

/// Whether the reader of standard output has gone (a broken pipe): the rest of the output is
/// dropped.
static READER_GONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes a result to standard output. Once the reader has gone (a broken pipe), the rest of
/// the output is dropped and the command ends with the exit code of its outcome; any other
/// write error ends the process with exit code 1.
pub(crate) fn write_stdout(text: std::fmt::Arguments) {
    stream_stdout(|out| out.write_fmt(text));
}

/// Streams a result to standard output through a buffer, as [`write_stdout`] writes it: a
/// report of hundreds of megabytes goes out as it is made, never whole in memory.
pub(crate) fn stream_stdout(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) {
    use std::sync::atomic::Ordering;
    if READER_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = write(&mut out).and_then(|()| out.flush());
    // What a failed write left in the buffer is dropped, not written again.
    let _ = out.into_parts();
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => READER_GONE.store(true, Ordering::Relaxed),
        Err(e) => {
            eprintln!("error: cannot write to standard output: {e}");
            std::process::exit(Exit::Usage as i32);
        }
    }
}

/// The profile a `--semantics` choice names.
fn profile_of(semantics: SemanticsChoice) -> &'static knn::Profile {
    knn::Semantics::from(semantics).profile()
}

impl From<SemanticsChoice> for knn::Semantics {
    fn from(semantics: SemanticsChoice) -> knn::Semantics {
        match semantics {
            SemanticsChoice::Revised => knn::Semantics::Revised,
            SemanticsChoice::Published => knn::Semantics::Published,
        }
    }
}
