//! One result type: [`Report`]. Whichever engine ran, a run ends in one [`Answer`] — a value,
//! an empty `<k>`, a stuck term, or a [`KnnError`] (the program's run-time error, krun's abort,
//! a limit) — with what else was asked for: the steps, the `<env>` observables, the trace,
//! the rule counts, the final configuration. The renderers (`render.rs`) print a report in
//! every output format; the exit code is the answer's.

use std::sync::Arc;

use knn_semantics::Config;
use knn_semantics::config::{config_to_string, kitem_to_string};
use knn_semantics::engine::{Coverage, EnvTensors, Evaluation, Limit, Observed, Outcome, Step, Verdict};
use knn_semantics::errors::ErrorKind;
use knn_semantics::memory;
use knn_semantics::observables::{env_tensors, read_tensor, tensor_size};
use knn_semantics::report::{check_report_size, check_text_size};
use knn_semantics::term::{Node, Term};

use super::error::{Failure, KnnError};
use super::exit::Exit;
use super::source::Source;
use knn_verify::Conclusion;

/// Which engine runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// The rewriting engine that mirrors the K rules: any semantics, traces, configurations.
    SmallStep,
    /// The big-step evaluator over dense tensors: revised semantics, bit-identical values.
    BigStep,
}

/// How a run ended.
#[derive(Clone, Debug)]
pub enum Answer {
    /// A number or a tensor. `term` is the result as K writes it (`tensor(12, 2)`), when the
    /// small-step engine produced it.
    Value { value: Observed, term: Option<String> },
    /// A result that is neither a number nor a tensor, as K prints it.
    Term(String),
    /// `<k>` is empty (published rules: a result `0` erased by `drop-int-zero`).
    Empty,
    /// No rule applies to this item (published rules only).
    Stuck(String),
    /// No value: the program's run-time error, krun's abort, or a limit.
    Failed(KnnError),
}

impl Answer {
    /// The exit code (docs/cli.md): 0 a result, 3 no value (stuck), else the error's.
    pub fn exit_code(&self) -> u8 {
        self.exit().code()
    }

    /// The exit ([`Exit`]) whose code [`Answer::exit_code`] gives.
    pub fn exit(&self) -> Exit {
        match self {
            Answer::Value { .. } | Answer::Term(_) | Answer::Empty => Exit::Result,
            Answer::Stuck(_) => Exit::NoValue,
            Answer::Failed(error) => error.exit(),
        }
    }

    /// The answer as the engine contract compares answers (values bit for bit, errors by kind).
    pub fn verdict(&self) -> Verdict {
        match self {
            Answer::Value { value, .. } => Verdict::Value(value.clone()),
            Answer::Term(term) => Verdict::Value(Observed::Malformed(term.clone())),
            Answer::Empty => Verdict::Empty,
            Answer::Stuck(item) => Verdict::Stuck(item.clone()),
            Answer::Failed(error) => match error.failure {
                Failure::Runtime(kind) => Verdict::Error {
                    kind,
                    span: error.diagnostics.first().map(|d| d.span).unwrap_or_default(),
                    detail: error.message.clone(),
                },
                Failure::Aborted => Verdict::Aborted(error.message.clone()),
                _ => Verdict::Limit,
            },
        }
    }
}

/// What a verification took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Effort {
    pub seconds: f64,
    /// Boxes that branch and bound examined.
    pub boxes: u64,
    /// The share of the region's volume proved (of the case searched last).
    pub proved_share: f64,
}

/// A verification's answer and what it took: `holds`, `violated` with its counterexample, or
/// `unknown` and why (a question that cannot be asked is a [`KnnError`] instead).
#[derive(Clone, Debug)]
pub struct Verification {
    pub conclusion: Conclusion,
    pub effort: Effort,
    /// The program's source, for the places of unsupported constructs and failures.
    pub source: Arc<Source>,
}

impl Verification {
    /// How the question ended: [`Exit::Result`] for `holds`, [`Exit::Violated`],
    /// [`Exit::Unknown`] (docs/cli.md).
    pub fn exit(&self) -> Exit {
        match self.conclusion {
            Conclusion::Holds { .. } => Exit::Result,
            Conclusion::Violated(_) => Exit::Violated,
            Conclusion::Unknown(_) => Exit::Unknown,
        }
    }

    /// The exit code of [`Verification::exit`]: 0, 10 or 11.
    pub fn exit_code(&self) -> u8 {
        self.exit().code()
    }
}

/// A run's answer and what else was asked for.
#[derive(Clone, Debug)]
pub struct Report {
    pub answer: Answer,
    pub engine: EngineKind,
    /// Rewrite steps taken (small-step engine).
    pub steps: Option<u64>,
    /// Every name of the final `<env>` with its tensor, or why it is not a dense tensor (when
    /// asked for).
    pub observables: Option<EnvTensors>,
    /// Every rule applied, in order (when asked for).
    pub trace: Option<Vec<Step>>,
    /// How often each rule fired (small-step engine).
    pub coverage: Option<Coverage>,
    /// The final configuration as krun prints it (small-step engine, when asked for), written
    /// out when the run ended: a report holds no terms, so it can cross threads.
    pub config: Option<String>,
    /// The program's source, for the places of errors.
    pub source: Arc<Source>,
}

impl Report {
    /// How the question ended ([`Answer::exit`]).
    pub fn exit(&self) -> Exit {
        self.answer.exit()
    }

    /// The exit code of the answer ([`Answer::exit_code`]).
    pub fn exit_code(&self) -> u8 {
        self.answer.exit_code()
    }

    /// A report of an engine's verdict (the engine contract's answer: no steps, observables or
    /// rules).
    pub fn of_verdict(verdict: Verdict, source: &Arc<Source>) -> Report {
        let answer = match verdict {
            Verdict::Value(value) => Answer::Value { value, term: None },
            Verdict::Error { kind, span, detail } => Answer::Failed(KnnError::runtime(kind, &detail, span, source)),
            Verdict::Stuck(item) => Answer::Stuck(item),
            Verdict::Empty => Answer::Empty,
            Verdict::Aborted(reason) => Answer::Failed(aborted(&reason)),
            Verdict::Limit => Answer::Failed(KnnError::new(Failure::Limit(None), "limit reached")),
        };
        Report::bare(answer, source)
    }

    /// A report of the big-step engine's evaluation, with its `<env>` when `observables`.
    pub fn of_evaluation(evaluation: Evaluation, observables: bool, source: &Arc<Source>) -> Report {
        let env = evaluation.env;
        Report { observables: observables.then_some(env), ..Report::of_verdict(evaluation.verdict, source) }
    }

    /// The big-step engine's `answer` and nothing else.
    fn bare(answer: Answer, source: &Arc<Source>) -> Report {
        Report {
            answer,
            engine: EngineKind::BigStep,
            steps: None,
            observables: None,
            trace: None,
            coverage: None,
            config: None,
            source: source.clone(),
        }
    }

    /// A report of a small-step run. The observables are read out of the store when asked for,
    /// after checking that they fit in the memory budget.
    pub(super) fn of_run(
        run: knn_semantics::engine::Run,
        wanted: Wanted,
        source: &Arc<Source>,
    ) -> Result<Report, KnnError> {
        let trace = wanted.trace.then_some(run.trace);
        Report::of_end(run.outcome, run.config, run.steps, trace, Some(run.coverage), wanted, source)
    }

    /// A report of a final state of the small-step engine reached in `steps` steps, with its
    /// `<env>` observables (checked against the memory budget first).
    pub fn of_final_state(
        outcome: Outcome,
        config: Config,
        steps: u64,
        source: &Arc<Source>,
    ) -> Result<Report, KnnError> {
        let wanted = Wanted { observables: true, ..Wanted::default() };
        Report::of_end(outcome, config, steps, None, None, wanted, source)
    }

    /// A report of a final state of the small-step engine (of a run, or one of `search`'s).
    pub(crate) fn of_end(
        outcome: Outcome,
        config: Config,
        steps: u64,
        trace: Option<Vec<Step>>,
        coverage: Option<Coverage>,
        wanted: Wanted,
        source: &Arc<Source>,
    ) -> Result<Report, KnnError> {
        let observables = if wanted.observables {
            check_report_size(&outcome, &config).map_err(|e| KnnError::memory("the report", e))?;
            Some(env_tensors(&config).into_iter().map(|(name, t)| (name, t.map_err(|e| e.0))).collect())
        } else {
            None
        };
        let answer = match outcome {
            Outcome::Value(term) => value_answer(&term, &config)?,
            Outcome::Empty | Outcome::Paused => Answer::Empty,
            Outcome::Stuck(item) => Answer::Stuck(kitem_to_string(&item)),
            Outcome::Aborted(reason) => Answer::Failed(aborted(&reason)),
            Outcome::Error { kind, detail, span } => Answer::Failed(KnnError::runtime(kind, &detail, span, source)),
            Outcome::Limit(limit) => Answer::Failed(limit_error(limit)),
        };
        Ok(Report {
            answer,
            engine: EngineKind::SmallStep,
            steps: Some(steps),
            observables,
            trace,
            coverage,
            config: if wanted.config { Some(configuration_text(&config)?) } else { None },
            source: source.clone(),
        })
    }
}

/// `config` as krun prints it, once its text is known to fit in the memory budget.
fn configuration_text(config: &Config) -> Result<String, KnnError> {
    let cells = config.store.len().saturating_add(config.k.len());
    check_text_size(cells).map_err(|e| KnnError::memory("printing the configuration", e))?;
    Ok(config_to_string(config))
}

/// What a small-step report keeps besides its answer.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Wanted {
    pub observables: bool,
    pub trace: bool,
    pub config: bool,
}

fn aborted(reason: &str) -> KnnError {
    KnnError::new(Failure::Aborted, format!("krun stops here: {reason}"))
}

/// A limit of the small-step engine, with the words that say which bound to raise.
pub fn limit_error(limit: Limit) -> KnnError {
    let message = match limit {
        Limit::Steps(n) => format!("stopped after {n} steps (raise --max-steps)"),
        Limit::States(n) => format!("stopped after exploring {n} states (raise --max-states)"),
        Limit::Memory(too_large) => too_large.to_string(),
    };
    let mut error = KnnError::new(Failure::Limit(Some(limit)), message);
    if let Limit::Memory(too_large) = limit {
        error.too_large = Some(too_large);
    }
    error
}

/// The value in `<k>`: a tensor is read out of the store once it is known to fit in the memory
/// budget (eight bytes an element, less than the store's terms take for it).
fn value_answer(term: &Term, config: &Config) -> Result<Answer, KnnError> {
    let value = match term.node() {
        Node::Float(x) => Observed::Float(*x),
        Node::Int(n) => Observed::Int(*n),
        Node::Tensor { loc, len } => {
            let size = tensor_size(&config.store, *loc, *len);
            memory::check(size.and_then(|n| memory::bytes_for(n, 8))).map_err(|e| KnnError::memory("the result", e))?;
            match read_tensor(&config.store, *loc, *len) {
                Ok(t) => Observed::Tensor(t),
                Err(e) => Observed::Malformed(e.0),
            }
        }
        _ => return Ok(Answer::Term(term.to_string())),
    };
    Ok(Answer::Value { value, term: Some(term.to_string()) })
}

/// Whether a run-time error is the memory budget (a limit of knn, reported as one).
pub(super) fn is_memory_limit(error: &KnnError) -> bool {
    error.failure == Failure::Runtime(ErrorKind::MemoryLimit)
}
