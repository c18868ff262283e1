//! Sibling modules that import each other.
//!
//! A crate's modules form a tree; a reference from module `p::a::x` to `p::b::y` is an arrow
//! `a → b` between the children of their deepest common ancestor `p`. Two siblings with arrows
//! both ways mean the data does not flow one way: some item sits at the wrong level and belongs
//! below both (or the direction must be inverted).
//!
//! References are read from the syntax tree: every `use` and every path that starts with
//! `crate`, `super` or `self` (or with a child module's name), with imports and re-exports
//! followed to the module that defines the item (`crate::Error` is `error::Error` when the
//! crate root says `pub use error::Error`). Paths inside macro invocations are not seen, and
//! `#[cfg(test)]` modules are skipped: tests may reach anywhere.

use super::LayoutError;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// A module path inside one crate (`["engine", "query"]`); empty for the crate root.
type ModPath = Vec<String>;

/// Two sibling modules that import each other, with one reference each way as evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// The common parent (`crate` for the root, else `crate::engine`).
    pub parent: String,
    /// One sibling.
    pub a: String,
    /// The other.
    pub b: String,
    /// A reference from `a` (or below it) into `b`: `file: path`.
    pub a_to_b: String,
    /// A reference from `b` (or below it) into `a`.
    pub b_to_a: String,
}

impl std::fmt::Display for Cycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{p}::{a} and {p}::{b} import each other ({} / {})",
            self.a_to_b,
            self.b_to_a,
            p = self.parent,
            a = self.a,
            b = self.b
        )
    }
}

/// Every pair of sibling modules that import each other in the crate whose root file (`lib.rs`
/// or `main.rs`) is `root_file`.
pub fn sibling_cycles(root_file: &Path) -> Result<Vec<Cycle>, LayoutError> {
    let mut krate = Crate::default();
    krate.load(root_file, Vec::new(), true)?;
    krate.resolve_imports();
    Ok(krate.cycles())
}

/// A reference seen in a module: the path as written there.
struct Reference {
    from: ModPath,
    segments: Vec<String>,
    file: PathBuf,
}

/// Per module: a name brought into scope by `use` → a path.
type Imports = BTreeMap<ModPath, BTreeMap<String, Vec<String>>>;

#[derive(Default)]
struct Crate {
    modules: BTreeSet<ModPath>,
    /// Imports as written (before every module is known).
    written: Imports,
    /// Imports as absolute paths inside the crate (imports from other crates are dropped).
    imports: Imports,
    references: Vec<Reference>,
}

impl Crate {
    /// Reads one file's module (and, through `mod x;`, its children).
    fn load(&mut self, file: &Path, module: ModPath, owns_dir: bool) -> Result<(), LayoutError> {
        let text = std::fs::read_to_string(file).map_err(|source| LayoutError::Read {
            path: file.to_path_buf(),
            source,
        })?;
        let ast = syn::parse_file(&text).map_err(|e| LayoutError::Parse {
            path: file.to_path_buf(),
            message: e.to_string(),
        })?;
        // Children of `a/mod.rs` and `lib.rs` live beside them; children of `a.rs` in `a/`.
        let dir = if owns_dir {
            file.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            file.with_extension("")
        };
        self.modules.insert(module.clone());
        let mut collector = Collector {
            stack: vec![module],
            found: Vec::new(),
            imports: Vec::new(),
            external: Vec::new(),
            references: Vec::new(),
        };
        collector.visit_file(&ast);
        self.modules.extend(collector.found);
        for (module, name, path) in collector.imports {
            self.written.entry(module).or_default().insert(name, path);
        }
        for (from, segments) in collector.references {
            self.references.push(Reference {
                from,
                segments,
                file: file.to_path_buf(),
            });
        }
        for (child, path_attr) in collector.external {
            let name = child.last().cloned().unwrap_or_default();
            let (child_file, child_owns_dir) = match path_attr {
                Some(p) => (dir.join(p), false),
                None => {
                    let flat = dir.join(format!("{name}.rs"));
                    if flat.exists() {
                        (flat, false)
                    } else {
                        (dir.join(&name).join("mod.rs"), true)
                    }
                }
            };
            self.load(&child_file, child, child_owns_dir)?;
        }
        Ok(())
    }

    /// Turns the imports as written into absolute paths, once every module is known.
    fn resolve_imports(&mut self) {
        let mut resolved = Imports::new();
        for (module, names) in &self.written {
            for (name, path) in names {
                if let Some(abs) = self.absolute(module, path, &Imports::new()) {
                    resolved
                        .entry(module.clone())
                        .or_default()
                        .insert(name.clone(), abs);
                }
            }
        }
        self.imports = resolved;
    }

    /// The absolute path that `segments`, written in module `from`, stands for; `None` when it
    /// leaves the crate (`std::…`, another crate) or names a local item of `from`.
    fn absolute(
        &self,
        from: &ModPath,
        segments: &[String],
        imports: &Imports,
    ) -> Option<Vec<String>> {
        let (first, rest) = segments.split_first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => from.clone(),
            "super" => from[..from.len().checked_sub(1)?].to_vec(),
            _ => {
                let mut child = from.clone();
                child.push(first.clone());
                if self.modules.contains(&child) {
                    child
                } else {
                    imports.get(from).and_then(|m| m.get(first))?.clone()
                }
            }
        };
        let mut rest = rest;
        while rest.first().map(String::as_str) == Some("super") {
            base.pop()?;
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The module that defines what `path` names, following imports and re-exports.
    fn defining_module(&self, mut path: Vec<String>) -> ModPath {
        // Re-export chains are short; the bound only guards against `use a::b; use b::a;`.
        for _ in 0..16 {
            let mut module: ModPath = Vec::new();
            let mut rest = path.as_slice();
            while let Some((head, tail)) = rest.split_first() {
                let mut next = module.clone();
                next.push(head.clone());
                if !self.modules.contains(&next) {
                    break;
                }
                module = next;
                rest = tail;
            }
            let Some((name, tail)) = rest.split_first() else {
                return module;
            };
            match self.imports.get(&module).and_then(|m| m.get(name)) {
                Some(target) if target.as_slice() != path.as_slice() => {
                    let mut followed = target.clone();
                    followed.extend(tail.iter().cloned());
                    path = followed;
                }
                _ => return module,
            }
        }
        Vec::new()
    }

    fn cycles(&self) -> Vec<Cycle> {
        // (parent, from child, to child) → the first reference seen.
        let mut arrows: BTreeMap<(ModPath, String, String), String> = BTreeMap::new();
        for r in &self.references {
            let Some(abs) = self.absolute(&r.from, &r.segments, &self.imports) else {
                continue;
            };
            let target = self.defining_module(abs);
            let common = r
                .from
                .iter()
                .zip(&target)
                .take_while(|(x, y)| x == y)
                .count();
            // An ancestor or a descendant is not a sibling.
            if common == r.from.len() || common == target.len() {
                continue;
            }
            let key = (
                r.from[..common].to_vec(),
                r.from[common].clone(),
                target[common].clone(),
            );
            arrows
                .entry(key)
                .or_insert_with(|| format!("{}: {}", r.file.display(), r.segments.join("::")));
        }
        let mut cycles = Vec::new();
        for ((parent, a, b), a_to_b) in &arrows {
            if a >= b {
                continue;
            }
            if let Some(b_to_a) = arrows.get(&(parent.clone(), b.clone(), a.clone())) {
                cycles.push(Cycle {
                    parent: std::iter::once("crate")
                        .chain(parent.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join("::"),
                    a: a.clone(),
                    b: b.clone(),
                    a_to_b: a_to_b.clone(),
                    b_to_a: b_to_a.clone(),
                });
            }
        }
        cycles
    }
}

/// Walks one file's syntax tree, tracking the inline module it is in.
struct Collector {
    stack: Vec<ModPath>,
    /// Modules declared (inline or as files).
    found: Vec<ModPath>,
    /// `use` declarations: (module, name in scope, path as written).
    imports: Vec<(ModPath, String, Vec<String>)>,
    /// `mod x;` declarations with their `#[path]`, to load next.
    external: Vec<(ModPath, Option<String>)>,
    /// (module, path as written).
    references: Vec<(ModPath, Vec<String>)>,
}

impl Collector {
    fn current(&self) -> ModPath {
        self.stack.last().cloned().unwrap_or_default()
    }
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .map(|m| m.path().is_ident("test"))
                .unwrap_or(false)
    })
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Flattens a use tree into (name in scope, full path); a glob keeps the path to its module.
fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut full = prefix.clone();
            if name != "self" {
                full.push(name.clone());
            }
            let scoped = if name == "self" {
                prefix.last().cloned().unwrap_or_default()
            } else {
                name
            };
            out.push((scoped, full));
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.clone();
            if r.ident != "self" {
                full.push(r.ident.to_string());
            }
            out.push((r.rename.to_string(), full));
        }
        syn::UseTree::Glob(_) => out.push((String::new(), prefix.clone())),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten(t, prefix, out);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if is_cfg_test(&m.attrs) {
            return;
        }
        let mut child = self.current();
        child.push(m.ident.to_string());
        self.found.push(child.clone());
        match &m.content {
            Some((_, items)) => {
                self.stack.push(child);
                for item in items {
                    self.visit_item(item);
                }
                self.stack.pop();
            }
            None => self.external.push((child, path_attr(&m.attrs))),
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if is_cfg_test(&u.attrs) {
            return;
        }
        let mut leaves = Vec::new();
        flatten(&u.tree, &mut Vec::new(), &mut leaves);
        let here = self.current();
        for (name, full) in leaves {
            if !name.is_empty() && name != "_" {
                self.imports.push((here.clone(), name, full.clone()));
            }
            self.references.push((here.clone(), full));
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() && p.segments.len() > 1 {
            let segments = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.references.push((self.current(), segments));
        }
        syn::visit::visit_path(self, p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir.join("lib.rs")
    }

    #[test]
    fn finds_a_pair_through_a_root_reexport_and_super() {
        let dir = tempfile::tempdir().unwrap();
        let root = write(
            dir.path(),
            &[
                ("lib.rs", "mod a;\nmod b;\npub use a::Thing;\n"),
                ("a.rs", "pub struct Thing;\nfn f() { crate::b::g(); }\n"),
                ("b.rs", "use crate::Thing;\npub fn g() {}\n"),
            ],
        );
        let cycles = sibling_cycles(&root).unwrap();
        assert_eq!(cycles.len(), 1, "{cycles:?}");
        assert_eq!((cycles[0].a.as_str(), cycles[0].b.as_str()), ("a", "b"));
        assert_eq!(cycles[0].parent, "crate");
    }

    #[test]
    fn finds_a_pair_below_the_root_and_ignores_parents_and_tests() {
        let dir = tempfile::tempdir().unwrap();
        let root = write(
            dir.path(),
            &[
                ("lib.rs", "mod engine;\npub struct Config;\n"),
                (
                    "engine/mod.rs",
                    "mod query;\nmod helper;\nuse crate::Config;\n",
                ),
                (
                    "engine/query.rs",
                    "use super::helper::Job;\npub fn run() {}\n",
                ),
                (
                    "engine/helper.rs",
                    "pub struct Job;\nfn go() { super::query::run() }\n",
                ),
            ],
        );
        let cycles = sibling_cycles(&root).unwrap();
        assert_eq!(cycles.len(), 1, "{cycles:?}");
        assert_eq!(cycles[0].parent, "crate::engine");

        let dir = tempfile::tempdir().unwrap();
        let root = write(
            dir.path(),
            &[
                ("lib.rs", "mod a;\nmod b;\npub struct Root;\n"),
                ("a.rs", "use crate::b::g;\nuse crate::Root;\n"),
                (
                    "b.rs",
                    "pub fn g() {}\n#[cfg(test)]\nmod tests { use crate::a; }\n",
                ),
            ],
        );
        assert_eq!(sibling_cycles(&root).unwrap(), Vec::new());
    }

    #[test]
    fn a_missing_module_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = write(dir.path(), &[("lib.rs", "mod gone;\n")]);
        let err = sibling_cycles(&root).unwrap_err().to_string();
        assert!(err.contains("gone"), "{err}");
    }
}
