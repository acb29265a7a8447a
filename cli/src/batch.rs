//! `knn batch`: one program, many inputs. The program is compiled once with the batched input
//! symbolic; the plan then runs on every row of the `.npy` file, in parallel.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressState, ProgressStyle};

use super::output::{Sink, check_output, write_target};
use super::program::{fail, parse_inputs, usage};
use super::{Exit, stream_stdout};
use knn::render::{batch_json, observed_text};
use knn::{BATCH_BLOCK, Batch, FloatType, KnnError, RowResult, load, read_array, results_array};

#[derive(Args)]
pub struct BatchArgs {
    /// The program (revised semantics).
    file: PathBuf,
    /// The batched input: NAME=INPUTS.npy, one input vector per row (a rank-2 array).
    #[arg(long = "input", value_name = "NAME=INPUTS.npy")]
    input: String,
    /// An input that is the same for every row: NAME=[…], NAME=[[…], …] or NAME=FILE.npy.
    #[arg(long = "bind", value_name = "NAME=VALUE")]
    bind: Vec<String>,
    /// Write the results to this .npy file (one row per input) instead of standard output
    /// (`-` writes the .npy bytes to standard output).
    #[arg(short = 'o', long = "out", value_name = "OUT.npy")]
    out: Option<PathBuf>,
    /// Overwrite OUT.npy if it exists.
    #[arg(long)]
    force: bool,
    /// The element type of Float results in OUT.npy (class indices are always int64).
    /// float32 rounds each result to nearest.
    #[arg(long, value_enum, default_value_t = Dtype::Float64)]
    dtype: Dtype,
    /// How results go to standard output (without -o).
    #[arg(long, value_enum, default_value_t = BatchFormat::Text)]
    output: BatchFormat,
    /// Let the tensor kernels fuse multiply-adds (results may differ in the last bits).
    #[arg(long)]
    fast_math: bool,
    /// Worker threads, 1 to 1024 (default: one per core).
    #[arg(long, value_name = "N", value_parser = super::parse_threads)]
    threads: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Dtype {
    Float64,
    Float32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BatchFormat {
    /// One line per row.
    Text,
    /// `{"rows": N, "results": [...]}`.
    Json,
}

/// Failed rows reported in full (with the source line); the next ones get a line each, up to
/// [`LISTED_FAILURES`]; the rest are counted.
const FULL_REPORTS: usize = 10;
const LISTED_FAILURES: usize = 50;

pub fn batch(args: BatchArgs) -> Exit {
    match run(&args) {
        Ok(exit) | Err(exit) => exit,
    }
}

fn run(args: &BatchArgs) -> Result<Exit, Exit> {
    if let Some(threads) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().map_err(usage)?;
    }
    let (name, path) = args
        .input
        .split_once('=')
        .ok_or_else(|| usage(format!("`--input {}`: expected NAME=INPUTS.npy", args.input)))?;
    if let Some(out) = args.out.as_deref().map(Sink::of)
        && let Sink::File(out) = &out
    {
        let mut inputs = vec![args.file.as_path(), std::path::Path::new(path)];
        inputs.extend(args.bind.iter().filter_map(|b| b.split_once('=')).map(|(_, v)| std::path::Path::new(v.trim())));
        check_output(out, args.force, &inputs).map_err(usage)?;
    }
    if !std::path::Path::new(path).exists() {
        // `x=[1.0, 2.0]` and `x=1.0` are `run`'s forms; a batch is a file of rows.
        return Err(usage(format!(
            "`--input {}`: a batch reads its inputs from a .npy file, one input per row, and there is no file `{path}` (one input: `knn run FILE --input {name}=[…]`)",
            args.input
        )));
    }
    let rows = read_array(path.as_ref()).map_err(fail)?;
    // One input per row: `(N, K)` for vectors, `(N, C, H, W)` for images.
    let (count, shape) = match rows.shape.split_first() {
        Some((&count, shape)) if !shape.is_empty() => (count, shape),
        _ => {
            return Err(usage(format!(
                "{path}: the inputs must be an array of rank 2 or more, one input per row (shape {:?})",
                rows.shape
            )));
        }
    };
    let width: usize = shape.iter().product();
    let fixed = parse_inputs(&args.bind)?;
    // A .nnet or ONNX network is imported as `knn import` does (without --normalize).
    let program = load(&args.file).map_err(fail)?;
    let batch = program.batch_of_shape(name, shape, &fixed).map_err(fail)?;
    let progress = (count > BATCH_BLOCK && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(count as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} rows {rate} eta {eta}")
                .map(|style| {
                    style.with_key("rate", |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                        let _ = write!(out, "{} rows/s", three_significant(state.per_sec()));
                    })
                })
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let row = |r: usize| &rows.data[r * width..(r + 1) * width];
    let results = batch
        .run_rows(count, row, args.fast_math, |done| {
            if let Some(bar) = &progress {
                bar.set_position(done as u64);
            }
        })
        .map_err(fail)?;
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    report(args, &batch, &results)
}

fn report(args: &BatchArgs, batch: &Batch, results: &[RowResult]) -> Result<Exit, Exit> {
    let failures = results.iter().filter(|r| r.is_err()).count();
    if args.out.is_some() || args.output == BatchFormat::Text {
        let failed = results.iter().enumerate().filter_map(|(row, r)| r.as_ref().err().map(|e| (row, e)));
        for (shown, (row, e)) in failed.enumerate() {
            match shown {
                _ if shown < FULL_REPORTS => {
                    eprint!("row {row}: {}", batch.error(e).render_for_stderr())
                }
                _ if shown < LISTED_FAILURES => eprintln!("row {row}: error: {}", e.kind),
                _ => {
                    eprintln!("… and {} more failed rows", failures - LISTED_FAILURES);
                    break;
                }
            }
        }
    }
    match &args.out {
        Some(out) => write_results(args, &Sink::of(out), results)?,
        None => match args.output {
            BatchFormat::Text => {
                for (row, result) in results.iter().enumerate() {
                    match result.as_ref().map(observed_text) {
                        Ok(Ok(text)) => outln!("{text}"),
                        Ok(Err(e)) => return Err(fail(KnnError::memory(&format!("printing row {row}"), e))),
                        Err(e) => outln!("error: {} (row {row})", e.kind),
                    }
                }
            }
            BatchFormat::Json => {
                // Written row by row as each report is made (issue 26).
                let document = batch_json(batch, results).map_err(fail)?;
                stream_stdout(|out| {
                    serde_json::to_writer_pretty(&mut *out, &document).map_err(std::io::Error::from)?;
                    out.write_all(b"\n")
                });
            }
        },
    }
    if failures > 0 {
        eprintln!("{failures} of {} rows failed", results.len());
        return Ok(Exit::NoValue);
    }
    Ok(Exit::Result)
}

/// One row per input ([`results_array`]), written whole or not at all.
fn write_results(args: &BatchArgs, out: &Sink, results: &[RowResult]) -> Result<(), Exit> {
    let array = results_array(results).map_err(fail)?;
    let floats = match args.dtype {
        Dtype::Float64 => FloatType::Float64,
        Dtype::Float32 => FloatType::Float32,
    };
    write_target(out, args.force, |w| array.write_npy(w, floats)).map_err(usage)
}

/// A rate to 3 significant digits with an SI prefix: `1.23M`, `45.6k`, `789`, `0.512`. The
/// progress bar's own `{per_sec}` prints every digit of an estimate that changes each redraw.
fn three_significant(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        return "0".to_string();
    }
    let (scaled, prefix) = [(1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|&(unit, _)| x >= unit * 0.9995)
        .map_or((x, ""), |(unit, prefix)| (x / unit, prefix));
    // Digits after the point so that three are significant; counted again after rounding,
    // which may carry into one more digit before the point (99.96 is `100`, not `100.0`).
    let digits = |v: f64| (2 - v.log10().floor() as i64).max(0) as usize;
    let rounded = format!("{scaled:.*}", digits(scaled));
    let value: f64 = rounded.parse().unwrap_or(scaled);
    format!("{value:.*}{prefix}", digits(value))
}

#[cfg(test)]
mod tests {
    use super::three_significant;

    #[test]
    fn rates_have_three_significant_digits() {
        let cases = [
            (1_234_567.8, "1.23M"),
            (45_678.9, "45.7k"),
            (789.4, "789"),
            (999.4, "999"),
            (999.6, "1.00k"),
            (99.96, "100"),
            (9.9996, "10.0"),
            (12.0, "12.0"),
            (0.512_34, "0.512"),
            (3.2e9, "3.20G"),
            (0.0, "0"),
            (f64::NAN, "0"),
        ];
        for (rate, expected) in cases {
            assert_eq!(three_significant(rate), expected, "{rate}");
        }
    }
}
