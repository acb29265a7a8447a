//! No import loops in the workspace's crates: module A never uses B while B (directly or
//! through others) uses A.
//!
//! The check reads every `.rs` file under `src/` folder of the workspace's crates (`semantics`, `engine`,
//! `formats`, `verify`, `library`, `cli`, `fuzzing`, `spec-tests`, `differential`) with `syn`, builds each crate's module tree from its `mod`
//! declarations (`#[path]` included) and the graph of which file uses which:
//!
//! * a node is a file; `mod.rs` and `lib.rs` are their directory's module; an inline module
//!   (`mod tests { … }`) belongs to its file, so a `#[cfg(test)] mod tests` that does
//!   `use super::*` uses its own file: no edge;
//! * an edge comes from a `use` (`crate::…`, `super::…`, `self::…`, a child module, an
//!   imported module) or a path in the code (`crate::run::summary(…)`,
//!   `x86::matmul_avx2(…)`, paths inside macro calls included), resolved to the file that
//!   *defines* the item: a use of a parent module's item defined in the parent's own file is
//!   an edge to that file, one of an item the parent re-exports from a child an edge to the
//!   child;
//! * a re-export (`pub use child::Item`) is not an edge of its own, since it only names the
//!   item for others, unless the file's own code uses the name too;
//! * a module is made of its children: its uses of them (`x86::matmul_avx2(…)` in
//!   `kernels/mod.rs`) are no edge, so children may use what their parent defines (the parent
//!   dispatching to kernels that take its `Precision`);
//! * test code (`#[cfg(test)]` modules, inline or in files like `kernels/tests.rs`, and
//!   `#[cfg(test)]` items) is a client of the crate like an integration test: it may use any
//!   module, and its uses are no edges (the parser's tests print, the printer's tests parse).
//!
//! Loops are looked for at every level of the module tree: among the subtrees of one module
//! (each child module with everything below it, beside the module's own file), so that
//! `inputs.rs → engine/mod.rs` with `engine/contract.rs → inputs.rs` is a loop between
//! `inputs.rs` and `engine/` although no two files use each other. A loop between files is
//! found at the level of the module holding them all.
//!
//! Every `.rs` file must belong to a module tree, so that none is left out unread.

mod cycles;
mod graph;
mod resolve;
mod self_tests;
mod syntax;

use std::path::Path;

use graph::Graph;
use syntax::rust_files;

/// The crates checked, by directory.
const CRATES: &[&str] =
    &["semantics", "engine", "formats", "verify", "library", "cli", "fuzzing", "spec-tests", "differential"];

/// Loops known and being removed elsewhere, each the set of nodes of a loop (files, or
/// subtrees written as their directory with a trailing `/`). An entry that no longer matches
/// a loop fails the test, so that it is deleted with the loop.
const KNOWN_LOOPS: &[&[&str]] = &[];

#[test]
fn no_module_imports_itself_through_others() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace");
    let mut loops = Vec::new();
    for krate in CRATES {
        let src = workspace.join(krate).join("src");
        let files = rust_files(&src);
        assert!(!files.is_empty(), "{}: no sources", src.display());
        let read = |rel: &str| std::fs::read_to_string(src.join(rel)).ok();
        let graph = Graph::build(&format!("{krate}/src/"), &files, read).unwrap_or_else(|e| panic!("{e}"));
        loops.extend(graph.loops());
    }
    let mut unexpected = String::new();
    for found in &loops {
        if !KNOWN_LOOPS.iter().any(|known| known.iter().copied().eq(found.nodes.iter().map(String::as_str))) {
            unexpected.push_str(&found.describe());
        }
    }
    for known in KNOWN_LOOPS {
        let seen = loops.iter().any(|found| known.iter().copied().eq(found.nodes.iter().map(String::as_str)));
        assert!(seen, "the known loop {known:?} is gone: delete it from KNOWN_LOOPS");
    }
    assert!(unexpected.is_empty(), "import loops:\n{unexpected}");
}
