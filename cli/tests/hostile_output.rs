//! Hostile inputs against what knn prints (issue 26, point 5): diagnostics on very long lines
//! and by the thousand stay under 64 KiB of standard error, each excerpt cut around its column
//! with the marker under the right text; the JSON report streamed by `knn run` is the bytes of
//! the report built in memory. (Peak memory is measured by the command in docs/performance.md,
//! "Large reports", not here.)

mod common;

use common::{knn, stderr, stdout, temp_file};
use knn::render::{report_json, write_report_json};
use knn::{RunOptions, Semantics, load_source, parse_input};

/// The bound on standard error the reports keep, whatever the program.
const STDERR_BOUND: usize = 64 * 1024;

/// Each report of a rendered error: its header's line and column, the message, the source
/// line shown and the marker line under it (the text after the margin `| `).
struct Shown {
    column: usize,
    header_column: usize,
    message: String,
    line: String,
    marker: String,
}

fn reports(stderr: &str) -> Vec<Shown> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut shown = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("Error: ") else { continue };
        // `file:LINE:COL: message`
        let mut parts = rest.splitn(4, ':');
        let (_, _, column, message) = (parts.next(), parts.next(), parts.next().unwrap(), parts.next().unwrap());
        let header = lines[k + 1];
        let header_column = header.trim_end_matches(" ]").rsplit(':').next().unwrap().parse().unwrap();
        let source = lines[k + 3];
        let after_margin = |l: &str| l[l.find("| ").expect("a margin") + 2..].to_string();
        shown.push(Shown {
            column: column.parse().unwrap(),
            header_column,
            message: message.trim().to_string(),
            line: after_margin(source),
            marker: after_margin(lines[k + 4]),
        });
    }
    shown
}

/// The text of the excerpt from the marker's column on.
fn marked(report: &Shown) -> String {
    let at = report.marker.chars().position(|c| c != ' ').expect("a marker");
    report.line.chars().skip(at).collect()
}

fn check_bounded(out: &std::process::Output) -> String {
    let errors = stderr(out);
    assert!(out.stderr.len() < STDERR_BOUND, "{} bytes of standard error", out.stderr.len());
    errors
}

#[test]
fn four_thousand_unbound_names_on_one_line_print_a_bounded_report() {
    let dir = tempfile::tempdir().unwrap();
    let line = (0..4000).map(|k| format!("a{k}")).collect::<Vec<_>>().join(" + ");
    let file = temp_file(dir.path(), "names.knn", line.as_bytes());
    for command in ["check", "run"] {
        let out = knn(&[command, &file], None);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let errors = check_bounded(&out);
        let shown = reports(&errors);
        assert!(!shown.is_empty() && shown.len() <= 50, "{command}: {} reports", shown.len());
        assert!(
            errors.ends_with(&format!("… and {} more errors (4000 in all)\n", 4000 - shown.len())),
            "{command}: {}",
            &errors[errors.len().saturating_sub(200)..]
        );
        for (k, report) in shown.iter().enumerate() {
            let name = format!("a{k}");
            assert!(report.message.starts_with(&format!("`{name}` is not bound")), "{}", report.message);
            assert_eq!(report.header_column, report.column, "the header gives the column in the whole line");
            // 160 characters and the marks of the cut ends.
            assert!(report.line.chars().count() <= 162, "the excerpt is cut: {}", report.line);
            let at_marker = marked(report);
            assert!(
                at_marker.starts_with(&name) && !at_marker[name.len()..].starts_with(|c: char| c.is_ascii_digit()),
                "the marker is under `{name}`: {}\n{}",
                report.line,
                report.marker
            );
        }
        // The cut ends are marked.
        assert!(shown.iter().any(|r| r.line.starts_with('…') && r.line.ends_with('…')), "{errors}");
    }
}

#[test]
fn an_error_at_the_end_of_a_ten_megabyte_line_shows_the_end_of_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = "let x = 1.0 in ".to_string();
    while text.len() < 10 << 20 {
        text.push_str("1.0 + ");
    }
    text.push_str("zz\n");
    let file = temp_file(dir.path(), "long.knn", text.as_bytes());
    let out = knn(&["check", &file], None);
    assert_eq!(out.status.code(), Some(2));
    let errors = check_bounded(&out);
    let shown = reports(&errors);
    assert_eq!(shown.len(), 1, "{errors}");
    let column = text.find("zz").unwrap() + 1;
    assert_eq!((shown[0].column, shown[0].header_column), (column, column), "{errors}");
    assert!(shown[0].line.starts_with('…') && shown[0].line.ends_with("+ zz"), "{errors}");
    assert_eq!(marked(&shown[0]), "zz");
}

#[test]
fn a_syntax_error_in_the_middle_of_a_long_line_is_shown_around_its_column() {
    let dir = tempfile::tempdir().unwrap();
    let half = "1.0 + ".repeat(200_000);
    let text = format!("let x = 1.0 in {half}+ {half}1.0\n");
    let file = temp_file(dir.path(), "syntax.knn", text.as_bytes());
    let out = knn(&["run", &file], None);
    assert_eq!(out.status.code(), Some(2));
    let errors = check_bounded(&out);
    let shown = reports(&errors);
    assert_eq!(shown.len(), 1, "{errors}");
    assert!(shown[0].line.starts_with('…') && shown[0].line.ends_with('…'), "{errors}");
    assert!(marked(&shown[0]).starts_with("+ 1.0"), "{errors}");
    assert_eq!(shown[0].header_column, shown[0].column);
}

#[test]
fn a_run_time_error_on_a_long_line_is_cut_around_its_column() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("let t = initTensor(2) in {}t[5]", "1.0 + ".repeat(10_000));
    let file = temp_file(dir.path(), "oob.knn", text.as_bytes());
    for engine in ["big-step", "small-step"] {
        let out = knn(&["run", &file, "--engine", engine], None);
        assert_eq!(out.status.code(), Some(3), "{engine}: {}", stderr(&out));
        let errors = check_bounded(&out);
        let shown = reports(&errors);
        assert_eq!(shown.len(), 1, "{engine}: {errors}");
        assert!(errors.len() < 2000, "{engine}: {errors}");
        assert!(marked(&shown[0]).starts_with("t[5]"), "{engine}: {errors}");
    }
}

#[test]
fn a_name_of_ten_megabytes_is_clipped() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("1.0 + {}\n", "q".repeat(10 << 20));
    let file = temp_file(dir.path(), "name.knn", text.as_bytes());
    let out = knn(&["check", &file], None);
    assert_eq!(out.status.code(), Some(2));
    let errors = check_bounded(&out);
    assert!(errors.len() < 4096, "{} bytes", errors.len());
    assert!(errors.contains("`qqqq") && errors.contains("q…"), "{errors}");
}

#[test]
fn errors_on_many_lines_are_counted_past_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let text = (0..100_000).map(|k| format!("b{k} +\n")).collect::<String>() + "1.0\n";
    let file = temp_file(dir.path(), "lines.knn", text.as_bytes());
    let out = knn(&["check", &file], None);
    assert_eq!(out.status.code(), Some(2));
    let errors = check_bounded(&out);
    let shown = reports(&errors);
    assert_eq!(shown.len(), 50);
    assert!(errors.ends_with("… and 99950 more errors (100000 in all)\n"), "{errors}");
    // Short lines are shown whole, as before.
    assert_eq!(shown[7].line, "b7 +");
}

#[test]
fn coloured_reports_keep_the_bound() {
    // A terminal gets ariadne's colours and box characters: more bytes per report (an escape
    // sequence around each character of the line), so fewer reports fit.
    let line = (0..4000).map(|k| format!("a{k}")).collect::<Vec<_>>().join(" + ");
    let error = load_source("names.knn", &line, Semantics::Revised).unwrap().check(&[]).unwrap_err();
    let coloured = error.render(true);
    assert!(coloured.len() < STDERR_BOUND, "{} bytes", coloured.len());
    assert!(coloured.contains("4000 in all"));
    let column = line.find("a12 ").unwrap() + 1;
    let header = format!(" names.knn:1:{column} ");
    let at = coloured.find("`a12`").expect("a12 is shown");
    assert!(coloured[at..].contains(&header), "the header's column, in colour too: {}", &coloured[at..at + 600]);
    // A path of 4,000 bytes is printed twice a report: fewer reports fit, the rest are counted.
    let long_name = format!("{}.knn", "d/".repeat(2000));
    let error = load_source(&long_name, &line, Semantics::Revised).unwrap().check(&[]).unwrap_err();
    let text = error.render(false);
    assert!(text.len() < STDERR_BOUND, "{} bytes", text.len());
    assert!(text.contains("more errors (4000 in all)"));
}

/// Programs whose reports have every field: a tensor with non-finite elements, observables
/// after a run-time error, krun's abort, a step limit, the trace and the rule counts.
fn json_cases() -> Vec<(&'static str, Semantics, Vec<&'static str>, RunOptions)> {
    let small =
        |trace: bool, coverage: bool| RunOptions { trace, coverage, observables: true, ..RunOptions::default() };
    vec![
        ("let t = initTensor(2, 3) in let t[0, 1] = 1.5 in t", Semantics::Revised, vec![], small(false, false)),
        ("let t = initTensor(2, 3) in let t[0, 1] = 1.5 in t", Semantics::Revised, vec![], small(true, true)),
        ("x", Semantics::Revised, vec!["x=[NaN, Infinity, -Infinity, -0.0, 1e-300]"], small(true, false)),
        ("let t = initTensor(2) in t[5]", Semantics::Revised, vec!["x=[[1, 2], [3, 4]]"], small(false, true)),
        ("let t = initTensor(2) in t[5]", Semantics::Revised, vec!["x=[1.0]"], small(false, false)),
        ("let t = initTensor(3) in let t[1] = 2.0 in ArgMax(t)", Semantics::Revised, vec![], small(false, false)),
        ("let t = initTensor(2) in let t = initTensor(3) in 1.0", Semantics::Published, vec![], small(true, true)),
        ("let t = initTensor(2) in let u = reluTensor(t) in u", Semantics::Published, vec![], small(false, false)),
        (
            "let t = initTensor(20) in let u = reluTensor(t) in u",
            Semantics::Revised,
            vec![],
            RunOptions { max_steps: Some(7), ..small(true, true) },
        ),
    ]
}

#[test]
fn the_streamed_json_report_is_the_report_built_in_memory() {
    for (text, semantics, inputs, options) in json_cases() {
        let program = load_source("case.knn", text, semantics).unwrap();
        let inputs: Vec<_> = inputs.iter().map(|i| parse_input(i).unwrap()).collect();
        let report = program.run(&inputs, &options).unwrap();
        let in_memory = serde_json::to_string_pretty(&report_json(&report).unwrap()).unwrap();
        let mut streamed = Vec::new();
        write_report_json(&report, &mut streamed).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), in_memory, "{text}");
    }
}

#[test]
fn knn_run_prints_the_report_built_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    for (text, semantics, inputs, options) in json_cases() {
        let file = temp_file(dir.path(), "case.knn", text.as_bytes());
        let mut args = vec!["run", &file, "--output", "json"];
        if semantics == Semantics::Published {
            args.extend(["--semantics", "published"]);
        }
        for input in &inputs {
            args.extend(["--input", input]);
        }
        if options.trace {
            args.push("--trace");
        }
        if options.coverage {
            args.push("--coverage");
        }
        let steps = options.max_steps.map(|n| n.to_string());
        if let Some(steps) = &steps {
            args.extend(["--max-steps", steps]);
        }
        let out = knn(&args, None);
        let program = load_source(&file, text, semantics).unwrap();
        let parsed: Vec<_> = inputs.iter().map(|i| parse_input(i).unwrap()).collect();
        let report = program.run(&parsed, &options).unwrap();
        let expected = serde_json::to_string_pretty(&report_json(&report).unwrap()).unwrap() + "\n";
        assert_eq!(stdout(&out), expected, "{text} {args:?}");
        assert_eq!(out.status.code(), Some(i32::from(report.exit_code())), "{text}");
    }
}

#[test]
fn a_tensor_value_prints_as_before() {
    let out = knn(&["run", "-"], Some("let t = initTensor(2, 2, 2) in let t[1, 0, 1] = 3.0 in t"));
    assert_eq!(stdout(&out), "[[[0.0, 0.0], [0.0, 0.0]], [[0.0, 3.0], [0.0, 0.0]]]\n");
    // A report larger than the writer's buffer is whole.
    let big = knn(&["run", "-", "--output", "json"], Some("let t = initTensor(100000) in t"));
    assert_eq!(big.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_str(&stdout(&big)).unwrap();
    assert_eq!(report["result"]["data"].as_array().map(Vec::len), Some(100_000));
    assert!(stdout(&big).ends_with("}\n"));
}
