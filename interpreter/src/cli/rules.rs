//! `knn rules`: the inventory of the selected profile.

use serde_json::json;

use super::{Exit, RulesArgs, RulesFormat, profile_of};

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
                        "k": r.k,
                    })
                })
                .collect();
            let report = json!({ "semantics": profile.name, "rules": rules });
            println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
        }
        RulesFormat::Text => {
            println!("{:<5} {:<28} {:<9} {:<11} {:<9} K source", "#", "id", "kind", "section", "lines");
            for r in profile.rules() {
                println!(
                    "{:<5} {:<28} {:<9} {:<11} {:<9} {}",
                    r.number,
                    r.id,
                    r.kind.name(),
                    r.section.name(),
                    r.lines,
                    r.k
                );
            }
            println!("{} rules and contexts ({} semantics)", profile.rules().len(), profile.name);
        }
    }
    Exit::Result
}
