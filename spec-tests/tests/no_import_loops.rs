//! No import loops in the workspace's crates: module A never uses B while B (directly or
//! through others) uses A.
//!
//! The check reads every `.rs` file under `semantics/src`, `interpreter/src`, `spec-tests/src`
//! and `differential/src` with `syn`, builds each crate's module tree from its `mod`
//! declarations (`#[path]` included) and the graph of which file uses which:
//!
//! * a node is a file; `mod.rs` and `lib.rs` are their directory's module; an inline module
//!   (`mod tests { … }`) belongs to its file, so a `#[cfg(test)] mod tests` that does
//!   `use super::*` uses its own file: no edge;
//! * an edge comes from a `use` (`crate::…`, `super::…`, `self::…`, a child module, an
//!   imported module) or a path in the code (`crate::run::summary(…)`,
//!   `x86::matmul_avx2(…)`, paths inside macro calls included), resolved to the file that
//!   *defines* the item: a use of a parent module's item defined in the parent's own file is
//!   an edge to that file, one of an item the parent re-exports from a child an edge to the
//!   child;
//! * a re-export (`pub use child::Item`) is not an edge of its own, since it only names the
//!   item for others, unless the file's own code uses the name too;
//! * a module is made of its children: its uses of them (`x86::matmul_avx2(…)` in
//!   `kernels/mod.rs`) are no edge, so children may use what their parent defines (the parent
//!   dispatching to kernels that take its `Precision`);
//! * test code (`#[cfg(test)]` modules, inline or in files like `kernels/tests.rs`, and
//!   `#[cfg(test)]` items) is a client of the crate like an integration test: it may use any
//!   module, and its uses are no edges (the parser's tests print, the printer's tests parse).
//!
//! Loops are looked for at every level of the module tree: among the subtrees of one module
//! (each child module with everything below it, beside the module's own file), so that
//! `inputs.rs → engine/mod.rs` with `engine/contract.rs → inputs.rs` is a loop between
//! `inputs.rs` and `engine/` although no two files use each other. A loop between files is
//! found at the level of the module holding them all.
//!
//! Every `.rs` file must belong to a module tree, so that none is left out unread.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::Visit;

/// The crates checked, by directory.
const CRATES: &[&str] = &["semantics", "interpreter", "spec-tests", "differential"];

/// Loops known and being removed elsewhere, each the set of nodes of a loop (files, or
/// subtrees written as their directory with a trailing `/`). An entry that no longer matches
/// a loop fails the test, so that it is deleted with the loop.
const KNOWN_LOOPS: &[&[&str]] = &[];

#[test]
fn no_module_imports_itself_through_others() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace");
    let mut loops = Vec::new();
    for krate in CRATES {
        let src = workspace.join(krate).join("src");
        let files = rust_files(&src);
        assert!(!files.is_empty(), "{}: no sources", src.display());
        let read = |rel: &str| std::fs::read_to_string(src.join(rel)).ok();
        let graph = Graph::build(&format!("{krate}/src/"), &files, read).unwrap_or_else(|e| panic!("{e}"));
        loops.extend(graph.loops());
    }
    let mut unexpected = String::new();
    for found in &loops {
        if !KNOWN_LOOPS.iter().any(|known| known.iter().copied().eq(found.nodes.iter().map(String::as_str))) {
            unexpected.push_str(&found.describe());
        }
    }
    for known in KNOWN_LOOPS {
        let seen = loops.iter().any(|found| known.iter().copied().eq(found.nodes.iter().map(String::as_str)));
        assert!(seen, "the known loop {known:?} is gone: delete it from KNOWN_LOOPS");
    }
    assert!(unexpected.is_empty(), "import loops:\n{unexpected}");
}

/// The check finds what it should, on small crates written here.
mod self_tests {
    use super::*;

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
}

/// Every `.rs` file under `dir`, relative to it, with `/` separators.
fn rust_files(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(dir).expect("under dir");
                files.push(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"));
            }
        }
    }
    files.sort();
    files
}

/// A `use` declaration, flattened: `use a::{b, c as d, e::*}` is three.
#[derive(Debug)]
struct Use {
    path: Vec<String>,
    /// The name it binds; `None` for a glob.
    name: Option<String>,
    public: bool,
    text: String,
}

/// A module: a file's top module or an inline module in it.
#[derive(Debug, Default)]
struct Module {
    file: usize,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    /// Names of the items defined here.
    items: BTreeSet<String>,
    uses: Vec<Use>,
    /// Paths of the code (not of `use`s) that may name a module of the crate.
    paths: Vec<Vec<String>>,
    /// Where its child file modules are.
    dir: String,
    /// Compiled for tests only (`#[cfg(test)]`, or inside such a module).
    test: bool,
}

/// What a name stands for: a module, or an item defined in a file.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    Module(usize),
    Item(usize),
}

#[derive(Debug)]
struct Graph {
    /// Files as named in reports: `semantics/src/engine/mod.rs`.
    files: Vec<String>,
    /// Each file's top module.
    top: Vec<usize>,
    modules: Vec<Module>,
    /// Each file's identifiers outside `use` declarations.
    mentions: Vec<BTreeSet<String>>,
    /// `(from, to)` file edges, with the path that makes each.
    edges: BTreeMap<(usize, usize), String>,
}

/// A loop at one level of the module tree: its nodes (sorted) and one cycle through them.
#[derive(Debug)]
struct Loop {
    nodes: Vec<String>,
    /// `(node, the use that leads to the next node)`, the last leading back to the first.
    cycle: Vec<(String, String)>,
}

impl Loop {
    fn describe(&self) -> String {
        let mut text = format!("  loop between {}:\n", self.nodes.join(", "));
        for (node, via) in &self.cycle {
            let _ = writeln!(text, "    {node}  uses the next by  {via}");
        }
        text
    }
}

impl Graph {
    /// Reads a crate whose sources are `files` (relative to its `src/`, read by `read`), its
    /// root `lib.rs` or `main.rs` (both when there are both). `prefix` is put before file
    /// names in reports.
    fn build(prefix: &str, files: &[String], read: impl Fn(&str) -> Option<String>) -> Result<Graph, String> {
        let mut graph = Graph {
            files: Vec::new(),
            top: Vec::new(),
            modules: Vec::new(),
            mentions: Vec::new(),
            edges: BTreeMap::new(),
        };
        let mut seen = BTreeSet::new();
        for root in ["lib.rs", "main.rs"] {
            if files.iter().any(|f| f == root) {
                graph.read_file(prefix, root, "", None, None, false, &read, &mut seen)?;
            }
        }
        let stray: Vec<&String> = files.iter().filter(|f| !seen.contains(*f)).collect();
        if !stray.is_empty() {
            return Err(format!("{prefix}: files in no module tree (not checked): {stray:?}"));
        }
        graph.resolve_edges();
        Ok(graph)
    }

    /// Reads the file `rel` as a module named `name` under `parent`, and its file children.
    #[allow(clippy::too_many_arguments)]
    fn read_file(
        &mut self,
        prefix: &str,
        rel: &str,
        child_dir: &str,
        parent: Option<usize>,
        name: Option<&str>,
        test: bool,
        read: &impl Fn(&str) -> Option<String>,
        seen: &mut BTreeSet<String>,
    ) -> Result<usize, String> {
        let text = read(rel).ok_or_else(|| format!("{prefix}{rel}: cannot read (a `mod` without its file?)"))?;
        let ast = syn::parse_file(&text).map_err(|e| format!("{prefix}{rel}: {e}"))?;
        seen.insert(rel.to_string());
        let file = self.files.len();
        self.files.push(format!("{prefix}{rel}"));
        self.mentions.push(BTreeSet::new());
        let module = self.new_module(file, parent, name, child_dir, test);
        self.top.push(module);
        self.read_items(prefix, rel, module, &ast.items, read, seen)?;
        Ok(module)
    }

    fn new_module(&mut self, file: usize, parent: Option<usize>, name: Option<&str>, dir: &str, test: bool) -> usize {
        let index = self.modules.len();
        let test = test || parent.is_some_and(|p| self.modules[p].test);
        self.modules.push(Module { file, parent, dir: dir.to_string(), test, ..Module::default() });
        if let (Some(parent), Some(name)) = (parent, name) {
            self.modules[parent].children.insert(name.to_string(), index);
        }
        index
    }

    fn read_items(
        &mut self,
        prefix: &str,
        rel: &str,
        module: usize,
        items: &[syn::Item],
        read: &impl Fn(&str) -> Option<String>,
        seen: &mut BTreeSet<String>,
    ) -> Result<(), String> {
        let file = self.modules[module].file;
        for item in items {
            if let Some(name) = item_name(item) {
                self.modules[module].items.insert(name);
            }
            match item {
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let dir = format!("{}{name}/", self.modules[module].dir);
                    match &m.content {
                        Some((_, inner)) => {
                            let child = self.new_module(file, Some(module), Some(&name), &dir, is_test(&m.attrs));
                            self.read_items(prefix, rel, child, inner, read, seen)?;
                        }
                        None => {
                            let base = self.modules[module].dir.clone();
                            let candidates = match path_attribute(&m.attrs) {
                                // `#[path]` is relative to the directory of the file declaring it.
                                Some(path) => vec![format!("{}{path}", parent_dir(rel))],
                                None => vec![format!("{base}{name}.rs"), format!("{base}{name}/mod.rs")],
                            };
                            let found = candidates.iter().find(|c| read(c).is_some()).ok_or_else(|| {
                                format!("{prefix}{rel}: no file for `mod {name}` (looked for {candidates:?})")
                            })?;
                            let child_dir = if found.ends_with("/mod.rs") {
                                parent_dir(found).to_string()
                            } else {
                                format!("{}/", found.trim_end_matches(".rs"))
                            };
                            let test = is_test(&m.attrs);
                            self.read_file(prefix, found, &child_dir, Some(module), Some(&name), test, read, seen)?;
                        }
                    }
                }
                // Test code is read for its names only (the module's documentation says why).
                _ if is_test(item_attrs(item)) => {}
                syn::Item::Use(u) => {
                    let public = !matches!(u.vis, syn::Visibility::Inherited);
                    let text = format!("use {}", tree_text(&u.tree));
                    flatten_use(&u.tree, &mut Vec::new(), public, &text, &mut self.modules[module].uses);
                }
                syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                    // A macro's body is resolved where it is called, not here.
                }
                other => {
                    let mut collector = Collector::default();
                    collector.visit_item(other);
                    self.modules[module].paths.extend(collector.paths);
                    // A `use` inside a function: as if at the module's top (the names it binds
                    // are the function's only, but a wider scope finds no fewer edges).
                    self.modules[module].uses.extend(collector.uses);
                    self.mentions[file].extend(collector.mentions);
                }
            }
        }
        Ok(())
    }

    /// Adds an edge for every `use` and path of every module.
    fn resolve_edges(&mut self) {
        for module in (0..self.modules.len()).filter(|&m| !self.modules[m].test) {
            let from = self.modules[module].file;
            let mut found = Vec::new();
            for u in &self.modules[module].uses {
                let target = self.resolve(module, &u.path, &mut BTreeSet::new());
                match (&u.name, target) {
                    // A module imported by name: the paths through it make the edges.
                    (Some(_), Some(Target::Module(_))) | (_, None) => {}
                    (Some(name), Some(Target::Item(file))) => {
                        if !u.public || self.mentions[from].contains(name) {
                            found.push((file, u.text.clone()));
                        }
                    }
                    (None, Some(Target::Module(m))) => {
                        if !u.public {
                            found.push((self.modules[m].file, u.text.clone()));
                        }
                    }
                    // `use crate::errors::ErrorKind::*`: the variants of an item.
                    (None, Some(Target::Item(file))) => {
                        if !u.public {
                            found.push((file, u.text.clone()));
                        }
                    }
                }
            }
            for path in &self.modules[module].paths {
                let first = self.resolve_first(module, &path[0], &mut BTreeSet::new(), false);
                if first.is_none() {
                    continue;
                }
                match self.resolve(module, path, &mut BTreeSet::new()) {
                    Some(Target::Item(file)) => found.push((file, path.join("::"))),
                    Some(Target::Module(m)) => found.push((self.modules[m].file, path.join("::"))),
                    None => {}
                }
            }
            for (to, via) in found {
                // A module is made of its children: using them is no loop, whatever they use
                // of it.
                if !self.in_subtree(to, self.top[from]) {
                    self.edges.entry((from, to)).or_insert_with(|| format!("{}: {via}", self.files[from]));
                }
            }
        }
    }

    /// What `path` names from `module`, or `None` when it is not the crate's (std, another
    /// crate, a local variable).
    fn resolve(&self, module: usize, path: &[String], guard: &mut BTreeSet<(usize, String)>) -> Option<Target> {
        let mut current = self.resolve_first(module, &path[0], guard, true)?;
        for segment in &path[1..] {
            current = match current {
                Target::Item(_) => return Some(current),
                Target::Module(m) => match segment.as_str() {
                    "super" => Target::Module(self.modules[m].parent?),
                    "self" => Target::Module(m),
                    // An item the module does not name (made by a macro, say) is its own.
                    _ => self.lookup(m, segment, guard).unwrap_or(Target::Item(self.modules[m].file)),
                },
            };
        }
        Some(current)
    }

    /// The first segment of a path in `module`. With `any_item`, a name the module defines
    /// counts (a `use` of it); a path in the code that starts with such a name is the
    /// module's own.
    fn resolve_first(
        &self,
        module: usize,
        first: &str,
        guard: &mut BTreeSet<(usize, String)>,
        any_item: bool,
    ) -> Option<Target> {
        match first {
            "crate" => Some(Target::Module(self.root(module))),
            "super" => Some(Target::Module(self.modules[module].parent?)),
            "self" => Some(Target::Module(module)),
            _ => {
                let target = self.lookup(module, first, guard)?;
                (any_item || matches!(target, Target::Module(_)) || self.imports(module, first)).then_some(target)
            }
        }
    }

    fn imports(&self, module: usize, name: &str) -> bool {
        self.modules[module].uses.iter().any(|u| u.name.as_deref() == Some(name))
    }

    fn root(&self, mut module: usize) -> usize {
        while let Some(parent) = self.modules[module].parent {
            module = parent;
        }
        module
    }

    /// What `name` stands for inside `module`: a child module, an item defined there, a name
    /// a `use` binds there, or a name a glob import brings.
    fn lookup(&self, module: usize, name: &str, guard: &mut BTreeSet<(usize, String)>) -> Option<Target> {
        if !guard.insert((module, name.to_string())) {
            return None;
        }
        let m = &self.modules[module];
        if let Some(&child) = m.children.get(name) {
            return Some(Target::Module(child));
        }
        if m.items.contains(name) {
            return Some(Target::Item(m.file));
        }
        for u in &m.uses {
            if u.name.as_deref() == Some(name)
                && let Some(target) = self.resolve(module, &u.path, guard)
            {
                return Some(target);
            }
        }
        for u in m.uses.iter().filter(|u| u.name.is_none()) {
            if let Some(Target::Module(g)) = self.resolve(module, &u.path, guard)
                && let Some(target) = self.lookup(g, name, guard)
            {
                return Some(target);
            }
        }
        None
    }

    /// The loops at every level of the module tree.
    fn loops(&self) -> Vec<Loop> {
        let mut loops = Vec::new();
        for (file, &top) in self.top.iter().enumerate() {
            // The level of a file with file children: its own file, and each child's subtree.
            let children: Vec<usize> = self.file_children(top);
            if children.is_empty() {
                continue;
            }
            let node_of = |f: usize| -> Option<usize> {
                if f == file {
                    return Some(0);
                }
                children.iter().position(|&c| self.in_subtree(f, c)).map(|k| k + 1)
            };
            let names: Vec<String> =
                std::iter::once(self.files[file].clone()).chain(children.iter().map(|&c| self.node_name(c))).collect();
            let mut level: BTreeMap<(usize, usize), &String> = BTreeMap::new();
            for ((from, to), via) in &self.edges {
                if let (Some(a), Some(b)) = (node_of(*from), node_of(*to))
                    && a != b
                {
                    level.entry((a, b)).or_insert(via);
                }
            }
            for component in strongly_connected(names.len(), &level) {
                let cycle = cycle_through(&component, &level);
                let mut nodes: Vec<String> = component.iter().map(|&n| names[n].clone()).collect();
                nodes.sort();
                let cycle = cycle.into_iter().map(|(n, via)| (names[n].clone(), via.clone())).collect();
                loops.push(Loop { nodes, cycle });
            }
        }
        loops
    }

    /// The child modules of the file whose top module is `top` that are files of their own.
    fn file_children(&self, top: usize) -> Vec<usize> {
        let file = self.modules[top].file;
        let mut out = Vec::new();
        let mut stack = vec![top];
        while let Some(m) = stack.pop() {
            for &child in self.modules[m].children.values() {
                if self.modules[child].file == file {
                    stack.push(child);
                } else {
                    out.push(child);
                }
            }
        }
        out.sort();
        out
    }

    /// Whether `file` is the file of `module` or of a module below it.
    fn in_subtree(&self, file: usize, module: usize) -> bool {
        let mut m = Some(self.top[file]);
        while let Some(current) = m {
            if current == module {
                return true;
            }
            m = self.modules[current].parent;
        }
        false
    }

    /// A file module's name at a level: its file, or its directory (`engine/`) when modules
    /// below it are files too.
    fn node_name(&self, module: usize) -> String {
        let file = &self.files[self.modules[module].file];
        if self.file_children(module).is_empty() {
            file.clone()
        } else if let Some(dir) = file.strip_suffix("mod.rs") {
            dir.to_string()
        } else {
            format!("{file} and below")
        }
    }
}

/// The components of more than one node (Tarjan's algorithm, small graphs: recursion is fine).
fn strongly_connected(n: usize, edges: &BTreeMap<(usize, usize), &String>) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<(usize, usize), &'a String>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let successors: Vec<usize> = s.edges.keys().filter(|(a, _)| *a == v).map(|(_, b)| *b).collect();
        for w in successors {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().expect("on the stack");
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// A shortest cycle through the component's first node, with the use along each edge.
fn cycle_through<'a>(component: &[usize], edges: &BTreeMap<(usize, usize), &'a String>) -> Vec<(usize, &'a String)> {
    let start = component[0];
    let inside = |v: &usize| component.contains(v);
    // Breadth first from `start` back to it.
    let mut previous: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    'search: while let Some(v) = queue.pop_front() {
        for &(a, b) in edges.keys() {
            if a == v && inside(&b) {
                if b == start {
                    previous.insert(start, v);
                    break 'search;
                }
                if let std::collections::btree_map::Entry::Vacant(e) = previous.entry(b) {
                    e.insert(v);
                    queue.push_back(b);
                }
            }
        }
    }
    let mut nodes = vec![start];
    let mut v = previous[&start];
    while v != start {
        nodes.push(v);
        v = previous[&v];
    }
    nodes[1..].reverse();
    (0..nodes.len()).map(|k| (nodes[k], edges[&(nodes[k], nodes[(k + 1) % nodes.len()])])).collect()
}

/// Paths and identifiers of an item, macro calls' tokens included.
#[derive(Default)]
struct Collector {
    paths: Vec<Vec<String>>,
    uses: Vec<Use>,
    mentions: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            self.paths.push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_ident(&mut self, ident: &'ast proc_macro2::Ident) {
        self.mentions.insert(ident.to_string());
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        syn::visit::visit_macro(self, mac);
        self.tokens(mac.tokens.clone());
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let text = format!("use {}", tree_text(&u.tree));
        flatten_use(&u.tree, &mut Vec::new(), false, &text, &mut self.uses);
    }
}

impl Collector {
    /// `a::b::c` sequences in macro tokens (not after `$`, not after `::`).
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut k = 0;
        while k < trees.len() {
            match &trees[k] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(ident) => {
                    self.mentions.insert(ident.to_string());
                    let after_dollar_or_colons = k > 0
                        && matches!(&trees[k - 1], TokenTree::Punct(p) if p.as_char() == '$' || p.as_char() == ':');
                    let mut path = vec![ident.to_string()];
                    while let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(next))) =
                        (trees.get(k + 1), trees.get(k + 2), trees.get(k + 3))
                    {
                        if a.as_char() != ':' || a.spacing() != Spacing::Joint || b.as_char() != ':' {
                            break;
                        }
                        path.push(next.to_string());
                        self.mentions.insert(next.to_string());
                        k += 3;
                    }
                    if path.len() > 1 && !after_dollar_or_colons {
                        self.paths.push(path);
                    }
                }
                _ => {}
            }
            k += 1;
        }
    }
}

/// The name an item defines in its module's namespaces, if any.
fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::ExternCrate(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Mod(i) => &i.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        _ => return None,
    };
    Some(ident.to_string())
}

fn flatten_use(tree: &syn::UseTree, prefix: &mut Vec<String>, public: bool, text: &str, out: &mut Vec<Use>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, public, text, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                let name = prefix.last().cloned();
                out.push(Use { path: prefix.clone(), name, public, text: text.to_string() });
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push(Use { path, name: Some(name), public, text: text.to_string() });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            out.push(Use { path, name: Some(r.rename.to_string()), public, text: text.to_string() });
        }
        syn::UseTree::Glob(_) => out.push(Use { path: prefix.clone(), name: None, public, text: text.to_string() }),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                flatten_use(tree, prefix, public, text, out);
            }
        }
    }
}

/// A use tree as written, without spaces: `crate::engine::{Outcome,run}`.
fn tree_text(tree: &syn::UseTree) -> String {
    match tree {
        syn::UseTree::Path(p) => format!("{}::{}", p.ident, tree_text(&p.tree)),
        syn::UseTree::Name(n) => n.ident.to_string(),
        syn::UseTree::Rename(r) => format!("{} as {}", r.ident, r.rename),
        syn::UseTree::Glob(_) => "*".to_string(),
        syn::UseTree::Group(g) => format!("{{{}}}", g.items.iter().map(tree_text).collect::<Vec<_>>().join(", ")),
    }
}

/// `#[cfg(test)]` exactly.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|ident| ident == "test"))
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// `#[path = "…"]`.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(syn::MetaNameValue {
            value: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }),
            ..
        }) => Some(s.value()),
        _ => None,
    })
}

/// `a/b/` of `a/b/c.rs`; `` of `c.rs`.
fn parent_dir(rel: &str) -> &str {
    rel.rfind('/').map_or("", |k| &rel[..=k])
}
