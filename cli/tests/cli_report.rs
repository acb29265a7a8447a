//! The report of a benchmark run (`knn report`, `knn verify --instances … --report DIR`):
//! the page is read as a browser reads it, by an HTML5 parser, and must show a line per tool
//! in the plot and every instance of the run in the table.

mod common;
mod verify_cli_support;

use std::path::Path;

use common::{knn, stderr, temp_file};
use scraper::{ElementRef, Html, Selector};
use verify_cli_support::fixture;

/// knn's results: six instances over two properties, one of each answer (decided: a, b, c, e).
const KNN_CSV: &str = "\
network,property,answer,seconds,proved_share
nets/a.nnet,props/p1.vnnlib,holds,0.500,1.0000
nets/b.nnet,props/p1.vnnlib,violated,0.020,0.0000
nets/c.nnet,props/p1.vnnlib,holds,3.200,1.0000
nets/d.nnet,props/p2.vnnlib,unknown:timeout,10.000,0.4000
nets/e.nnet,props/p2.vnnlib,violated,1.500,0.0000
nets/f.nnet,props/p2.vnnlib,error,0.001,
";

/// Another tool in the VNN-COMP format: c contradicts knn (sat where knn proved it holds); f is
/// missing; g is not in knn's run. Decided among the run's instances: a, c, d.
const OTHER_CSV: &str = "\
bench,./x/onnx/a.onnx,./x/vnnlib/p1.vnnlib,1.1,unsat,1.0
bench,./x/onnx/b.onnx,./x/vnnlib/p1.vnnlib,1.1,timeout,10.0
bench,./x/onnx/c.onnx,./x/vnnlib/p1.vnnlib,1.1,sat,2.0
bench,./x/onnx/d.onnx,./x/vnnlib/p2.vnnlib,1.1,unsat,4.0
bench,./x/onnx/e.onnx,./x/vnnlib/p2.vnnlib,1.1,timeout,10.0
bench,./x/onnx/g.onnx,./x/vnnlib/p2.vnnlib,1.1,unsat,0.5
";

fn select<'a>(page: &'a Html, css: &str) -> Vec<ElementRef<'a>> {
    page.select(&Selector::parse(css).unwrap()).collect()
}

fn text(element: &ElementRef) -> String {
    element.text().collect::<String>().trim().to_string()
}

/// The number of points of each polyline drawn in `colour` in the page's plot.
fn polylines_of(page: &Html, colour: &str) -> Vec<usize> {
    select(page, "figure.cactus svg polyline")
        .iter()
        .filter(|p| p.value().attr("stroke") == Some(colour))
        .map(|p| p.value().attr("points").unwrap_or("").split_whitespace().count())
        .collect()
}

/// Each tool's colour, as the page's list of sources gives it.
fn colours(page: &Html) -> Vec<(String, String)> {
    select(page, "ul.sources li")
        .iter()
        .map(|li| {
            (li.value().attr("data-tool").unwrap().to_string(), li.value().attr("data-colour").unwrap().to_string())
        })
        .collect()
}

/// The table's rows: (network, property, the cells' texts, whether the row is marked).
fn instance_rows(page: &Html) -> Vec<(String, String, Vec<String>, bool)> {
    select(page, "table.instances tbody tr")
        .iter()
        .map(|tr| {
            let cells = tr.select(&Selector::parse("td").unwrap()).map(|td| text(&td)).collect();
            let v = tr.value();
            let marked = v.classes().any(|c| c == "disagree");
            (v.attr("data-network").unwrap().into(), v.attr("data-property").unwrap().into(), cells, marked)
        })
        .collect()
}

fn report(args: &[&str], code: i32) -> String {
    let out = knn(&[&["report"], args].concat(), None);
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
    stderr(&out)
}

#[test]
fn the_page_has_a_line_per_tool_and_every_instance_with_contradictions_marked() {
    let dir = tempfile::tempdir().unwrap();
    let results = temp_file(dir.path(), "results.csv", KNN_CSV.as_bytes());
    let other = temp_file(dir.path(), "other.csv", OTHER_CSV.as_bytes());
    let out = dir.path().join("report");
    let err = report(&[&results, "--compare", &format!("other={other}"), "-o", out.to_str().unwrap()], 0);
    assert!(err.contains("(6 instances, 1 contradicted by another tool)"), "{err}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    let page = Html::parse_document(&html);
    assert!(page.errors.is_empty(), "the page parses without errors: {:?}", page.errors);

    // The plot: a line per tool, as many points as the tool decided instances of the run.
    let colours = colours(&page);
    assert_eq!(colours.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>(), ["knn", "other"]);
    assert_ne!(colours[0].1, colours[1].1);
    for ((tool, colour), decided) in colours.iter().zip([4, 3]) {
        let lines = polylines_of(&page, colour);
        assert!(
            lines.contains(&decided),
            "{tool} ({colour}): polylines of {lines:?} points, expected one of {decided}"
        );
    }

    // The table: every instance in the run's order, knn's answer, seconds and proved share
    // (undecided only), the other tool's answer and seconds.
    let rows = instance_rows(&page);
    let expected = [
        ("nets/a.nnet", "props/p1.vnnlib", ["holds", "0.500", "", "unsat", "1.000"], false),
        ("nets/b.nnet", "props/p1.vnnlib", ["violated", "0.020", "", "timeout", "10.000"], false),
        ("nets/c.nnet", "props/p1.vnnlib", ["holds", "3.200", "", "≠ sat", "2.000"], true),
        ("nets/d.nnet", "props/p2.vnnlib", ["unknown:timeout", "10.000", "40.0%", "unsat", "4.000"], false),
        ("nets/e.nnet", "props/p2.vnnlib", ["violated", "1.500", "", "timeout", "10.000"], false),
        ("nets/f.nnet", "props/p2.vnnlib", ["error", "0.001", "", "not in file", ""], false),
    ];
    assert_eq!(rows.len(), expected.len());
    for (number, (row, (network, property, cells, marked))) in rows.iter().zip(expected).enumerate() {
        assert_eq!((row.0.as_str(), row.1.as_str(), row.3), (network, property, marked), "{row:?}");
        assert_eq!(row.2[..3], [(number + 1).to_string(), network.to_string(), property.to_string()]);
        assert_eq!(row.2[3..], cells, "{row:?}");
    }
    let marked = select(&page, "table.instances td.disagree");
    assert_eq!(marked.len(), 1);

    // The summary: per property and tool, then the total.
    let summary: Vec<Vec<String>> = select(&page, "table.summary tbody tr[data-tool=other]")
        .iter()
        .map(|tr| tr.select(&Selector::parse("td").unwrap()).map(|td| text(&td)).collect())
        .collect();
    // tool, holds, violated, unknown, errors, missing, seconds (the property cell spans knn's row).
    assert_eq!(summary[0], ["other", "1", "1", "1", "0", "0", "13.00"]);
    assert_eq!(summary[1], ["other", "1", "0", "1", "0", "1", "14.00"]);
    assert_eq!(summary[2], ["other", "2", "1", "2", "0", "1", "27.00"]);

    // Self-contained: no script, nothing fetched.
    assert!(select(&page, "script, link, img, iframe, [src], [href]").is_empty());
    assert!(!html.contains("url("));
}

#[test]
fn an_existing_page_is_kept_without_force_and_bad_files_name_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let results = temp_file(dir.path(), "results.csv", KNN_CSV.as_bytes());
    let out = dir.path().join("report");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("index.html"), "precious").unwrap();
    let err = report(&[&results, "-o", out.to_str().unwrap()], 1);
    assert!(err.contains("index.html exists; pass --force"), "{err}");
    assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "precious");
    report(&[&results, "-o", out.to_str().unwrap(), "--force"], 0);
    let page = Html::parse_document(&std::fs::read_to_string(out.join("index.html")).unwrap());
    assert_eq!(instance_rows(&page).len(), 6);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1, "no temporary file is left");

    let bad = temp_file(dir.path(), "bad.csv", b"bench,a.onnx,p.vnnlib,1,maybe,2\n");
    let fresh = dir.path().join("fresh");
    let err = report(&[&results, "--compare", &format!("x={bad}"), "-o", fresh.to_str().unwrap()], 1);
    assert!(err.contains("bad.csv:1: `maybe` is not an answer"), "{err}");
    assert!(!fresh.exists(), "nothing is made when an input is malformed");
    let err = report(&[&results, "--compare", "nameless", "-o", fresh.to_str().unwrap()], 1);
    assert!(err.contains("expected NAME=RESULTS.csv"), "{err}");
    let err = report(&[&results, "--compare", &format!("knn={results}"), "-o", fresh.to_str().unwrap()], 1);
    assert!(err.contains("`knn` is taken"), "{err}");
}

#[test]
fn a_run_of_instances_writes_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let net = fixture("fc_2-2-3.nnet");
    let list = format!("{net},{},10\n{net},{},10\n", fixture("fc_unsat.vnnlib"), fixture("fc_sat.vnnlib"));
    let list = temp_file(dir.path(), "list.csv", list.as_bytes());
    let other = temp_file(
        dir.path(),
        "other.csv",
        b"x,fc_2-2-3.onnx,fc_unsat.vnnlib,0,unsat,0.5\nx,fc_2-2-3.onnx,fc_sat.vnnlib,0,unsat,0.5\n",
    );
    let results = dir.path().join("results.csv");
    let out = dir.path().join("page");
    let args = ["verify", "--instances", &list, "-o", results.to_str().unwrap(), "--report", out.to_str().unwrap()];
    let run = knn(&[&args[..], &["--compare", &format!("other={other}")]].concat(), None);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert!(stderr(&run).contains("(2 instances, 1 contradicted by another tool)"), "{}", stderr(&run));
    let page = Html::parse_document(&std::fs::read_to_string(out.join("index.html")).unwrap());
    let rows = instance_rows(&page);
    let answers: Vec<(&str, bool)> = rows.iter().map(|r| (r.2[3].as_str(), r.3)).collect();
    assert_eq!(answers, [("holds", false), ("violated", true)]);
    assert!(rows.iter().all(|r| r.0 == net));

    // --compare needs --report, which needs --instances; the page is checked before the run.
    let err = stderr(&knn(&["verify", "--instances", &list, "--compare", "x=y.csv"], None));
    assert!(err.contains("--report"), "{err}");
    let other_results = dir.path().join("results2.csv");
    let again = knn(
        &["verify", "--instances", &list, "-o", other_results.to_str().unwrap(), "--report", out.to_str().unwrap()],
        None,
    );
    assert_eq!(again.status.code(), Some(1));
    assert!(stderr(&again).contains("index.html exists"), "{}", stderr(&again));
    assert!(!other_results.exists(), "refused before the run");
}

/// The ACAS Xu run of data/acasxu/results (docs/verification.md shows its page): every one of
/// the 186 instances is a row, and each tool's line has a point per instance it decided.
#[test]
fn the_acas_xu_report_shows_every_instance_and_both_lines() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/acasxu");
    let knn_csv = data.join("results/knn.csv");
    let nnenum_csv = data.join("results/nnenum-vnncomp2022.csv");
    let dir = tempfile::tempdir().unwrap();
    let compare = format!("nnenum={}", nnenum_csv.display());
    report(&[knn_csv.to_str().unwrap(), "--compare", &compare, "-o", dir.path().to_str().unwrap()], 0);
    let page = Html::parse_document(&std::fs::read_to_string(dir.path().join("index.html")).unwrap());

    // Every instance of the list, in its order.
    let list = std::fs::read_to_string(data.join("instances.csv")).unwrap();
    let instances: Vec<(String, String)> =
        list.lines().map(|l| l.split(',').collect::<Vec<_>>()).map(|f| (f[0].to_string(), f[1].to_string())).collect();
    assert_eq!(instances.len(), 186);
    let rows = instance_rows(&page);
    let shown: Vec<(String, String)> = rows.iter().map(|r| (r.0.clone(), r.1.clone())).collect();
    assert_eq!(shown, instances);
    assert!(rows.iter().all(|r| r.2[6] != "not in file"), "nnenum has every instance");

    // The lines: knn's decided count from its CSV, nnenum's from its sat/unsat words.
    let knn_decided = std::fs::read_to_string(&knn_csv)
        .unwrap()
        .lines()
        .filter(|l| matches!(l.split(',').nth(2), Some("holds" | "violated")))
        .count();
    let nnenum_decided = std::fs::read_to_string(&nnenum_csv)
        .unwrap()
        .lines()
        .filter(|l| matches!(l.split(',').nth(4), Some("sat" | "unsat")))
        .count();
    let colours = colours(&page);
    for ((tool, colour), decided) in colours.iter().zip([knn_decided, nnenum_decided]) {
        let lines = polylines_of(&page, colour);
        assert!(lines.contains(&decided), "{tool}: polylines of {lines:?} points, expected one of {decided}");
    }
}
