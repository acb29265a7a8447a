//! The network `knn verify` works on: a .knn program read, or a .nnet/.onnx network imported,
//! its input found, and the [`Target`] compiled for a region of a given length, with the
//! difference between what the verifier cannot bound (the answer is `unknown`) and a region
//! that does not fit the network (a usage error).

use std::io::IsTerminal;
use std::path::Path;

use knn_semantics::Profile;
use knn_semantics::check::check_program;
use knn_semantics::errors::ErrorKind;
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::{Exp, Span, parse_program};

use super::Exit;
use super::program::usage;
use super::program::{Source, parse, read_source};
use crate::bigstep::ops::Op;
use crate::bigstep::{Binding, compile};
use crate::import::{ImportOptions, emit::emit, import_file};
use crate::verify::Target;
use crate::verify::network::Unsupported;

/// A network ready for [`Target::new`]: its program, source and input.
pub(super) struct LoadedNetwork {
    pub source: Source,
    pub program: Exp,
    pub input_name: String,
    /// The input's length, when the network file says it (.nnet, ONNX).
    pub input_len: Option<usize>,
    pub fixed: Vec<TensorInput>,
}

/// Why a loaded network cannot be verified as asked.
pub(super) enum NotVerifiable {
    /// The verifier cannot bound this program: the answer is `unknown`.
    Unsupported(Unsupported),
    /// The region does not fit the network, or the program fails on every input of that
    /// length: a usage error, with the place in the program when there is one (the message
    /// names the file when there is none).
    Mismatch(String, Option<Span>),
}

/// Reads a .knn program, or imports a .nnet/.onnx network, and finds the input to range over.
pub(super) fn load_network(
    path: &Path,
    input_name: Option<&str>,
    fixed: Vec<TensorInput>,
) -> Result<LoadedNetwork, Exit> {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    let (source, imported) = if extension == "nnet" || extension == "onnx" {
        let network = import_file(path, None, &ImportOptions::default()).map_err(usage)?;
        let text = emit(&network);
        (Source { name: path.display().to_string(), text }, Some((network.input.clone(), network.input_len)))
    } else {
        (read_source(path)?, None)
    };
    if let (Some(asked), Some((name, _))) = (input_name, &imported)
        && asked != name
    {
        return Err(usage(format!("{}: the network's input is `{name}`, not `{asked}`", source.name)));
    }
    let profile = Profile::revised();
    let bound: Vec<&str> = fixed.iter().map(|t| t.name.as_str()).collect();
    let input_name = match input_name.map(str::to_string).or(imported.as_ref().map(|(name, _)| name.clone())) {
        Some(name) => name,
        None => free_input(&source, profile, &bound)?,
    };
    let mut all_bound = bound.clone();
    all_bound.push(&input_name);
    let program = parse(&source, super::Semantics::Revised, &all_bound)?;
    Ok(LoadedNetwork { source, program, input_name, input_len: imported.map(|(_, len)| len), fixed })
}

/// Compiles `loaded` for an input of `input_len` elements; `region` says where that length
/// comes from ("the box has 3 ranges"), for the message when it does not fit.
pub(super) fn prepare_target(loaded: &LoadedNetwork, input_len: usize, region: &str) -> Result<Target, NotVerifiable> {
    let name = &loaded.input_name;
    if let Some(expected) = loaded.input_len
        && expected != input_len
    {
        return Err(NotVerifiable::Mismatch(
            format!("{}: the network's input `{name}` has {expected} elements, but {region}", loaded.source.name),
            None,
        ));
    }
    Target::new(loaded.program.clone(), name, vec![input_len], loaded.fixed.clone()).map_err(|unsupported| {
        match failure_on_every_input(loaded, input_len) {
            Some((detail, span)) => NotVerifiable::Mismatch(
                format!("the program fails on every input `{name}` of {input_len} elements ({region}): {detail}"),
                Some(span),
            ),
            None => NotVerifiable::Unsupported(unsupported),
        }
    })
}

/// The error the program raises whatever the values of its input (of `input_len` elements):
/// the compiled plan fails before it reads them, typically on a shape that does not fit.
fn failure_on_every_input(loaded: &LoadedNetwork, input_len: usize) -> Option<(String, Span)> {
    let bindings = Binding::with_open_input(&loaded.fixed, &loaded.input_name, vec![input_len]);
    let plan = compile(&loaded.program, &bindings);
    plan.ops.iter().find_map(|op| match op {
        Op::Raise { error } => Some((error.detail.to_string(), error.span)),
        _ => None,
    })
}

/// The program's only free name (besides the fixed inputs).
fn free_input(source: &Source, profile: &Profile, bound: &[&str]) -> Result<String, Exit> {
    let program = parse_program(&source.text, profile.grammar).map_err(|e| {
        eprint!("{}", e.render(&source.name, &source.text, std::io::stderr().is_terminal()));
        Exit::Parse
    })?;
    let mut free: Vec<String> = check_program(&program, bound)
        .into_iter()
        .filter(|e| e.kind == ErrorKind::UnboundIdentifier)
        .filter_map(|e| source.text.get(e.span.start as usize..e.span.end as usize).map(str::to_string))
        .collect();
    free.sort();
    free.dedup();
    match free.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(usage(format!("{}: the program has no free input to verify over", source.name))),
        many => Err(usage(format!(
            "{}: the program has several free inputs ({}): name the one to verify over with --input-name and bind the others with --input",
            source.name,
            many.join(", ")
        ))),
    }
}
