//! What to verify as a user writes it: a VNN-LIB property, or a claim on a box or an L∞ ball,
//! each given as text (docs/cli.md, "knn verify"). `knn verify`'s flags fill a
//! [`QuestionText`]; so do the fuzzers, which must mean by a region what a command line means.
//! Bounds are kept as written (decimal), not rounded.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use super::arrays::read_array;
use super::error::KnnError;
use super::inputs::parse_nested_texts;
use super::verify::read_property;
use knn_verify::Question;
use knn_verify::claim::{Claim, ball};
use knn_verify::property::{Constant, InputBox};

/// The text of a question: at most one of `region`, `around` (with `eps`) and `vnnlib`.
#[derive(Clone, Debug, Default)]
pub struct QuestionText {
    /// The input box: `NAME=LO:HI,LO:HI,…`, one range per element of the input vector.
    pub region: Option<String>,
    /// The centre of an L∞ ball: `NAME=[v0, v1, …]` or `NAME=POINTS.npy` (a vector, or with
    /// `row` one row of a matrix).
    pub around: Option<String>,
    /// The radius of the ball around `around`.
    pub eps: Option<String>,
    /// `LO:HI`: the ball cut to this range in every element.
    pub clip: Option<String>,
    /// The row of `POINTS.npy` to take as the centre.
    pub row: Option<usize>,
    /// `argmax=K`, `argmax!=K` or `argmax-stable` (the default).
    pub claim: Option<String>,
    /// A VNN-LIB property file.
    pub vnnlib: Option<PathBuf>,
}

/// A question read from its text.
#[derive(Debug)]
pub struct Asked {
    pub question: Question,
    /// The input the region ranges over, when the text names it (`NAME=…`).
    pub input_name: Option<String>,
    /// Where the region's length comes from, for messages (`--box gives 3 ranges`).
    pub region_words: String,
    /// The centre of an L∞ ball (`around`), each element the binary64 value nearest to it as
    /// written: not the midpoint of the region where the clip cuts the ball.
    pub centre: Option<Vec<f64>>,
    /// The shape of the input, when the text gives one beyond a vector (a centre written as
    /// nested lists, `x=[[[…]]]`, or a `.npy` image of rank 3 or more).
    pub input_shape: Option<Vec<usize>>,
}

impl Asked {
    /// The number of elements of the input the region ranges over.
    pub fn input_len(&self) -> usize {
        match &self.question {
            Question::Property(property) => property.inputs,
            Question::Class { region, .. } => region.len(),
        }
    }

    /// The centre of the region: the ball's, or the midpoint of the box (the box of `case`,
    /// for a property). Where a side of the box is unbounded there is no midpoint: the element
    /// is `fallback`'s (a counterexample's, which then differs from the centre by 0 there).
    pub fn centre(&self, case: usize, fallback: &[f64]) -> Vec<f64> {
        if let Some(centre) = &self.centre {
            return centre.clone();
        }
        let region = match &self.question {
            Question::Property(property) => property.cases.get(case).map(|c| &c.input),
            Question::Class { region, .. } => Some(region),
        };
        let Some(region) = region else { return fallback.to_vec() };
        (region.lower.iter().zip(&region.upper).enumerate())
            .map(|(k, (lo, hi))| {
                let (lo, hi) = (nearest(lo), nearest(hi));
                // Halved first: the sum of two large ends may overflow.
                let middle = lo / 2.0 + hi / 2.0;
                if middle.is_finite() { middle } else { fallback.get(k).copied().unwrap_or(middle) }
            })
            .collect()
    }
}

/// The binary64 value nearest to a constant as written (its text is a decimal, or a binary64
/// value printed exactly).
fn nearest(constant: &Constant) -> f64 {
    constant.text.parse().unwrap_or(constant.below / 2.0 + constant.above / 2.0)
}

impl QuestionText {
    /// The question: a VNN-LIB property, or a claim on a box or a ball. Errors are usage errors
    /// naming the flag (`--eps 0.x: …`), except a `.npy` centre beyond the memory budget, a
    /// limit, and an unreadable property file.
    pub fn ask(&self) -> Result<Asked, KnnError> {
        if let Some(path) = &self.vnnlib {
            let property = read_property(path)?;
            let region_words = format!("{} declares {} inputs X_i", path.display(), property.inputs);
            let question = Question::Property(property);
            return Ok(Asked { question, input_name: None, region_words, centre: None, input_shape: None });
        }
        let usage = |message: String| KnnError::usage(message);
        let text = self.claim.as_deref().unwrap_or("argmax-stable");
        let claim = Claim::parse(text).map_err(|e| usage(format!("--claim {text}: {e}")))?;
        let (name, region, region_words, centre, input_shape) = if let Some(text) = &self.region {
            let (name, region) = parse_box(text).map_err(usage)?;
            let words = format!("--box gives {} ranges", region.len());
            (name, region, words, None, None)
        } else if let Some(text) = &self.around {
            let (name, centre, shape) = parse_point(text, self.row)?;
            let eps_text = self.eps.as_deref().unwrap_or_default();
            let eps = Constant::parse(eps_text).map_err(|e| usage(format!("--eps {eps_text}: {e}")))?;
            if eps.below < 0.0 || !eps.above.is_finite() {
                return Err(usage(format!("--eps {eps_text}: expected a non-negative decimal number")));
            }
            let clip = self
                .clip
                .as_deref()
                .map(|c| parse_range(c).map_err(|e| usage(format!("--clip {c}: {e}"))))
                .transpose()?;
            let words = format!("the centre given by --around has {} elements", centre.len());
            let region =
                ball(&centre, &eps, clip.as_ref().map(|(l, h)| (l, h))).map_err(|e| usage(format!("--around: {e}")))?;
            (name, region, words, Some(centre.iter().map(nearest).collect()), shape)
        } else {
            return Err(usage("say what to verify: --box, --around with --eps, --vnnlib, or --instances".into()));
        };
        let question = Question::Class { region, claim };
        Ok(Asked { question, input_name: Some(name), region_words, centre, input_shape })
    }
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

/// A centre as written: the input's name, its elements, and its shape when not a vector.
type Centre = (String, Vec<Constant>, Option<Vec<usize>>);

/// `NAME=[v0, v1, …]` (decimals as written; nested lists for a tensor, `[[[…]]]` for an image)
/// or `NAME=POINTS.npy` (binary64 values: a vector, a matrix of points with `row`, or one
/// tensor of rank 3 or more); with the shape when it is not a vector.
fn parse_point(text: &str, row: Option<usize>) -> Result<Centre, KnnError> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| KnnError::usage(format!("--around {text}: expected NAME=[…] or NAME=POINTS.npy")))?;
    let value = value.trim();
    if value.starts_with('[') && value.ends_with(']') {
        if let Some(r) = row {
            return Err(KnnError::usage(format!(
                "--row {r}: the centre is written out; --row picks a row of a .npy file"
            )));
        }
        let (shape, elements) = parse_nested_texts(value).map_err(|e| KnnError::usage(format!("--around: {e}")))?;
        let centre = elements
            .iter()
            .map(|t| Constant::parse(t).map_err(|e| KnnError::usage(format!("--around: {e}"))))
            .collect::<Result<Vec<Constant>, KnnError>>()?;
        let shape = (shape.len() > 1).then_some(shape);
        return Ok((name.trim().to_string(), centre, shape));
    }
    let array = read_array(Path::new(value))?;
    let mut shape = None;
    let data = match (array.shape.as_slice(), row) {
        ([_], None) => array.data,
        (dims, None) if dims.len() >= 3 => {
            shape = Some(dims.to_vec());
            array.data
        }
        ([rows, cols], Some(r)) if r < *rows => array.data[r * cols..(r + 1) * cols].to_vec(),
        ([rows, _], Some(r)) => return Err(KnnError::usage(format!("--row {r}: {value} has {rows} rows"))),
        ([_, _], None) => return Err(KnnError::usage(format!("{value} is a matrix: pick the centre with --row"))),
        (shape, _) => {
            return Err(KnnError::usage(format!(
                "{value} has shape {shape:?}: expected a vector, a matrix of points, or one tensor of rank 3 or more"
            )));
        }
    };
    if let Some(k) = data.iter().position(|v| !v.is_finite()) {
        return Err(KnnError::usage(format!(
            "{value}: element {k} of the centre is {:?}, not a finite number",
            data[k]
        )));
    }
    Ok((name.trim().to_string(), data.into_iter().map(Constant::exact).collect(), shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(region: &str, claim: &str) -> QuestionText {
        QuestionText { region: Some(region.into()), claim: Some(claim.into()), ..QuestionText::default() }
    }

    #[test]
    fn a_box_and_a_claim_become_the_question() {
        let asked = text("x=0:1,-0.5:0.5", "argmax!=1").ask().unwrap();
        assert_eq!(asked.input_name.as_deref(), Some("x"));
        assert_eq!(asked.region_words, "--box gives 2 ranges");
        let Question::Class { region, claim } = asked.question else { panic!("a class claim") };
        assert_eq!((region.len(), claim), (2, Claim::ArgmaxIsNot(1)));
        assert_eq!(region.upper[1].cmp_value(&Constant::parse("0.5").unwrap()), Ordering::Equal);
    }

    #[test]
    fn a_ball_keeps_its_ends_exact_and_is_cut_by_the_clip() {
        let around = QuestionText {
            around: Some("x=[0.1, 0.9]".into()),
            eps: Some("0.4".into()),
            clip: Some("0:1".into()),
            ..QuestionText::default()
        };
        let Question::Class { region, claim } = around.ask().unwrap().question else { panic!("a class claim") };
        assert_eq!(claim, Claim::ArgmaxStable);
        // 0.1 − 0.4 is cut to 0, 0.1 + 0.4 is 0.5 exactly; 0.9 + 0.4 is cut to 1.
        let expected = ["0", "0.5", "0.5", "1"].map(|t| Constant::parse(t).unwrap());
        for (end, expected) in region.lower.iter().chain(&region.upper).zip(&expected) {
            assert_eq!(end.cmp_value(expected), Ordering::Equal, "{end} is not {expected}");
        }
    }

    #[test]
    fn what_cannot_be_asked_is_a_usage_error_naming_the_flag() {
        let none = QuestionText { claim: Some("argmax=0".into()), ..QuestionText::default() };
        assert!(none.ask().unwrap_err().to_string().starts_with("say what to verify"));
        let bad_claim = text("x=0:1", "argmax=").ask().unwrap_err();
        assert!(bad_claim.to_string().starts_with("--claim argmax=:"), "{bad_claim}");
        let empty = text("x=1:0", "argmax-stable").ask().unwrap_err();
        assert!(empty.to_string().contains("element 0: `1:0` is empty"), "{empty}");
        let negative = QuestionText { around: Some("x=[0]".into()), eps: Some("-1".into()), ..QuestionText::default() };
        assert_eq!(negative.ask().unwrap_err().exit_code(), 1);
    }

    #[test]
    fn a_centre_written_as_nested_lists_gives_the_inputs_shape() {
        let asked = QuestionText {
            around: Some("x=[[[0.1, 0.2], [0.3, 0.4]], [[0.5, 0.6], [0.7, 0.8]]]".into()),
            eps: Some("0.01".into()),
            ..QuestionText::default()
        }
        .ask()
        .unwrap();
        assert_eq!(asked.input_shape, Some(vec![2, 2, 2]));
        assert_eq!(asked.centre.as_deref(), Some(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8][..]));
        // A flat list is a vector, as before.
        let flat = QuestionText { around: Some("x=[1, 2]".into()), eps: Some("0".into()), ..QuestionText::default() };
        assert_eq!(flat.ask().unwrap().input_shape, None);
        for (bad, message) in [
            ("x=[[1, 2], [3]]", "rows have different lengths (2 and 1)"),
            ("x=[[1], 2]", "each row must be written in brackets"),
            ("x=[1, [2]]", "is not a decimal number"),
            ("x=[[[[[[[[[1]]]]]]]]]", "inputs have rank 1 to 8"),
        ] {
            let text = QuestionText { around: Some(bad.into()), eps: Some("0".into()), ..QuestionText::default() };
            let error = text.ask().unwrap_err().to_string();
            assert!(error.contains(message), "{bad}: {error}");
        }
    }
}
