//! The harness of the per-rule tests (`rules/` for the published profile,
//! `revised_rules/` for the rules the patches add): walk krun's path until the rule under
//! test is among the successors, then check that one step.

use knn_semantics::config::Config;
use knn_semantics::engine::Step;
use knn_semantics::profile::{Priorities, Profile};
use knn_semantics::successors;

/// How many steps of krun's path to walk before giving up.
pub const MAX_STEPS: usize = 100_000;

/// The cells a step may change besides `<k>`, as `super::cell` names them.
pub const CELLS: [&str; 4] = ["env", "store", "nextLoc", "shape"];

/// Whether `step` is a firing of rule `id`: the step's own rule, or an `[anywhere]` /
/// `[function]` rule fired while its right-hand side was built.
pub fn fires(step: &Step, id: &str) -> bool {
    step.rule.id == id || step.side.iter().any(|(rule, _)| rule.id == id)
}

/// Walks krun's path under `profile` from `config`: at each configuration, if one successor is
/// a firing of `id` (the `nth` one met), that is the firing; otherwise krun's choice (the first
/// successor) is taken.
pub fn fire_in(profile: &'static Profile, mut config: Config, id: &'static str, nth: usize, what: &str) -> Firing {
    assert!(profile.rule(id).is_some(), "no rule `{id}` in the {} profile", profile.name);
    let mut met = 0;
    for _ in 0..MAX_STEPS {
        let mut next = successors(profile, &config, Priorities::Krun);
        if let Some(position) = next.iter().position(|s| fires(&s.step, id)) {
            met += 1;
            if met == nth {
                let successor = next.swap_remove(position);
                assert!(successor.abort.is_none(), "`{id}` aborts krun on `{what}`: {:?}", successor.abort);
                return Firing {
                    id,
                    before: config,
                    after: successor.config,
                    step: successor.step,
                    side_checked: false,
                };
            }
        }
        assert!(!next.is_empty(), "`{id}` fires {met} of {nth} times on `{what}`: no rule applies to\n{config:?}");
        let krun = next.swap_remove(0);
        assert!(krun.abort.is_none(), "krun aborts on `{what}` before `{id}` fires: {:?}", krun.abort);
        config = krun.config;
    }
    panic!("`{id}` does not fire {nth} times within {MAX_STEPS} steps of `{what}`");
}

/// One application of the rule under test.
#[must_use = "finish the checks with `.cells(…)`"]
pub struct Firing {
    pub id: &'static str,
    pub before: Config,
    pub after: Config,
    pub step: Step,
    pub side_checked: bool,
}

impl Firing {
    /// `<k> consumed ~> R => produced ~> R </k>`: the first items of `<k>` before and after the
    /// step (top first, in krun syntax), and the rest `R` unchanged.
    pub fn k(self, consumed: &[&str], produced: &[&str]) -> Firing {
        let (before, after) = (super::k_items(&self.before), super::k_items(&self.after));
        let id = self.id;
        assert!(
            before.len() >= consumed.len() && after.len() >= produced.len(),
            "`{id}`: <k> too short: {before:?} => {after:?}"
        );
        assert_eq!(&before[..consumed.len()], consumed, "`{id}`: the top of <k> before the step");
        assert_eq!(&after[..produced.len()], produced, "`{id}`: the top of <k> after the step");
        let rest_before = &self.before.k[..self.before.k.len() - consumed.len()];
        let rest_after = &self.after.k[..self.after.k.len() - produced.len()];
        assert!(
            rest_before == rest_after,
            "`{id}`: the rest of <k> changed: {:?} => {:?}",
            &before[consumed.len()..],
            &after[produced.len()..]
        );
        self
    }

    /// The whole of `<k>` after the step, top first.
    pub fn k_after(self, items: &[&str]) -> Firing {
        assert_eq!(super::k_items(&self.after), items, "`{}`: <k> after the step", self.id);
        self
    }

    /// The rule whose step carried the firing (for `[anywhere]` and `[function]` rules).
    pub fn by(self, rule: &str) -> Firing {
        assert_eq!(self.step.rule.id, rule, "`{}` fired inside another step", self.id);
        self
    }

    /// The `[anywhere]` / `[function]` rules fired while the right-hand side was built, with how
    /// many times each fired. Without this call, `cells` requires that none fired.
    pub fn side(mut self, expected: &[(&str, u32)]) -> Firing {
        let mut actual: Vec<(&str, u32)> = self.step.side.iter().map(|(r, n)| (r.id, *n)).collect();
        let mut expected = expected.to_vec();
        actual.sort_unstable();
        expected.sort_unstable();
        assert_eq!(actual, expected, "`{}`: side firings", self.id);
        self.side_checked = true;
        self
    }

    /// The changes of `<env>`, `<store>`, `<nextLoc>` and `<shape>`: those listed, and no
    /// other.
    pub fn cells(self, changes: &[Change]) {
        for change in changes {
            assert!(CELLS.contains(&change.cell), "unknown cell {}", change.cell);
        }
        for name in CELLS {
            let before = cell_lines(&self.before, name);
            let after = cell_lines(&self.after, name);
            let removed: Vec<String> = before.iter().filter(|l| !after.contains(l)).cloned().collect();
            let added: Vec<String> = after.iter().filter(|l| !before.contains(l)).cloned().collect();
            let (want_removed, want_added) = changes
                .iter()
                .find(|c| c.cell == name)
                .map(|c| (c.removed.clone(), c.added.clone()))
                .unwrap_or_default();
            assert_eq!(
                (removed, added),
                (want_removed, want_added),
                "`{}`: <{name}> (lines removed, lines added)",
                self.id
            );
        }
        if !self.side_checked {
            assert!(self.step.side.is_empty(), "`{}`: unexpected side firings {:?}", self.id, self.step.side);
        }
    }
}

/// A cell's entries (one per line, `.Map` left out).
pub fn cell_lines(config: &Config, name: &str) -> Vec<String> {
    super::cell(config, name).into_iter().filter(|l| l != ".Map").collect()
}

/// The entries of a cell that a step removes and adds (an overwritten entry is both).
pub struct Change {
    pub cell: &'static str,
    pub removed: Vec<String>,
    pub added: Vec<String>,
}

pub fn change(cell: &'static str, removed: &[&str], added: &[&str]) -> Change {
    Change {
        cell,
        removed: removed.iter().map(|s| s.to_string()).collect(),
        added: added.iter().map(|s| s.to_string()).collect(),
    }
}

pub fn env(removed: &[&str], added: &[&str]) -> Change {
    change("env", removed, added)
}

pub fn store(removed: &[&str], added: &[&str]) -> Change {
    change("store", removed, added)
}

pub fn shape(removed: &[&str], added: &[&str]) -> Change {
    change("shape", removed, added)
}

pub fn next_loc(from: i64, to: i64) -> Change {
    change("nextLoc", &[&from.to_string()], &[&to.to_string()])
}
