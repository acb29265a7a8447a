//! The check finds what it should, on small crates written here.

use std::collections::BTreeMap;

use crate::cycles::Loop;
use crate::graph::Graph;

fn loops_of(files: &[(&str, &str)]) -> Vec<Loop> {
    let sources: BTreeMap<String, String> =
        files.iter().map(|(name, text)| (name.to_string(), text.to_string())).collect();
    let names: Vec<String> = sources.keys().cloned().collect();
    let graph = Graph::build("c/src/", &names, |rel| sources.get(rel).cloned()).unwrap_or_else(|e| panic!("{e}"));
    graph.loops()
}

fn nodes(loops: &[Loop]) -> Vec<Vec<&str>> {
    loops.iter().map(|l| l.nodes.iter().map(String::as_str).collect()).collect()
}

#[test]
fn siblings_using_each_other_are_a_loop() {
    let loops = loops_of(&[
        ("lib.rs", "mod a; mod b;"),
        ("a.rs", "use crate::b::B; pub struct A;"),
        ("b.rs", "pub struct B; fn f() { let _ = super::a::A; }"),
    ]);
    assert_eq!(nodes(&loops), [["c/src/a.rs", "c/src/b.rs"]]);
    let text = loops[0].describe();
    assert!(text.contains("use crate::b::B") && text.contains("super::a::A"), "{text}");
}

#[test]
fn a_loop_through_three_files_and_a_macro_call_is_found() {
    let loops = loops_of(&[
        ("lib.rs", "mod a; mod b; mod c;"),
        ("a.rs", "pub fn a() { crate::b::b() }"),
        ("b.rs", "pub fn b() { println!(\"{}\", crate::c::C) }"),
        ("c.rs", "use super::a; pub const C: u8 = 0; fn g() { a::a() }"),
    ]);
    assert_eq!(nodes(&loops), [["c/src/a.rs", "c/src/b.rs", "c/src/c.rs"]]);
}

#[test]
fn a_file_that_uses_a_directory_that_uses_it_is_a_loop() {
    // inputs ↔ engine before issue 14: no two files use each other.
    let loops = loops_of(&[
        ("lib.rs", "pub mod engine; pub mod inputs;"),
        ("inputs.rs", "use crate::engine::run; pub struct Input;"),
        ("engine/mod.rs", "mod contract; pub use contract::Engine; pub fn run() {}"),
        ("engine/contract.rs", "use crate::inputs::Input; pub trait Engine {}"),
    ]);
    assert_eq!(nodes(&loops), [["c/src/engine/", "c/src/inputs.rs"]]);
}

#[test]
fn re_exports_and_test_modules_are_not_loops() {
    let loops = loops_of(&[
        ("lib.rs", "pub mod k; pub use k::Kernel;"),
        // The parent re-exports its child's item and defines what the child uses; its
        // inline tests use everything of it.
        ("k/mod.rs", "mod x86; pub use x86::Kernel; pub struct Matrix; #[cfg(test)] mod tests { use super::*; }"),
        ("k/x86.rs", "use super::Matrix; pub struct Kernel(Matrix);"),
    ]);
    assert!(loops.is_empty(), "{loops:?}");
}

#[test]
fn a_module_using_its_children_is_no_loop() {
    // The parent defines what its children take and calls them.
    let loops = loops_of(&[
        ("lib.rs", "pub mod k;"),
        ("k/mod.rs", "mod x86; pub struct Matrix; pub fn f(m: &Matrix) { x86::kernel(m) }"),
        ("k/x86.rs", "use super::Matrix; pub fn kernel(_: &Matrix) {}"),
    ]);
    assert!(loops.is_empty(), "{loops:?}");
}

#[test]
fn a_loop_that_leaves_a_module_and_comes_back_is_found() {
    // `a/x.rs` uses `b.rs`, which uses what `a/mod.rs` defines.
    let loops = loops_of(&[
        ("lib.rs", "pub mod a; pub mod b;"),
        ("a/mod.rs", "mod x; pub struct A;"),
        ("a/x.rs", "fn f() { let _ = crate::b::B; }"),
        ("b.rs", "pub struct B(crate::a::A);"),
    ]);
    assert_eq!(nodes(&loops), [["c/src/a/", "c/src/b.rs"]]);
}

#[test]
fn test_code_may_use_any_module() {
    let parser = "use crate::print::P; pub fn parse() -> P { P }";
    let loops = loops_of(&[
        ("lib.rs", "mod parser; mod print;"),
        ("parser.rs", parser),
        ("print.rs", "pub struct P; #[cfg(test)] mod tests { use crate::parser::parse; }"),
    ]);
    assert!(loops.is_empty(), "{loops:?}");
    let loops = loops_of(&[
        ("lib.rs", "mod parser; mod print; #[cfg(test)] mod tests;"),
        ("parser.rs", parser),
        ("print.rs", "pub struct P; #[cfg(test)] fn round_trip() { crate::parser::parse(); }"),
        ("tests.rs", "use crate::parser::parse;"),
    ]);
    assert!(loops.is_empty(), "{loops:?}");
    // The same use outside test code is a loop.
    let loops = loops_of(&[
        ("lib.rs", "mod parser; mod print;"),
        ("parser.rs", parser),
        ("print.rs", "pub struct P; fn round_trip() { crate::parser::parse(); }"),
    ]);
    assert_eq!(nodes(&loops), [["c/src/parser.rs", "c/src/print.rs"]]);
}

#[test]
fn a_use_of_a_re_exported_item_goes_to_the_file_defining_it() {
    // `super::Grammar` is defined in `grammar.rs`, re-exported by `mod.rs`: the lexer and
    // the parser both use `grammar.rs`, not each other.
    let loops = loops_of(&[
        ("lib.rs", "pub mod syntax;"),
        ("syntax/mod.rs", "mod grammar; mod lexer; mod parser; pub use grammar::Grammar;"),
        ("syntax/grammar.rs", "pub enum Grammar { K }"),
        ("syntax/lexer.rs", "use super::Grammar; pub fn lex(_: Grammar) {}"),
        ("syntax/parser.rs", "use super::lexer::lex; use crate::syntax::Grammar; fn p() { lex(Grammar::K) }"),
    ]);
    assert!(loops.is_empty(), "{loops:?}");
}

#[test]
fn path_attributes_and_unreachable_files() {
    let loops = loops_of(&[
        ("lib.rs", "mod d;"),
        ("d.rs", "pub fn f() {} #[cfg(test)] #[path = \"d_tests.rs\"] mod tests;"),
        ("d_tests.rs", "use super::*; fn g() { f() }"),
    ]);
    assert!(loops.is_empty(), "{loops:?}");
    let sources = [("lib.rs", ""), ("stray.rs", "fn f() {}")];
    let names: Vec<String> = sources.iter().map(|(n, _)| n.to_string()).collect();
    let read = |rel: &str| sources.iter().find(|(n, _)| *n == rel).map(|(_, t)| t.to_string());
    let error = Graph::build("c/src/", &names, read).expect_err("stray.rs is in no module tree");
    assert!(error.contains("stray.rs"), "{error}");
}
