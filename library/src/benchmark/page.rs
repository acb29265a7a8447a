//! The report's page: one HTML file that needs nothing else (the plot inline as SVG, the style
//! inline, no script), so that it can be mailed, archived or opened offline. Every text that
//! comes from a file (names of networks, properties, tools, answers) is escaped.

use std::fmt::Write;

use super::compare::{BenchmarkReport, InstanceRow, KNN, Tally};
use super::plot::{FLOOR_SECONDS, cactus_svg, tool_colour};
use super::results::{Outcome, ResultRow, ResultsFormat};
use crate::error::KnnError;

const STYLE: &str = "
body { font-family: sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.5em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.15em 0.5em; }
th { background: #f2f2f2; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.holds { color: #1a7f37; } td.violated { color: #b35900; }
td.unknown, td.missing { color: #777; } td.error { color: #c00; }
tr.disagree td { background: #ffe0e0; }
td.disagree { font-weight: bold; color: #c00; }
tr.total td { font-weight: bold; }
ul.sources { list-style: none; padding: 0; }
.swatch { display: inline-block; width: 1.5em; height: 0.3em; vertical-align: middle; margin-right: 0.4em; }
figure { margin: 0; }
";

/// A text from a file, safe in an element or a quoted attribute; control characters are
/// shown as `\u{…}`, as knn's messages show them.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// A tool's name as the plot's legend writes it: control characters shown (plotters escapes
/// the rest).
fn visible(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { format!("\\u{{{:x}}}", c as u32) } else { c.to_string() }).collect()
}

/// The whole page.
pub fn page(report: &BenchmarkReport) -> Result<String, KnnError> {
    let rows = report.rows();
    let svg = cactus_svg(&report.cactus(), rows.len(), visible)?;
    let mut html = String::new();
    html.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(html, "<title>knn benchmark report: {}</title>", escape(&report.knn.name));
    let _ = writeln!(html, "<style>{STYLE}</style>\n</head>\n<body>");
    html.push_str("<h1>Benchmark report</h1>\n");
    sources(&mut html, report);
    html.push_str("<h2 id=\"cactus\">Cactus plot</h2>\n<figure class=\"cactus\">\n");
    html.push_str(&svg);
    let _ = writeln!(
        html,
        "<figcaption>The k-th point of a line is the time of the tool's k-th fastest decided instance (holds or \
         violated) among the {} instances of knn's run; times below {FLOOR_SECONDS} s are drawn at {FLOOR_SECONDS} \
         s.</figcaption>\n</figure>",
        rows.len()
    );
    summary(&mut html, report);
    instances(&mut html, report, &rows);
    html.push_str("</body>\n</html>\n");
    Ok(html)
}

/// Where each tool's results come from, with its colour in the plot.
fn sources(html: &mut String, report: &BenchmarkReport) {
    html.push_str("<ul class=\"sources\">\n");
    let unmatched = report.unmatched();
    let names = report.tool_names();
    for (index, name) in names.iter().enumerate() {
        let results = if index == 0 { &report.knn } else { &report.others[index - 1].results };
        let format = match results.format {
            ResultsFormat::Knn => "knn's results CSV",
            ResultsFormat::VnnComp => "VNN-COMP results format",
        };
        let colour = tool_colour(index);
        let _ = write!(
            html,
            "<li data-tool=\"{0}\" data-colour=\"{colour}\"><span class=\"swatch\" style=\"background:{colour}\"></span>\
             <b>{0}</b>: <code>{1}</code> ({format}, {2} lines",
            escape(name),
            escape(&results.name),
            results.rows.len()
        );
        if index > 0 && unmatched[index - 1] > 0 {
            let _ = write!(html, "; {} of them not in knn's run, left out", unmatched[index - 1]);
        }
        html.push_str(")</li>\n");
    }
    html.push_str("</ul>\n");
    if report.others.iter().any(|t| t.results.format == ResultsFormat::VnnComp) {
        html.push_str(
            "<p>Instances are matched by the file names of the network and the property, without folders and \
             extensions. VNN-COMP's <code>sat</code> is violated, <code>unsat</code> holds; its seconds are \
             <code>run_time</code>, without the preparation.</p>\n",
        );
    }
}

/// One row of `tally`'s counts, or a note for a tool that has none of the property.
fn tally_cells(html: &mut String, tally: &Tally, show_missing: bool) {
    let _ = write!(
        html,
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
        tally.holds, tally.violated, tally.unknown, tally.errors
    );
    if show_missing {
        let _ = write!(html, "<td class=\"num\">{}</td>", tally.missing);
    }
    let _ = write!(html, "<td class=\"num\">{:.2}</td>", tally.seconds);
}

/// The per-property table: a row per property and tool, then the totals.
fn summary(html: &mut String, report: &BenchmarkReport) {
    let names = report.tool_names();
    let show_missing = !report.others.is_empty();
    html.push_str("<h2 id=\"summary\">Per property</h2>\n<table class=\"summary\">\n<thead><tr><th>property</th>");
    html.push_str("<th>tool</th><th>holds</th><th>violated</th><th>unknown</th><th>errors</th>");
    if show_missing {
        html.push_str("<th title=\"instances of knn's run not in the tool's file\">missing</th>");
    }
    html.push_str("<th>seconds</th></tr></thead>\n<tbody>\n");
    let summary = report.summary();
    for (row, property) in summary.iter().enumerate() {
        // The last row is the total over every property.
        let total = if row + 1 == summary.len() { " class=\"total\"" } else { "" };
        for (index, tally) in property.tallies.iter().enumerate() {
            let _ = write!(
                html,
                "<tr{total} data-property=\"{}\" data-tool=\"{}\">",
                escape(&property.property),
                escape(names[index])
            );
            if index == 0 {
                let _ = write!(html, "<td rowspan=\"{}\">{}</td>", names.len(), escape(&property.property));
            }
            let _ = write!(html, "<td>{}</td>", escape(names[index]));
            tally_cells(html, tally, show_missing);
            html.push_str("</tr>\n");
        }
    }
    html.push_str("</tbody>\n</table>\n");
}

/// The CSS class of an answer's cell.
fn outcome_class(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Holds => "holds",
        Outcome::Violated => "violated",
        Outcome::Unknown => "unknown",
        Outcome::Error => "error",
    }
}

/// The proved share of an undecided instance, as a percentage; nothing for the others (a
/// decided instance needs none, an error has none).
fn proved_cell(row: &ResultRow) -> String {
    match (row.outcome, row.proved_share) {
        (Outcome::Unknown, Some(share)) => format!("{:.1}%", 100.0 * share),
        _ => String::new(),
    }
}

/// The table of instances: knn's answer, time and proved share, each other tool's answer and
/// time; a contradiction marked `≠` on the tool's answer, the row coloured.
fn instances(html: &mut String, report: &BenchmarkReport, rows: &[InstanceRow]) {
    let disagreements = rows.iter().filter(|r| r.disagrees()).count();
    html.push_str("<h2 id=\"instances\">Instances</h2>\n");
    let _ = write!(html, "<p class=\"disagreements\" data-count=\"{disagreements}\">{} instances", rows.len());
    if !report.others.is_empty() {
        let _ = write!(
            html,
            "; {disagreements} where another tool contradicts {KNN} (one says holds, the other violated), marked \
             <b>≠</b>"
        );
    }
    html.push_str(".</p>\n<table class=\"instances\">\n<thead><tr><th>#</th><th>network</th><th>property</th>");
    let _ = write!(
        html,
        "<th>{KNN}</th><th>seconds</th><th title=\"share of the region proved, when undecided\">proved</th>"
    );
    for tool in &report.others {
        let _ = write!(html, "<th>{}</th><th>seconds</th>", escape(&tool.name));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for (number, row) in rows.iter().enumerate() {
        let knn = row.knn;
        let class = if row.disagrees() { " class=\"disagree\"" } else { "" };
        let _ = write!(
            html,
            "<tr{class} data-network=\"{0}\" data-property=\"{1}\"><td class=\"num\">{2}</td><td>{0}</td><td>{1}</td>\
             <td class=\"answer {3}\">{4}</td><td class=\"num\">{5:.3}</td><td class=\"num\">{6}</td>",
            escape(&knn.network),
            escape(&knn.property),
            number + 1,
            outcome_class(knn.outcome),
            escape(&knn.answer),
            knn.seconds,
            proved_cell(knn)
        );
        for (index, other) in row.others.iter().enumerate() {
            match other {
                None => html.push_str("<td class=\"answer missing\">not in file</td><td class=\"num\"></td>"),
                Some(other) => {
                    // A contradiction is marked in the cell's class, its title and its text.
                    let (class, title, mark) = if row.contradicts(index) {
                        (" disagree", format!(" title=\"contradicts {KNN}\""), "≠ ")
                    } else {
                        ("", String::new(), "")
                    };
                    let _ = write!(
                        html,
                        "<td class=\"answer {}{class}\"{title}>{mark}{}</td><td class=\"num\">{:.3}</td>",
                        outcome_class(other.outcome),
                        escape(&other.answer),
                        other.seconds
                    );
                }
            }
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table>\n");
}
