//! `knn check`: parse and static checks only.

use super::program::{fail, read_source};
use super::{CheckArgs, Exit};
use knn::Program;

pub fn check(args: CheckArgs) -> Exit {
    let source = match read_source(&args.file) {
        Ok(source) => source,
        Err(exit) => return exit,
    };
    let bound: Vec<&str> = args.bound.iter().map(String::as_str).collect();
    let checked = Program::parse(source, args.semantics.into()).and_then(|p| p.check(&bound).map(|()| p));
    match checked {
        Ok(program) => {
            let profile = program.semantics().profile();
            eprintln!("{}: ok ({} nodes, {} semantics)", program.source().name, program.syntax().size(), profile.name);
            Exit::Result
        }
        Err(error) => fail(error),
    }
}
