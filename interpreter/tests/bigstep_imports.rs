//! The modules of the big-step engine import each other one way: a module that imports another
//! never sits below it, so each file can be read knowing only what it imports (issue 14).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The sibling modules `source` imports at its top level (`use super::x…`,
/// `use crate::bigstep::x…`, `use super::{x…, y…}`); the `use super::*` of a test module is
/// indented, and names the file itself anyway.
fn imported_modules(source: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut imported = BTreeSet::new();
    let mut rest = source;
    while let Some(at) =
        ["\nuse super::", "\nuse crate::bigstep::"].iter().filter_map(|p| rest.find(p).map(|k| (k, p.len()))).min()
    {
        let statement = &rest[at.0 + at.1..];
        let statement = &statement[..statement.find(';').unwrap_or(statement.len())];
        rest = &rest[at.0 + at.1..];
        let items: Vec<&str> = match statement.strip_prefix('{') {
            Some(group) => top_level_items(group.trim_end().trim_end_matches('}')),
            None => vec![statement],
        };
        for item in items {
            let module = item.trim().split("::").next().unwrap_or_default();
            if modules.contains(module) {
                imported.insert(module.to_string());
            }
        }
    }
    imported
}

/// The items of a `{…}` group, split at its own commas (not those of nested groups).
fn top_level_items(group: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0, 0);
    for (k, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    items
}

/// The modules of `imports` that lie on a cycle, if any (depth-first search).
fn a_cycle(imports: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        imports: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| m == module) {
            let mut cycle = path[start..].to_vec();
            cycle.push(module.to_string());
            return Some(cycle);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_string());
        for next in &imports[module] {
            if let Some(cycle) = visit(next, imports, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(module.to_string());
        None
    }
    let mut done = BTreeSet::new();
    imports.keys().find_map(|module| visit(module, imports, &mut Vec::new(), &mut done))
}

#[test]
fn bigstep_modules_import_each_other_one_way() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bigstep");
    let mut sources = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("interpreter/src/bigstep is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "rs") && path.file_stem().is_some_and(|s| s != "mod") {
            let module = path.file_stem().unwrap().to_string_lossy().into_owned();
            sources.insert(module, std::fs::read_to_string(&path).expect("a readable source file"));
        }
    }
    assert!(sources.len() >= 5, "the modules of bigstep/ were not found in {}", dir.display());
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    let imports: BTreeMap<String, BTreeSet<String>> = sources
        .iter()
        .map(|(module, source)| {
            let mut imported = imported_modules(source, &modules);
            imported.remove(module);
            (module.clone(), imported)
        })
        .collect();
    assert_eq!(a_cycle(&imports), None, "modules of bigstep/ that import each other in a loop");
}

#[test]
fn an_import_loop_is_found() {
    let modules: BTreeSet<String> = ["plan", "layout", "ops"].map(String::from).into();
    let plan = imported_modules("//! A plan.\n\nuse super::layout::{Layout, layout};\nuse super::ops::Op;\n", &modules);
    let layout =
        imported_modules("//! A layout.\nuse super::{\n    ops::{BufId, Op},\n    plan::Leaf,\n};\n", &modules);
    assert_eq!(plan, ["layout", "ops"].map(String::from).into());
    assert_eq!(layout, ["ops", "plan"].map(String::from).into());
    let imports = BTreeMap::from([
        ("layout".to_string(), layout),
        ("ops".to_string(), BTreeSet::new()),
        ("plan".to_string(), plan),
    ]);
    let cycle = a_cycle(&imports).expect("plan and layout import each other");
    assert!(cycle.contains(&"plan".to_string()) && cycle.contains(&"layout".to_string()), "{cycle:?}");
}
