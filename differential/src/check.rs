//! The properties, each a function of one generated program that passes, discards the case
//! (the comparison would be inconclusive: a step or state limit), or fails with a report: the
//! seed, the program as text, the two outcomes one line each, and the first place they differ.

use knn_engine::bigstep::{BigStep, Binding, ExecOptions, InputData, Staging, compile, run_rows, verdict};
use knn_engine::tensor::Precision;
use knn_semantics::engine::SearchOptions;
use knn_semantics::engine::{Engine, EnvTensors, Evaluation, Observed, SmallStep, Verdict};
use knn_semantics::inputs::{TensorInput, initial_config};
use knn_semantics::profile::Priorities;
use knn_semantics::syntax::{Exp, Grammar, parse_program};
use knn_semantics::term::term_of_program;
use knn_semantics::{Outcome, Profile, StepOptions, run, search, successors};

use crate::program::Program;

/// How one case ended.
#[derive(Debug)]
pub enum Check {
    Pass,
    /// Inconclusive, with the reason (counted, and a property fails if too many are).
    Discard(&'static str),
    Fail(String),
}

/// Steps the reference may take on a generated program (they need a few thousand).
const MAX_STEPS: u64 = 2_000_000;
/// Distinct configurations `search` may explore (beyond, only the step-by-step check runs).
const MAX_STATES: usize = 3_000;

fn reference(profile: &'static Profile) -> SmallStep {
    SmallStep { profile, max_steps: Some(MAX_STEPS) }
}

/// The failure report: what failed, the program (seed, input, text), the two outcomes one
/// line each, and the first place they differ.
pub fn report(program: &str, what: &str, left: (&str, &Verdict), right: (&str, &Verdict)) -> String {
    format!(
        "{what}\n{program}\n  {}: {}\n  {}: {}\n  first difference: {}",
        left.0,
        left.1,
        right.0,
        right.1,
        first_difference(left.1, right.1)
    )
}

/// Where two verdicts first differ, in words.
pub fn first_difference(a: &Verdict, b: &Verdict) -> String {
    match (a, b) {
        (Verdict::Value(Observed::Tensor(x)), Verdict::Value(Observed::Tensor(y))) => {
            if x.shape != y.shape {
                return format!("shape {:?} vs {:?}", x.shape, y.shape);
            }
            match x
                .data
                .iter()
                .zip(&y.data)
                .position(|(p, q)| p.to_bits() != q.to_bits() && !(p.is_nan() && q.is_nan()))
            {
                Some(k) => format!("element {k} (row-major): {:?} vs {:?}", x.data[k], y.data[k]),
                None => "none".into(),
            }
        }
        (Verdict::Value(x), Verdict::Value(y)) => format!("the value: {x} vs {y}"),
        (Verdict::Error { kind: x, .. }, Verdict::Error { kind: y, .. }) => format!("the error kind: {x} vs {y}"),
        _ => "the kind of outcome".into(),
    }
}

/// The program text parses back (relaxed and K grammars) to the same tree: the generated
/// tree, printed, must be what the parser reads.
pub fn round_trip(program: &Program) -> Check {
    let exp = program.exp();
    let source = program.source();
    let grammars: &[Grammar] = if program.uses_extensions() {
        // `addTensor` is an identifier in K's grammar: a call of it must not parse there.
        if parse_program(&source, Grammar::K).is_ok() {
            return Check::Fail(format!("K's grammar reads an extension's construct\n{program:?}"));
        }
        &[Grammar::Relaxed]
    } else {
        &[Grammar::K, Grammar::Relaxed]
    };
    for &grammar in grammars {
        match parse_program(&source, grammar) {
            Ok(parsed) if parsed == exp => {}
            Ok(parsed) => {
                return Check::Fail(format!(
                    "{grammar:?} reads the printed program as a different tree\n{program:?}\n  read back: {}",
                    knn_semantics::syntax::to_source(&parsed)
                ));
            }
            Err(e) => return Check::Fail(format!("{grammar:?} does not read the printed program\n{program:?}\n  {e}")),
        }
    }
    Check::Pass
}

/// Parses the program's printed text: every property runs what a user would have written.
fn parsed(program: &Program, grammar: Grammar) -> Result<Exp, Check> {
    parse_program(&program.source(), grammar)
        .map_err(|e| Check::Fail(format!("the printed program does not parse: {e}\n{program:?}")))
}

/// The small-step reference (revised) and the big-step engine, direct and staged, agree: the
/// same value bit for bit (NaN as NaN), or the same error kind at the same place with the same
/// `<env>` (every name in scope at the error, its tensor bit for bit).
pub fn engines_agree(program: &Program) -> Check {
    match parsed(program, Grammar::Relaxed) {
        Ok(exp) => engines_agree_on(&exp, &program.first_inputs(), &format!("{program:?}")),
        Err(check) => check,
    }
}

/// [`engines_agree`] on a parsed program and its inputs; `described` goes into a failure report.
pub fn engines_agree_on(exp: &Exp, inputs: &[TensorInput], described: &str) -> Check {
    let observed = match reference(Profile::revised()).observe(exp, inputs) {
        Ok(Evaluation { verdict: Verdict::Limit, .. }) => {
            return Check::Discard("the reference reached its step limit");
        }
        Ok(evaluation) => evaluation,
        Err(e) => return Check::Fail(format!("the input does not bind: {e}\n{described}")),
    };
    let expected = observed.verdict.clone();
    if matches!(expected, Verdict::Stuck(_) | Verdict::Empty | Verdict::Aborted(_)) {
        return Check::Fail(format!("the revised rules must not get stuck\n{described}\n  reference: {expected}"));
    }
    for staging in [Staging::Direct, Staging::Staged] {
        let engine = BigStep { staging, precision: Precision::Exact };
        let evaluation = match engine.observe(exp, inputs) {
            Ok(evaluation) => evaluation,
            Err(e) => return Check::Fail(format!("{} refuses the input: {e}\n{described}", engine.name())),
        };
        let got = evaluation.verdict.clone();
        if !got.agrees_with(&expected) {
            let name = engine.name();
            return Check::Fail(report(
                described,
                "the engines disagree",
                ("small-step/revised", &expected),
                (&name, &got),
            ));
        }
        // An error is reported at one place, whichever engine finds it (its line and column
        // are the span's start).
        if let (Verdict::Error { span: want, .. }, Verdict::Error { span: found, .. }) = (&expected, &got)
            && want.start != found.start
        {
            let name = engine.name();
            let what =
                format!("the engines report the error at different places (bytes {} and {})", want.start, found.start);
            return Check::Fail(report(described, &what, ("small-step/revised", &expected), (&name, &got)));
        }
        if !evaluation.agrees_with(&observed) {
            let what = format!(
                "the engines end in different <env>s:\n  small-step/revised: {}\n  {}: {}",
                env_text(&observed.env),
                engine.name(),
                env_text(&evaluation.env)
            );
            return Check::Fail(report(described, &what, ("small-step/revised", &expected), (&engine.name(), &got)));
        }
    }
    Check::Pass
}

/// `<env>` in a failure report: each name with its tensor's shape and elements, or why not.
fn env_text(env: &EnvTensors) -> String {
    let entries: Vec<String> = env
        .iter()
        .map(|(x, t)| match t {
            Ok(t) => format!("{x} = {:?} {:?}", t.shape, t.data),
            Err(why) => format!("{x}: {why}"),
        })
        .collect();
    format!("{{{}}}", entries.join(", "))
}

/// The input's rows through one compiled plan, in groups (`group` rows per lane group).
fn batch(exp: &Exp, program: &Program, precision: Precision, group: Option<usize>) -> Vec<Verdict> {
    let input = program.input.as_ref().expect("a batch needs an input");
    let plan =
        compile(exp, &[Binding { name: input.name.clone(), shape: input.shape.clone(), data: InputData::Symbolic }]);
    let rows: Vec<Vec<&[f64]>> = input.rows.iter().map(|r| vec![r.as_slice()]).collect();
    run_rows(&plan, &rows, ExecOptions { precision, group }).into_iter().map(verdict).collect()
}

/// A batch gives every row what a run on that row alone gives (groups of 16 rows, so larger
/// batches span several groups and padded lanes).
pub fn batch_equals_rows(program: &Program) -> Check {
    let Some(input) = &program.input else { return Check::Discard("no input to batch") };
    let exp = match parsed(program, Grammar::Relaxed) {
        Ok(exp) => exp,
        Err(check) => return check,
    };
    let batched = batch(&exp, program, Precision::Exact, Some(16));
    let alone = BigStep { staging: Staging::Staged, precision: Precision::Exact };
    for (k, got) in batched.iter().enumerate() {
        let single = match alone.evaluate(&exp, &[input.row(k)]) {
            Ok(v) => v,
            Err(e) => return Check::Fail(format!("the row does not bind: {e}\n{program:?}")),
        };
        if !got.agrees_with(&single) {
            return Check::Fail(report(
                &format!("{program:?}"),
                &format!("row {k} of the batch differs from its own run"),
                ("alone", &single),
                ("in the batch", got),
            ));
        }
    }
    Check::Pass
}

/// The tolerance of `--fast-math` against exact mode: `|fast - exact| <= FAST_MATH_TOLERANCE
/// * max(1, |exact|, |fast|)`, relative for values above 1 and absolute below, on programs
/// where nothing overflows. (Fused multiply-adds skip a rounding: near overflow one order
/// overflows and the other does not, and a cancelling sum keeps different low bits, so the
/// statement is about moderate values; see `docs/big-step.md`.)
pub const FAST_MATH_TOLERANCE: f64 = 1e-9;

/// Fast math stays within [`FAST_MATH_TOLERANCE`] of exact mode on every finite Float of the
/// result, row by row. Results that are not comparable that way are discarded: an `ArgMax` (a
/// fused rounding may flip a near tie), an error.
pub fn fast_math_close(program: &Program) -> Check {
    if program.input.is_none() {
        return Check::Discard("no input: nothing reaches the kernels");
    }
    let exp = match parsed(program, Grammar::Relaxed) {
        Ok(exp) => exp,
        Err(check) => return check,
    };
    let exact = batch(&exp, program, Precision::Exact, None);
    let fast = batch(&exp, program, Precision::Fast, None);
    let mut compared = false;
    for (k, (e, f)) in exact.iter().zip(&fast).enumerate() {
        let pairs: Vec<(f64, f64)> = match (e, f) {
            (Verdict::Value(Observed::Float(a)), Verdict::Value(Observed::Float(b))) => vec![(*a, *b)],
            (Verdict::Value(Observed::Tensor(a)), Verdict::Value(Observed::Tensor(b))) if a.shape == b.shape => {
                a.data.iter().copied().zip(b.data.iter().copied()).collect()
            }
            _ => continue,
        };
        for (a, b) in pairs.into_iter().filter(|(a, b)| a.is_finite() && b.is_finite()) {
            compared = true;
            let close = (a - b).abs() <= FAST_MATH_TOLERANCE * 1f64.max(a.abs()).max(b.abs());
            if !close {
                return Check::Fail(report(
                    &format!("{program:?}"),
                    &format!("row {k}: fast math is out of tolerance"),
                    ("exact", e),
                    ("fast", f),
                ));
            }
        }
    }
    if compared { Check::Pass } else { Check::Discard("no finite Float to compare") }
}

/// Published rules: the configuration `run` (krun's choices) ends in is one of those `search`
/// finds. Checked two ways: step by step (each step `run` takes is one of the successors
/// `search` explores, and `run` stops exactly where there are none), which is cheap and
/// always conclusive; and, when the whole search space has at most [`MAX_STATES`]
/// configurations, by running `search` and finding `run`'s final configuration among its
/// results.
pub fn run_within_search(program: &Program) -> Check {
    if program.uses_extensions() {
        return Check::Discard("the published rules do not have the extensions");
    }
    let exp = match parsed(program, Grammar::K) {
        Ok(exp) => exp,
        Err(check) => return check,
    };
    let profile = Profile::published();
    let initial = match initial_config(profile, term_of_program(&exp), &program.first_inputs()) {
        Ok(config) => config,
        Err(_) => return Check::Discard("the published prelude does not bind this input"),
    };
    let mut config = initial.clone();
    for _ in 0..MAX_STEPS {
        let next = successors(profile, &config, Priorities::Krun);
        let one = run(profile, config.clone(), StepOptions { max_steps: Some(1), trace: true });
        if one.steps == 0 || matches!(one.outcome, Outcome::Aborted(_)) {
            let aborts = next.iter().any(|s| s.abort.is_some());
            if next.is_empty() || aborts {
                break;
            }
            return Check::Fail(format!("run stops ({:?}) where search takes a step\n{program:?}", one.outcome));
        }
        if !next.iter().any(|s| s.config == one.config) {
            return Check::Fail(format!(
                "run took a step ({}) that is not among search's {} successors\n{program:?}",
                one.trace.first().map_or("?", |s| s.rule.id),
                next.len()
            ));
        }
        config = one.config;
    }
    let ran = run(profile, initial.clone(), StepOptions { max_steps: Some(MAX_STEPS), trace: false });
    if matches!(ran.outcome, Outcome::Limit(_)) {
        return Check::Discard("run reached its step limit");
    }
    let found = search(profile, initial, SearchOptions { max_states: MAX_STATES, ..SearchOptions::default() });
    if found.limit.is_none() && !found.finals.iter().any(|f| f.config == ran.config) {
        return Check::Fail(format!(
            "run's final configuration is not among search's {} final configurations\n{program:?}\n  run: {:?}",
            found.finals.len(),
            ran.outcome
        ));
    }
    Check::Pass
}

/// On the fragment where the published rules are sound, both rule sets compute the same value.
pub fn published_agrees_on_sound_fragment(program: &Program) -> Check {
    let exp = match parsed(program, Grammar::K) {
        Ok(exp) => exp,
        Err(check) => return check,
    };
    let inputs: Vec<TensorInput> = program.first_inputs();
    let run_on = |profile| reference(profile).evaluate(&exp, &inputs);
    let (published, revised) = match (run_on(Profile::published()), run_on(Profile::revised())) {
        (Ok(p), Ok(r)) => (p, r),
        (p, r) => return Check::Fail(format!("the input does not bind: {p:?} {r:?}\n{program:?}")),
    };
    if matches!(published, Verdict::Limit) || matches!(revised, Verdict::Limit) {
        return Check::Discard("a step limit");
    }
    if published.agrees_with(&revised) && matches!(revised, Verdict::Value(_)) {
        return Check::Pass;
    }
    Check::Fail(report(
        &format!("{program:?}"),
        "the published and revised rules disagree inside the sound fragment",
        ("published", &published),
        ("revised", &revised),
    ))
}
