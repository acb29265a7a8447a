//! `scripts/count-instructions` refuses what it cannot count before it builds or runs
//! anything: the words and the exit code a user gets (2, a usage error, as the `knn` command's).

use std::path::PathBuf;
use std::process::{Command, Output};

fn count_instructions(args: &[&str]) -> Output {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/count-instructions");
    Command::new(&script).args(args).output().unwrap_or_else(|e| panic!("{} starts: {e}", script.display()))
}

fn refused(args: &[&str]) -> String {
    let out = count_instructions(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?} printed a count");
    stderr
}

#[test]
fn a_path_and_a_count_are_asked_for() {
    for args in [&[][..], &["parse"], &["parse", "1", "bin", "extra"]] {
        let stderr = refused(args);
        assert!(stderr.starts_with("usage: scripts/count-instructions PATH N [BINARY]"), "{args:?}: {stderr}");
    }
}

#[test]
fn the_count_is_a_positive_whole_number() {
    for count in ["0", "-3", "ten", "1.5", ""] {
        let stderr = refused(&["parse", count]);
        assert_eq!(stderr, format!("error: N must be a positive count, not `{count}`\n"));
    }
}
