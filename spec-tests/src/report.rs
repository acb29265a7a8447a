//! What the corpus tests need of one program: for each profile its header allows, the
//! snapshot text ([`crate::snapshot`]) and the facts the tests check (outcome, coverage, the
//! engines' verdicts) of its run ([`crate::run`]), gathered as plain data.

use knn_semantics::Profile;
use knn_semantics::engine::Coverage;
use serde_json::Value;

use crate::Program;
use crate::run::{ProfileRun, big_step_engines, reference_report, run_profile, summary, verdict_report};
use crate::snapshot::snapshot_text;

/// What the tests need of one program under one profile: plain data, shareable between threads.
pub struct ProfileReport {
    pub profile: &'static Profile,
    /// The snapshot text ([`snapshot_text`]).
    pub snapshot: String,
    /// The outcome in one line, `parse-error` when the grammar rejects the program.
    pub summary: String,
    /// The rules fired by `run` and, under the published rules, by `search`.
    pub coverage: Coverage,
    /// Under the revised rules: the reference's verdict report and each big-step engine's.
    pub reference: Option<Value>,
    pub big_step: Vec<(String, Value)>,
    /// Under the published rules: whether `search` finds other outcomes than `run`.
    pub nondeterministic: bool,
}

/// Runs `program` under each profile its header allows.
pub fn report(program: &Program) -> Result<Vec<ProfileReport>, String> {
    let mut reports = Vec::new();
    for profile in [Profile::published(), Profile::revised()] {
        if !program.header.runs_under(profile.name) {
            continue;
        }
        let ran = run_profile(program, profile)?;
        let snapshot = snapshot_text(program, profile.name, &ran);
        let mut report = ProfileReport {
            profile,
            snapshot,
            summary: "parse-error".into(),
            coverage: Coverage::new(profile),
            reference: None,
            big_step: Vec::new(),
            nondeterministic: false,
        };
        if let ProfileRun::Ran(ran) = &ran {
            report.summary = summary(&ran.outcome, &ran.config);
            report.coverage.merge(&ran.coverage);
            if let Some(search) = &ran.search {
                report.coverage.merge(&search.coverage);
                report.nondeterministic = search.is_nondeterministic(&report.summary);
            }
            if profile.name == "revised" {
                report.reference = Some(reference_report(&ran.program, &ran.inputs, &program.source));
                report.big_step = big_step_engines()
                    .iter()
                    .map(|engine| verdict_report(engine, &ran.program, &ran.inputs, &program.source))
                    .collect();
            }
        }
        reports.push(report);
    }
    Ok(reports)
}
