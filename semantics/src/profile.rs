//! Semantics profiles: a rule set plus the choices that go with it (how `E [ Is ]` is built,
//! which grammar programs are read with). Profiles are data: the engine is the same for all.

use std::sync::OnceLock;

use crate::revisions::{PATCHES, Patch, rev05_bounds};
use crate::rules::{self, BuildIndex, Class, Head, Rule, RuleKind};
use crate::syntax::Grammar;

pub struct Profile {
    pub name: &'static str,
    /// The patches applied to the published rules (none for the published profile).
    pub patches: Vec<&'static Patch>,
    /// The inventory, in the order of the K file (sections, then heating and cooling).
    rules: Vec<&'static Rule>,
    /// Per head of `<k>`: the candidate rules with their inventory position, in the order krun
    /// tries them (priority class, then the order of K's sorted rule list, §2.9).
    dispatch: Vec<Vec<(usize, &'static Rule)>>,
    pub build_index: BuildIndex,
    pub grammar: Grammar,
    /// Whether programs are checked statically before they run (lexical scoping, Rev-12).
    pub static_checks: bool,
}

impl Profile {
    /// Builds a profile from its inventory (listing order) and krun's trial order.
    fn new(
        name: &'static str,
        patches: Vec<&'static Patch>,
        inventory: Vec<&'static Rule>,
        krun_order: &[&'static Rule],
        build_index: BuildIndex,
        grammar: Grammar,
    ) -> Profile {
        let mut dispatch: Vec<Vec<(usize, &'static Rule)>> = vec![Vec::new(); Head::COUNT];
        for &rule in krun_order {
            let Some(position) = inventory.iter().position(|r| r.is_same(rule)) else {
                continue;
            };
            if rule.apply.is_none() {
                continue;
            }
            for &head in rule.heads {
                dispatch[head as usize].push((position, rule));
            }
        }
        for candidates in &mut dispatch {
            // Stable: within a class, krun's order is kept.
            candidates.sort_by_key(|(_, rule)| rule.class);
        }
        let static_checks = !patches.is_empty();
        Profile { name, patches, rules: inventory, dispatch, build_index, grammar, static_checks }
    }

    /// The published rules of `k-nn.md`, quirks included.
    pub fn published() -> &'static Profile {
        static PUBLISHED: OnceLock<Profile> = OnceLock::new();
        PUBLISHED.get_or_init(|| {
            let inventory = published_inventory();
            let krun_order = krun_order(&inventory);
            Profile::new(
                "published",
                Vec::new(),
                inventory,
                &krun_order,
                rules::tensor::build_index_published,
                Grammar::K,
            )
        })
    }

    /// The published rules with the patches Rev-0…Rev-13 (docs/semantics.md §4) and the extension
    /// Ext-1 (`addTensor`): deterministic, errors explicit, real networks run. Programs are read
    /// with the relaxed grammar.
    pub fn revised() -> &'static Profile {
        static REVISED: OnceLock<Profile> = OnceLock::new();
        REVISED.get_or_init(|| {
            let removed: Vec<&'static Rule> = PATCHES.iter().flat_map(|p| p.removes.iter().copied()).collect();
            let mut inventory: Vec<&'static Rule> =
                published_inventory().into_iter().filter(|r| !removed.iter().any(|x| x.is_same(r))).collect();
            inventory.extend(PATCHES.iter().flat_map(|p| p.adds.iter().copied()));
            let krun_order = krun_order(&inventory);
            Profile::new(
                "revised",
                PATCHES.to_vec(),
                inventory,
                &krun_order,
                rev05_bounds::build_index_revised,
                Grammar::Relaxed,
            )
        })
    }

    /// Looks a profile up by name.
    pub fn by_name(name: &str) -> Option<&'static Profile> {
        match name {
            "published" => Some(Profile::published()),
            "revised" => Some(Profile::revised()),
            _ => None,
        }
    }

    /// The names `by_name` accepts.
    pub const NAMES: &'static [&'static str] = &["published", "revised"];

    /// The patch that added `rule` to this profile (`None` for a published rule).
    pub fn patch_of(&self, rule: &Rule) -> Option<&'static Patch> {
        self.patches.iter().copied().find(|p| p.adds.iter().any(|r| r.is_same(rule)))
    }

    /// Every rule and context, in the order of the K file.
    pub fn rules(&self) -> &[&'static Rule] {
        &self.rules
    }

    pub fn rule(&self, id: &str) -> Option<&'static Rule> {
        self.rules.iter().copied().find(|r| r.id == id)
    }

    /// The candidates for a head, in the order krun tries them.
    pub fn candidates(&self, head: Head) -> &[(usize, &'static Rule)] {
        &self.dispatch[head as usize]
    }

    /// The inventory position of a rule of this profile.
    pub fn position(&self, rule: &Rule) -> Option<usize> {
        self.rules.iter().position(|r| r.is_same(rule))
    }

    /// Rules that can fire: every rule but contexts, which fire through their generated rules.
    pub fn fireable(&self) -> impl Iterator<Item = &'static Rule> + '_ {
        self.rules.iter().copied().filter(|r| r.kind != RuleKind::Context)
    }
}

/// The rules of `k-nn.md` in file order, then the generated heating and cooling rules.
fn published_inventory() -> Vec<&'static Rule> {
    [
        rules::basic::RULES,
        rules::tensor::RULES,
        rules::relu::RULES,
        rules::linear::RULES,
        rules::tanh::RULES,
        rules::sigmoid::RULES,
        rules::minmax::RULES,
        rules::argmax::RULES,
        rules::utility::RULES,
        rules::strictness::HEATING,
        rules::strictness::COOLING,
    ]
    .concat()
}

/// The order in which krun tries rules: heating rules have variables in every position but the
/// hole, so K's sorted rule list puts them before the hand-written rules they overlap (§2.9);
/// then the other rules in inventory order; cooling last (its class makes that moot).
fn krun_order(inventory: &[&'static Rule]) -> Vec<&'static Rule> {
    let heating = inventory.iter().copied().filter(|r| r.kind == RuleKind::Heat);
    let cooling = inventory.iter().copied().filter(|r| r.kind == RuleKind::Cool);
    let others = inventory.iter().copied().filter(|r| !matches!(r.kind, RuleKind::Heat | RuleKind::Cool));
    heating.chain(others).chain(cooling).collect()
}

/// How `successors` groups rules into priority classes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Priorities {
    /// krun's classes (§2.9), which `krun --search` also used before llvm-backend PR #694.
    #[default]
    Krun,
    /// llvm-backend ≥ March 2023 in search mode: cooling and cool-like rules get the default
    /// class, so more interleavings are explored (§2.10).
    FlatCooling,
}

impl Priorities {
    pub fn class_of(self, rule: &Rule) -> Class {
        match (self, rule.class) {
            (Priorities::FlatCooling, Class::Cool | Class::CoolLike) => Class::Normal,
            (_, class) => class,
        }
    }
}
