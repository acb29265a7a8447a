//! [`Program::verify`]: a claim about the program on a region of inputs, answered in a
//! [`Verification`] — `holds`, `violated` with a counterexample confirmed on both engines, or
//! `unknown` and why — with the effort it took. The method is in docs/verification.md; this
//! file finds the input to range over, compiles the [`Target`], and tells a region that does
//! not fit the program (the caller's error) from a program the verifier cannot bound (the
//! answer `unknown`).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use knn_semantics::check::check_program;
use knn_semantics::errors::ErrorKind;
use knn_semantics::inputs::TensorInput;

use super::error::{Diagnostic, Failure, KnnError};
use super::program::{Program, Semantics, read_source};
use super::report::{Effort, Verification};
use super::threads::check_threads;
use knn_engine::bigstep::ops::Op;
use knn_verify::property::Property;
use knn_verify::queue::CaseProgress;
use knn_verify::split::Split;
use knn_verify::vnnlib::parse_vnnlib;
use knn_verify::{Bounds, Conclusion, Options, Question, Target, Unknown, verify};

/// How to verify. The default ranges over the program's only free input, with no other input
/// bound, no time limit, and branch and bound splitting as `Split::Auto` chooses.
#[derive(Default)]
pub struct VerifyOptions<'a> {
    /// The input the region ranges over (default: the network's declared input, or the
    /// program's only free name besides `fixed`).
    pub input_name: Option<String>,
    /// The program's other inputs, bound to fixed values.
    pub fixed: Vec<TensorInput>,
    /// Answer by this long after `started` (the answer: unknown, timeout). Every phase polls
    /// it; the answer comes at most a poll's work late (docs/verification.md, "Timeouts").
    pub timeout: Option<Duration>,
    /// When the time limit started counting (default: when `verify` is called). A caller that
    /// reads the network or the property first sets it before reading: that time counts too.
    pub started: Option<Instant>,
    /// Worker threads for this verification (default: rayon's pool, one per core).
    pub threads: Option<usize>,
    /// What branch and bound splits.
    pub split: Split,
    /// Hears of progress: the case, and its search's progress.
    pub progress: Option<&'a mut (dyn FnMut(usize, CaseProgress) + Send)>,
    /// How messages name the region's length (`--box gives 3 ranges`); default: the
    /// property's or the region's own words.
    pub region_words: Option<String>,
    /// The shape of the input the region's elements fill in row-major order (an image's
    /// `C, H, W`); default: the network's declared shape, or a vector.
    pub input_shape: Option<Vec<usize>>,
    /// Decide by the bounds and branch and bound alone, with no point-by-point run of a small
    /// region and no falsifier (`knn_verify::Options::bounds_only`): for tests that hold the
    /// bounds to every point of such a region. Default: off.
    pub bounds_only: bool,
    /// How the region's bounds are read: as written (the default), or each as the binary64
    /// number nearest it (`--bounds nearest`, VNN-COMP's reading of VNN-LIB).
    pub bounds: Bounds,
}

/// A note for a property some of whose cases hold no binary64 point (`X_0` between `0.2` and
/// `0.2`: no binary64 number is 0.2, and bounds are taken as written), where any claim holds
/// vacuously: which element's range is empty, in each such case (`None` when every region has
/// points, and when none has: then the answer itself is `unknown: empty region`).
pub fn empty_region_note(question: &Question) -> Option<String> {
    let empty: Vec<(usize, usize)> = match question {
        Question::Class { .. } => Vec::new(),
        Question::Property(p) => {
            p.cases.iter().enumerate().filter_map(|(k, c)| c.input.first_empty_element().map(|i| (k, i))).collect()
        }
    };
    if empty.len() == question_cases(question) {
        return None;
    }
    let (&(case, element), cases) = (empty.first()?, question_cases(question));
    let whose = if cases > 1 { format!("case {case}'s region") } else { "the region".to_string() };
    let more =
        if empty.len() > 1 { format!(" ({} of the {cases} cases are empty)", empty.len()) } else { String::new() };
    Some(format!(
        "note: {whose} holds no binary64 point: no binary64 number lies in element {element}'s range as written{more}; \
         a claim holds on it vacuously"
    ))
}

fn question_cases(question: &Question) -> usize {
    match question {
        Question::Class { .. } => 1,
        Question::Property(p) => p.cases.len(),
    }
}

/// Reads a VNN-LIB property (`X_i` the program's input, `Y_i` its result vector); a file
/// knn cannot read is an error at its line and column.
pub fn read_property(path: &Path) -> Result<Property, KnnError> {
    let source = Arc::new(read_source(path)?);
    parse_vnnlib(&source.text).map_err(|e| {
        let diagnostic = Diagnostic { span: e.span, message: e.message, label: "here".into(), hint: e.hint };
        KnnError::located(Failure::Parse, &source, vec![diagnostic], 1)
    })
}

impl Program {
    /// Answers `question` about the program: `holds` for every binary64 input of the region,
    /// `violated` with a counterexample replayed on the small-step reference and the big-step
    /// engine, or `unknown` (timeout, limit, a construct the verifier cannot bound). A region
    /// that does not fit the program, or a claim about a class it does not have, is an error.
    ///
    /// ```
    /// use knn::{Claim, Conclusion, InputBox, Question, VerifyOptions, load};
    /// let net = load(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/mlp.knn"))?;
    /// let region = InputBox::from_bounds(&[0.9, -2.1, 0.4], &[1.1, -1.9, 0.6])?;
    /// let question = Question::Class { region, claim: Claim::ArgmaxStable };
    /// let verification = net.verify(&question, VerifyOptions::default())?;
    /// assert!(matches!(verification.conclusion, Conclusion::Holds { class: Some(0) }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn verify(&self, question: &Question, options: VerifyOptions<'_>) -> Result<Verification, KnnError> {
        // On the calling thread, whatever its stack: nothing recurses on the program's depth.
        let question = &question.with_bounds(options.bounds);
        let (conclusion, effort) = self.verify_here(question, options)?;
        Ok(Verification { conclusion, effort, source: self.shared_source() })
    }

    /// [`Program::verify`] on the calling thread: the answer and what it took.
    fn verify_here(&self, question: &Question, options: VerifyOptions<'_>) -> Result<(Conclusion, Effort), KnnError> {
        // Checking and compiling a large network takes a noticeable part of a second: it counts.
        let clock = options.started.unwrap_or_else(Instant::now);
        if self.semantics() != Semantics::Revised {
            return Err(KnnError::usage("the verifier works on programs under the revised rules"));
        }
        if let Some(threads) = options.threads {
            check_threads(threads).map_err(|e| KnnError::usage(format!("threads={threads}: {e}")))?;
        }
        let input_name = self.open_input(options.input_name.as_deref(), &options.fixed)?;
        let mut bound: Vec<&str> = options.fixed.iter().map(|t| t.name.as_str()).collect();
        bound.push(&input_name);
        self.check(&bound)?;
        let (input_len, own_words) = match question {
            Question::Property(p) => (p.inputs, format!("the property declares {} inputs X_i", p.inputs)),
            Question::Class { region, .. } => (region.len(), format!("the region has {} ranges", region.len())),
        };
        let region_words = options.region_words.unwrap_or(own_words);
        let shape = self.input_shape(&input_name, options.input_shape, input_len, &region_words)?;
        let target = match self.target(&input_name, shape, options.fixed, &region_words)? {
            Ok(target) => target,
            Err(unsupported) => return Ok((unsupported, Effort::default())),
        };
        let started = Instant::now();
        let mut effort = Effort::default();
        let mut user_progress = options.progress;
        let mut on_progress = |case: usize, p: CaseProgress| {
            effort.boxes = p.boxes;
            effort.proved_share = p.proved_share;
            if let Some(f) = user_progress.as_mut() {
                f(case, p);
            }
        };
        let run = Options {
            bounds_only: options.bounds_only,
            ..search_options((clock, options.timeout), options.split, &mut on_progress)
        };
        let answer = match options.threads {
            None => verify(&target, question, run),
            Some(threads) => rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| KnnError::usage(format!("cannot start {threads} threads: {e}")))?
                .install(|| verify(&target, question, run)),
        }
        .map_err(|mismatch| KnnError::usage(mismatch.0))?;
        // Freeing a large network's syntax tree and plan takes a good part of a second: the
        // answer need not wait for it.
        std::thread::spawn(move || drop(target));
        effort.seconds = started.elapsed().as_secs_f64();
        Ok((answer, effort))
    }

    /// The input that varies (the one a region ranges over, or a batch's rows fill): the one
    /// asked for, the network's, or the only free name of the program besides `fixed`.
    pub fn open_input(&self, asked: Option<&str>, fixed: &[TensorInput]) -> Result<String, KnnError> {
        let name = &self.source().name;
        if let Some((declared, _)) = self.declared_input() {
            return match asked {
                Some(asked) if asked != declared => {
                    Err(KnnError::usage(format!("{name}: the network's input is `{declared}`, not `{asked}`")))
                }
                _ => Ok(declared.to_string()),
            };
        }
        if let Some(asked) = asked {
            return Ok(asked.to_string());
        }
        let bound: Vec<&str> = fixed.iter().map(|t| t.name.as_str()).collect();
        let text = &self.source().text;
        let mut free: Vec<String> = check_program(self.syntax(), &bound)
            .into_iter()
            .filter(|e| e.kind == ErrorKind::UnboundIdentifier)
            .filter_map(|e| text.get(e.span.start as usize..e.span.end as usize).map(str::to_string))
            .collect();
        free.sort();
        free.dedup();
        match free.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(KnnError::usage(format!("{name}: the program has no free input"))),
            many => Err(KnnError::usage(format!(
                "{name}: the program has several free inputs ({}): name the one that varies \
                 (--input-name) and bind the others (--input)",
                many.join(", ")
            ))),
        }
    }

    /// The shape of an input of `input_len` elements: the one asked for, else the network's
    /// declared one, else a vector. A shape of another size is the caller's error.
    fn input_shape(
        &self,
        input_name: &str,
        asked: Option<Vec<usize>>,
        input_len: usize,
        region_words: &str,
    ) -> Result<Vec<usize>, KnnError> {
        let file = &self.source().name;
        let dims = |shape: &[usize]| shape.iter().map(usize::to_string).collect::<Vec<_>>().join("×");
        let (shape, whose) = match (asked, self.declared_shape()) {
            (Some(shape), _) => {
                let whose = format!("the input shape asked for ({})", dims(&shape));
                (shape, whose)
            }
            (None, Some(shape)) => (shape.to_vec(), format!("the network's input `{input_name}`")),
            (None, None) => return Ok(vec![input_len]),
        };
        let elements: usize = shape.iter().product();
        if elements != input_len {
            return Err(KnnError::usage(format!("{file}: {whose} has {elements} elements, but {region_words}")));
        }
        Ok(shape)
    }

    /// The program compiled for an input of shape `shape`, or the answer `unknown` when the
    /// verifier cannot bound it. A shape the program refuses is the caller's error:
    /// `region_words` says where the length comes from.
    fn target(
        &self,
        input_name: &str,
        shape: Vec<usize>,
        fixed: Vec<TensorInput>,
        region_words: &str,
    ) -> Result<Result<Target, Conclusion>, KnnError> {
        let input_len: usize = shape.iter().product();
        // A program that fails before it reads its input fails on every input of this length,
        // typically on a shape that does not fit: the region is wrong, not the verifier short.
        let plan = Target::plan(self.syntax(), input_name, &shape, &fixed);
        if let Some((detail, span)) = plan.ops.iter().find_map(|op| match op {
            Op::Raise { error } => Some((error.detail.to_string(), error.span)),
            _ => None,
        }) {
            let of = match shape.as_slice() {
                [_] => format!("{input_len} elements"),
                dims => format!("shape {}", dims.iter().map(usize::to_string).collect::<Vec<_>>().join("×")),
            };
            let message = format!("the program fails on every input `{input_name}` of {of} ({region_words}): {detail}");
            let diagnostic = Diagnostic { span, message, label: "fails here".into(), hint: None };
            return Err(KnnError::located(Failure::Usage, &self.shared_source(), vec![diagnostic], 1));
        }
        Ok(Target::from_plan(self.syntax().clone(), input_name, shape, fixed, plan)
            .map_err(|unsupported| Conclusion::Unknown(Unknown::Unsupported(unsupported))))
    }
}

/// The search's options: the time limit (from when it started counting) and the split asked
/// for, `progress` to hear of it.
fn search_options<'p>(
    (started, timeout): (Instant, Option<Duration>),
    split: Split,
    progress: &'p mut (dyn FnMut(usize, CaseProgress) + Send),
) -> Options<'p> {
    Options { timeout, started: Some(started), progress: Some(progress), split, ..Options::default() }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_search_gets_the_time_limit_and_the_split_asked_for() {
        let heard = std::sync::atomic::AtomicUsize::new(0);
        let mut progress = |_: usize, _: CaseProgress| {
            heard.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        };
        let started = Instant::now();
        let mut run = search_options((started, Some(Duration::from_millis(1500))), Split::Relus, &mut progress);
        assert_eq!((run.timeout, run.split), (Some(Duration::from_millis(1500)), Split::Relus));
        // The time counts from when the caller started it (before loading), not from the search.
        assert_eq!(run.started, Some(started));
        run.progress.as_mut().expect("progress is passed on")(0, CaseProgress { boxes: 1, proved_share: 0.0 });
        assert_eq!(heard.load(std::sync::atomic::Ordering::Relaxed), 1);
        // The defaults of `Options` are the searches' own (batch and seed), not the caller's.
        let defaults = Options::default();
        assert_eq!((run.batch, run.seed), (defaults.batch, defaults.seed));
    }
}
