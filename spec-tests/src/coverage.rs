//! Rule coverage of the corpus: which rules of each profile the corpus fires (on `run`'s path
//! and, under the published rules, on every path `search` explores), and the rules no program
//! can fire.

use knn_semantics::Profile;
use knn_semantics::engine::Coverage;

/// A rule no program can fire, and why. docs/semantics.md ("Rules no program fires") lists the
/// same rules with the same reasons; the coverage gate excuses exactly these.
pub struct DeadRule {
    pub profile: &'static str,
    pub id: &'static str,
    pub reason: &'static str,
}

pub const DEAD_RULES: &[DeadRule] = &[
    DeadRule {
        profile: "published",
        id: "fun-merge-2",
        reason: "dead in K: `fun` is declared but no rule and no program builds a `fun(…)` term (§2.7)",
    },
    DeadRule {
        profile: "published",
        id: "fun-merge-n",
        reason: "dead in K: `fun` is declared but no rule and no program builds a `fun(…)` term (§2.7)",
    },
    DeadRule {
        profile: "published",
        id: "fun-unwrap",
        reason: "dead in K: `fun` is declared but no rule and no program builds a `fun(…)` term (§2.7)",
    },
    DeadRule {
        profile: "revised",
        id: "rev-alloc-negative",
        reason: "dimensions are Int literals and `-1` is a Float (§2.2), so no program allocates a \
                 negative dimension; the rule keeps Rev-4 total",
    },
];

/// Whether `id` is a dead rule of the profile named `profile`.
pub fn is_dead(profile: &str, id: &str) -> bool {
    DEAD_RULES.iter().any(|d| d.profile == profile && d.id == id)
}

/// The corpus's coverage of one profile.
pub struct ProfileCoverage {
    pub profile: &'static Profile,
    pub total: Coverage,
}

impl ProfileCoverage {
    pub fn new(profile: &'static Profile) -> ProfileCoverage {
        ProfileCoverage { profile, total: Coverage::new(profile) }
    }

    /// Fireable rules (contexts excluded: they fire through their heating and cooling rules).
    pub fn fireable(&self) -> usize {
        self.profile.fireable().count()
    }

    /// Fireable rules that fired at least once.
    pub fn fired(&self) -> usize {
        self.profile.fireable().filter(|r| self.total.count(r.id) > 0).count()
    }

    /// Rules that never fired and are not known to be dead: what the gate reports.
    pub fn missing(&self) -> Vec<&'static str> {
        self.total.never_fired().map(|r| r.id).filter(|id| !is_dead(self.profile.name, id)).collect()
    }

    /// Dead rules that fired after all: the dead list is wrong.
    pub fn dead_but_fired(&self) -> Vec<&'static str> {
        DEAD_RULES
            .iter()
            .filter(|d| d.profile == self.profile.name && self.total.count(d.id) > 0)
            .map(|d| d.id)
            .collect()
    }

    /// `published: 98 of 98 fireable rules fired (3 dead)`.
    pub fn line(&self) -> String {
        let dead = DEAD_RULES.iter().filter(|d| d.profile == self.profile.name).count();
        format!(
            "{}: {} of {} fireable rules fired, {dead} dead, {} missing",
            self.profile.name,
            self.fired(),
            self.fireable(),
            self.missing().len()
        )
    }
}
