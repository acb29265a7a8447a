//! What `knn verify`'s flags ask: a VNN-LIB property (`--vnnlib`), or a claim (`--claim`) on
//! a box (`--box`) or an L∞ ball (`--around`, `--eps`, `--clip`, `--row`), as a [`Question`]
//! for [`crate::api::Program::verify`]. Bounds are kept as written (decimal), not rounded.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use clap::Args;

use super::Exit;
use super::program::{fail, usage};
use crate::api::{KnnError, read_property};
use crate::data::npy::read_npy;
use crate::verify::Question;
use crate::verify::claim::{Claim, ball};
use crate::verify::property::{Constant, InputBox};

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

/// What the flags ask.
pub(super) struct Asked {
    pub question: Question,
    /// The input the region ranges over, when the flags name it (`--box NAME=…`).
    pub input_name: Option<String>,
    /// Where the region's length comes from, for messages (`--box gives 3 ranges`).
    pub region_words: String,
}

/// What the flags ask: a VNN-LIB property, or a claim on a box or a ball.
pub(super) fn question_of(args: &QuestionArgs) -> Result<Asked, Exit> {
    if let Some(path) = &args.vnnlib {
        let property = read_property(path).map_err(fail)?;
        let region_words = format!("{} declares {} inputs X_i", path.display(), property.inputs);
        return Ok(Asked { question: Question::Property(property), input_name: None, region_words });
    }
    let text = args.claim.as_deref().unwrap_or("argmax-stable");
    let claim = Claim::parse(text).map_err(|e| usage(format!("--claim {text}: {e}")))?;
    let (name, region, region_words) = if let Some(text) = &args.region {
        let (name, region) = parse_box(text).map_err(usage)?;
        let words = format!("--box gives {} ranges", region.len());
        (name, region, words)
    } else if let Some(text) = &args.around {
        let (name, centre) = parse_point(text, args.row).map_err(fail)?;
        let eps_text = args.eps.as_deref().unwrap_or_default();
        let eps = Constant::parse(eps_text).map_err(|e| usage(format!("--eps {eps_text}: {e}")))?;
        if eps.below < 0.0 || !eps.above.is_finite() {
            return Err(usage(format!("--eps {eps_text}: expected a non-negative decimal number")));
        }
        let clip =
            args.clip.as_deref().map(|c| parse_range(c).map_err(|e| usage(format!("--clip {c}: {e}")))).transpose()?;
        let words = format!("the centre given by --around has {} elements", centre.len());
        let region =
            ball(&centre, &eps, clip.as_ref().map(|(l, h)| (l, h))).map_err(|e| usage(format!("--around: {e}")))?;
        (name, region, words)
    } else {
        return Err(usage("say what to verify: --box, --around with --eps, --vnnlib, or --instances"));
    };
    Ok(Asked { question: Question::Class { region, claim }, input_name: Some(name), region_words })
}

/// `LO:HI` as two decimals with LO ≤ HI.
fn parse_range(text: &str) -> Result<(Constant, Constant), String> {
    let (lo, hi) = text.split_once(':').ok_or_else(|| format!("`{text}` is not a range LO:HI"))?;
    let (lo, hi) = (Constant::parse(lo.trim())?, Constant::parse(hi.trim())?);
    if lo.cmp_value(&hi) == Ordering::Greater {
        return Err(format!("`{text}` is empty: {lo} is above {hi}"));
    }
    Ok((lo, hi))
}

/// `NAME=LO:HI,LO:HI,…`.
fn parse_box(text: &str) -> Result<(String, InputBox), String> {
    let (name, ranges) = text.split_once('=').ok_or_else(|| format!("--box {text}: expected NAME=LO:HI,LO:HI,…"))?;
    let mut region = InputBox { lower: Vec::new(), upper: Vec::new() };
    for (k, range) in ranges.split(',').enumerate() {
        let (lo, hi) = parse_range(range.trim()).map_err(|e| format!("--box: element {k}: {e}"))?;
        region.lower.push(lo);
        region.upper.push(hi);
    }
    Ok((name.trim().to_string(), region))
}

/// `NAME=[v0, v1, …]` (decimals as written) or `NAME=POINTS.npy` (binary64 values).
fn parse_point(text: &str, row: Option<usize>) -> Result<(String, Vec<Constant>), KnnError> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| KnnError::usage(format!("--around {text}: expected NAME=[…] or NAME=POINTS.npy")))?;
    let value = value.trim();
    if let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        if let Some(r) = row {
            return Err(KnnError::usage(format!(
                "--row {r}: the centre is written out; --row picks a row of a .npy file"
            )));
        }
        let centre = list
            .split(',')
            .map(|t| Constant::parse(t.trim()).map_err(|e| KnnError::usage(format!("--around: {e}"))))
            .collect::<Result<Vec<Constant>, KnnError>>()?;
        return Ok((name.trim().to_string(), centre));
    }
    let array = read_npy(Path::new(value)).map_err(|e| match e.too_large {
        // A well-formed file larger than the memory budget is a limit (exit code 4).
        Some(too_large) => KnnError::memory(&format!("{value}:"), too_large),
        None => KnnError::usage(e.to_string()),
    })?;
    let data = match (array.shape.as_slice(), row) {
        ([_], None) => array.data,
        ([rows, cols], Some(r)) if r < *rows => array.data[r * cols..(r + 1) * cols].to_vec(),
        ([rows, _], Some(r)) => return Err(KnnError::usage(format!("--row {r}: {value} has {rows} rows"))),
        ([_, _], None) => return Err(KnnError::usage(format!("{value} is a matrix: pick the centre with --row"))),
        (shape, _) => {
            return Err(KnnError::usage(format!(
                "{value} has shape {shape:?}: expected a vector or a matrix of points"
            )));
        }
    };
    if let Some(k) = data.iter().position(|v| !v.is_finite()) {
        return Err(KnnError::usage(format!(
            "{value}: element {k} of the centre is {:?}, not a finite number",
            data[k]
        )));
    }
    Ok((name.trim().to_string(), data.into_iter().map(Constant::exact).collect()))
}
