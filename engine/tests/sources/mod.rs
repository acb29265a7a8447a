//! What tests that read the workspace's own sources share (`rule_citations.rs` here,
//! `cli/tests/one_door.rs` through `#[path]`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The Rust sources under `dir`, recursively, with their text.
pub fn sources(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut found = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                found.insert(path, text);
            }
        }
    }
    found
}
