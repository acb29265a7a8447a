//! `knn run`: the library's loader and [`Program::run`](knn::Program::run), rendered.

use std::io::IsTerminal;

use super::program::{fail, parse_inputs, usage};
use super::stream_stdout;
use super::{EngineChoice, Exit, OutputFormat, RunArgs};
use knn::render::{check_report_json, config_text, explain, step_text, value_display, write_report_json};
use knn::{Coverage, ImportOptions};
use knn::{EngineKind, RunOptions, input_picture, load_with};

pub fn run(args: RunArgs) -> Exit {
    match run_program(&args) {
        Ok(exit) | Err(exit) => exit,
    }
}

fn run_program(args: &RunArgs) -> Result<Exit, Exit> {
    let output = args.program.output;
    let semantics = knn::Semantics::from(args.program.semantics);
    let options = RunOptions {
        engine: args.engine.map(|engine| match engine {
            EngineChoice::SmallStep => EngineKind::SmallStep,
            EngineChoice::BigStep => EngineKind::BigStep,
        }),
        max_steps: args.max_steps,
        trace: args.trace,
        config: output == OutputFormat::Config,
        coverage: args.coverage,
        observables: output == OutputFormat::Json,
        fast_math: args.fast_math,
    };
    // Options the engine cannot honour are refused before any file is read.
    options.check(semantics).map_err(fail)?;
    let inputs = parse_inputs(&args.program.inputs)?;
    // The picture is drawn before the program runs (its errors are the command line's), and
    // written once it has run, whatever its answer.
    let picture = match &args.as_image {
        Some(path) => {
            super::output::check_output(path, args.force, &[&args.program.file]).map_err(usage)?;
            Some((path, input_picture(&inputs, args.image_input.as_deref(), args.image_shape).map_err(fail)?))
        }
        None => None,
    };
    // A .nnet or ONNX network is imported as `knn import` does (without --normalize).
    let program = load_with(&args.program.file, semantics, &ImportOptions::default()).map_err(fail)?;
    let report = program.run(&inputs, &options).map_err(fail)?;
    if let Some((path, picture)) = picture {
        super::output::write_file(path, args.force, |w| picture.write_png(w)).map_err(usage)?;
    }
    match output {
        OutputFormat::Value => {
            if let Some(text) = value_display(&report.answer).map_err(fail)? {
                outln!("{text}");
            }
        }
        OutputFormat::Config => out!("{}", config_text(&report).map_err(fail)?),
        OutputFormat::Json => {
            // Checked first, then streamed: nothing is printed of a report that is refused.
            check_report_json(&report).map_err(fail)?;
            stream_stdout(|out| {
                write_report_json(&report, out)?;
                out.write_all(b"\n")
            });
            return Ok(report.exit());
        }
    }
    if let Some(trace) = &report.trace {
        for (n, step) in trace.iter().enumerate() {
            eprintln!("{}", step_text(n + 1, step));
        }
    }
    if args.coverage
        && let Some(coverage) = &report.coverage
    {
        print_coverage(coverage);
    }
    if let Some(message) = explain(&report.answer, std::io::stderr().is_terminal()) {
        eprint!("{message}");
    }
    Ok(report.exit())
}

/// Per-rule counts and the rules that never fired, on standard error.
pub fn print_coverage(coverage: &Coverage) {
    eprintln!("rule coverage ({} firings):", coverage.total());
    for (rule, n) in coverage.fired() {
        eprintln!("  {n:>8}  {}", rule.id);
    }
    let never: Vec<&str> = coverage.never_fired().map(|r| r.id).collect();
    eprintln!("  never fired ({}): {}", never.len(), never.join(", "));
}
