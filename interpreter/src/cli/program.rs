//! Reading, parsing and binding a program: what `run`, `search` and `check` share.

use std::io::{IsTerminal, Read};
use std::path::Path;

use knn_semantics::Config;
use knn_semantics::Profile;
use knn_semantics::inputs::{TensorInput, initial_config};
use knn_semantics::syntax::{Exp, parse_program};
use knn_semantics::term::term_of_program;

use super::{Exit, ProgramArgs, inputs::parse_input};

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

/// Parses with the profile's grammar; prints the diagnostic on failure.
pub fn parse(source: &Source, profile: &Profile) -> Result<Exp, Exit> {
    parse_program(&source.text, profile.grammar).map_err(|e| {
        eprint!("{}", e.render(&source.name, &source.text, std::io::stderr().is_terminal()));
        Exit::Parse
    })
}

/// Reads, parses and binds the inputs: the source and the initial configuration.
pub fn load(args: &ProgramArgs, profile: &'static Profile) -> Result<(Source, Config), Exit> {
    let inputs =
        args.inputs.iter().map(|a| parse_input(a)).collect::<Result<Vec<TensorInput>, String>>().map_err(|e| {
            eprintln!("error: {e}");
            Exit::Usage
        })?;
    let source = read_source(&args.file)?;
    let program = parse(&source, profile)?;
    let config = initial_config(profile, term_of_program(&program), &inputs).map_err(|e| {
        eprintln!("error: {e}");
        Exit::Usage
    })?;
    Ok((source, config))
}
