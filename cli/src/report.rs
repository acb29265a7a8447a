//! `knn report RESULTS.csv [--compare NAME=RESULTS.csv]... -o DIR`: the page of a benchmark
//! run written earlier, and the same page after `knn verify --instances … --report DIR`
//! (`verify_instances.rs`). The page is the library's (`knn::benchmark`); here flags, files
//! and messages.

use std::path::{Path, PathBuf};

use clap::Args;

use super::Exit;
use super::program::{fail, usage};
use knn::BenchmarkReport;
use knn::benchmark::{Results, parse_compare, prepare_report_dir, read_results};

#[derive(Args)]
pub struct ReportArgs {
    /// knn's results CSV (`knn verify --instances -o`), or any in the VNN-COMP results format.
    results: PathBuf,
    /// Another tool's results to show beside knn's, in the VNN-COMP results format
    /// ([benchmark,]network,property,prepare_time,result,run_time) or knn's; repeatable.
    #[arg(long = "compare", value_name = "NAME=RESULTS.csv")]
    compare: Vec<String>,
    /// The folder to write the page to, as DIR/index.html (made if missing).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    out: PathBuf,
    /// Overwrite DIR/index.html if it exists.
    #[arg(long)]
    force: bool,
}

/// Where a run's report goes: `--report DIR` with its `--compare` flags.
#[derive(Clone, Copy)]
pub struct ReportRequest<'a> {
    pub dir: &'a Path,
    pub compare: &'a [String],
    /// The command's own inputs (results files, the instance list), which the page never
    /// replaces.
    pub inputs: &'a [&'a Path],
}

/// Another tool's name and results.
type Other = (String, Results);

impl ReportRequest<'_> {
    /// Makes the folder, refuses an existing page (unless `force`) or one that is an input,
    /// and reads the other tools' results: the page's path and theirs.
    pub fn prepare(self, force: bool) -> Result<(PathBuf, Vec<Other>), Exit> {
        let compared: Vec<(String, PathBuf)> =
            self.compare.iter().map(|c| parse_compare(c)).collect::<Result<_, _>>().map_err(fail)?;
        let others = compared
            .iter()
            .map(|(name, path)| Ok((name.clone(), read_results(path)?)))
            .collect::<Result<Vec<Other>, knn::KnnError>>()
            .map_err(fail)?;
        let page = prepare_report_dir(self.dir, force).map_err(fail)?;
        let mut inputs: Vec<&Path> = self.inputs.to_vec();
        inputs.extend(compared.iter().map(|(_, path)| path.as_path()));
        super::output::check_output(&page, true, &inputs).map_err(usage)?;
        Ok((page, others))
    }
}

/// Writes the page of knn's results beside `others`; a note on standard error says where, and
/// how many contradictions it shows.
pub fn write_page(knn: Results, others: Vec<Other>, page: &Path, force: bool) -> Result<(), Exit> {
    let report = BenchmarkReport::new(knn, others).map_err(fail)?;
    let html = report.html().map_err(fail)?;
    super::output::write_file(page, force, |w| w.write_all(html.as_bytes())).map_err(usage)?;
    let rows = report.rows();
    let disagreements = rows.iter().filter(|r| r.disagrees()).count();
    eprintln!("report: {} ({} instances, {disagreements} contradicted by another tool)", page.display(), rows.len());
    Ok(())
}

pub fn report(args: ReportArgs) -> Exit {
    let request = ReportRequest { dir: &args.out, compare: &args.compare, inputs: &[&args.results] };
    let run = || -> Result<Exit, Exit> {
        let knn = read_results(&args.results).map_err(fail)?;
        let (page, others) = request.prepare(args.force)?;
        write_page(knn, others, &page, args.force)?;
        Ok(Exit::Result)
    };
    match run() {
        Ok(exit) | Err(exit) => exit,
    }
}
