//! `knn import MODEL -o NET.knn`: a trained network (`.nnet`, ONNX) as a revised K-NN program.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::Exit;
use super::output::{Sink, check_output, write_target};
use super::program::{fail, usage};
use knn::{Format, ImportOptions, Semantics, import_model};

#[derive(Args)]
pub struct ImportArgs {
    /// The model: a .nnet file or an ONNX model (.onnx).
    model: PathBuf,
    /// Where to write the program (`-` for standard output).
    #[arg(short = 'o', long = "out", value_name = "NET.knn")]
    out: PathBuf,
    /// Overwrite NET.knn if it exists.
    #[arg(long)]
    force: bool,
    /// The model's format, when its extension does not say.
    #[arg(long, value_enum)]
    format: Option<FormatChoice>,
    /// .nnet only: take raw inputs (clipped to the file's min/max, scaled by its mean/range) and
    /// give raw outputs (scaled back). Without it the program is the network as trained: inputs
    /// and outputs normalised.
    #[arg(long)]
    normalize: bool,
    /// Name the program's input tensor (default: `x` for .nnet, the graph's input for ONNX).
    #[arg(long, value_name = "NAME")]
    input_name: Option<String>,
    /// Name the program's result tensor (default: `y` for .nnet, the graph's output for ONNX).
    #[arg(long, value_name = "NAME")]
    output_name: Option<String>,
    /// Refuse a model that holds NaN or infinite weights or constants (a `.nnet` range of 0
    /// included), instead of warning about it.
    #[arg(long)]
    strict: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatChoice {
    Nnet,
    Onnx,
}

pub fn import(args: ImportArgs) -> Exit {
    match run(&args) {
        Ok(exit) | Err(exit) => exit,
    }
}

fn run(args: &ImportArgs) -> Result<Exit, Exit> {
    let target = Sink::of(&args.out);
    if let Sink::File(out) = &target {
        check_output(out, args.force, &[&args.model]).map_err(usage)?;
    }
    let options = ImportOptions {
        normalize: args.normalize,
        input_name: args.input_name.clone(),
        output_name: args.output_name.clone(),
    };
    let format = args.format.map(|f| match f {
        FormatChoice::Nnet => Format::Nnet,
        FormatChoice::Onnx => Format::Onnx,
    });
    let imported = import_model(&args.model, format, &options).map_err(fail)?;
    let suspicious = imported.suspicious_values();
    for finding in &suspicious {
        let level = if args.strict { "error" } else { "warning" };
        eprintln!("{level}: {}: {finding}", args.model.display());
    }
    if args.strict && !suspicious.is_empty() {
        eprintln!(
            "error: {}: refused (--strict): the network's outputs would be NaN or infinite",
            args.model.display()
        );
        return Err(Exit::Usage);
    }
    // The program must check under the revised rules with only its input bound; if it does
    // not, that is a bug of the importer, reported as the error it is. What is checked is the
    // program as built in memory (the text with each literal `[…]`, the weights as data, which
    // the network shares): the whole text, about 20 bytes a parameter, is never held.
    let network = &imported.network;
    let program = imported.program(format!("{} (imported)", args.out.display()), Semantics::Revised).map_err(fail)?;
    program.check(&[network.input.as_str()]).map_err(fail)?;
    write_target(&target, args.force, |w| imported.write_program(w)).map_err(usage)?;
    if target != Sink::Stdout {
        let sizes: Vec<String> = network
            .layer_shapes()
            .iter()
            .map(|s| s.iter().map(usize::to_string).collect::<Vec<_>>().join("×"))
            .collect();
        eprintln!(
            "wrote {}: {} ({} parameters); input `{}`, result `{}`",
            args.out.display(),
            sizes.join(" -> "),
            network.parameter_count(),
            network.input,
            network.output
        );
    }
    Ok(Exit::Result)
}
