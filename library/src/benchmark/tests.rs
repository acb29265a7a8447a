use super::*;

const KNN_CSV: &str = "\
network,property,answer,seconds,proved_share
nets/a.nnet,props/p1.vnnlib,holds,0.500,1.0000
nets/b.nnet,props/p1.vnnlib,violated,0.020,0.0000
nets/c.nnet,props/p2.vnnlib,unknown:timeout,116.000,0.7500
nets/d.nnet,props/p2.vnnlib,error,0.001,
";

// Another tool, in the VNN-COMP format: the benchmark first, other folders and extensions,
// one instance knn did not run (e), one of knn's missing (d).
const OTHER_CSV: &str = "\
acasxu,./benchmarks/x/onnx/a.onnx,./benchmarks/x/vnnlib/p1.vnnlib,1.8,sat,1.25
acasxu,./benchmarks/x/onnx/b.onnx,./benchmarks/x/vnnlib/p1.vnnlib,1.8,sat,.5
acasxu,./benchmarks/x/onnx/c.onnx.gz,./benchmarks/x/vnnlib/p2.vnnlib.gz,1.8,unsat,3
acasxu,./benchmarks/x/onnx/e.onnx,./benchmarks/x/vnnlib/p2.vnnlib,1.8,timeout,116
";

fn report() -> BenchmarkReport {
    let knn = parse_results(KNN_CSV, "knn.csv").unwrap();
    let other = parse_results(OTHER_CSV, "other.csv").unwrap();
    BenchmarkReport::new(knn, vec![("other".into(), other)]).unwrap()
}

#[test]
fn knn_results_are_read_with_and_without_the_proved_share() {
    let results = parse_results(KNN_CSV, "knn.csv").unwrap();
    assert_eq!(results.format, ResultsFormat::Knn);
    let outcomes: Vec<Outcome> = results.rows.iter().map(|r| r.outcome).collect();
    assert_eq!(outcomes, [Outcome::Holds, Outcome::Violated, Outcome::Unknown, Outcome::Error]);
    assert_eq!(results.rows[2].proved_share, Some(0.75));
    assert_eq!(results.rows[2].seconds, 116.0);
    assert_eq!(results.rows[2].line, 4);
    assert_eq!(results.rows[3].proved_share, None, "an error has no share");
    let old = parse_results("network,property,answer,seconds\nn.nnet,p.vnnlib,holds,1.5\n", "old.csv").unwrap();
    assert_eq!(old.rows[0].proved_share, None);
    assert_eq!(old.rows[0].seconds, 1.5);
}

#[test]
fn the_line_knn_writes_is_the_line_it_reads() {
    let mut text = format!("{RESULTS_HEADER}\n");
    text.push_str(&results_line("n.nnet", "p.vnnlib", "unknown:timeout", 2.0004, Some(0.123456)));
    text.push_str(&results_line("m.nnet", "p.vnnlib", "error", 0.0, None));
    assert!(text.ends_with("m.nnet,p.vnnlib,error,0.000,\n"), "{text}");
    let rows = parse_results(&text, "x").unwrap().rows;
    assert_eq!((rows[0].seconds, rows[0].proved_share), (2.0, Some(0.1235)));
    assert_eq!(rows[1].proved_share, None);
}

#[test]
fn vnncomp_results_are_read_with_five_or_six_columns() {
    let results = parse_results(OTHER_CSV, "other.csv").unwrap();
    assert_eq!(results.format, ResultsFormat::VnnComp);
    assert_eq!(results.rows.len(), 4);
    assert_eq!(results.rows[1].seconds, 0.5, "run_time, not prepare_time; `.5` is a number");
    assert_eq!(results.rows[2].outcome, Outcome::Holds, "unsat");
    assert_eq!(results.rows[3].outcome, Outcome::Unknown, "timeout");
    let five = parse_results("net.onnx,prop.vnnlib,0.1,violated,2.5\n", "five.csv").unwrap();
    assert_eq!((five.rows[0].outcome, five.rows[0].seconds), (Outcome::Violated, 2.5));
}

#[test]
fn malformed_lines_name_the_file_and_line() {
    let cases = [
        ("network,property,answer,seconds\nn,p,holds\n", "bad.csv:2: expected network,property"),
        ("network,property,answer,seconds\n\nn,p,maybe,1\n", "bad.csv:3: `maybe` is not an answer"),
        ("network,property,answer,seconds\nn,p,holds,-1\n", "bad.csv:2: `-1` is not a number of seconds"),
        ("network,property,answer,seconds,proved_share\nn,p,holds,1,2\n", "bad.csv:2: `2` is not a share"),
        ("n,p,sat\n", "bad.csv:1: expected [benchmark,]network"),
        ("# comment\nb,n,p,1,unsat,NaN\n", "bad.csv:2: `NaN` is not a number"),
    ];
    for (text, expected) in cases {
        let error = parse_results(text, "bad.csv").unwrap_err();
        assert!(error.message.starts_with(expected), "{text:?}: {}", error.message);
        assert_eq!(error.exit_code(), 1);
    }
}

#[test]
fn instances_match_by_file_names_without_folders_or_extensions() {
    assert_eq!(
        InstanceKey::of("./benchmarks/acasxu/onnx/ACASXU_1_1.onnx.gz", "./vnnlib/prop_1.vnnlib"),
        InstanceKey::of("ACASXU_1_1.nnet", "prop_1.vnnlib")
    );
    assert_ne!(InstanceKey::of("a.nnet", "p1.vnnlib"), InstanceKey::of("a.nnet", "p2.vnnlib"));
}

#[test]
fn answers_map_onto_one_scale_and_only_holds_against_violated_contradicts() {
    for (word, outcome) in [
        ("unsat", Outcome::Holds),
        ("SAT", Outcome::Violated),
        ("unknown:limit", Outcome::Unknown),
        ("run_instance_timeout", Outcome::Unknown),
        ("error_exit_code_1", Outcome::Error),
    ] {
        assert_eq!(Outcome::of_word(word), Some(outcome), "{word}");
    }
    assert_eq!(Outcome::of_word("probably"), None);
    let all = [Outcome::Holds, Outcome::Violated, Outcome::Unknown, Outcome::Error];
    let contradictions: Vec<(Outcome, Outcome)> =
        all.iter().flat_map(|&a| all.iter().map(move |&b| (a, b))).filter(|(a, b)| a.contradicts(*b)).collect();
    assert_eq!(contradictions, [(Outcome::Holds, Outcome::Violated), (Outcome::Violated, Outcome::Holds)]);
}

#[test]
fn rows_pair_each_instance_of_the_run_and_mark_contradictions() {
    let report = report();
    let rows = report.rows();
    assert_eq!(rows.len(), 4, "one row per instance of knn's run");
    let theirs: Vec<Option<&str>> = rows.iter().map(|r| r.others[0].map(|o| o.answer.as_str())).collect();
    assert_eq!(theirs, [Some("sat"), Some("sat"), Some("unsat"), None]);
    // a: knn holds, the other sat: a contradiction; b: both violated; c: unknown against
    // unsat is no contradiction; d: missing.
    let disagree: Vec<bool> = rows.iter().map(|r| r.disagrees()).collect();
    assert_eq!(disagree, [true, false, false, false]);
    assert_eq!(report.unmatched(), [1], "e is not an instance of the run");
}

#[test]
fn the_cactus_lines_are_the_decided_times_in_order() {
    let lines = report().cactus();
    assert_eq!(lines.len(), 2);
    assert_eq!((lines[0].tool.as_str(), lines[0].seconds.clone()), ("knn", vec![0.02, 0.5]));
    // The other tool decided a, b, c (e is not in the run): 1.25, .5, 3 sorted.
    assert_eq!((lines[1].tool.as_str(), lines[1].seconds.clone()), ("other", vec![0.5, 1.25, 3.0]));
    let points = cactus_points(&CactusLine { tool: "t".into(), seconds: vec![0.0, 2.0] });
    assert_eq!(points, [(1.0, FLOOR_SECONDS), (2.0, 2.0)], "a zero time is drawn at the floor");
}

#[test]
fn the_summary_counts_per_property_and_tool() {
    let summary = report().summary();
    let names: Vec<&str> = summary.iter().map(|s| s.property.as_str()).collect();
    assert_eq!(names, ["props/p1.vnnlib", "props/p2.vnnlib", "total"]);
    let knn_p2 = &summary[1].tallies[0];
    assert_eq!((knn_p2.unknown, knn_p2.errors, knn_p2.missing), (1, 1, 0));
    assert!((knn_p2.seconds - 116.001).abs() < 1e-9);
    let other_p2 = &summary[1].tallies[1];
    assert_eq!((other_p2.holds, other_p2.missing, other_p2.seconds), (1, 1, 3.0));
    let other_total = &summary[2].tallies[1];
    assert_eq!((other_total.holds, other_total.violated, other_total.unknown), (1, 2, 0), "e is left out");
}

#[test]
fn tool_names_must_be_distinct_and_instances_once_per_file() {
    let knn = || parse_results(KNN_CSV, "knn.csv").unwrap();
    let other = || parse_results(OTHER_CSV, "other.csv").unwrap();
    let taken = BenchmarkReport::new(knn(), vec![("knn".into(), other())]).unwrap_err();
    assert!(taken.message.contains("`knn` is taken"), "{}", taken.message);
    let twice = BenchmarkReport::new(knn(), vec![("x".into(), other()), ("x".into(), other())]).unwrap_err();
    assert!(twice.message.contains("`x` is taken"), "{}", twice.message);
    let doubled = parse_results("a.onnx,p1.vnnlib,0,sat,1\nsub/a.onnx,p1.vnnlib,0,unsat,1\n", "d.csv").unwrap();
    let error = BenchmarkReport::new(knn(), vec![("d".into(), doubled)]).unwrap_err();
    assert!(
        error.message.starts_with("d.csv:2: the instance sub/a.onnx,p1.vnnlib is also on line 1"),
        "{}",
        error.message
    );
    assert_eq!(parse_compare("nnenum=r/x=y.csv").unwrap(), ("nnenum".to_string(), PathBuf::from("r/x=y.csv")));
    assert!(parse_compare("nnenum").is_err());
    assert!(parse_compare("=x.csv").is_err());
}

#[test]
fn the_page_escapes_what_comes_from_files_and_fetches_nothing() {
    let knn = parse_results(
        "network,property,answer,seconds\n<script>alert(1)</script>.nnet,p&q\u{1b}.vnnlib,holds,1\n",
        "k.csv",
    )
    .unwrap();
    let other = parse_results("x,\"<u>.onnx,p&q\u{1b}.vnnlib,0,sat,1\n", "o.csv").unwrap();
    let report = BenchmarkReport::new(knn, vec![("<i>tool</i>".into(), other)]).unwrap();
    let html = report.html().unwrap();
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<i>tool"), "the tool's name is text");
    assert!(html.contains("&lt;i&gt;tool&lt;/i&gt;"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;.nnet"));
    assert!(html.contains("p&amp;q\\u{1b}.vnnlib"));
    assert!(!html.contains('\u{1b}'), "control characters are shown, not written");
    for fetch in ["src=", "href=", "@import", "url("] {
        assert!(!html.contains(fetch), "the page fetches nothing: {fetch}");
    }
}

#[test]
fn the_page_is_written_atomically_and_kept_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("new/folder");
    let page = write_report(&report(), &out, false).unwrap();
    assert_eq!(page, out.join(PAGE));
    let first = std::fs::read_to_string(&page).unwrap();
    assert!(first.starts_with("<!DOCTYPE html>"));
    let kept = write_report(&report(), &out, false).unwrap_err();
    assert!(kept.message.contains("--force"), "{}", kept.message);
    write_report(&report(), &out, true).unwrap();
    let names: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, [std::ffi::OsString::from(PAGE)], "no temporary file is left");
}
