//! The check of one answer: the verifier is asked through the library (`Program::verify`, the
//! region read by `knn verify`'s own flag parser or the VNN-LIB reader), and its answer is
//! held to the oracle on every binary64 point of the region.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use super::case::{Ask, Case, ClassClaim};
use super::exact::{Rational, count, of_f64, points};
use super::oracle::{AtPoint, Reference, first_violation, violation};
use knn::QuestionText;
use knn::{Conclusion, Semantics, Split, VerifyOptions, load_source};
use knn_verify::Question;
use knn_verify::vnnlib::parse_vnnlib;

/// How a case is checked.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The verifier's time limit (then `unknown`, which is allowed).
    pub timeout: Duration,
    /// The verifier's worker threads (`None`: rayon's pool).
    pub threads: Option<usize>,
    /// The most points a region may have for its `holds` to be checked.
    pub point_limit: u64,
    /// Ask the verifier to decide by its bounds and branch and bound alone (it would otherwise
    /// run every point of these small regions itself, or its falsifier would find what a wrong
    /// bound claims is not there, and its bounds would never be tested here).
    pub bounds_only: bool,
    /// What branch and bound splits (the default chooses inputs on these small networks; relu
    /// splits are the default past 16 inputs, and are held to every point here when asked).
    pub split: Split,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            timeout: Duration::from_secs(10),
            threads: Some(1),
            point_limit: 1 << 13,
            bounds_only: false,
            split: Split::Auto,
        }
    }
}

/// A correct answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decided {
    Holds,
    Violated,
    /// Allowed, and counted: why.
    Unknown(String),
}

/// A wrong answer (or a refusal, or a panic): what the verifier answered, if it did, and a
/// message with the case in it.
#[derive(Clone, Debug)]
pub struct Wrong {
    pub answered: Option<Decided>,
    pub message: String,
}

/// Asks the verifier and checks its answer.
pub fn check(case: &Case, settings: Settings) -> Result<Decided, Wrong> {
    let refused = |what: String| Err(Wrong { answered: None, message: format!("{what}\n--- the case ---\n{case}\n") });
    let question = match question(case) {
        Ok(q) => q,
        Err(e) => return refused(format!("the case cannot be asked: {e}")),
    };
    let program = match load_source("case.knn", &case.program, Semantics::Revised) {
        Ok(p) => p,
        Err(e) => return refused(format!("the program does not load: {}", e.render_for_stderr())),
    };
    let options = VerifyOptions {
        input_name: Some("x".into()),
        timeout: Some(settings.timeout),
        threads: settings.threads,
        bounds_only: settings.bounds_only,
        split: settings.split,
        ..VerifyOptions::default()
    };
    let report = match catch_unwind(AssertUnwindSafe(|| program.verify(&question, options))) {
        Ok(Ok(report)) => report,
        Ok(Err(e)) => return refused(format!("the verifier refused the case: {}", e.render_for_stderr())),
        Err(panic) => return refused(format!("the verifier panicked: {}", panic_text(&*panic))),
    };
    let reference = Reference::new(&case.program).expect("the program parsed once already");
    let ends = case.ends();
    let answer = report.conclusion;
    let (answered, found) = match &answer {
        Conclusion::Holds { class } => (Decided::Holds, check_holds(case, &reference, &ends, *class, settings)),
        Conclusion::Violated(c) => {
            (Decided::Violated, check_violated(case, &reference, &ends, &c.input, &c.output, c.class, settings))
        }
        Conclusion::Unknown(why) => return Ok(Decided::Unknown(format!("{why:?}"))),
    };
    match found {
        Ok(()) => Ok(answered),
        Err(why) => Err(Wrong {
            answered: Some(answered),
            message: format!("wrong answer {answer:?}: {why}\n--- the case ---\n{case}\n"),
        }),
    }
}

/// The question as `knn verify` reads it: the flags' text as the command's reader reads it
/// ([`QuestionText::ask`]), a property through the VNN-LIB reader.
fn question(case: &Case) -> Result<Question, String> {
    match case.vnnlib() {
        Some(text) => parse_vnnlib(&text).map(Question::Property).map_err(|e| format!("{e:?}")),
        None => question_text(&case.flags())?.ask().map(|asked| asked.question).map_err(|e| e.to_string()),
    }
}

/// `knn verify`'s flags (`--box`, `--around`, `--eps`, `--clip`, `--claim`, each with its
/// value) as the text of a question.
fn question_text(flags: &[String]) -> Result<QuestionText, String> {
    let mut text = QuestionText::default();
    for pair in flags.chunks(2) {
        let [flag, value] = pair else { return Err(format!("{flags:?}: a flag without its value")) };
        let value = Some(value.clone());
        match flag.as_str() {
            "--box" => text.region = value,
            "--around" => text.around = value,
            "--eps" => text.eps = value,
            "--clip" => text.clip = value,
            "--claim" => text.claim = value,
            other => return Err(format!("{other}: not a flag of a claim on a region")),
        }
    }
    Ok(text)
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Every point of the region, row-major over the elements (the last fastest), or why not.
fn region_points(ends: &[(Rational, Rational)], limit: u64) -> Result<Vec<Vec<f64>>, String> {
    // An element without points empties the region, however many the others have.
    if ends.iter().any(|(lo, hi)| count(lo, hi) == 0) {
        return Ok(Vec::new());
    }
    let mut per_element = Vec::new();
    let mut total: u64 = 1;
    for (i, (lo, hi)) in ends.iter().enumerate() {
        let p = points(lo, hi, limit).ok_or_else(|| format!("element {i} has more than {limit} points"))?;
        total = total.saturating_mul(p.len() as u64);
        per_element.push(p);
    }
    if total > limit {
        return Err(format!("the region has {total} points, more than {limit}"));
    }
    let mut all = vec![Vec::new()];
    for p in &per_element {
        all = all.iter().flat_map(|prefix| p.iter().map(move |&v| [prefix.as_slice(), &[v]].concat())).collect();
    }
    Ok(all)
}

fn check_holds(
    case: &Case,
    reference: &Reference,
    ends: &[(Rational, Rational)],
    class: Option<usize>,
    settings: Settings,
) -> Result<(), String> {
    let points = region_points(ends, settings.point_limit).map_err(|e| format!("cannot check it: {e}"))?;
    let results = points.iter().map(|x| (x.as_slice(), reference.at(x)));
    if let Some(why) = first_violation(&case.ask, results) {
        return Err(format!("{} points, and {why}", points.len()));
    }
    // `argmax-stable` holds with the class of the region: it must be that class.
    if matches!(case.ask, Ask::Class(ClassClaim::Stable))
        && let Some(x) = points.first()
    {
        let there = reference.at(x).class();
        if class != there {
            return Err(format!("the class everywhere is {there:?}, reported {class:?}"));
        }
    }
    Ok(())
}

fn check_violated(
    case: &Case,
    reference: &Reference,
    ends: &[(Rational, Rational)],
    input: &[f64],
    output: &[f64],
    class: Option<usize>,
    settings: Settings,
) -> Result<(), String> {
    let inside = input.len() == ends.len()
        && input.iter().zip(ends).all(|(&v, (lo, hi))| v.is_finite() && *lo <= of_f64(v) && of_f64(v) <= *hi);
    if !inside {
        return Err(format!("the counterexample {input:?} is not a point of the region"));
    }
    let at = reference.at(input);
    if let (AtPoint::Scores(y), false) = (&at, same_bits(output, &at)) {
        return Err(format!("the reported outputs {output:?} are not the reference's {y:?}"));
    }
    if let (Some(reported), Some(actual)) = (class, at.class())
        && reported != actual
    {
        return Err(format!("the reported class {reported} is not the reference's {actual}"));
    }
    if violation(&case.ask, &at).is_some() {
        return Ok(());
    }
    if matches!(case.ask, Ask::Class(ClassClaim::Stable)) {
        // A stable claim is broken where another point of the region has another class.
        let class = at.class();
        let points = region_points(ends, settings.point_limit).map_err(|e| format!("cannot check it: {e}"))?;
        if points.iter().any(|x| reference.at(x).class() != class) {
            return Ok(());
        }
        return Err(format!("every point of the region has the class {class:?} of {input:?}"));
    }
    Err(format!("at {input:?} the reference gives {at:?}, which does not break the claim"))
}

/// Whether the reported outputs are the reference's scores, bit for bit (NaN as NaN).
fn same_bits(output: &[f64], at: &AtPoint) -> bool {
    let AtPoint::Scores(y) = at else { return true };
    output.len() == y.len()
        && output.iter().zip(y).all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
}

#[cfg(test)]
mod tests {
    use super::super::case::Region;
    use super::*;

    /// The ball `[0.49999999999999994, 0.5]` (`c + eps` is exactly 0.5) on a program whose class
    /// is 1 only at `x = 0.5`.
    fn class_flips_at_the_upper_end(claim: ClassClaim) -> Case {
        Case {
            program: "let W0 = initTensor(2, 1) in let W0[1, 0] = 1.0 in let z0 = linear(W0, x) in \
                      let z0[0] = z0[0] + 0.49999999999999994 in ArgMax(z0)"
                .into(),
            outputs: 2,
            region: Region::Around { centre: vec!["0.49999999999999997".into()], eps: "3e-17".into(), clip: None },
            ask: Ask::Class(claim),
        }
    }

    #[test]
    fn a_holds_that_one_point_breaks_is_wrong() {
        let case = class_flips_at_the_upper_end(ClassClaim::Is(0));
        let reference = Reference::new(&case.program).unwrap();
        let ends = case.ends();
        let points = region_points(&ends, 100).unwrap();
        assert_eq!(points, vec![vec![0.49999999999999994], vec![0.5]]);
        let why = check_holds(&case, &reference, &ends, Some(0), Settings::default()).unwrap_err();
        assert!(why.contains("at x = [0.5]: the class is 1"), "{why}");
        // argmax!=1 is broken at the same point; argmax-stable by the two classes.
        let not_one = class_flips_at_the_upper_end(ClassClaim::IsNot(1));
        assert!(check_holds(&not_one, &reference, &ends, None, Settings::default()).is_err());
        let stable = class_flips_at_the_upper_end(ClassClaim::Stable);
        assert!(check_holds(&stable, &reference, &ends, Some(0), Settings::default()).is_err());
    }

    #[test]
    fn a_violated_needs_a_point_of_the_region_that_breaks_the_claim() {
        let case = class_flips_at_the_upper_end(ClassClaim::Is(0));
        let reference = Reference::new(&case.program).unwrap();
        let ends = case.ends();
        let settings = Settings::default();
        let scores = [0.49999999999999994, 0.5];
        assert_eq!(check_violated(&case, &reference, &ends, &[0.5], &scores, Some(1), settings), Ok(()));
        // Outside the region (one ulp above its end), and inside but of the claimed class.
        let above = check_violated(&case, &reference, &ends, &[0.5f64.next_up()], &scores, Some(1), settings);
        assert!(above.unwrap_err().contains("not a point of the region"));
        let low = [0.49999999999999994, 0.49999999999999994];
        let inside = check_violated(&case, &reference, &ends, &[0.49999999999999994], &low, Some(0), settings);
        assert!(inside.unwrap_err().contains("does not break the claim"));
        // A class that is not the reference's is a wrong report.
        let misreported = check_violated(&case, &reference, &ends, &[0.5], &scores, Some(0), settings);
        assert!(misreported.unwrap_err().contains("reported class"));
    }

    #[test]
    fn an_empty_element_empties_the_region() {
        let huge = (Rational::from_integer((-1).into()), Rational::from_integer(1.into()));
        let empty = (Rational::new(1.into(), 10.into()), Rational::new(1.into(), 10.into()));
        assert_eq!(region_points(&[huge.clone(), empty], 100), Ok(vec![]));
        assert!(region_points(&[huge], 100).is_err());
    }
}
