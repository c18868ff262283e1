//! Built copies of TypeScript sources kept beside them: a published package often holds
//! `src/v4/core/api.ts` and, compiled from it, `v4/core/api.js`, `api.cjs`, `api.d.ts` and
//! `api.d.cts`. Each copy says every word and defines every name its source does, so it
//! splits the source's definitions five ways and takes its place in the budget. A copy is a
//! JavaScript or declaration file whose module path — leading build or source folders and
//! every extension stripped — is that of a TypeScript source in the repository.

use crate::scan::FileEntry;
use std::collections::HashSet;

/// Leading folders a build or a source tree puts its modules under.
const ROOTS: &[&str] = &[
    "src", "lib", "dist", "build", "out", "esm", "cjs", "es", "umd",
];

/// The module path of a JavaScript-family file (`src/v4/core/api.ts` and `v4/core/api.d.cts`
/// both give `v4/core/api`), or `None` for a file of another language.
fn module_key(path: &str) -> Option<String> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let (stem, ext) = name.split_once('.')?;
    let last = ext.rsplit('.').next().unwrap_or(ext);
    if !matches!(
        last,
        "js" | "cjs" | "mjs" | "ts" | "tsx" | "mts" | "cts" | "jsx"
    ) {
        return None;
    }
    let mut segs: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    while segs.first().is_some_and(|s| ROOTS.contains(s)) {
        segs.remove(0);
    }
    segs.push(stem);
    Some(segs.join("/"))
}

/// Whether `path` is a TypeScript source (not a declaration file).
fn is_ts_source(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ts = [".ts", ".tsx", ".mts", ".cts"]
        .iter()
        .any(|e| name.ends_with(e));
    ts && ![".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|e| name.ends_with(e))
}

/// Per file, whether it is a built copy of a TypeScript source the repository holds.
pub(crate) fn built_copies(files: &[FileEntry]) -> Vec<bool> {
    let sources: HashSet<String> = files
        .iter()
        .filter(|f| is_ts_source(&f.path))
        .filter_map(|f| module_key(&f.path))
        .collect();
    if sources.is_empty() {
        return vec![false; files.len()];
    }
    files
        .iter()
        .map(|f| {
            !is_ts_source(&f.path) && module_key(&f.path).is_some_and(|k| sources.contains(&k))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_keys_strip_build_folders_and_every_extension() {
        assert_eq!(
            module_key("src/v4/core/api.ts").as_deref(),
            Some("v4/core/api")
        );
        assert_eq!(
            module_key("v4/core/api.d.cts").as_deref(),
            Some("v4/core/api")
        );
        assert_eq!(module_key("dist/esm/index.mjs").as_deref(), Some("index"));
        assert_eq!(module_key("src/api.rs"), None);
        assert_eq!(module_key("Makefile"), None);
    }

    #[test]
    fn only_copies_of_a_typescript_source_are_copies() {
        assert!(is_ts_source("src/a.ts") && is_ts_source("src/b.tsx"));
        assert!(!is_ts_source("a.d.ts") && !is_ts_source("a.js"));
    }
}
