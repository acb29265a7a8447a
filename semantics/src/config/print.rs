//! The configuration as krun prints it (`--output config`): the cells on their own lines,
//! indented by two spaces per level, one map entry per line in key order, `.Map` for an empty
//! map, and `~> .` after the last item of `<k>`.
//!
//! krun prints a frozen context as a `#freezer…` term whose label depends on K's internal
//! naming; no committed krun output shows one, so frozen contexts print as the term with `□`
//! in the hole (documented in docs/semantics.md).

use std::fmt::Write;

use super::{Config, KItem};
use crate::term::print::{ints_text, write_term};

/// One item of `<k>` in krun syntax.
pub fn kitem_to_string(item: &KItem) -> String {
    let mut out = String::new();
    write_kitem(item, &mut out);
    out
}

fn write_kitem(item: &KItem, out: &mut String) {
    match item {
        KItem::Term(t) => write_term(t, out),
        KItem::Frozen(f) => write_term(&f.context.with_hole(f.span), out),
        KItem::Alloc(ints) => out.push_str(&format!("alloc ( {} )", ints_text(ints))),
        KItem::Fill { header, i, n, rest } => {
            out.push_str(&format!("fill ( {header} , {i} , {n} , {} )", ints_text(rest)));
        }
        KItem::WriteAt(loc) => out.push_str(&format!("writeAt ( {loc} )")),
        KItem::BindTo(x) => out.push_str(&format!("bindTo ( {x} )")),
        KItem::RestoreScope { env, shape } => {
            let env: Vec<String> = env.iter().map(|(x, l)| format!("{x} |-> {l}")).collect();
            let shape: Vec<String> = shape.iter().map(|(k, is)| format!("{} |-> {}", k.0, ints_text(is))).collect();
            out.push_str(&format!("restoreScope ( {} , {} )", map_text(&env), map_text(&shape)));
        }
        KItem::TensorMath(step) => out.push_str(&step.k_text()),
    }
}

/// A map inside a term: its entries separated by spaces, or `.Map`.
fn map_text(entries: &[String]) -> String {
    if entries.is_empty() { ".Map".to_string() } else { entries.join(" ") }
}

/// The `<k>` cell's contents: `a ~> b ~> .`, or `.` when empty.
pub fn k_to_string(config: &Config) -> String {
    let mut out = String::new();
    for item in config.k.iter().rev() {
        write_kitem(item, &mut out);
        out.push_str(" ~> ");
    }
    out.push('.');
    out
}

/// The whole configuration, byte for byte as krun prints it for the authors' tests.
pub fn config_to_string(config: &Config) -> String {
    let mut out = String::from("<T>\n");
    cell(&mut out, "k", std::iter::once(k_to_string(config)));
    cell(&mut out, "env", config.env.iter().map(|(x, loc)| format!("{x} |-> {loc}")));
    cell(&mut out, "store", config.store.iter().map(|(loc, v)| format!("{loc} |-> {v}")));
    cell(&mut out, "nextLoc", std::iter::once(config.store.next_loc().to_string()));
    cell(&mut out, "shape", config.shape.iter().map(|(key, ints)| format!("{} |-> {}", key.0, ints_text(ints))));
    out.push_str("</T>\n");
    out
}

fn cell(out: &mut String, name: &str, lines: impl Iterator<Item = String>) {
    let _ = writeln!(out, "  <{name}>");
    let mut empty = true;
    for line in lines {
        empty = false;
        let _ = writeln!(out, "    {line}");
    }
    if empty {
        out.push_str("    .Map\n");
    }
    let _ = writeln!(out, "  </{name}>");
}
