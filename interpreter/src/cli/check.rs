//! `knn check`: parse only.

use super::program::{parse, read_source};
use super::{CheckArgs, Exit, profile_of};

pub fn check(args: CheckArgs) -> Exit {
    let profile = profile_of(args.semantics);
    let source = match read_source(&args.file) {
        Ok(source) => source,
        Err(exit) => return exit,
    };
    let bound: Vec<&str> = args.bound.iter().map(String::as_str).collect();
    match parse(&source, profile, &bound) {
        Ok(program) => {
            eprintln!("{}: ok ({} nodes, {} semantics)", source.name, program.size(), profile.name);
            Exit::Result
        }
        Err(exit) => exit,
    }
}
