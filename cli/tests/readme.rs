//! The README's set-up and tour, run as written: every command of their `sh` blocks, from the
//! repository's root, with this build's `knn` first on `PATH`. A command removed from the
//! binary, a file the tour names that is not in the repository, or an output that is not what
//! the README's comment says fails the test, so the README cannot drift from the product.
//!
//! A command's trailing comment may state what it does: `# exit N` (otherwise 0),
//! `# prints V` (standard output, trimmed, is `V`), `# says V` (standard error contains `V`).
//! `cargo run --release -- ARGS` is run as `knn ARGS`; `cargo install --path DIR` must name the
//! crate of the `knn` binary; `cargo test` and `scripts/test` are this very run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The lines of the `sh` blocks of the README section that starts with `heading`.
fn sh_lines(readme: &str, heading: &str) -> Vec<String> {
    let section = readme.split(heading).nth(1).unwrap_or_else(|| panic!("README.md has no section `{heading}`"));
    let section = section.split("\n## ").next().unwrap_or_default();
    let mut lines = Vec::new();
    let mut inside = false;
    for line in section.lines() {
        match (inside, line.trim()) {
            (false, "```sh") => inside = true,
            (true, "```") => inside = false,
            (true, text) if !text.is_empty() && !text.starts_with('#') => lines.push(text.to_string()),
            _ => {}
        }
    }
    assert!(!inside, "README.md `{heading}`: an `sh` block is not closed");
    lines
}

/// What a command's trailing comment states.
#[derive(Debug, Default)]
struct Expect {
    exit: i32,
    prints: Option<String>,
    says: Option<String>,
}

/// Splits `command   # comment` at the first ` # ` outside quotes.
fn split_comment(line: &str) -> (&str, Expect) {
    let (mut single, mut double) = (false, false);
    let mut cut = None;
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && line[..i].ends_with(' ') => {
                cut = Some(i);
                break;
            }
            _ => {}
        }
    }
    let Some(cut) = cut else { return (line.trim(), Expect::default()) };
    let comment = line[cut + 1..].trim();
    let mut expect = Expect::default();
    if let Some(code) = comment.strip_prefix("exit ") {
        expect.exit = code.trim().parse().unwrap_or_else(|_| panic!("`# exit N` needs a number: {line}"));
    } else if let Some(text) = comment.strip_prefix("prints ") {
        expect.prints = Some(text.to_string());
    } else if let Some(text) = comment.strip_prefix("says ") {
        expect.says = Some(text.to_string());
    }
    (line[..cut].trim(), expect)
}

/// Runs one command line with `sh`, `knn` being this build's binary.
fn run(command: &str, expect: &Expect) -> Result<(), String> {
    let bin = Path::new(env!("CARGO_BIN_EXE_knn")).parent().expect("the binary is in a folder").to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .map_err(|e| format!("PATH: {e}"))?;
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(root())
        .env("PATH", path)
        .output()
        .map_err(|e| format!("`{command}`: cannot start sh: {e}"))?;
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let mut problems = Vec::new();
    if out.status.code() != Some(expect.exit) {
        problems.push(format!("exit code {:?}, the README says {}", out.status.code(), expect.exit));
    }
    if let Some(prints) = &expect.prints
        && stdout.trim() != prints
    {
        problems.push(format!("prints `{}`, the README says `{prints}`", stdout.trim()));
    }
    if let Some(says) = &expect.says
        && !stderr.contains(says.as_str())
    {
        problems.push(format!("standard error does not say `{says}`"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("`{command}`: {}\n--- stdout:\n{stdout}--- stderr:\n{stderr}", problems.join("; ")))
    }
}

/// A `cargo …` line of the README: the set-up's run becomes `knn`; the others are checked.
fn cargo_line(command: &str) -> Result<Option<String>, String> {
    if let Some(args) = command.strip_prefix("cargo run --release -- ") {
        return Ok(Some(format!("knn {args}")));
    }
    if command.starts_with("cargo test ") {
        return Ok(None);
    }
    if let Some(dir) = command.strip_prefix("cargo install --path ") {
        let manifest = std::fs::read_to_string(root().join(dir.trim()).join("Cargo.toml"))
            .map_err(|e| format!("`{command}`: {dir}/Cargo.toml: {e}"))?;
        return if manifest.contains("[[bin]]\nname = \"knn\"") {
            Ok(None)
        } else {
            Err(format!("`{command}`: {dir} does not build the `knn` binary"))
        };
    }
    Err(format!("`{command}`: a cargo command this test does not know"))
}

#[test]
fn the_readme_set_up_and_tour_run_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md is readable");
    let set_up = sh_lines(&readme, "## Set-up");
    let tour = sh_lines(&readme, "## A five-minute tour");
    let verify = sh_lines(&readme, "## Proving and refuting properties");
    assert!(
        set_up.len() >= 2 && tour.len() >= 15 && verify.len() >= 5,
        "the README's blocks were not found: {set_up:?} {tour:?} {verify:?}"
    );
    // The tour writes under `target/`, which a fresh clone has once cargo has built.
    std::fs::create_dir_all(root().join("target")).expect("target/ can be created");
    let mut failures = Vec::new();
    let mut ran = 0;
    for line in set_up.iter().chain(&tour).chain(&verify) {
        let (command, expect) = split_comment(line);
        if command == "scripts/test" {
            continue; // the README's test command: this very run, and pytest after it
        }
        let command = if command.starts_with("cargo ") {
            match cargo_line(command) {
                Ok(Some(knn)) => knn,
                Ok(None) => continue,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            }
        } else {
            command.to_string()
        };
        assert!(command.starts_with("knn ") || command.contains("| knn "), "a tour command runs knn: `{command}`");
        ran += 1;
        if let Err(e) = run(&command, &expect) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{} of {ran} README commands failed:\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn comments_state_exit_codes_and_outputs() {
    let (command, expect) = split_comment("echo 'a # b' | knn run -   # exit 3");
    assert_eq!(command, "echo 'a # b' | knn run -");
    assert_eq!(expect.exit, 3);
    let (command, expect) = split_comment("knn run x.knn   # prints solution 1: value 0.0");
    assert_eq!(command, "knn run x.knn");
    assert_eq!((expect.exit, expect.prints.as_deref()), (0, Some("solution 1: value 0.0")));
    let (_, expect) = split_comment("cargo test --workspace   # every test");
    assert!(expect.prints.is_none() && expect.says.is_none() && expect.exit == 0);
}
