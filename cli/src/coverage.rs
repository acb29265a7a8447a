//! `knn coverage PROGRAMS…`: runs many programs on the small-step engine and reports how often
//! each rule fired, summed over all of them, and the rules that never fired
//! ([`knn::coverage`]). A program the grammar rejects is reported and skipped (exit
//! code 2 at the end).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::program::parse_inputs;
use super::{Exit, RulesFormat, SemanticsChoice, profile_of};
use knn::coverage::{CoverageOptions, collect, expand};

#[derive(Args)]
pub struct CoverageArgs {
    /// The programs; a directory stands for every `.knn` file below it.
    #[arg(required = true, value_name = "PROGRAM")]
    programs: Vec<PathBuf>,
    /// Which rule set.
    #[arg(long, value_enum, default_value_t = SemanticsChoice::Revised)]
    semantics: SemanticsChoice,
    /// Bind a tensor in every program (as `run --input`). A program's own header lines
    /// `// input: NAME=VALUE` bind inputs too.
    #[arg(long = "input", value_name = "NAME=VALUE")]
    inputs: Vec<String>,
    /// Also count the rules `search` takes on every path (the published rules are
    /// nondeterministic: some rules fire only there).
    #[arg(long)]
    search: bool,
    /// With --search: stop exploring a program after this many distinct configurations.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_states: usize,
    /// Stop each run after this many rewrite steps.
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    max_steps: u64,
    /// `text` (counts, then the rules never fired) or `json`.
    #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
    output: RulesFormat,
}

pub fn coverage(args: CoverageArgs) -> Exit {
    let profile = profile_of(args.semantics);
    let inputs = match parse_inputs(&args.inputs) {
        Ok(inputs) => inputs,
        Err(exit) => return exit,
    };
    let files = match expand(&args.programs) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    let options = CoverageOptions { search: args.search.then_some(args.max_states), max_steps: args.max_steps };
    let collected = collect(&files, profile, &inputs, options);
    for details in collected.programs.iter().filter_map(|p| p.details.as_deref()) {
        eprint!("{details}");
    }
    let text = match args.output {
        RulesFormat::Json => serde_json::to_string_pretty(&collected.json()).unwrap_or_default() + "\n",
        RulesFormat::Text => collected.text(),
    };
    // A closed pipe (`knn coverage … | head`) is not an error.
    let _ = std::io::stdout().write_all(text.as_bytes());
    if collected.programs.iter().any(|p| p.status == "io-error") {
        Exit::Usage
    } else if collected.failed().next().is_some() {
        Exit::Parse
    } else {
        Exit::Result
    }
}
