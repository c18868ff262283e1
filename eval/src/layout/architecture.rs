//! The dependency arrows of `ARCHITECTURE.md` against the `Cargo.toml` files.
//!
//! `ARCHITECTURE.md` draws the crates for a reader and lists the same arrows in a fenced block
//! tagged `crates`, one crate per line: `navigator-search: navigator-core` (a crate with no
//! arrow ends at the colon). [`differences`] compares that list with the normal and build
//! dependencies `cargo metadata` reports between workspace members (dev-dependencies are
//! test plumbing, not architecture).

use super::{cargo_metadata, LayoutError};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Crate → the workspace crates it depends on.
pub type Arrows = BTreeMap<String, BTreeSet<String>>;

/// Reads the `crates` block of the markdown `text` (from `path`, named in errors).
pub fn documented(path: &Path, text: &str) -> Result<Arrows, LayoutError> {
    let err = |message: String| LayoutError::Architecture {
        path: path.to_path_buf(),
        message,
    };
    let mut lines = text.lines().enumerate();
    lines
        .by_ref()
        .find(|(_, l)| l.trim() == "```crates")
        .ok_or_else(|| err("no ```crates block listing the dependency arrows".into()))?;
    let mut arrows = Arrows::new();
    for (n, line) in lines {
        let line = line.trim();
        if line == "```" {
            return Ok(arrows);
        }
        if line.is_empty() {
            continue;
        }
        let (name, deps) = line
            .split_once(':')
            .ok_or_else(|| err(format!("line {}: `{line}` is not `crate: dep, dep`", n + 1)))?;
        let deps = deps
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(String::from)
            .collect();
        if arrows.insert(name.trim().to_string(), deps).is_some() {
            return Err(err(format!(
                "line {}: `{}` is listed twice",
                n + 1,
                name.trim()
            )));
        }
    }
    Err(err("the ```crates block is not closed".into()))
}

/// The arrows the workspace at `root` declares in its `Cargo.toml` files.
pub fn declared(root: &Path) -> Result<Arrows, LayoutError> {
    let meta = cargo_metadata(root, &["--no-deps"])?;
    let packages = meta["packages"]
        .as_array()
        .ok_or_else(|| LayoutError::Metadata("no packages".into()))?;
    let members: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut arrows = Arrows::new();
    for p in packages {
        let name = p["name"].as_str().unwrap_or_default().to_string();
        let deps = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].as_str() != Some("dev"))
            .filter_map(|d| d["name"].as_str())
            .filter(|d| members.contains(d))
            .map(String::from)
            .collect();
        arrows.insert(name, deps);
    }
    Ok(arrows)
}

/// Every way the two lists differ, as sentences; empty when they agree.
pub fn differences(documented: &Arrows, declared: &Arrows) -> Vec<String> {
    let mut out = Vec::new();
    for name in declared.keys().filter(|n| !documented.contains_key(*n)) {
        out.push(format!("crate {name} is a workspace member but not listed"));
    }
    for name in documented.keys().filter(|n| !declared.contains_key(*n)) {
        out.push(format!(
            "crate {name} is listed but is not a workspace member"
        ));
    }
    for (name, deps) in declared {
        let Some(listed) = documented.get(name) else {
            continue;
        };
        for d in deps.difference(listed) {
            out.push(format!(
                "{name} depends on {d} in Cargo.toml; the list lacks the arrow"
            ));
        }
        for d in listed.difference(deps) {
            out.push(format!(
                "the list says {name} → {d}; Cargo.toml has no such dependency"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrows(pairs: &[(&str, &[&str])]) -> Arrows {
        pairs
            .iter()
            .map(|(n, d)| (n.to_string(), d.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn reads_the_block_and_finds_every_difference() {
        let text = "# A\n\n```crates\nfacade: core, search\nsearch: core\ncore:\n```\n";
        let doc = documented(Path::new("A.md"), text).unwrap();
        assert_eq!(
            doc,
            arrows(&[
                ("facade", &["core", "search"]),
                ("search", &["core"]),
                ("core", &[])
            ])
        );
        assert!(differences(&doc, &doc).is_empty());

        let cargo = arrows(&[
            ("facade", &["core"]),
            ("search", &["core", "x"]),
            ("x", &[]),
        ]);
        let diff = differences(&doc, &cargo);
        assert_eq!(diff.len(), 4, "{diff:?}");
        assert!(diff.iter().any(|d| d.contains("x is a workspace member")));
        assert!(diff.iter().any(|d| d.contains("core is listed")));
        assert!(diff.iter().any(|d| d.contains("search depends on x")));
        assert!(diff.iter().any(|d| d.contains("facade → search")));
    }

    #[test]
    fn a_missing_or_malformed_block_is_an_error_naming_the_file() {
        let e = documented(Path::new("A.md"), "no block").unwrap_err();
        assert!(e.to_string().contains("A.md"), "{e}");
        let e = documented(Path::new("A.md"), "```crates\nfacade core\n```").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = documented(Path::new("A.md"), "```crates\na:\n").unwrap_err();
        assert!(e.to_string().contains("not closed"), "{e}");
    }
}
