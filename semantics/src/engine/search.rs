//! `search`: every distinct final configuration, breadth first, configurations deduplicated,
//! bounded by a number of states.

use std::collections::VecDeque;

use rustc_hash::FxHashSet;

use super::{Coverage, Limit, Outcome, successors};
use crate::config::Config;
use crate::profile::{Priorities, Profile};

#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// Stop after this many distinct configurations.
    pub max_states: usize,
    pub priorities: Priorities,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions { max_states: 100_000, priorities: Priorities::Krun }
    }
}

/// A final configuration found by `search`.
pub struct Final {
    pub outcome: Outcome,
    pub config: Config,
    /// Steps from the initial configuration (on a shortest path).
    pub depth: u64,
}

pub struct SearchResult {
    /// Distinct final configurations, in the order breadth-first search met them.
    pub finals: Vec<Final>,
    /// Distinct configurations explored.
    pub states: usize,
    /// `Some` if `max_states` stopped the search before it was complete.
    pub limit: Option<Limit>,
    pub coverage: Coverage,
}

pub fn search(profile: &'static Profile, initial: Config, options: SearchOptions) -> SearchResult {
    let mut coverage = Coverage::new(profile);
    // Pending substitutions cache their result in a `OnceCell`; hashing and equality look at
    // the substituted term, which the cache never changes.
    #[allow(clippy::mutable_key_type)]
    // FxHash: configurations are hashed once per state explored, and SipHash's resistance to
    // flooding buys nothing here.
    let mut seen: FxHashSet<Config> = FxHashSet::default();
    let mut queue: VecDeque<(Config, u64)> = VecDeque::new();
    let mut finals = Vec::new();
    seen.insert(initial.clone());
    queue.push_back((initial, 0));
    let mut limit = None;
    while let Some((config, depth)) = queue.pop_front() {
        let next = successors(profile, &config, options.priorities);
        if next.is_empty() {
            finals.push(Final { outcome: Outcome::terminal(&config), config, depth });
            continue;
        }
        for successor in next {
            coverage.record_step(&successor.step);
            if let Some(too_large) = successor.limit {
                limit = Some(Limit::Memory(too_large));
                break;
            }
            if let Some(reason) = successor.abort {
                finals.push(Final { outcome: Outcome::Aborted(reason), config: successor.config, depth });
                continue;
            }
            if seen.len() >= options.max_states {
                limit = Some(Limit::States(seen.len()));
                break;
            }
            if seen.insert(successor.config.clone()) {
                queue.push_back((successor.config, depth + 1));
            }
        }
        if limit.is_some() {
            break;
        }
    }
    SearchResult { finals, states: seen.len(), limit, coverage }
}
