//! knn's results beside other tools': every instance of knn's run matched with each tool's
//! line for it, the contradictions, the cactus plot's points and the sums per property.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use super::results::{InstanceKey, Outcome, ResultRow, Results};
use crate::error::KnnError;

/// The name knn's own results go by on the page; no other tool may take it.
pub const KNN: &str = "knn";

/// Parses `--compare NAME=RESULTS.csv`: a tool's name and its results file.
pub fn parse_compare(text: &str) -> Result<(String, PathBuf), KnnError> {
    let Some((name, path)) = text.split_once('=') else {
        return Err(KnnError::usage(format!("--compare {text}: expected NAME=RESULTS.csv")));
    };
    let name = name.trim();
    if name.is_empty() || path.is_empty() {
        return Err(KnnError::usage(format!("--compare {text}: expected NAME=RESULTS.csv")));
    }
    Ok((name.to_string(), PathBuf::from(path)))
}

/// Another tool's results, matched to knn's run.
#[derive(Clone, Debug)]
pub struct Tool {
    pub name: String,
    pub results: Results,
    /// The tool's line for each instance, by instance.
    by_key: HashMap<InstanceKey, usize>,
}

/// knn's run and the tools it is compared with: what the report's page shows.
#[derive(Clone, Debug)]
pub struct BenchmarkReport {
    pub knn: Results,
    pub others: Vec<Tool>,
}

/// One instance of knn's run, and each other tool's line for it (`None`: not in its file).
#[derive(Clone, Debug)]
pub struct InstanceRow<'a> {
    pub knn: &'a ResultRow,
    pub others: Vec<Option<&'a ResultRow>>,
}

impl InstanceRow<'_> {
    /// Whether the other tool `index` contradicts knn on this instance.
    pub fn contradicts(&self, index: usize) -> bool {
        self.others.get(index).copied().flatten().is_some_and(|other| other.outcome.contradicts(self.knn.outcome))
    }

    /// Whether any other tool contradicts knn here.
    pub fn disagrees(&self) -> bool {
        (0..self.others.len()).any(|i| self.contradicts(i))
    }
}

/// A tool's answers on the instances of one property (or all: `property` "total").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub holds: usize,
    pub violated: usize,
    pub unknown: usize,
    pub errors: usize,
    /// Instances of knn's run that the tool's file does not have.
    pub missing: usize,
    pub seconds: f64,
}

impl Tally {
    fn add(&mut self, row: Option<&ResultRow>) {
        let Some(row) = row else {
            self.missing += 1;
            return;
        };
        match row.outcome {
            Outcome::Holds => self.holds += 1,
            Outcome::Violated => self.violated += 1,
            Outcome::Unknown => self.unknown += 1,
            Outcome::Error => self.errors += 1,
        }
        self.seconds += row.seconds;
    }
}

/// The tallies of one property: knn's first, then each other tool's.
#[derive(Clone, Debug, PartialEq)]
pub struct PropertySummary {
    /// The property as knn's results write it, or `total`.
    pub property: String,
    pub tallies: Vec<Tally>,
}

/// One tool's line of the cactus plot: the times of the instances it decided, fastest first;
/// its k-th point is (k, the k-th time).
#[derive(Clone, Debug, PartialEq)]
pub struct CactusLine {
    pub tool: String,
    pub seconds: Vec<f64>,
}

/// The points of a cactus line: of the rows given, the decided ones' times in increasing order.
pub fn cactus_times<'a>(rows: impl IntoIterator<Item = &'a ResultRow>) -> Vec<f64> {
    let mut seconds: Vec<f64> = rows.into_iter().filter(|r| r.outcome.decided()).map(|r| r.seconds).collect();
    seconds.sort_by(f64::total_cmp);
    seconds
}

impl BenchmarkReport {
    /// knn's results and other tools' (name, results), in the order given. Names must be
    /// distinct, and not `knn`; an instance twice in another tool's file is refused (which
    /// line counts would be a guess).
    pub fn new(knn: Results, others: Vec<(String, Results)>) -> Result<BenchmarkReport, KnnError> {
        let mut tools: Vec<Tool> = Vec::new();
        for (name, results) in others {
            if name == KNN || tools.iter().any(|t| t.name == name) {
                return Err(KnnError::usage(format!(
                    "--compare {name}=…: the name `{name}` is taken; give each tool its own name (not `{KNN}`)"
                )));
            }
            let mut by_key = HashMap::new();
            for (index, row) in results.rows.iter().enumerate() {
                if let Some(first) = by_key.insert(row.key(), index) {
                    return Err(KnnError::usage(format!(
                        "{}:{}: the instance {},{} is also on line {}",
                        results.name, row.line, row.network, row.property, results.rows[first].line
                    )));
                }
            }
            tools.push(Tool { name, results, by_key });
        }
        Ok(BenchmarkReport { knn, others: tools })
    }

    /// The tools' names, knn first.
    pub fn tool_names(&self) -> Vec<&str> {
        std::iter::once(KNN).chain(self.others.iter().map(|t| t.name.as_str())).collect()
    }

    /// Every instance of knn's run, in its order, with the other tools' lines.
    pub fn rows(&self) -> Vec<InstanceRow<'_>> {
        self.knn
            .rows
            .iter()
            .map(|knn| {
                let key = knn.key();
                let others = self.others.iter().map(|t| t.by_key.get(&key).map(|&i| &t.results.rows[i])).collect();
                InstanceRow { knn, others }
            })
            .collect()
    }

    /// How many lines of each other tool's file are not instances of knn's run (left out of
    /// the plot and the sums, so that every tool is measured on the same instances).
    pub fn unmatched(&self) -> Vec<usize> {
        let run: std::collections::HashSet<InstanceKey> = self.knn.rows.iter().map(ResultRow::key).collect();
        self.others.iter().map(|t| t.results.rows.iter().filter(|r| !run.contains(&r.key())).count()).collect()
    }

    /// The cactus plot's lines, knn's first, over the instances of knn's run.
    pub fn cactus(&self) -> Vec<CactusLine> {
        let rows = self.rows();
        let mut lines = vec![CactusLine { tool: KNN.into(), seconds: cactus_times(rows.iter().map(|r| r.knn)) }];
        for (index, tool) in self.others.iter().enumerate() {
            let seconds = cactus_times(rows.iter().filter_map(|r| r.others[index]));
            lines.push(CactusLine { tool: tool.name.clone(), seconds });
        }
        lines
    }

    /// The tallies per property of knn's run (in the order properties first appear), then the
    /// total.
    pub fn summary(&self) -> Vec<PropertySummary> {
        let tools = 1 + self.others.len();
        let mut order: Vec<&str> = Vec::new();
        let mut by_property: BTreeMap<&str, Vec<Tally>> = BTreeMap::new();
        let mut total = vec![Tally::default(); tools];
        for row in self.rows() {
            let tallies = by_property.entry(&row.knn.property).or_insert_with(|| {
                order.push(&row.knn.property);
                vec![Tally::default(); tools]
            });
            for (index, line) in std::iter::once(Some(row.knn)).chain(row.others.iter().copied()).enumerate() {
                tallies[index].add(line);
                total[index].add(line);
            }
        }
        let mut summary: Vec<PropertySummary> = order
            .into_iter()
            .map(|p| PropertySummary { property: p.to_string(), tallies: by_property.remove(p).unwrap_or_default() })
            .collect();
        summary.push(PropertySummary { property: "total".into(), tallies: total });
        summary
    }
}
