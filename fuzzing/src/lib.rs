//! The entry functions of the fuzz targets (`fuzz/`, cargo-fuzz on a nightly toolchain): each
//! target's body is one call here, so that an ordinary test (`tests/fuzz_corpus.rs`) replays the
//! seeds and every input that once crashed through the same code on a stable toolchain.
//!
//! Each entry takes arbitrary bytes and returns whether the input was accepted (a value, a
//! program, a network…) or refused with an error. An error is a correct answer to bad input; a
//! panic (or an abort, or a hang) is a finding.

pub mod verify_exhaustive;

use std::path::Path;

use knn_semantics::Profile;
use knn_semantics::check::check_program;
use knn_semantics::engine::{Engine, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::memory;
use knn_semantics::syntax::diagnostic::render_report;
use knn_semantics::syntax::parse_program;

use knn::parse_input;
use knn_engine::bigstep::{BigStep, Staging};
use knn_engine::tensor::Precision;
use knn_formats::import::{Format, ImportOptions, emit::emit, import_bytes};
use knn_formats::npy::parse_npy;
use knn_verify::vnnlib::parse_vnnlib;

/// The memory budget under fuzzing: large enough for every seed, small enough that a program
/// asking for more is refused at once rather than slowly allocated.
pub const FUZZ_MEMORY: u64 = 64 << 20;

/// The small-step engine's step budget under fuzzing.
pub const FUZZ_STEPS: u64 = 200_000;

/// The name fuzzed programs may read as an input, and its value.
pub const FUZZ_INPUT: &str = "x";

/// Whether an entry accepted its input or refused it with an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handled {
    Accepted,
    Refused,
}

fn answer<T, E>(result: &Result<T, E>) -> Handled {
    if result.is_ok() { Handled::Accepted } else { Handled::Refused }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Parses the text under both grammars and runs the static checks (with [`FUZZ_INPUT`] bound),
/// rendering every diagnostic as `knn check` prints it. Accepted when the revised grammar
/// parses it and the checks pass.
pub fn parse_and_check(bytes: &[u8]) -> Handled {
    let source = text(bytes);
    let mut verdict = Handled::Refused;
    for profile in [Profile::published(), Profile::revised()] {
        match parse_program(&source, profile.grammar) {
            Err(e) => {
                let _ = e.render("fuzz.knn", &source, true);
            }
            Ok(program) => {
                let _ = format!("{program:?}");
                let errors = check_program(&program, &[FUZZ_INPUT]);
                for e in &errors {
                    let _ = render_report(
                        "fuzz.knn",
                        &source,
                        e.span,
                        &e.message,
                        e.kind.k_message(),
                        e.hint.as_deref(),
                        true,
                    );
                }
                if std::ptr::eq(profile, Profile::revised()) && errors.is_empty() {
                    verdict = Handled::Accepted;
                }
            }
        }
    }
    verdict
}

/// Parses and checks the text (revised grammar), then runs it on the small-step engine (a step
/// budget of [`FUZZ_STEPS`]) and on both big-step engines (direct and staged), with
/// [`FUZZ_INPUT`] bound to a vector of three and a memory budget of [`FUZZ_MEMORY`]. Runtime
/// errors are rendered with their place. Accepted when every engine gives a value.
pub fn run_engines(bytes: &[u8]) -> Handled {
    memory::set_budget(FUZZ_MEMORY);
    let source = text(bytes);
    let Ok(program) = parse_program(&source, Profile::revised().grammar) else { return Handled::Refused };
    if !check_program(&program, &[FUZZ_INPUT]).is_empty() {
        return Handled::Refused;
    }
    let inputs = [TensorInput { name: FUZZ_INPUT.into(), shape: vec![3], data: vec![1.0, -2.0, 0.5] }];
    let engines: [Box<dyn Engine>; 3] = [
        Box::new(SmallStep { profile: Profile::revised(), max_steps: Some(FUZZ_STEPS) }),
        Box::new(BigStep { staging: Staging::Direct, precision: Precision::Exact }),
        Box::new(BigStep { staging: Staging::Staged, precision: Precision::Exact }),
    ];
    let mut verdict = Handled::Accepted;
    for engine in engines {
        match engine.evaluate(&program, &inputs) {
            Ok(Verdict::Value(value)) => {
                let _ = format!("{value:?}");
            }
            Ok(Verdict::Error { kind, span, detail }) => {
                let _ = render_report("fuzz.knn", &source, span, &detail, kind.k_message(), None, false);
                verdict = Handled::Refused;
            }
            Ok(other) => {
                let _ = other.to_string();
                verdict = Handled::Refused;
            }
            Err(e) => {
                let _ = e.to_string();
                verdict = Handled::Refused;
            }
        }
    }
    verdict
}

/// Reads the bytes as a `.npy` file.
pub fn read_npy(bytes: &[u8]) -> Handled {
    memory::set_budget(FUZZ_MEMORY);
    let result = parse_npy(Path::new("fuzz.npy"), bytes);
    if let Err(e) = &result {
        let _ = e.to_string();
    }
    answer(&result)
}

fn import(bytes: &[u8], name: &str, format: Format, normalize: bool) -> Handled {
    memory::set_budget(FUZZ_MEMORY);
    let options = ImportOptions { normalize, ..ImportOptions::default() };
    let result = import_bytes(Path::new(name), bytes, format, &options);
    match &result {
        Ok(network) => {
            let _ = emit(network);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    answer(&result)
}

/// Imports the bytes as a `.nnet` file, with and without `--normalize`, and prints the program
/// of what it accepts. Accepted when the plain import is.
pub fn import_nnet(bytes: &[u8]) -> Handled {
    import(bytes, "fuzz.nnet", Format::Nnet, true);
    import(bytes, "fuzz.nnet", Format::Nnet, false)
}

/// Imports the bytes as an ONNX model and prints the program of what it accepts.
pub fn import_onnx(bytes: &[u8]) -> Handled {
    import(bytes, "fuzz.onnx", Format::Onnx, false)
}

/// Parses the text as a VNN-LIB property and renders the error of what it refuses.
pub fn vnnlib(bytes: &[u8]) -> Handled {
    let source = text(bytes);
    let result = parse_vnnlib(&source);
    if let Err(e) = &result {
        let _ = e.line_col(&source);
        let _ = e.render("fuzz.vnnlib", &source, true);
    }
    answer(&result)
}

pub use verify_exhaustive::verify_exhaustive;

/// Parses the text as the argument of `--input` in its inline form (`NAME=[…]`). Values that
/// are not a list in brackets name a `.npy` file, which this entry does not open (the file
/// reader has its own target): they are refused.
pub fn cli_input(bytes: &[u8]) -> Handled {
    memory::set_budget(FUZZ_MEMORY);
    let argument = text(bytes);
    let inline = argument.split_once('=').is_some_and(|(_, value)| value.trim().starts_with('['));
    if !inline {
        return Handled::Refused;
    }
    answer(&parse_input(&argument))
}
