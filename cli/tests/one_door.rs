//! One door (docs/architecture.md, "The library"): the `knn` binary and the Python package
//! depend on the library crate `knn` alone among the workspace's crates, so that the compiler
//! keeps them from naming anything the library does not export as its API; and their sources
//! name no crate below it.

use std::path::{Path, PathBuf};

#[path = "../../engine/tests/sources/mod.rs"]
mod sources;

use sources::sources;

/// The workspace's crates below the library: what no caller of the API may depend on.
const BELOW_THE_DOOR: &[&str] = &["knn-semantics", "knn-engine", "knn-formats", "knn-verify", "knn-fuzzing"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The names in a manifest's `[dependencies]` table (not dev-dependencies: tests may reach
/// below the door to check what the API promises).
fn dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let mut names = Vec::new();
    let mut in_dependencies = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if in_dependencies && let Some((name, _)) = line.split_once('=') {
            let name = name.trim();
            if !name.is_empty() && !name.starts_with('#') {
                names.push(name.split('.').next().unwrap_or(name).to_string());
            }
        }
    }
    names
}

#[test]
fn the_binary_and_the_python_package_depend_on_the_library_alone() {
    for manifest in [root().join("cli/Cargo.toml"), root().join("python/Cargo.toml")] {
        let deps = dependencies(&manifest);
        assert!(deps.iter().any(|d| d == "knn"), "{}: no dependency on `knn` in {deps:?}", manifest.display());
        let below: Vec<&String> = deps.iter().filter(|d| BELOW_THE_DOOR.contains(&d.as_str())).collect();
        assert!(below.is_empty(), "{} depends on {below:?}, below the library's door", manifest.display());
    }
}

#[test]
fn their_sources_name_no_crate_below_the_library() {
    let crates: Vec<String> = BELOW_THE_DOOR.iter().map(|c| c.replace('-', "_")).collect();
    let mut found = Vec::new();
    for dir in [root().join("cli/src"), root().join("python/src")] {
        let files = sources(&dir);
        assert!(!files.is_empty(), "{}: no sources", dir.display());
        for (path, text) in files {
            for (n, line) in text.lines().enumerate() {
                if let Some(name) = crates.iter().find(|c| line.contains(&format!("{c}::"))) {
                    found.push(format!("{}:{}: {name}", path.display(), n + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "names below the library's door:\n{}", found.join("\n"));
}

#[test]
fn the_check_sees_a_dependency_below_the_door() {
    let dir = std::env::temp_dir().join(format!("knn-one-door-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("Cargo.toml");
    std::fs::write(&manifest, "[package]\nname = \"x\"\n\n[dependencies]\nknn.workspace = true\nknn-verify = { path = \"../verify\" }\n\n[dev-dependencies]\nknn-engine.workspace = true\n").unwrap();
    let deps = dependencies(&manifest);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(deps, ["knn", "knn-verify"]);
}
