//! Messages a newcomer meets on the command line, as they read them: a `linear` whose shapes do
//! not fit, a malformed `--input`, programs that `coverage` could not run, the summary of a
//! search.

mod common;

use common::{knn, stderr, stdout, temp_file};

/// A `linear` whose shapes do not fit says which shapes met and points at the call: the
/// snippet shows line 3 (the call) and not the lines of the `let`'s body below it. Both
/// engines give the same message at the same place.
#[test]
fn a_linear_shape_mismatch_names_the_shapes_and_points_at_the_call() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let cases = [
        ("3, 4", "5", "3:9: linear(W, x): the weights W are 3×4 but x has 5 elements"),
        ("3, 4", "1", "3:9: linear(W, x): the weights W are 3×4 but x has 1 element"),
        ("3", "5", "3:9: linear(W, x): the weights W must be a matrix, but they are a vector of 3 elements"),
        ("2, 3", "1, 3", "3:9: linear(W, x): x must be a vector, but it is 1×3"),
    ];
    for (w, x, expected) in cases {
        let source = format!(
            "let W = initTensor({w}) in\nlet x = initTensor({x}) in\nlet y = linear(W, x) in\nlet z = reluTensor(y) in\nArgMax(z)\n"
        );
        let file = temp_file(dir.path(), "net.knn", source.as_bytes());
        for engine in ["big-step", "small-step"] {
            let out = knn(&["run", &file, "--engine", engine], None);
            let errors = stderr(&out);
            assert_eq!(out.status.code(), Some(3), "{engine}: {errors}");
            assert!(errors.contains(&format!("net.knn:{expected} [shape-mismatch]")), "{engine}: {errors}");
            assert!(errors.contains(" 3 | let y = linear(W, x) in"), "{engine}: {errors}");
            assert!(errors.contains("^^^^^^"), "{engine}: the call is underlined: {errors}");
            assert!(!errors.contains("ArgMax(z)"), "{engine}: only the call is highlighted: {errors}");
        }
    }
}

/// The other run-time errors about a function's operands point at the call too, on both
/// engines (before this, the whole `let` to the end of the program was the place).
#[test]
fn operand_errors_point_at_the_function_call() {
    for engine in ["big-step", "small-step"] {
        let out = knn(&["run", "-", "--engine", engine], Some("let t = 5.0 in\nlet u = reluTensor(t) in\nu[0]\n"));
        assert_eq!(out.status.code(), Some(3), "{engine}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("<stdin>:2:9: `t` is not a tensor with a known shape"),
            "{engine}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("u[0]"), "{engine}: {}", stderr(&out));
    }
}

/// `--input x=1.0` is a value without its brackets, not an unreadable file: the message says
/// what a value is, for `run` and for `batch` (which reads rows from a file).
#[test]
fn an_input_value_without_brackets_says_what_a_value_is() {
    let run = knn(&["run", "-", "--input", "x=1.0"], Some("x[0]"));
    assert_eq!(run.status.code(), Some(1));
    let errors = stderr(&run);
    assert!(errors.contains("`--input x=1.0`: a value is a list in brackets"), "{errors}");
    assert!(errors.contains("or the path of a .npy file"), "{errors}");
    assert!(errors.contains("a single number is written `[1.0]`"), "{errors}");
    assert!(!errors.contains("cannot read the file"), "{errors}");

    let mlp = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/mlp.knn");
    let batch = knn(&["batch", mlp, "--input", "x=1.0"], None);
    assert_eq!(batch.status.code(), Some(1));
    let errors = stderr(&batch);
    assert!(errors.contains("a batch reads its inputs from a .npy file, one input per row"), "{errors}");
    assert!(errors.contains("knn run FILE --input x=[…]"), "{errors}");
    assert!(stdout(&batch).is_empty());
}

/// `knn coverage` lists, in its text report, the programs that ended without a value with why
/// (a run-time error with its place, a stuck term), and the programs that could not run with
/// their parse error; the JSON report carries the same line as `message`.
#[test]
fn coverage_lists_the_programs_that_ended_without_a_value_and_why() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    temp_file(dir.path(), "a-good.knn", b"1.0 + 2.0");
    temp_file(dir.path(), "b-error.knn", b"let t = initTensor(3) in\nt[3]");
    temp_file(dir.path(), "c-parse.knn", b"let x = 1.0\nx");
    let folder = dir.path().to_string_lossy().into_owned();
    let out = knn(&["coverage", &folder], None);
    // A program that does not parse is exit code 2, as for `run`.
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stdout(&out);
    let error =
        format!("{folder}/b-error.knn:2:1: index 3 is out of bounds for a dimension of length 3 [index-out-of-bounds]");
    assert!(text.contains(&format!("ended without a value (1):\n  {error}\n")), "{text}");
    assert!(text.contains(&format!("not run (1):\n  {folder}/c-parse.knn:2:1: ")), "{text}");
    assert!(!text.contains("a-good.knn"), "a program with a value is not listed: {text}");

    let published = knn(&["coverage", &folder, "--semantics", "published"], None);
    let text = stdout(&published);
    assert!(text.contains(&format!("  {folder}/b-error.knn: stuck: no rule applies to `lookup ( 4 )`")), "{text}");

    let json = knn(&["coverage", &folder, "--output", "json"], None);
    let report: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("JSON");
    let programs = report["programs"].as_array().expect("programs");
    assert_eq!(programs[1]["status"], "error");
    assert_eq!(programs[1]["message"], error.as_str());
    assert!(programs[0].get("message").is_none(), "{}", programs[0]);
    // Every fireable rule is listed with its count; those fired and those never fired add up,
    // and the text's summary line says the same numbers.
    let fireable = report["rules"].as_object().expect("rules").len();
    let never = report["never_fired"].as_array().expect("never_fired").len();
    assert!(fireable > 100, "the revised profile has more than a hundred rules: {fireable}");
    assert_eq!(
        (report["fireable"].as_u64(), report["fired"].as_u64()),
        (Some(fireable as u64), Some((fireable - never) as u64))
    );
    let summary = format!("3 programs, revised semantics: {} of {fireable} fireable rules fired", fireable - never);
    assert!(stdout(&out).starts_with(&summary), "{}", stdout(&out));
}

/// `search` ends with the final states counted by kind. On `examples/tanh_rank2.knn` under the
/// published rules the values are krun's clamped sum and the unclamped one (docs/semantics.md
/// §3(c)); the other final states are stuck paths krun never takes (§2.10). The counts must be
/// those of the listing above them.
#[test]
fn search_ends_with_the_final_states_by_kind() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/tanh_rank2.knn");
    let out = knn(&["search", example, "--semantics", "published"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listing = stdout(&out);
    let lines: Vec<&str> = listing.lines().collect();
    let mut values: Vec<&str> = lines.iter().filter_map(|l| l.split_once(": value ").map(|(_, v)| v)).collect();
    let stuck = lines.iter().filter(|l| l.contains(": stuck: ")).count();
    assert_eq!(values.len() + stuck, lines.len(), "every final state is a value or stuck here: {listing}");
    assert!(stuck > 0, "search takes storeval-split, which gets stuck");
    let count = values.len();
    values.sort_unstable();
    values.dedup();
    assert_eq!(values, ["0.0", "0.7615941559557649"]);
    let summary = format!("{} final states: {count} values (2 distinct), {stuck} stuck; ", lines.len());
    let errors = stderr(&out);
    assert!(errors.starts_with(&summary), "expected `{summary}…`, got {errors}");

    let revised = knn(&["search", example], None);
    assert_eq!(stdout(&revised), "solution 1: value 0.0\n");
    assert!(stderr(&revised).starts_with("1 final state: 1 value (1 distinct); "), "{}", stderr(&revised));
}
