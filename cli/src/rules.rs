//! `knn rules`: the inventory of the selected profile, with the patch each revised rule comes
//! from and the published rules the patches removed.

use serde_json::json;

use super::{Exit, RulesArgs, RulesFormat, profile_of};
use knn::{Profile, Rule};

/// `published`, or the patch that added the rule.
fn origin(profile: &Profile, rule: &Rule) -> &'static str {
    profile.patch_of(rule).map_or("published", |p| p.name)
}

/// `(rule, patch)` for every published rule a patch of the profile removed.
fn removed(profile: &Profile) -> Vec<(&'static Rule, &'static str)> {
    profile.patches.iter().flat_map(|p| p.removes.iter().map(move |r| (*r, p.name))).collect()
}

pub fn rules(args: RulesArgs) -> Exit {
    let profile = profile_of(args.semantics);
    match args.output {
        RulesFormat::Json => {
            let rules: Vec<_> = profile
                .rules()
                .iter()
                .map(|r| {
                    json!({
                        "id": r.id,
                        "number": r.number,
                        "kind": r.kind.name(),
                        "class": r.class as u16,
                        "section": r.section.name(),
                        "lines": r.lines,
                        "origin": origin(profile, r),
                        "k": r.k,
                    })
                })
                .collect();
            let removed: Vec<_> = removed(profile)
                .iter()
                .map(|(r, patch)| json!({ "id": r.id, "number": r.number, "by": patch }))
                .collect();
            let patches: Vec<_> = profile
                .patches
                .iter()
                .map(|p| json!({ "name": p.name, "title": p.title, "reason": p.reason }))
                .collect();
            let report = json!({ "semantics": profile.name, "rules": rules, "removed": removed, "patches": patches });
            outln!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
        }
        RulesFormat::Text => {
            outln!("{:<7} {:<34} {:<9} {:<11} {:<10} {:<17} K source", "#", "id", "kind", "section", "origin", "lines");
            for r in profile.rules() {
                outln!(
                    "{:<7} {:<34} {:<9} {:<11} {:<10} {:<17} {}",
                    r.number,
                    r.id,
                    r.kind.name(),
                    r.section.name(),
                    origin(profile, r),
                    r.lines,
                    r.k
                );
            }
            outln!("{} rules and contexts ({} semantics)", profile.rules().len(), profile.name);
            let removed = removed(profile);
            if !removed.is_empty() {
                outln!("\nremoved from the published rules:");
                for (r, patch) in removed {
                    outln!("  {:<5} {:<28} by {patch}", r.number, r.id);
                }
            }
        }
    }
    Exit::Result
}
