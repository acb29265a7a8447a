//! Running a corpus program: under a profile on the small-step engine (with its trace, rule
//! coverage and, under the published rules, the outcomes of `search`), and under the revised
//! rules on the big-step engine.

use std::collections::BTreeMap;
use std::sync::Arc;

use knn::parse_input;
use knn::render::report_json;
use knn::{Report, Source};
use knn_engine::bigstep::{BigStep, Staging};
use knn_engine::tensor::Precision;
use knn_semantics::check::check_program;
use knn_semantics::config::kitem_to_string;
use knn_semantics::engine::{Coverage, Engine, Limit, Outcome, SearchOptions, SmallStep, Step, Verdict, search};
use knn_semantics::inputs::{TensorInput, initial_config};
use knn_semantics::observables::read_tensor;
use knn_semantics::profile::Priorities;
use knn_semantics::syntax::diagnostic::render_report;
use knn_semantics::syntax::print::float_literal;
use knn_semantics::syntax::{Exp, parse_program};
use knn_semantics::term::{Node, Term, term_of_program};
use knn_semantics::{Config, Profile, StepOptions, run};
use serde_json::Value;

use crate::Program;

/// The step budget of a corpus run: far above any corpus program, low enough to stop a
/// program that loops.
pub const MAX_STEPS: u64 = 1_000_000;

/// Traces are kept for runs shorter than this.
pub const TRACE_LIMIT: u64 = 200;

/// A program run under one profile on the small-step engine.
pub enum ProfileRun {
    /// The profile's grammar rejects the program: the rendered diagnostic.
    ParseError(String),
    Ran(Box<Ran>),
}

/// A run that reached a final state (or a limit).
pub struct Ran {
    pub profile: &'static Profile,
    pub program: Exp,
    pub inputs: Vec<TensorInput>,
    pub outcome: Outcome,
    pub config: Config,
    pub steps: u64,
    /// Every step, when the run took fewer than [`TRACE_LIMIT`] steps.
    pub trace: Option<Vec<Step>>,
    /// The rules fired by the run.
    pub coverage: Coverage,
    /// The revised profile's static errors, rendered (the program still runs: the run shows
    /// the run-time error each of them stands for).
    pub static_errors: Vec<String>,
    /// The outcomes of `search` (published rules only).
    pub search: Option<SearchSummary>,
}

/// What `search` found: each distinct outcome summary with the number of final states that
/// have it.
pub struct SearchSummary {
    pub outcomes: BTreeMap<String, usize>,
    pub finals: usize,
    pub states: usize,
    pub limit: Option<usize>,
    /// The rules fired on every path `search` explored.
    pub coverage: Coverage,
}

impl SearchSummary {
    /// Whether the rules are nondeterministic on this program: `search` finds more than one
    /// outcome, or an outcome other than `run`'s, or does not finish.
    pub fn is_nondeterministic(&self, run_summary: &str) -> bool {
        self.limit.is_some() || self.outcomes.len() != 1 || !self.outcomes.contains_key(run_summary)
    }
}

/// The program's `// input:` bindings.
pub fn inputs_of(program: &Program) -> Result<Vec<TensorInput>, String> {
    program.header.inputs.iter().map(|spec| parse_input(spec).map_err(|e| e.message.clone())).collect()
}

/// Runs `program` under `profile` on the small-step engine.
pub fn run_profile(program: &Program, profile: &'static Profile) -> Result<ProfileRun, String> {
    let exp = match parse_program(&program.source, profile.grammar) {
        Ok(exp) => exp,
        Err(e) => return Ok(ProfileRun::ParseError(e.render(&program.name, &program.source, false))),
    };
    let inputs = inputs_of(program)?;
    let static_errors = if profile.static_checks {
        let bound: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
        check_program(&exp, &bound)
            .iter()
            .map(|e| {
                let message = format!("{} [{}]", e.message, e.kind);
                render_report(
                    &program.name,
                    &program.source,
                    e.span,
                    &message,
                    e.kind.k_message(),
                    e.hint.as_deref(),
                    false,
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let config = initial_config(profile, term_of_program(&exp), &inputs).map_err(|e| e.to_string())?;
    let ran = run(profile, config.clone(), StepOptions { max_steps: Some(MAX_STEPS), trace: true });
    let coverage = ran.coverage;
    let trace = (ran.steps < TRACE_LIMIT).then_some(ran.trace);
    let search = (profile.name == "published").then(|| {
        let options = SearchOptions { max_states: program.header.max_states, priorities: Priorities::Krun };
        let found = search(profile, config, options);
        let mut outcomes = BTreeMap::new();
        for f in &found.finals {
            *outcomes.entry(summary(&f.outcome, &f.config)).or_insert(0) += 1;
        }
        let limit = match found.limit {
            Some(Limit::States(n)) => Some(n),
            Some(Limit::Steps(n)) => Some(n as usize),
            // The corpus's programs are small: a memory limit here would be a bug, and shows
            // in the snapshot as the bytes asked for.
            Some(Limit::Memory(e)) => Some(e.asked.map_or(usize::MAX, |b| b as usize)),
            None => None,
        };
        SearchSummary { outcomes, finals: found.finals.len(), states: found.states, limit, coverage: found.coverage }
    });
    Ok(ProfileRun::Ran(Box::new(Ran {
        profile,
        program: exp,
        inputs,
        outcome: ran.outcome,
        config: ran.config,
        steps: ran.steps,
        trace,
        coverage,
        static_errors,
        search,
    })))
}

/// An outcome in one line, as headers write expectations: `-2.0`, `1`,
/// `tensor ( 1 , 2 ) [0.0, 1.5]` (the header, then the elements), `empty`,
/// `stuck TERM`, `error KIND`, `aborted`, `limit`.
pub fn summary(outcome: &Outcome, config: &Config) -> String {
    match outcome {
        Outcome::Value(v) => value_summary(v, config),
        Outcome::Empty => "empty".into(),
        Outcome::Stuck(item) => format!("stuck {}", kitem_to_string(item)),
        Outcome::Aborted(_) => "aborted".into(),
        Outcome::Error { kind, .. } => format!("error {kind}"),
        Outcome::Limit(_) => "limit".into(),
        Outcome::Paused => "paused".into(),
    }
}

fn value_summary(value: &Term, config: &Config) -> String {
    match value.node() {
        Node::Float(x) => float_literal(*x),
        Node::Int(n) => n.to_string(),
        Node::Tensor { loc, len } => match read_tensor(&config.store, *loc, *len) {
            Ok(t) => format!("{value} {}", nested(&t.shape, &t.data)),
            Err(e) => format!("{value} (not dense: {})", e.0),
        },
        _ => value.to_string(),
    }
}

/// Row-major data as nested lists: `[[1.0, 2.0], [3.0, 4.0]]`.
fn nested(shape: &[usize], data: &[f64]) -> String {
    let items: Vec<String> = match shape {
        [] | [_] => data.iter().map(|x| float_literal(*x)).collect(),
        [rows, rest @ ..] => {
            let size: usize = rest.iter().product();
            (0..*rows).map(|r| nested(rest, &data[r * size..(r + 1) * size])).collect()
        }
    };
    format!("[{}]", items.join(", "))
}

/// Whether an outcome matches a header's expectation: `stuck` alone matches every stuck
/// outcome; floats compare bit for bit through their shortest round-trip text.
pub fn matches_expectation(summary: &str, expectation: &str) -> bool {
    summary == expectation || (expectation == "stuck" && summary.starts_with("stuck "))
}

/// The engines that run the corpus beside the reference: the big-step evaluator, direct and
/// staged, exact arithmetic.
pub fn big_step_engines() -> Vec<BigStep> {
    vec![
        BigStep { staging: Staging::Direct, precision: Precision::Exact },
        BigStep { staging: Staging::Staged, precision: Precision::Exact },
    ]
}

/// The verdict of an engine as the JSON report of `knn run --engine … --output json` states it,
/// with the engine's name. Errors are compared by kind (docs/architecture.md, "Two engines, one
/// contract"): their message and place are left out.
pub fn verdict_report(engine: &dyn Engine, program: &Exp, inputs: &[TensorInput], source: &str) -> (String, Value) {
    let verdict = engine.evaluate(program, inputs).unwrap_or_else(|e| Verdict::Stuck(format!("input error: {e}")));
    let source = Arc::new(Source { name: String::new(), text: source.to_string() });
    let mut report = report_json(&Report::of_verdict(verdict, &source)).unwrap_or_default();
    if let Some(error) = report.get_mut("error").and_then(Value::as_object_mut) {
        error.retain(|key, _| key == "kind");
    }
    (engine.name(), report)
}

/// The reference's verdict under the revised rules, as [`verdict_report`].
pub fn reference_report(program: &Exp, inputs: &[TensorInput], source: &str) -> Value {
    let reference = SmallStep { profile: Profile::revised(), max_steps: Some(MAX_STEPS) };
    verdict_report(&reference, program, inputs, source).1
}
