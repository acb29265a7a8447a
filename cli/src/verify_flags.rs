//! What `knn verify`'s flags ask: a VNN-LIB property (`--vnnlib`), or a claim (`--claim`) on
//! a box (`--box`) or an L∞ ball (`--around`, `--eps`, `--clip`, `--row`), as a question
//! for [`knn::Program::verify`], read by [`QuestionText::ask`].

use std::path::PathBuf;

use clap::Args;

use super::Exit;
use super::program::fail;
use knn::{Asked, QuestionText};

/// The flags that say what to verify.
#[derive(Args)]
pub struct QuestionArgs {
    /// The input box: NAME=LO:HI,LO:HI,… one range per element of the input vector.
    #[arg(long = "box", value_name = "NAME=LO:HI,…", conflicts_with_all = ["around", "vnnlib", "instances"])]
    pub(super) region: Option<String>,
    /// The centre of an L∞ ball (with --eps): NAME=[v0, v1, …] or NAME=POINTS.npy (a vector,
    /// or with --row one row of a matrix).
    #[arg(long, value_name = "NAME=POINT", requires = "eps", conflicts_with_all = ["vnnlib", "instances"])]
    pub(super) around: Option<String>,
    /// The radius of the ball around --around.
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    pub(super) eps: Option<String>,
    /// Cut the ball to this range in every element (e.g. 0:1 for pixel values).
    #[arg(long, value_name = "LO:HI", requires = "around", allow_hyphen_values = true)]
    pub(super) clip: Option<String>,
    /// The row of POINTS.npy to take as the centre.
    #[arg(long, value_name = "ROW", requires = "around")]
    pub(super) row: Option<usize>,
    /// What is claimed on the box or ball: argmax=K, argmax!=K, or argmax-stable (one class on
    /// the whole region, reported with the class). Default: argmax-stable.
    #[arg(long, value_name = "CLAIM", conflicts_with_all = ["vnnlib", "instances"])]
    pub(super) claim: Option<String>,
    /// A VNN-LIB property: X_i is element i of the input, Y_i of the result vector.
    #[arg(long, value_name = "PROP.vnnlib", conflicts_with = "instances")]
    pub(super) vnnlib: Option<PathBuf>,
}

/// What the flags ask: a VNN-LIB property, or a claim on a box or a ball; prints the error.
pub(super) fn question_of(args: &QuestionArgs) -> Result<Asked, Exit> {
    let text = QuestionText {
        region: args.region.clone(),
        around: args.around.clone(),
        eps: args.eps.clone(),
        clip: args.clip.clone(),
        row: args.row,
        claim: args.claim.clone(),
        vnnlib: args.vnnlib.clone(),
    };
    text.ask().map_err(fail)
}
