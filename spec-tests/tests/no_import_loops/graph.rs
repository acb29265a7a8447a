//! Each crate's module tree and the graph of which file uses which (its edges resolved in
//! `resolve.rs`); the loops at every level of the tree.

use std::collections::{BTreeMap, BTreeSet};

use syn::visit::Visit;

use crate::cycles::{Loop, cycle_through, strongly_connected};
use crate::syntax::{
    Collector, Use, flatten_use, is_test, item_attrs, item_name, parent_dir, path_attribute, tree_text,
};

/// A module: a file's top module or an inline module in it.
#[derive(Debug, Default)]
pub(crate) struct Module {
    pub(crate) file: usize,
    pub(crate) parent: Option<usize>,
    pub(crate) children: BTreeMap<String, usize>,
    /// Names of the items defined here.
    pub(crate) items: BTreeSet<String>,
    pub(crate) uses: Vec<Use>,
    /// Paths of the code (not of `use`s) that may name a module of the crate.
    pub(crate) paths: Vec<Vec<String>>,
    /// Where its child file modules are.
    pub(crate) dir: String,
    /// Compiled for tests only (`#[cfg(test)]`, or inside such a module).
    pub(crate) test: bool,
}

/// What a name stands for: a module, or an item defined in a file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Target {
    Module(usize),
    Item(usize),
}

#[derive(Debug)]
pub(crate) struct Graph {
    /// Files as named in reports: `semantics/src/engine/mod.rs`.
    pub(crate) files: Vec<String>,
    /// Each file's top module.
    pub(crate) top: Vec<usize>,
    pub(crate) modules: Vec<Module>,
    /// Each file's identifiers outside `use` declarations.
    pub(crate) mentions: Vec<BTreeSet<String>>,
    /// `(from, to)` file edges, with the path that makes each.
    pub(crate) edges: BTreeMap<(usize, usize), String>,
}

impl Graph {
    /// Reads a crate whose sources are `files` (relative to its `src/`, read by `read`), its
    /// root `lib.rs` or `main.rs` (both when there are both). `prefix` is put before file
    /// names in reports.
    pub(crate) fn build(
        prefix: &str,
        files: &[String],
        read: impl Fn(&str) -> Option<String>,
    ) -> Result<Graph, String> {
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
    pub(crate) fn read_file(
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

    pub(crate) fn new_module(
        &mut self,
        file: usize,
        parent: Option<usize>,
        name: Option<&str>,
        dir: &str,
        test: bool,
    ) -> usize {
        let index = self.modules.len();
        let test = test || parent.is_some_and(|p| self.modules[p].test);
        self.modules.push(Module { file, parent, dir: dir.to_string(), test, ..Module::default() });
        if let (Some(parent), Some(name)) = (parent, name) {
            self.modules[parent].children.insert(name.to_string(), index);
        }
        index
    }

    pub(crate) fn read_items(
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

    /// The loops at every level of the module tree.
    pub(crate) fn loops(&self) -> Vec<Loop> {
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
    pub(crate) fn file_children(&self, top: usize) -> Vec<usize> {
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
    pub(crate) fn in_subtree(&self, file: usize, module: usize) -> bool {
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
    pub(crate) fn node_name(&self, module: usize) -> String {
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
