//! The verifier: proves or refutes a property of a program over a region of inputs, for the
//! binary64 values the engine computes (docs/verification.md). One file per concern:
//! [`property`] (what is asked), [`claim`] (argmax claims and balls as properties),
//! [`network`] (the compiled plan as a chain of layers), [`interval`] and [`linear`] with
//! [`relax`] and [`float`] (sound bounds), [`falsify`] (searching for counterexamples),
//! [`bab`] (branch and bound), [`replay`] (confirming counterexamples on both engines).

pub mod alpha;
pub mod bab;
pub mod claim;
pub mod clip;
pub mod decimal;
pub mod falsify;
pub mod float;
pub mod interval;
pub mod linear;
pub mod network;
pub mod prepare;
pub mod property;
pub mod queue;
pub mod relax;
pub mod replay;
pub mod split;
#[cfg(test)]
pub(crate) mod test_support;
pub mod tighten;
pub mod vnnlib;

use std::time::{Duration, Instant};

use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::Exp;

use crate::bigstep::ops::argmax;
use crate::bigstep::{Binding, Plan, compile};

use bab::{CaseOutcome, CaseProgress, CaseSearch, Examined};
use claim::Claim;
use falsify::Falsifier;
use network::{Network, ResultKind, Unsupported};
use property::{InputBox, Property};
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
        argmax(self.net.eval(x)) as usize
    }
}

/// What is asked: a property, or a claim about the class on a box.
#[derive(Clone, Debug)]
pub enum Question {
    Property(Property),
    Class { region: InputBox, claim: Claim },
}

/// The verifier's answer.
#[derive(Clone, Debug)]
pub enum Answer {
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
    /// The outputs the reference computed (the scores, for an `ArgMax` program).
    pub output: Vec<f64>,
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
}

/// Options of a verification.
pub struct Options<'a> {
    pub timeout: Option<Duration>,
    /// Boxes examined at once (spread over the rayon pool).
    pub batch: usize,
    /// Seed of the falsifier's random points.
    pub seed: u64,
    /// What branch and bound splits.
    pub split: split::Split,
    /// Hears of progress: the case, and its search's progress.
    pub progress: Option<&'a mut (dyn FnMut(usize, CaseProgress) + Send)>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options { timeout: None, batch: 64, seed: 0x6b6e6e, split: split::Split::Auto, progress: None }
    }
}

/// The time the falsifier gets before branch and bound starts (per case).
const FALSIFIER_BUDGET: Duration = Duration::from_millis(300);

/// A question that does not fit the program: a user error.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch(pub String);

/// Answers `question` about `target`.
pub fn verify(target: &Target, question: &Question, options: Options<'_>) -> Result<Answer, Mismatch> {
    let started = Instant::now();
    let deadline = options.timeout.map(|t| started + t);
    let outputs = target.outputs();
    let (property, expected) = match question {
        Question::Property(p) => {
            if target.net.result == ResultKind::ArgMax {
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
                    Some(inner) => {
                        target.class_at(&inner.iter().map(|x| x.lo + (x.hi - x.lo) / 2.0).collect::<Vec<_>>())
                    }
                    None => return Ok(Answer::Holds { class: None }),
                },
            };
            if class >= outputs {
                return Err(Mismatch(format!(
                    "class {class} does not exist: the program has {outputs} outputs (0 to {})",
                    outputs.saturating_sub(1)
                )));
            }
            let negated = matches!(claim, Claim::ArgmaxIsNot(_));
            (claim::class_property(region.clone(), class, outputs, negated), Some((class, negated)))
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
    let scores = |x: &[f64]| target.net.eval(x);
    let replayer = Replayer {
        program: &target.program,
        input_name: &target.input_name,
        input_shape: &target.input_shape,
        fixed: &target.fixed,
        scores: &scores,
    };
    // The class test on what the reference computed, for class claims.
    let class_of = |r: &Replayed| r.class.map_or_else(|| argmax(r.output.iter().copied()) as usize, |c| c as usize);
    let is_unsafe = |r: &Replayed| match expected {
        Some((k, false)) => class_of(r) != k,
        Some((k, true)) => class_of(r) == k,
        None => true,
    };
    let mut progress = options.progress;
    let mut stuck = None;
    for (index, case) in property.cases.iter().enumerate() {
        let Some(search) = CaseSearch::new(&target.net, &target.plan, case).map(|s| s.splitting(options.split)) else {
            continue; // No binary64 point in this box.
        };
        // What the confirmation found: a replayed counterexample, or a bug (a candidate that
        // does not replay), which also stops the search: it is reported, never hidden.
        let found = std::sync::Mutex::new(None::<Result<Replayed, String>>);
        let confirm = |x: &[f64]| {
            let result = replayer.confirm(case, x, &is_unsafe).map_err(|NotConfirmed(why)| why);
            *found.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            true
        };
        let inner = case.input.inner().expect("CaseSearch::new checked the box");
        let falsifier = Falsifier { net: &target.net, plan: &target.plan, case, inner };
        let falsify_until = Instant::now() + FALSIFIER_BUDGET;
        let falsify_until = deadline.map_or(falsify_until, |d| d.min(falsify_until));
        // Falsify first, cheaply; then one bound of the whole box (most small questions end
        // there); then gradient descent; then branch and bound.
        let (sampled, points) = falsifier.sample(options.seed);
        let mut outcome = match sampled {
            Some(x) if confirm(&x) => CaseOutcome::Candidate(x),
            _ => CaseOutcome::Holds,
        };
        if matches!(outcome, CaseOutcome::Holds)
            && matches!(search.examine(&case.input.outer(), None, 0, &[]), Examined::Proved)
        {
            continue;
        }
        if matches!(outcome, CaseOutcome::Holds)
            && let Some(x) = falsifier.descend(&points, Some(falsify_until))
            && confirm(&x)
        {
            outcome = CaseOutcome::Candidate(x);
        }
        if matches!(outcome, CaseOutcome::Holds) {
            let mut report = |p: CaseProgress| {
                if let Some(f) = progress.as_mut() {
                    f(index, p)
                }
            };
            outcome = search.run(deadline, options.batch, &confirm, &mut report);
        }
        match outcome {
            CaseOutcome::Holds => {}
            CaseOutcome::Candidate(x) => {
                return Ok(match found.into_inner().unwrap_or_else(|e| e.into_inner()) {
                    Some(Ok(replayed)) => Answer::Violated(Counterexample {
                        case: index,
                        input: x,
                        class: expected.map(|_| class_of(&replayed)).or(replayed.class.map(|c| c as usize)),
                        output: replayed.output,
                        expected_class: expected.filter(|(_, negated)| !negated).map(|(k, _)| k),
                    }),
                    Some(Err(why)) => Answer::Unknown(Unknown::Bug(why)),
                    None => Answer::Unknown(Unknown::Bug(format!("a counterexample at {x:?} was not recorded"))),
                });
            }
            CaseOutcome::Timeout => return Ok(Answer::Unknown(Unknown::Timeout)),
            CaseOutcome::Stuck => {
                stuck = Some("some boxes are too narrow to split and their bounds do not decide them".to_string())
            }
        }
    }
    Ok(match stuck {
        Some(why) => Answer::Unknown(Unknown::Limit(why)),
        None => Answer::Holds { class: expected.filter(|(_, negated)| !negated).map(|(k, _)| k) },
    })
}
