//! A report of a benchmark run (`knn verify --instances … --report DIR`, `knn report`,
//! `knn.report` in Python): one self-contained page, `DIR/index.html`, with the cactus plot,
//! the answers per property and the table of instances, knn's results beside other tools'
//! (docs/cli.md, "knn report").
//!
//! ```text
//! results CSV (knn's | VNN-COMP's)  →  Results          results.rs   read_results, Outcome, InstanceKey
//! knn's Results × tools' Results    →  BenchmarkReport  compare.rs   rows, contradictions, cactus, summary
//! cactus lines                      →  <svg>            plot.rs      plotters' SVG backend
//! BenchmarkReport                   →  index.html       page.rs      escaped, no script, no fetch
//! ```

mod compare;
mod page;
mod plot;
mod results;
#[cfg(test)]
mod tests;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Failure, KnnError};

pub use compare::{
    BenchmarkReport, CactusLine, InstanceRow, KNN, PropertySummary, Tally, Tool, cactus_times, parse_compare,
};
pub use page::escape;
pub use plot::{FLOOR_SECONDS, cactus_points, tool_colour};
pub use results::{
    InstanceKey, Outcome, RESULTS_HEADER, ResultRow, Results, ResultsFormat, parse_results, read_results, results_line,
};

/// The page's file name in the report's folder.
pub const PAGE: &str = "index.html";

impl BenchmarkReport {
    /// Reads knn's results file and each other tool's `(name, results file)`.
    pub fn read(results: &Path, compare: &[(String, PathBuf)]) -> Result<BenchmarkReport, KnnError> {
        let knn = read_results(results)?;
        let others = compare
            .iter()
            .map(|(name, path)| Ok((name.clone(), read_results(path)?)))
            .collect::<Result<Vec<_>, KnnError>>()?;
        BenchmarkReport::new(knn, others)
    }

    /// The page, whole.
    pub fn html(&self) -> Result<String, KnnError> {
        page::page(self)
    }
}

/// Makes the report's folder (and its parents) if missing and gives the page's path; an
/// existing page is refused unless `force`. Called before a run, so that a run is not lost
/// to a page it may not write.
pub fn prepare_report_dir(dir: &Path, force: bool) -> Result<PathBuf, KnnError> {
    std::fs::create_dir_all(dir)
        .map_err(|e| KnnError::new(Failure::Io, format!("cannot create the folder {}: {e}", dir.display())))?;
    let page = dir.join(PAGE);
    if !force && std::fs::symlink_metadata(&page).is_ok() {
        return Err(KnnError::usage(format!("{} exists; pass --force to overwrite it", page.display())));
    }
    Ok(page)
}

/// Writes the report's page into `dir` (see [`prepare_report_dir`]), atomically: to a
/// temporary file beside it, renamed into place when complete, so that a failure leaves the
/// old page or none. Gives the page's path.
pub fn write_report(report: &BenchmarkReport, dir: &Path, force: bool) -> Result<PathBuf, KnnError> {
    let page = prepare_report_dir(dir, force)?;
    let html = report.html()?;
    let fail = |e: &dyn std::fmt::Display| KnnError::new(Failure::Io, format!("cannot write {}: {e}", page.display()));
    let mut temporary =
        tempfile::Builder::new().prefix(".index.html.").suffix(".knn-tmp").tempfile_in(dir).map_err(|e| fail(&e))?;
    temporary.write_all(html.as_bytes()).and_then(|()| temporary.as_file().sync_all()).map_err(|e| fail(&e))?;
    // A page is read by anyone who may read the folder, not by its owner alone.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = temporary.as_file().set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    if force {
        temporary.persist(&page).map_err(|e| fail(&e.error))?;
    } else {
        temporary.persist_noclobber(&page).map_err(|e| fail(&e.error))?;
    }
    Ok(page)
}
