//! Programs that ask for more than the machine has, and bad input that once made knn panic,
//! abort, hang or answer wrongly (issue 15): each is now a one-line error with its exit code
//! (4 for a memory limit, docs/cli.md), never a crash. Where a crash needs a small machine to
//! show, the test runs knn with its address space limited (`ulimit -v`), as a container would.

mod common;

use common::{knn, knn_limited, knn_timed, stderr, stdout, temp_file};

/// 2 GB of address space: the default budget is then under 1 GB.
const SMALL_MACHINE_KIB: u64 = 2_000_000;

fn program(dir: &tempfile::TempDir, text: &str) -> String {
    temp_file(dir.path(), "prog.knn", text.as_bytes())
}

#[test]
fn a_tensor_of_2_to_the_62_empty_rows_is_a_memory_limit_on_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let file = program(&dir, "let t = initTensor(4611686018427387903, 0) in t");
    for engine in ["big-step", "small-step"] {
        // Once a panic (big-step) and a loop over 2^62 rows (small-step).
        let out = knn_timed(&["run", &file, "--engine", engine], 30).expect("knn answers at once");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(4), "{engine}: {err}");
        assert!(err.contains("needs more than 2^64 bytes of memory"), "{engine}: {err}");
        assert!(!err.contains("panicked"), "{engine}: {err}");
    }
    let big = knn(&["run", &file, "--engine", "big-step"], None);
    assert!(stderr(&big).contains("prog.knn:1:9: a tensor of shape (4611686018427387903, 0)"), "{}", stderr(&big));
}

#[test]
fn tensors_larger_than_the_machine_are_memory_limits_not_aborts() {
    let dir = tempfile::tempdir().unwrap();
    for text in ["let t = initTensor(100000000) in t", "let t = initTensor(1000000000, 1000000000) in t"] {
        let file = program(&dir, text);
        for engine in ["big-step", "small-step"] {
            let out = knn_limited(&["run", &file, "--engine", engine], SMALL_MACHINE_KIB, 60).expect("no hang");
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(4), "{text} on {engine}: {err}");
            assert!(err.contains("of memory, over the limit of") && err.contains("--max-memory"), "{err}");
            assert!(stdout(&out).is_empty(), "{text} on {engine}");
        }
    }
}

#[test]
fn max_memory_sets_the_limit_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = program(&dir, "let t = initTensor(100000000) in t");
    for engine in ["big-step", "small-step"] {
        let out = knn(&["run", &file, "--engine", engine, "--max-memory", "100M"], None);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(4), "{engine}: {err}");
        // 100M is 100 × 2^20 bytes.
        assert!(err.contains("over the limit of 104857600 bytes (100.0 MiB)"), "{engine}: {err}");
    }
    let small = program(&dir, "let t = initTensor(1000) in let t[999] = 2.5 in t[999]");
    let out = knn(&["run", &small, "--max-memory", "100M"], None);
    assert_eq!((out.status.code(), stdout(&out).trim()), (Some(0), "2.5"), "{}", stderr(&out));
    for bad in ["0", "lots", "1.5G"] {
        let out = knn(&["run", &small, "--max-memory", bad], None);
        assert_eq!(out.status.code(), Some(1), "--max-memory {bad}: {}", stderr(&out));
    }
}

#[test]
fn reports_are_checked_before_they_are_built() {
    let dir = tempfile::tempdir().unwrap();
    // 2,000,000 elements: a few MB of tensor, but a JSON report of a hundred MB.
    let file = program(&dir, "let t = initTensor(2000000) in t");
    for engine in ["big-step", "small-step"] {
        let out = knn(&["run", &file, "--engine", engine, "--output", "json", "--max-memory", "100M"], None);
        assert_eq!(out.status.code(), Some(4), "{engine}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("limit: the JSON report needs") || err.contains("limit: the report needs"),
            "{engine}: {err}"
        );
        assert!(stdout(&out).is_empty(), "{engine}: nothing half-built is printed");
    }
    // The trace of a relu over 200,000 elements (a step per element) outgrows 8 MB before the
    // store does.
    let relu = program(&dir, "let t = initTensor(200000) in let u = reluTensor(t) in u[0]");
    let out = knn(&["run", &relu, "--trace", "--max-memory", "8M"], None);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("limit: the trace needs"), "{}", stderr(&out));
    let out = knn(&["run", &relu, "--trace", "--output", "json", "--max-memory", "8M"], None);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
}

#[test]
fn a_memory_limit_in_json_is_a_limit_on_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let file = program(&dir, "let t = initTensor(100000000) in t");
    for engine in ["big-step", "small-step"] {
        let out = knn(&["run", &file, "--engine", engine, "--output", "json", "--max-memory", "10M"], None);
        assert_eq!(out.status.code(), Some(4), "{engine}");
        let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(report["status"], "limit", "{engine}: {report}");
        assert_eq!(report["limit"]["kind"], "memory", "{engine}: {report}");
    }
}

#[test]
fn an_element_write_out_of_bounds_is_reported_at_its_target_by_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("let t = initTensor(2) in let t[5] = 1.0 in t", "prog.knn:1:30:"),
        ("let t = initTensor(2, 2) in\nlet t[1, 5] = 1.0 in t", "prog.knn:2:5:"),
    ];
    for (text, place) in cases {
        let file = program(&dir, text);
        for engine in ["big-step", "small-step"] {
            let out = knn(&["run", &file, "--engine", engine], None);
            assert_eq!(out.status.code(), Some(3), "{engine}");
            assert!(stderr(&out).contains(&format!("{place} index 5 is out of bounds")), "{engine}: {}", stderr(&out));
        }
    }
}

#[test]
fn thousands_of_static_errors_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..4000).map(|k| format!("a{k}")).collect();
    let file = program(&dir, &format!("let y = {} in y", names.join(" + ")));
    let out = knn_timed(&["check", &file], 60).expect("no hang");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(err.matches("[unbound-identifier]").count(), 50, "the first 50 in full");
    assert!(err.contains("… and 3950 more errors (4000 in all)"), "{}", &err[err.len().saturating_sub(300)..]);
    assert!(err.len() < 50 * 2 * std::fs::metadata(&file).unwrap().len() as usize, "linear in the input");
}

#[test]
fn control_characters_of_the_input_are_escaped_in_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let file = program(&dir, "let x = 1.0 in \x1b[31mx\x1b[0m");
    let out = knn(&["run", &file], None);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains('\x1b'), "a raw escape reaches the terminal: {err:?}");
    assert!(err.contains("\\u{1b}"), "the escape is shown escaped: {err}");
    assert!(err.contains("prog.knn:1:16:"), "{err}");
}

#[test]
fn absurd_thread_counts_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = program(&dir, "let y = initTensor(1) in y");
    let rows = temp_file(dir.path(), "x.npy", &common::npy_f64(&[1, 1], &[1.0]));
    for threads in ["10000", "0", "-3", "many"] {
        let started = std::time::Instant::now();
        let out = knn(&["batch", &file, "--input", &format!("x={rows}"), &format!("--threads={threads}")], None);
        assert_eq!(out.status.code(), Some(1), "--threads {threads}: {}", stderr(&out));
        assert!(stderr(&out).contains("threads"), "{}", stderr(&out));
        assert!(started.elapsed().as_secs() < 2, "--threads {threads} took {:?}", started.elapsed());
    }
    let out = knn(&["batch", &file, "--input", &format!("x={rows}"), "--threads", "2"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn coverage_reads_a_directory_linked_into_itself_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    temp_file(dir.path(), "a.knn", b"let y = initTensor(1) in y");
    std::os::unix::fs::symlink("..", dir.path().join("sub").join("up")).unwrap();
    let root = dir.path().to_string_lossy().into_owned();
    let out = knn_timed(&["coverage", &root], 60).expect("the walk ends");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("1 programs,"), "{}", stdout(&out));
}
