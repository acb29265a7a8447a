//! The `knn` binary: the authors' programs byte for byte, exit codes, diagnostics, inputs.

mod common;

use std::path::PathBuf;

use common::{knn, stderr, stdout, temp_file};
use serde_json::Value;

fn authors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec-tests/programs/authors")
}

#[test]
fn authors_programs_print_krun_configurations_byte_for_byte() {
    let mut checked = 0;
    for entry in std::fs::read_dir(authors()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "knn") {
            continue;
        }
        let out = knn(&["run", "--semantics", "published", "--output", "config", path.to_str().unwrap()], None);
        let expected = std::fs::read_to_string(path.with_extension("knn.out")).unwrap();
        assert_eq!(out.status.code(), Some(0), "{}: {}", path.display(), stderr(&out));
        assert_eq!(stdout(&out).trim_end(), expected.trim_end(), "{}", path.display());
        checked += 1;
    }
    assert_eq!(checked, 9);
}

#[test]
fn values_print_alone() {
    let out = knn(&["run", authors().join("argmax.knn").to_str().unwrap()], None);
    assert_eq!(stdout(&out), "2\n");
    let out = knn(&["run", "-"], Some("let a = 3.0 in let b = 5.0 in let c = 7.0 in a*(b+c)"));
    assert_eq!(stdout(&out), "36.0\n");
    // `a[2]` reads `b`'s header (docs/semantics.md §3(e)): a tensor value prints as its elements.
    let out = knn(
        &["run", "--semantics", "published", "-"],
        Some("let a = initTensor(2) in let b = initTensor(2) in let b[1] = 2.0 in a[2]"),
    );
    assert_eq!(stdout(&out), "[0.0, 2.0]\n");
}

#[test]
fn parse_errors_name_the_file_line_and_column_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = temp_file(dir.path(), "prog.knn", b"let x = 1.0\nx");
    let out = knn(&["run", &file], None);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("prog.knn:2:1"), "{err}");
    assert!(err.contains("expected `in`"), "{err}");
    let out = knn(&["check", "--semantics", "published", "-"], Some("1.0+2.0"));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("write `+ 2.0`"), "{}", stderr(&out));
}

#[test]
fn outcomes_set_the_exit_code() {
    let stuck = knn(&["run", "--semantics", "published", "-"], Some("1 + 2"));
    assert_eq!(stuck.status.code(), Some(3));
    assert!(stderr(&stuck).contains("no rule applies to `1 + 2`"), "{}", stderr(&stuck));

    let aborted =
        knn(&["run", "--semantics", "published", "-"], Some("let t = initTensor(2) in let t = initTensor(3) in t[0]"));
    assert_eq!(aborted.status.code(), Some(3));
    assert!(stderr(&aborted).contains("duplicate keys"));

    let limited = knn(&["run", "--max-steps", "5", authors().join("linear.knn").to_str().unwrap()], None);
    assert_eq!(limited.status.code(), Some(4));
    assert!(stderr(&limited).contains("after 5 steps"), "{}", stderr(&limited));

    let empty = knn(&["run", "--semantics", "published", "-"], Some("let n = 0 in n"));
    assert_eq!(empty.status.code(), Some(0));
    assert_eq!(stdout(&empty), "");
    assert!(stderr(&empty).contains("empty <k>"));
}

#[test]
fn usage_and_io_errors_exit_1() {
    let missing = knn(&["run", "/nonexistent/prog.knn"], None);
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("cannot read /nonexistent/prog.knn"));
    let unknown = knn(&["run", "--frobnicate", "x.knn"], None);
    assert_eq!(unknown.status.code(), Some(1));
    let bad_input = knn(&["run", "-", "--input", "x=[1, y]"], Some("x[0]"));
    assert_eq!(bad_input.status.code(), Some(1));
    assert!(stderr(&bad_input).contains("`y` is not a number"));
    let help = knn(&["run", "--help"], None);
    assert_eq!(help.status.code(), Some(0));
    assert!(stdout(&help).contains("published"));
}

#[test]
fn json_reports_follow_the_contract() {
    let out = knn(
        &["run", "--semantics", "published", "--output", "json", authors().join("argmax.knn").to_str().unwrap()],
        None,
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "done");
    assert_eq!(report["result"]["kind"], "int");
    assert_eq!(report["result"]["value"], 2);
    assert_eq!(report["observables"]["t"]["shape"], serde_json::json!([4]));
    assert_eq!(report["observables"]["t"]["data"], serde_json::json!([4.0, 3.0, 7.0, 6.0]));
    assert_eq!(report["rules"]["argmax-start"], 1);
    assert_eq!(report["rules"]["argmax-step-greater"], 2);

    let stuck = knn(&["run", "--semantics", "published", "--output", "json", "-"], Some("let x = relu(3.0) in x"));
    let report: Value = serde_json::from_slice(&stuck.stdout).unwrap();
    assert_eq!(report["status"], "stuck");
    assert_eq!(report["stuck"], "let x = relu ( 0.30000000000000000e1 ) in x");
    assert_eq!(stuck.status.code(), Some(3));
}

#[test]
fn search_reports_every_final_state() {
    let program = "let m = initTensor(1, 2) in let m[0, 0] = -1.0 in let m[0, 1] = 1.0 in (let h = tanhTensor(m) in h[0, 0] + h[0, 1])";
    let out = knn(&["search", "--semantics", "published", "--output", "json", "-"], Some(program));
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let values: Vec<f64> = report["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["status"] == "done")
        .map(|o| o["result"]["value"].as_f64().unwrap())
        .collect();
    assert!(values.contains(&0.0) && values.contains(&0.7615941559557649), "{values:?}");
    let limited = knn(&["search", "--semantics", "published", "--max-states", "10", "-"], Some(program));
    assert_eq!(limited.status.code(), Some(4));
}

#[test]
fn rules_lists_the_inventory() {
    let out = knn(&["rules", "--semantics", "published", "--output", "json"], None);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules = report["rules"].as_array().unwrap();
    // R01–R74 with the duplicated Linear block once, plus 28 generated heating/cooling rules.
    assert_eq!(rules.len(), 74 + 28);
    let assign = rules.iter().find(|r| r["id"] == "let-index-assign").unwrap();
    assert_eq!(assign["number"], "R14");
    assert_eq!(assign["lines"], "L193");
    assert_eq!(assign["section"], "tensor");
    assert_eq!(rules.iter().filter(|r| r["kind"] == "heat").count(), 14);
}

#[test]
fn trace_and_coverage_go_to_standard_error() {
    let out = knn(
        &[
            "run",
            "--semantics",
            "published",
            "--trace",
            "--coverage",
            authors().join("basic_syntax.knn").to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(stdout(&out), "36.0\n");
    let err = stderr(&out);
    let trace: Vec<&str> = err.lines().take_while(|l| !l.starts_with("rule coverage")).collect();
    assert_eq!(trace.first().map(|l| l.trim()), Some("1 let-scalar-float"));
    assert!(err.contains("never fired"));
}

#[test]
fn revised_is_the_default_and_reads_the_relaxed_grammar() {
    let out = knn(
        &["run", "-"],
        Some("let x = 1.0+2.0 in let t = initTensor(1) in let t[0] = x in let u = reluTensor(t) in u[0]"),
    );
    assert_eq!(stdout(&out), "3.0\n", "{}", stderr(&out));
    let published = knn(&["run", "--semantics", "published", "-"], Some("1.0+2.0"));
    assert_eq!(published.status.code(), Some(2));
}

#[test]
fn run_time_errors_are_reported_like_compiler_errors_and_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let file = temp_file(dir.path(), "net.knn", b"let t = initTensor(3) in\nlet y = t[3] in\ny");
    let out = knn(&["run", &file], None);
    assert_eq!(out.status.code(), Some(3));
    let err = stderr(&out);
    assert!(err.contains("net.knn:2:9"), "{err}");
    assert!(err.contains("index 3 is out of bounds for a dimension of length 3 [index-out-of-bounds]"), "{err}");
    let json = knn(&["run", "--output", "json", &file], None);
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["status"], "error");
    assert_eq!(report["error"]["kind"], "index-out-of-bounds");
    assert_eq!(report["error"]["line"], 2);
    assert_eq!(report["error"]["column"], 9);
    assert_eq!(json.status.code(), Some(3));
}

#[test]
fn static_errors_are_all_listed_and_exit_2() {
    let out = knn(&["run", "-"], Some("a + (let y = linear(W, y) in b)"));
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    for expected in ["`a` is not bound here", "`W` is not bound here", "[aliased-output]", "`b` is not bound here"] {
        assert!(err.contains(expected), "{expected}: {err}");
    }
    let checked = knn(&["check", "--bound", "x", "-"], Some("let y = reluTensor(x) in y[0]"));
    assert_eq!(checked.status.code(), Some(0), "{}", stderr(&checked));
}

#[test]
fn the_mlp_example_classifies_its_documented_inputs() {
    let mlp = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/mlp.knn");
    for (x, class) in [("x=[1.0, -2.0, 0.5]", "0\n"), ("x=[0.0, 1.0, 0.0]", "1\n")] {
        let out = knn(&["run", mlp.to_str().unwrap(), "--input", x], None);
        assert_eq!(stdout(&out), class, "{x}: {}", stderr(&out));
    }
}

#[test]
fn rules_marks_what_each_patch_changed() {
    let out = knn(&["rules", "--output", "json"], None);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["semantics"], "revised");
    let rules = report["rules"].as_array().unwrap();
    let walk = rules.iter().find(|r| r["id"] == "rev-storeval-walk").unwrap();
    assert_eq!(walk["origin"], "Rev-3");
    assert!(rules.iter().all(|r| r["id"] != "drop-int-zero"));
    let removed = report["removed"].as_array().unwrap();
    assert!(removed.iter().any(|r| r["id"] == "drop-int-zero" && r["by"] == "Rev-1"));
    // Rev-0…Rev-13, then the extensions Ext-1 (`addTensor`), Ext-2 (tensor literals), Ext-3
    // (`conv2d`), Ext-4 (the pools), Ext-5 (`reshape`, `flatten`), Ext-6 (`transpose`), Ext-7
    // (`-`, `/`), Ext-8 (broadcasting `addTensor`, `subTensor`, …), Ext-9 (`expTensor`,
    // `logTensor`, `softmax`, `logSoftmax`), Ext-10 (the reductions), Ext-11 (`concat`),
    // Ext-12 (`slice`), Ext-13 (`pad`), Ext-15 (`matmul`) and Ext-14 (`batchNorm`, ONNX's
    // formula for programs written by hand; the importer still folds a batch normalisation in
    // onnxruntime's order, see docs/importing.md), which remove nothing.
    assert_eq!(report["patches"].as_array().unwrap().len(), 29);
    let batch_norm = rules.iter().find(|r| r["id"] == "ext-let-batch-norm").unwrap();
    assert_eq!((&batch_norm["origin"], &batch_norm["section"]), (&Value::from("Ext-14"), &Value::from("extensions")));
    let slice = rules.iter().find(|r| r["id"] == "ext-let-slice").unwrap();
    assert_eq!((&slice["origin"], &slice["section"]), (&Value::from("Ext-12"), &Value::from("extensions")));
    let concat = rules.iter().find(|r| r["id"] == "ext-let-concat").unwrap();
    assert_eq!((&concat["origin"], &concat["section"]), (&Value::from("Ext-11"), &Value::from("extensions")));
    let div = rules.iter().find(|r| r["id"] == "ext-div-int-zero").unwrap();
    assert_eq!((&div["origin"], &div["section"]), (&Value::from("Ext-7"), &Value::from("extensions")));
    let softmax = rules.iter().find(|r| r["id"] == "ext-let-softmax").unwrap();
    assert_eq!((&softmax["origin"], &softmax["section"]), (&Value::from("Ext-9"), &Value::from("extensions")));
    let reduce = rules.iter().find(|r| r["id"] == "ext-let-reduce").unwrap();
    assert_eq!(reduce["origin"], "Ext-10");
    let pad = rules.iter().find(|r| r["id"] == "ext-pad-helper-fill").unwrap();
    assert_eq!((&pad["origin"], &pad["section"]), (&Value::from("Ext-13"), &Value::from("extensions")));
    let matmul = rules.iter().find(|r| r["id"] == "ext-let-matmul").unwrap();
    assert_eq!((&matmul["origin"], &matmul["section"]), (&Value::from("Ext-15"), &Value::from("extensions")));
    let transpose = rules.iter().find(|r| r["id"] == "ext-let-transpose").unwrap();
    assert_eq!((&transpose["origin"], &transpose["section"]), (&Value::from("Ext-6"), &Value::from("extensions")));
    let add = rules.iter().find(|r| r["id"] == "ext-let-add-tensor").unwrap();
    assert_eq!((&add["origin"], &add["section"]), (&Value::from("Ext-1"), &Value::from("extensions")));
    assert!(removed.iter().all(|r| !r["by"].as_str().is_some_and(|by| by.starts_with("Ext-"))));
    let literal = rules.iter().find(|r| r["id"] == "ext-let-tensor-literal").unwrap();
    assert_eq!(literal["origin"], "Ext-2");
}

#[test]
fn indexing_a_scalar_says_which_name_holds_it() {
    let named = knn(&["run", "-"], Some("let s = 1.0 in let s[0] = 2.0 in s"));
    assert_eq!(named.status.code(), Some(3));
    assert!(
        stderr(&named).contains("`s` holds a scalar: it cannot be indexed [too-many-indices]"),
        "{}",
        stderr(&named)
    );
    // One index too many below a tensor: the element is the scalar, not the name.
    let deeper = knn(&["run", "-"], Some("let t = initTensor(2) in let t[0][1] = 1.0 in t"));
    assert_eq!(deeper.status.code(), Some(3));
    assert!(stderr(&deeper).contains("1:30: a scalar: it cannot be indexed [too-many-indices]"), "{}", stderr(&deeper));
}

#[test]
fn a_reader_that_closes_the_pipe_early_is_not_a_crash() {
    // `knn run big.knn | head -c 10`: the result (about 500 kB) cannot fit in the pipe, so the
    // write fails once the reader is gone. knn stops writing and exits with the outcome's code.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_knn"))
        .args(["run", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("knn starts");
    {
        use std::io::{Read, Write};
        child.stdin.take().unwrap().write_all(b"let t = initTensor(100000) in t").unwrap();
        let mut first = [0u8; 10];
        child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
        assert_eq!(&first, b"[0.0, 0.0,");
        drop(child.stdout.take());
    }
    let output = child.wait_with_output().expect("knn finishes");
    let errors = stderr(&output);
    assert!(!errors.contains("panicked"), "{errors}");
    assert_eq!(output.status.code(), Some(0), "{errors}");
}

#[test]
fn invalid_operands_name_the_operator_on_the_fast_engine() {
    // Found when compiling (a tensor is no operand of `+`) and when running (`max` has no rule
    // for NaN): the message says which operator could not compute, and with what.
    let compiled = knn(&["run", "-"], Some("let t = initTensor(2) in let s = t + 1.0 in s"));
    assert_eq!(compiled.status.code(), Some(3));
    assert!(stderr(&compiled).contains("`+` cannot compute with a tensor and 1.0"), "{}", stderr(&compiled));
    let ran = knn(&["run", "-", "--input", "x=[NaN]"], Some("let a = x[0] in let b = max(a, 1.0) in b"));
    assert_eq!(ran.status.code(), Some(3));
    assert!(stderr(&ran).contains("`max` cannot compute with NaN and 1.0"), "{}", stderr(&ran));
}

#[test]
fn add_tensor_errors_say_what_is_wrong_and_where() {
    let dir = tempfile::tempdir().unwrap();
    // Shapes are compared when the program runs (`knn run`'s default engine is the fast one).
    let mismatch = temp_file(
        dir.path(),
        "mismatch.knn",
        b"let h = initTensor(2, 3) in\nlet b = initTensor(6) in\nlet z = addTensor(h, b) in z\n",
    );
    for engine in ["big-step", "small-step"] {
        let out = knn(&["run", &mismatch, "--engine", engine], None);
        assert_eq!(out.status.code(), Some(3), "{engine}: {}", stderr(&out));
        let expected = "mismatch.knn:3:9: addTensor(h, b) needs two tensors whose shapes broadcast; h has shape [2, 3] and b has shape [6]";
        assert!(stderr(&out).contains(expected), "{engine}: {}", stderr(&out));
    }
    // An operand that is not a name is found before the program runs, with a way out.
    let operand = temp_file(dir.path(), "operand.knn", b"let h = initTensor(2) in\nlet z = addTensor(h, 1.0) in z\n");
    for command in ["run", "check"] {
        let out = knn(&[command, &operand], None);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
        let errors = stderr(&out);
        assert!(errors.contains("operand.knn:2:22: `addTensor` takes the names of two tensors"), "{command}: {errors}");
        assert!(errors.contains("let u = addTensor(t, b)"), "{command}: {errors}");
    }
}
