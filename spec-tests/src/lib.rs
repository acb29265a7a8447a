//! knn-spec-tests: the spec corpus. One K-NN program per file under `programs/<section>/`,
//! sections following `k-nn.md` (basic, tensor, relu, linear, tanh, sigmoid, minmax, argmax,
//! utility), `extensions/` (the constructs the extensions add: Ext-1 `addTensor`, Ext-2 tensor
//! literals, Ext-3 `conv2d`, Ext-4 pools, Ext-5 `reshape`, Ext-6 `transpose`, Ext-7 `-` and `/`,
//! Ext-8 the broadcasting functions, Ext-9 `softmax` and its kin, Ext-10 the reductions, Ext-11
//! `concat`, Ext-12 `slice`, Ext-13 `pad`, Ext-14 `batchNorm`, Ext-15 `matmul`) plus `authors/`,
//! `errors/`, `parsing/` and `regressions/`.
//!
//! This crate loads a program with its header ([`header`]), runs it under each profile on the
//! small-step engine and under the revised rules on the big-step engine ([`run`]), writes the
//! texts that the tests snapshot ([`snapshot`]) and gathers both for the tests ([`report`]).
//! The tests in `tests/` stay small: they iterate over the corpus and compare.
//!
//! Reading order: `programs/README.md` (what the corpus holds and the header syntax), then
//! [`header`], [`run`], [`snapshot`], [`report`], [`coverage`].

pub mod coverage;
pub mod header;
pub mod report;
pub mod run;
pub mod snapshot;

use std::path::{Path, PathBuf};

pub use header::Header;

/// The sections of the corpus, in the order of `k-nn.md`, then the others.
pub const SECTIONS: &[&str] = &[
    "basic",
    "tensor",
    "relu",
    "linear",
    "tanh",
    "sigmoid",
    "minmax",
    "argmax",
    "utility",
    "extensions",
    "authors",
    "errors",
    "parsing",
    "regressions",
];

/// One program of the corpus.
#[derive(Clone, Debug)]
pub struct Program {
    /// `relu/rank1-copies.knn`: the path under `programs/`, with `/` separators.
    pub name: String,
    pub path: PathBuf,
    pub source: String,
    pub header: Header,
}

impl Program {
    /// Reads a program and parses its header.
    pub fn load(path: &Path) -> Result<Program, String> {
        let source = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let header = Header::parse(&source).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .strip_prefix(programs_dir())
            .unwrap_or(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        Ok(Program { name, path: path.to_path_buf(), source, header })
    }

    /// The section: the first component of the name.
    pub fn section(&self) -> &str {
        self.name.split('/').next().unwrap_or_default()
    }

    /// The snapshot name for a profile (or `bigstep`): `relu__rank1-copies.published`.
    pub fn snapshot_name(&self, suffix: &str) -> String {
        let stem = self.name.strip_suffix(".knn").unwrap_or(&self.name);
        format!("{}.{suffix}", stem.replace('/', "__"))
    }
}

/// `spec-tests/programs`.
pub fn programs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("programs")
}

/// Every `.knn` file under `programs/`, sorted by name.
pub fn corpus() -> Vec<Program> {
    let mut files = Vec::new();
    let mut dirs = vec![programs_dir()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap_or_else(|e| panic!("{}: {e}", dir.display())).path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "knn") {
                files.push(path);
            }
        }
    }
    let mut programs: Vec<Program> = files.iter().map(|p| Program::load(p).unwrap_or_else(|e| panic!("{e}"))).collect();
    programs.sort_by(|a, b| a.name.cmp(&b.name));
    programs
}
