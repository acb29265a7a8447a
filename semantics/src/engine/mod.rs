//! The small-step engine: [`successors`] (every rule of the best priority class that matches
//! at the top of `<k>`), [`run`] (krun's deterministic choice, §2.9) and [`search`] (all
//! reachable final configurations, breadth first). Limits are counts, never times. [`inputs`]
//! binds tensors before a program starts by running a prelude of `let`s on the engine.

mod contract;
mod coverage;
pub mod inputs;
mod outcome;
mod search;

use crate::config::{Config, KItem};
use crate::memory::{self, TooLarge};
use crate::profile::{Priorities, Profile};
use crate::rules::{Head, Rewrite, Rule, SideFirings};
use crate::term::Node;

pub use contract::{Engine, EnvTensors, Evaluation, Observed, SmallStep, Verdict};
pub use coverage::Coverage;
pub use outcome::{Limit, Outcome};
pub use search::{Final, SearchOptions, SearchResult, search};

/// One rewrite step: the rule that fired and the `[anywhere]`/`[function]` rules that fired
/// while its right-hand side was built.
#[derive(Clone, Debug)]
pub struct Step {
    pub rule: &'static Rule,
    pub side: SideFirings,
}

/// A configuration reachable in one step.
pub struct Successor {
    pub step: Step,
    pub config: Config,
    /// Set when the step makes krun stop (the configuration is then the one before the step).
    pub abort: Option<String>,
    /// Set when the step would pass the memory budget (the configuration is the one before).
    pub limit: Option<TooLarge>,
}

/// What a step reports besides its rule: krun stops, or the memory budget is reached.
struct Stop {
    abort: Option<String>,
    limit: Option<TooLarge>,
}

/// Applies one rule in place. `None` if it does not match (the configuration is untouched).
fn try_rule(profile: &Profile, config: &mut Config, rule: &'static Rule) -> Option<(Step, Stop)> {
    let apply = rule.apply?;
    let mut rewrite = Rewrite::new(config, profile.build_index);
    if !apply(&mut rewrite) {
        return None;
    }
    let Rewrite { side, abort, limit, .. } = rewrite;
    Some((Step { rule, side }, Stop { abort, limit }))
}

/// Every configuration reachable in one step with a rule of the best priority class that
/// matches (docs/semantics.md §2.10).
pub fn successors(profile: &Profile, config: &Config, priorities: Priorities) -> Vec<Successor> {
    let Some(top) = config.top() else {
        return Vec::new();
    };
    let mut found: Vec<Successor> = Vec::new();
    for &(_, rule) in profile.candidates(Head::of(top)) {
        let mut next = config.clone();
        if let Some((step, Stop { abort, limit })) = try_rule(profile, &mut next, rule) {
            let config = if abort.is_some() || limit.is_some() { config.clone() } else { next };
            found.push(Successor { step, config, abort, limit });
        }
    }
    let Some(best) = found.iter().map(|s| priorities.class_of(s.step.rule)).min() else {
        return found;
    };
    found.retain(|s| priorities.class_of(s.step.rule) == best);
    found
}

/// What `run` records besides the outcome.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepOptions {
    /// Stop with [`Outcome::Limit`] after this many steps.
    pub max_steps: Option<u64>,
    /// Keep every step in [`Run::trace`].
    pub trace: bool,
}

/// The result of `run`.
pub struct Run {
    pub outcome: Outcome,
    /// The final configuration (for an abort, the one before the aborting step).
    pub config: Config,
    pub steps: u64,
    pub trace: Vec<Step>,
    pub coverage: Coverage,
}

/// Runs to a final state with krun's choice policy: the first rule, in the order krun tries
/// them, that applies at the top of `<k>` (§2.9).
pub fn run(profile: &'static Profile, config: Config, options: StepOptions) -> Run {
    run_until(profile, config, options, |_| false)
}

/// Like [`run`], but stops (with the outcome [`Outcome::Paused`]) as soon as `pause` holds for
/// the configuration about to be rewritten.
pub fn run_until(
    profile: &'static Profile,
    mut config: Config,
    options: StepOptions,
    pause: impl Fn(&Config) -> bool,
) -> Run {
    let mut coverage = Coverage::new(profile);
    let mut trace = Vec::new();
    let mut steps: u64 = 0;
    let outcome = loop {
        if pause(&config) {
            break Outcome::Paused;
        }
        let Some(top) = config.top() else {
            break Outcome::Empty;
        };
        if options.max_steps.is_some_and(|max| steps >= max) {
            break Outcome::Limit(Limit::Steps(steps));
        }
        let mut fired = None;
        for &(position, rule) in profile.candidates(Head::of(top)) {
            if let Some(result) = try_rule(profile, &mut config, rule) {
                fired = Some((position, result));
                break;
            }
        }
        let Some((position, (step, Stop { abort, limit }))) = fired else {
            break Outcome::terminal(&config);
        };
        if let Some(too_large) = limit {
            break Outcome::Limit(Limit::Memory(too_large));
        }
        coverage.record(position, &step);
        if let Some(reason) = abort {
            break Outcome::Aborted(reason);
        }
        steps += 1;
        if options.trace {
            // The trace is a report the user asked for: it grows within the budget too.
            if trace.len() == trace.capacity()
                && let Err(too_large) = memory::check(memory::bytes_for(
                    (trace.len() as u64).saturating_mul(2).max(4),
                    std::mem::size_of::<Step>(),
                ))
            {
                break Outcome::Limit(Limit::Memory(too_large.of("the trace")));
            }
            trace.push(step);
        }
    };
    Run { outcome, config, steps, trace, coverage }
}

impl Outcome {
    /// How a configuration to which no rule applies ends.
    pub fn terminal(config: &Config) -> Outcome {
        match config.k.as_slice() {
            [] => Outcome::Empty,
            [KItem::Term(t)] if t.is_value() => Outcome::Value(t.clone()),
            [KItem::Term(t)] if let Node::Error { kind, detail } = t.node() => {
                Outcome::Error { kind: *kind, detail: detail.to_string(), span: t.span() }
            }
            [.., top] => Outcome::Stuck(top.clone()),
        }
    }
}
