//! Reading, parsing and binding a program: what `run`, `search` and `check` share.

use std::io::{IsTerminal, Read};
use std::path::Path;

use knn_semantics::Config;
use knn_semantics::Profile;
use knn_semantics::check::check_program;
use knn_semantics::inputs::{TensorInput, initial_config};
use knn_semantics::memory::MEMORY_LIMIT_HINT;
use knn_semantics::syntax::diagnostic::{escape_controls, render_report};
use knn_semantics::syntax::{Exp, parse_program};
use knn_semantics::term::term_of_program;

use super::{Exit, ProgramArgs, inputs::parse_input};

/// Static errors reported in full; the rest are counted.
pub const MAX_DIAGNOSTICS: usize = 50;

/// A program's text and where it came from.
pub struct Source {
    pub name: String,
    pub text: String,
}

pub fn read_source(path: &Path) -> Result<Source, Exit> {
    let stdin = path.as_os_str() == "-";
    let name = if stdin { "<stdin>".to_string() } else { path.display().to_string() };
    let text = if stdin {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map(|_| text)
    } else {
        std::fs::read_to_string(path)
    };
    match text {
        Ok(text) => Ok(Source { name, text }),
        Err(e) => {
            eprintln!("error: cannot read {name}: {e}");
            Err(Exit::Usage)
        }
    }
}

/// Parses with the profile's grammar and runs its static checks (`bound`: the names bound by
/// `--input`); prints every diagnostic on failure.
pub fn parse(source: &Source, profile: &Profile, bound: &[&str]) -> Result<Exp, Exit> {
    let color = std::io::stderr().is_terminal();
    let program = parse_program(&source.text, profile.grammar).map_err(|e| {
        eprint!("{}", e.render(&source.name, &source.text, color));
        Exit::Parse
    })?;
    if profile.static_checks {
        let errors = check_program(&program, bound);
        // The first errors in full, then a count: a program with thousands of mistakes gets a
        // screenful, not a report per mistake (each with its source line).
        for e in errors.iter().take(MAX_DIAGNOSTICS) {
            let message = format!("{} [{}]", e.message, e.kind);
            eprint!(
                "{}",
                render_report(
                    &source.name,
                    &source.text,
                    e.span,
                    &message,
                    e.kind.k_message(),
                    e.hint.as_deref(),
                    color
                )
            );
        }
        if errors.len() > MAX_DIAGNOSTICS {
            eprintln!("… and {} more errors ({} in all)", errors.len() - MAX_DIAGNOSTICS, errors.len());
        }
        if !errors.is_empty() {
            return Err(Exit::Parse);
        }
    }
    Ok(program)
}

/// A program ready to run: its source, its syntax tree and its inputs.
pub struct Loaded {
    pub source: Source,
    pub program: Exp,
    pub inputs: Vec<TensorInput>,
}

/// Parses `--input` arguments; prints the error.
pub fn parse_inputs(arguments: &[String]) -> Result<Vec<TensorInput>, Exit> {
    arguments.iter().map(|a| parse_input(a)).collect::<Result<Vec<TensorInput>, String>>().map_err(|e| {
        eprintln!("error: {}", escape_controls(&e));
        // A well-formed file too large for the memory budget is a limit, not a usage error.
        if e.contains(MEMORY_LIMIT_HINT) { Exit::Limit } else { Exit::Usage }
    })
}

/// Reads and parses the program (with the profile's static checks) and its inputs.
pub fn load_program(args: &ProgramArgs, profile: &'static Profile) -> Result<Loaded, Exit> {
    let inputs = parse_inputs(&args.inputs)?;
    let source = read_source(&args.file)?;
    let bound: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
    let program = parse(&source, profile, &bound)?;
    Ok(Loaded { source, program, inputs })
}

/// Reads, parses and binds the inputs: the source and the initial configuration.
pub fn load(args: &ProgramArgs, profile: &'static Profile) -> Result<(Source, Config), Exit> {
    let Loaded { source, program, inputs } = load_program(args, profile)?;
    let config = initial_config(profile, term_of_program(&program), &inputs).map_err(|e| {
        eprintln!("error: {e}");
        Exit::Usage
    })?;
    Ok((source, config))
}
