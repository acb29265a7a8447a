//! The edges of a crate's graph: every `use` and path of a module resolved to the file that
//! defines what it names, through child modules, `use`s and glob imports.

use std::collections::BTreeSet;

use crate::graph::{Graph, Target};

impl Graph {
    /// Adds an edge for every `use` and path of every module.
    pub(crate) fn resolve_edges(&mut self) {
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
    pub(crate) fn resolve(
        &self,
        module: usize,
        path: &[String],
        guard: &mut BTreeSet<(usize, String)>,
    ) -> Option<Target> {
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
    pub(crate) fn resolve_first(
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

    pub(crate) fn imports(&self, module: usize, name: &str) -> bool {
        self.modules[module].uses.iter().any(|u| u.name.as_deref() == Some(name))
    }

    pub(crate) fn root(&self, mut module: usize) -> usize {
        while let Some(parent) = self.modules[module].parent {
            module = parent;
        }
        module
    }

    /// What `name` stands for inside `module`: a child module, an item defined there, a name
    /// a `use` binds there, or a name a glob import brings.
    pub(crate) fn lookup(&self, module: usize, name: &str, guard: &mut BTreeSet<(usize, String)>) -> Option<Target> {
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
}
