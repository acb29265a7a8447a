//! `knn search`: every distinct final state, as [`Program::search`](knn::Program::search)
//! reports them.

use super::program::{fail, parse_inputs, read_source};
use super::{Exit, OutputFormat, PriorityChoice, SearchArgs, stream_stdout};
use knn::render::{config_text, explain, search_json, status, value_text};
use knn::{Limit, Priorities, Program, Report, SearchOptions, limit_error};

pub fn search(args: SearchArgs) -> Exit {
    match search_program(&args) {
        Ok(exit) | Err(exit) => exit,
    }
}

fn search_program(args: &SearchArgs) -> Result<Exit, Exit> {
    let inputs = parse_inputs(&args.program.inputs)?;
    let program = Program::parse(read_source(&args.program.file)?, args.program.semantics.into()).map_err(fail)?;
    let priorities = match args.priorities {
        PriorityChoice::Krun => Priorities::Krun,
        PriorityChoice::FlatCooling => Priorities::FlatCooling,
    };
    let output = args.program.output;
    let options = SearchOptions { max_states: args.max_states, priorities };
    let searched =
        program.search(&inputs, options, output == OutputFormat::Json, output == OutputFormat::Config).map_err(fail)?;
    // A final value too large to print within the memory budget ends the search with a limit.
    let mut too_large = None;
    match output {
        OutputFormat::Json => {
            // Every report checked first, then the document streamed (issue 26).
            let document = search_json(&searched).map_err(fail)?;
            stream_stdout(|out| {
                serde_json::to_writer_pretty(&mut *out, &document).map_err(std::io::Error::from)?;
                out.write_all(b"\n")
            });
        }
        OutputFormat::Config => {
            for (n, f) in searched.finals.iter().enumerate() {
                outln!("Solution {}", n + 1);
                out!("{}", config_text(f).map_err(fail)?);
            }
        }
        OutputFormat::Value => {
            for (n, f) in searched.finals.iter().enumerate() {
                let line = match value_text(&f.answer) {
                    Ok(Some(text)) => format!("value {text}"),
                    Err(e) => {
                        too_large = e.too_large;
                        format!(
                            "a value too large to print: it {}",
                            e.too_large.map(|t| t.to_string()).unwrap_or_default()
                        )
                    }
                    Ok(None) => {
                        explain(&f.answer, false).unwrap_or_default().lines().next().unwrap_or_default().to_string()
                    }
                };
                outln!("solution {}: {line}", n + 1);
            }
        }
    }
    if output != OutputFormat::Json {
        eprintln!("{}; {} states explored", summary(&searched.finals), searched.states);
    }
    match searched.limit.or(too_large.map(Limit::Memory)) {
        Some(limit) => {
            if output != OutputFormat::Json {
                eprint!("{}", limit_error(limit).render(false));
            }
            Ok(Exit::Limit)
        }
        None => Ok(Exit::Result),
    }
}

/// The final states by kind, values first: `48 final states: 8 values (2 distinct), 40 stuck`.
/// Under the published rules most final states of a search are stuck paths `krun` never takes
/// (docs/semantics.md §2.10): the counts say so before the reader scrolls through them.
fn summary(finals: &[Report]) -> String {
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let count = |wanted: &str| finals.iter().filter(|f| status(&f.answer) == wanted).count();
    let mut values: Vec<String> = finals
        .iter()
        .filter(|f| status(&f.answer) == "done")
        .map(|f| match value_text(&f.answer) {
            Ok(text) => text.unwrap_or_default(),
            Err(e) => e.too_large.map(|t| t.to_string()).unwrap_or(e.message.clone()),
        })
        .collect();
    let value_count = values.len();
    values.sort();
    values.dedup();
    let mut kinds = Vec::new();
    if value_count > 0 {
        kinds.push(format!("{} ({} distinct)", plural(value_count, "value", "values"), values.len()));
    }
    for (status, one, many) in [("empty", "empty", "empty"), ("stuck", "stuck", "stuck"), ("error", "error", "errors")]
    {
        if count(status) > 0 {
            kinds.push(plural(count(status), one, many));
        }
    }
    let total = plural(finals.len(), "final state", "final states");
    if kinds.is_empty() { total } else { format!("{total}: {}", kinds.join(", ")) }
}
