//! What the check reads of Rust sources: the files, their `use` declarations flattened, the
//! paths and names in their code, and the attributes that matter (`#[cfg(test)]`, `#[path]`).

use std::collections::BTreeSet;
use std::path::Path;

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::Visit;

/// Every `.rs` file under `dir`, relative to it, with `/` separators.
pub(crate) fn rust_files(dir: &Path) -> Vec<String> {
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
pub(crate) struct Use {
    pub(crate) path: Vec<String>,
    /// The name it binds; `None` for a glob.
    pub(crate) name: Option<String>,
    pub(crate) public: bool,
    pub(crate) text: String,
}

/// Paths and identifiers of an item, macro calls' tokens included.
#[derive(Default)]
pub(crate) struct Collector {
    pub(crate) paths: Vec<Vec<String>>,
    pub(crate) uses: Vec<Use>,
    pub(crate) mentions: BTreeSet<String>,
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
    pub(crate) fn tokens(&mut self, tokens: TokenStream) {
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
pub(crate) fn item_name(item: &syn::Item) -> Option<String> {
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

pub(crate) fn flatten_use(tree: &syn::UseTree, prefix: &mut Vec<String>, public: bool, text: &str, out: &mut Vec<Use>) {
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
pub(crate) fn tree_text(tree: &syn::UseTree) -> String {
    match tree {
        syn::UseTree::Path(p) => format!("{}::{}", p.ident, tree_text(&p.tree)),
        syn::UseTree::Name(n) => n.ident.to_string(),
        syn::UseTree::Rename(r) => format!("{} as {}", r.ident, r.rename),
        syn::UseTree::Glob(_) => "*".to_string(),
        syn::UseTree::Group(g) => format!("{{{}}}", g.items.iter().map(tree_text).collect::<Vec<_>>().join(", ")),
    }
}

/// `#[cfg(test)]` exactly.
pub(crate) fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|ident| ident == "test"))
}

pub(crate) fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
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
pub(crate) fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(syn::MetaNameValue {
            value: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }),
            ..
        }) => Some(s.value()),
        _ => None,
    })
}

/// `a/b/` of `a/b/c.rs`; `` of `c.rs`.
pub(crate) fn parent_dir(rel: &str) -> &str {
    rel.rfind('/').map_or("", |k| &rel[..=k])
}
