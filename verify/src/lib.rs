//! The verifier: proves or refutes a property of a program over a region of inputs, for the
//! binary64 values the engine computes (docs/verification.md). One file per concern:
//! [`property`] (what is asked), [`claim`] (argmax claims and balls as properties),
//! [`network`] (the compiled plan as a chain of layers), [`interval`] and [`linear`] with
//! [`relax`] and [`float`] (sound bounds), [`falsify`] (searching for counterexamples),
//! [`bab`] (branch and bound), [`replay`] (confirming counterexamples on both engines).

pub mod alpha;
pub mod bab;
mod bounds;
pub mod branches;
pub mod claim;
pub mod clip;
pub mod combine;
pub mod deadline;
pub mod decimal;
mod enumerate;
pub mod falsify;
pub mod float;
pub mod interval;
pub mod judge;
pub mod linear;
pub mod network;
pub mod operator;
pub mod prepare;
pub mod property;
pub mod queue;
pub mod refine;
pub mod relax;
pub mod replay;
pub mod split;
#[cfg(test)]
pub(crate) mod test_support;
pub mod tighten;
pub mod unsupported;
pub mod vnnlib;

use std::time::{Duration, Instant};

use knn_semantics::{inputs::TensorInput, syntax::Exp};

use judge::PointResult;
use knn_engine::bigstep::ops::argmax;
use knn_engine::bigstep::{Binding, Plan, compile};

use bab::{CaseSearch, Examined, Limit};
pub use bounds::Bounds;
use bounds::empty_region;
use claim::Claim;
use deadline::Deadline;
use enumerate::enumerate;
use falsify::{Falsifier, falsifier_deadline};
use float::Interval;
use judge::{ClassClaim, Judge, RunError};
use network::{Network, ResultKind, Unsupported};
use property::{InputBox, Property};
use queue::{CaseOutcome, CaseProgress};
use replay::{NotConfirmed, Replayed, Replayer};

/// A program prepared for verification: parsed, compiled with its input symbolic, and read
/// as a chain of layers.
pub struct Target {
    pub program: Exp,
    pub input_name: String,
    pub input_shape: Vec<usize>,
    pub fixed: Vec<TensorInput>,
    pub plan: Plan,
    pub net: Network,
}

impl Target {
    /// Compiles `program` with `input_name` (of `input_shape`) symbolic and `fixed` bound.
    pub fn new(
        program: Exp,
        input_name: &str,
        input_shape: Vec<usize>,
        fixed: Vec<TensorInput>,
    ) -> Result<Target, Unsupported> {
        let plan = Target::plan(&program, input_name, &input_shape, &fixed);
        Target::from_plan(program, input_name, input_shape, fixed, plan)
    }

    /// The plan of `program` with `input_name` (of `input_shape`) symbolic and `fixed` bound.
    pub fn plan(program: &Exp, input_name: &str, input_shape: &[usize], fixed: &[TensorInput]) -> Plan {
        compile(program, &Binding::with_open_input(fixed, input_name, input_shape.to_vec()))
    }

    /// The target of `plan`, compiled by [`Target::plan`] from the other arguments.
    pub fn from_plan(
        program: Exp,
        input_name: &str,
        input_shape: Vec<usize>,
        fixed: Vec<TensorInput>,
        plan: Plan,
    ) -> Result<Target, Unsupported> {
        let net = Network::from_plan(&plan)?;
        Ok(Target { program, input_name: input_name.to_string(), input_shape, fixed, plan, net })
    }

    /// The number of outputs `Y`.
    pub fn outputs(&self) -> usize {
        self.net.outputs.len()
    }

    /// The class the engine computes at `x` (the revised ArgMax of the outputs).
    pub fn class_at(&self, x: &[f64]) -> usize {
        match self.net.result_at(x) {
            PointResult::Class { class, .. } => class,
            _ => argmax(self.net.eval(x)) as usize,
        }
    }
}

/// What is asked: a property, or a claim about the class on a box.
#[derive(Clone, Debug)]
pub enum Question {
    Property(Property),
    Class { region: InputBox, claim: Claim },
}

/// What the verifier concludes (the library makes it an `Answer` of a `Report`).
#[derive(Clone, Debug)]
pub enum Conclusion {
    /// Proved for every binary64 input of the region; `class` for class claims.
    Holds { class: Option<usize> },
    /// A counterexample, confirmed on both engines.
    Violated(Counterexample),
    /// Not decided, and why.
    Unknown(Unknown),
}

#[derive(Clone, Debug)]
pub struct Counterexample {
    /// Which case of the property (which box of a VNN-LIB disjunction).
    pub case: usize,
    pub input: Vec<f64>,
    /// The outputs the reference computed (the scores, for an `ArgMax` program); empty when
    /// the run failed.
    pub output: Vec<f64>,
    /// The error the run ends in there, when it fails (a NaN reaching `reluTensor`): a failing
    /// run breaks every claim.
    pub failure: Option<RunError>,
    /// The class there, for class claims and `ArgMax` programs.
    pub class: Option<usize>,
    /// The class claimed (for `argmax=K` and `argmax-stable`).
    pub expected_class: Option<usize>,
}

#[derive(Clone, Debug)]
pub enum Unknown {
    Timeout,
    /// The search ran out of boxes it could split.
    Limit(String),
    /// A candidate on which the engines disagree: a bug of knn, reported, never hidden.
    Bug(String),
    /// The verifier cannot bound this program (input-dependent indexing, …): what, and where.
    Unsupported(Unsupported),
    /// The region, as written, holds no binary64 point (`X_0` pinned to a decimal no binary64
    /// number equals): every claim would hold on it vacuously, which says nothing of the
    /// network; which element's range is empty.
    EmptyRegion(String),
}

/// Options of a verification.
pub struct Options<'a> {
    /// The answer is due `timeout` after `started`: the search and the replays stop a little
    /// earlier ([`Deadline::of_timeout`]).
    pub timeout: Option<Duration>,
    /// When the time started counting (default: when [`verify`] is called); a caller that
    /// loads the network sets it before loading, so that loading counts.
    pub started: Option<Instant>,
    /// Boxes examined at once (spread over the rayon pool).
    pub batch: usize,
    /// Seed of the falsifier's random points.
    pub seed: u64,
    /// What branch and bound splits.
    pub split: split::Split,
    /// Hears of progress: the case, and its search's progress.
    pub progress: Option<&'a mut (dyn FnMut(usize, CaseProgress) + Send)>,
    /// Decide every box by the bounds and branch and bound alone: no box of few points is run
    /// point by point, and the falsifier proposes nothing (both would otherwise answer first
    /// on the small regions where a test can hold the bounds to every binary64 point, and a
    /// wrong bound would go unseen). Off by default.
    pub bounds_only: bool,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            timeout: None,
            started: None,
            batch: 64,
            seed: 0x6b6e6e,
            split: split::Split::Auto,
            progress: None,
            bounds_only: false,
        }
    }
}

/// A question that does not fit the program: a user error.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch(pub String);

/// Answers `question` about `target`.
pub fn verify(target: &Target, question: &Question, options: Options<'_>) -> Result<Conclusion, Mismatch> {
    let started = options.started.unwrap_or_else(Instant::now);
    let deadline = Deadline::of_timeout(started, options.timeout);
    let outputs = target.outputs();
    let (property, class) = match question {
        Question::Property(p) => {
            if target.net.result.is_class() {
                return Err(Mismatch(
                    "the program's result is an ArgMax (a class); properties over outputs Y need the score vector: \
                     verify the program without its final ArgMax, or use --claim"
                        .into(),
                ));
            }
            (p.clone(), None)
        }
        Question::Class { region, claim } => {
            let class = match claim {
                Claim::ArgmaxIs(k) | Claim::ArgmaxIsNot(k) => *k,
                Claim::ArgmaxStable => match region.inner() {
                    Some(inner) => target.class_at(&inner.iter().map(Interval::midpoint).collect::<Vec<_>>()),
                    None => return Ok(Conclusion::Unknown(Unknown::EmptyRegion(empty_region(region)))),
                },
            };
            if class >= outputs {
                return Err(Mismatch(format!(
                    "class {class} does not exist: the program has {outputs} outputs (0 to {})",
                    outputs.saturating_sub(1)
                )));
            }
            let negated = matches!(claim, Claim::ArgmaxIsNot(_));
            let property = match target.net.result {
                ResultKind::SoftmaxArgMax { .. } => {
                    claim::softmax_class_property(region.clone(), class, outputs, negated)
                }
                _ => claim::class_property(region.clone(), class, outputs, negated),
            };
            (property, Some(ClassClaim { class, negated }))
        }
    };
    if property.inputs != target.net.input_len {
        return Err(Mismatch(format!(
            "the property has {} inputs but `{}` has {} elements",
            property.inputs, target.input_name, target.net.input_len
        )));
    }
    if property.outputs != outputs {
        return Err(Mismatch(format!(
            "the property has {} outputs but the program's result has {outputs}",
            property.outputs
        )));
    }
    // A region with no binary64 point at all: `holds` would be vacuous, and a reader who took
    // the bounds as their nearest binary64 numbers (VNN-COMP's tools do) would see a region
    // with points: say so rather than answer (docs/verification.md, "Constants as written").
    if let Some(first) = property.cases.first().filter(|_| property.cases.iter().all(|c| c.input.inner().is_none())) {
        return Ok(Conclusion::Unknown(Unknown::EmptyRegion(empty_region(&first.input))));
    }
    let scores = |x: &[f64]| target.net.scores(x);
    let replayer = Replayer {
        program: &target.program,
        input_name: &target.input_name,
        input_shape: &target.input_shape,
        fixed: &target.fixed,
        scores: &scores,
        // A replay counts like the search: on a large network it takes about a second.
        deadline,
    };
    let mut progress = options.progress;
    let mut stuck = None;
    for (index, case) in property.cases.iter().enumerate() {
        if deadline.passed() {
            return Ok(Conclusion::Unknown(Unknown::Timeout));
        }
        let judge = Judge { case, class };
        let Some(search) =
            CaseSearch::new(&target.net, &target.plan, case).map(|s| s.splitting(options.split).judged_by(class))
        else {
            continue; // No binary64 point in this box.
        };
        // What the confirmation found: a replayed counterexample, or a bug (a candidate that
        // does not replay), which also stops the search: it is reported, never hidden.
        let found = std::sync::Mutex::new(None::<Result<Replayed, NotConfirmed>>);
        let confirm = |x: &[f64]| {
            let result = replayer.confirm(judge, x);
            *found.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            true
        };
        let inner = case.input.inner().expect("CaseSearch::new checked the box");
        let points = if options.bounds_only { None } else { enumerate(target, judge, &inner) };
        let outcome = match points {
            // Few enough points to run them all: the answer is exact.
            Some(Ok(Some(x))) if confirm(&x) => CaseOutcome::Candidate(x),
            Some(Ok(None)) => continue,
            Some(Ok(Some(_)) | Err(Limit)) | None => {
                let mut report = |p: CaseProgress| {
                    if let Some(f) = progress.as_mut() {
                        f(index, p)
                    }
                };
                let falsifier = Falsifier { net: &target.net, plan: &target.plan, case, class, inner };
                let search_options = (options.seed, options.batch, deadline, !options.bounds_only);
                search_case(&falsifier, &search, search_options, &confirm, &mut report)
            }
        };
        match outcome {
            CaseOutcome::Holds => {}
            CaseOutcome::Candidate(x) => {
                return Ok(match found.into_inner().unwrap_or_else(|e| e.into_inner()) {
                    Some(Ok(replayed)) => Conclusion::Violated(counterexample(index, x, replayed, class)),
                    Some(Err(NotConfirmed::Bug(why))) => Conclusion::Unknown(Unknown::Bug(why)),
                    Some(Err(NotConfirmed::OutOfTime)) => Conclusion::Unknown(Unknown::Timeout),
                    Some(Err(NotConfirmed::Limit(why))) => Conclusion::Unknown(Unknown::Limit(why)),
                    None => Conclusion::Unknown(Unknown::Bug(format!("a counterexample at {x:?} was not recorded"))),
                });
            }
            CaseOutcome::Timeout => return Ok(Conclusion::Unknown(Unknown::Timeout)),
            CaseOutcome::Stuck => {
                stuck = Some("some boxes are too narrow to split and their bounds do not decide them".to_string())
            }
        }
    }
    Ok(match stuck {
        Some(why) => Conclusion::Unknown(Unknown::Limit(why)),
        None => Conclusion::Holds { class: class.filter(|c| !c.negated).map(|c| c.class) },
    })
}

/// One case's search: the falsifier's sampled points first, cheaply; on many inputs the
/// attack's first round; then one bound of the whole box (most small questions end there);
/// then the attack's other rounds; then branch and bound. `(seed, batch, deadline, falsify)`
/// are the search's options (without `falsify`, the bound and branch and bound alone).
fn search_case(
    falsifier: &Falsifier<'_>,
    search: &CaseSearch<'_>,
    (seed, batch, deadline, falsify): (u64, usize, Deadline, bool),
    confirm: &(dyn Fn(&[f64]) -> bool + Sync),
    report: &mut dyn FnMut(CaseProgress),
) -> CaseOutcome {
    // The falsifier's budget counts from here, sampling and the bound below included.
    let falsify_until = falsifier_deadline(deadline, Instant::now()).instant();
    let (sampled, points) = if falsify { falsifier.sample(seed) } else { (None, Vec::new()) };
    if let Some(x) = sampled
        && confirm(&x)
    {
        return CaseOutcome::Candidate(x);
    }
    // On many inputs the attack's first round comes before the bound of the whole box, which
    // there costs seconds (optimised slopes for every hidden relu of a wide network) and
    // rarely proves what the attack refutes, and its other rounds after. On few inputs the
    // bound is cheap and proves most cases at once, and branch and bound splits the inputs
    // and tries the points it finds: one round, after the bound.
    let (early, late) = match (falsify, falsifier.inner.len() > split::SPLITTABLE_INPUTS) {
        (false, _) => (0..0, 0..0),
        (true, true) => (0..1, 1..falsify::ROUNDS),
        (true, false) => (0..0, 0..1),
    };
    if let Some(x) = falsifier.descend(&points, seed, early, falsify_until)
        && confirm(&x)
    {
        return CaseOutcome::Candidate(x);
    }
    // One bound of the whole box: on a deep, wide network (optimised slopes for every hidden
    // relu) it can take many seconds, so it polls the deadline too.
    let root = search.examine_root(deadline);
    match root {
        Examined::Proved => return CaseOutcome::Holds,
        Examined::OutOfTime => return CaseOutcome::Timeout,
        _ => {}
    }
    if let Some(x) = falsifier.descend(&points, seed, late, falsify_until)
        && confirm(&x)
    {
        return CaseOutcome::Candidate(x);
    }
    search.run_from(Some(root), deadline.instant(), batch, confirm, report)
}

/// The counterexample of case `case` at `x`, as the reference computed it.
fn counterexample(case: usize, x: Vec<f64>, replayed: Replayed, claim: Option<ClassClaim>) -> Counterexample {
    let class_of_scores = || argmax(replayed.output.iter().copied()) as usize;
    let class = match (&replayed.failure, replayed.class, claim) {
        (Some(_), _, _) => None,
        (None, Some(class), _) => Some(class as usize),
        (None, None, Some(_)) => Some(class_of_scores()),
        (None, None, None) => None,
    };
    Counterexample {
        case,
        input: x,
        class,
        output: replayed.output,
        failure: replayed.failure,
        expected_class: claim.filter(|c| !c.negated).map(|c| c.class),
    }
}
