//! Per-rule firing counts (rule coverage).

use super::Step;
use crate::profile::Profile;
use crate::rules::Rule;

/// How often each rule of a profile fired, top-of-`<k>` and side rules alike.
#[derive(Clone)]
pub struct Coverage {
    profile: &'static Profile,
    counts: Vec<u64>,
}

impl std::fmt::Debug for Coverage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Coverage {{ {}: {} firings }}", self.profile.name, self.total())
    }
}

impl Coverage {
    pub fn new(profile: &'static Profile) -> Coverage {
        Coverage { profile, counts: vec![0; profile.rules().len()] }
    }

    /// Records a step whose rule is at `position` in the profile's inventory.
    pub fn record(&mut self, position: usize, step: &Step) {
        self.counts[position] += 1;
        for (rule, n) in &step.side {
            self.add(rule, u64::from(*n));
        }
    }

    /// Records a step found by `search` (the position is looked up).
    pub fn record_step(&mut self, step: &Step) {
        self.add(step.rule, 1);
        for (rule, n) in &step.side {
            self.add(rule, u64::from(*n));
        }
    }

    fn add(&mut self, rule: &Rule, n: u64) {
        if let Some(position) = self.profile.position(rule) {
            self.counts[position] += n;
        }
    }

    pub fn merge(&mut self, other: &Coverage) {
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
    }

    pub fn count(&self, id: &str) -> u64 {
        self.profile.rules().iter().position(|r| r.id == id).map_or(0, |p| self.counts[p])
    }

    /// `(rule, count)` for every rule that fired, in inventory order.
    pub fn fired(&self) -> impl Iterator<Item = (&'static Rule, u64)> + '_ {
        self.profile.rules().iter().zip(&self.counts).filter(|(_, n)| **n > 0).map(|(r, n)| (*r, *n))
    }

    /// Fireable rules (contexts excluded) that never fired.
    pub fn never_fired(&self) -> impl Iterator<Item = &'static Rule> + '_ {
        self.profile.fireable().filter(|r| self.count(r.id) == 0)
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    pub fn profile(&self) -> &'static Profile {
        self.profile
    }
}
