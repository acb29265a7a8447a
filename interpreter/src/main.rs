//! `knn`: run, search and inspect K-NN programs.

use std::process::ExitCode;

fn main() -> ExitCode {
    knn_interpreter::cli::main().into()
}
