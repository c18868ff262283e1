//! Walking a repository: gitignore-aware, never leaving the root, binaries skipped, outlines
//! parsed in parallel and cached on disk.

use crate::cache::{content_hash, OutlineCache};
use crate::error::{Error, Result};
use crate::lang::Lang;
use crate::outline::{outline, Outline};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Options for [`RepoMap::open_with`].
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Directory of the outline cache; `None` disables it. Default: `<root>/.navigator-cache`.
    pub cache_dir: Option<PathBuf>,
    /// Files larger than this are listed but never read (path only).
    pub max_read_bytes: u64,
    /// Files larger than this are read but not outlined (parsing giant generated files costs
    /// more than their outline is worth).
    pub max_outline_bytes: u64,
}

impl ScanOptions {
    /// The defaults for a repository root: cache in `<root>/.navigator-cache`, 16 MiB read cap,
    /// 1 MiB outline cap.
    pub fn for_root(root: &Path) -> Self {
        ScanOptions {
            cache_dir: Some(root.join(".navigator-cache")),
            max_read_bytes: 16 * 1024 * 1024,
            max_outline_bytes: 1024 * 1024,
        }
    }
}

/// What a file holds, as far as the map cares.
#[derive(Debug, Clone)]
pub enum Content {
    /// UTF-8 text, with its outline when the language has a grammar and tree-sitter parsed it.
    Text {
        /// The text.
        text: String,
        /// The outline, when available.
        outline: Option<Outline>,
    },
    /// Not valid UTF-8 (shown as a path only).
    NonUtf8,
    /// Larger than [`ScanOptions::max_read_bytes`] (shown as a path only).
    TooLarge,
}

/// One file of the repository.
#[derive(Debug, Clone)]
pub struct FileEntry {
    /// Path relative to the root, `/`-separated.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// The outline language, when the extension has a grammar.
    pub lang: Option<Lang>,
    /// What the file holds.
    pub content: Content,
}

impl FileEntry {
    /// The text, when the file is readable UTF-8.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            Content::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The outline, when one was parsed.
    pub fn outline(&self) -> Option<&Outline> {
        match &self.content {
            Content::Text { outline, .. } => outline.as_ref(),
            _ => None,
        }
    }
}

/// A scanned repository: its files, sorted by path, with outlines.
#[derive(Debug, Clone)]
pub struct RepoMap {
    root: PathBuf,
    files: Vec<FileEntry>,
    skipped: Vec<(String, String)>,
}

enum Walked {
    File(PathBuf, String),
    Skip(String, String),
}

impl RepoMap {
    /// Scans `root` with default options.
    ///
    /// ```no_run
    /// let map = navigator_context::RepoMap::open(".")?;
    /// println!("{} files", map.files().len());
    /// # Ok::<(), navigator_context::Error>(())
    /// ```
    pub fn open(root: impl AsRef<Path>) -> Result<RepoMap> {
        let root = root.as_ref();
        RepoMap::open_with(root, &ScanOptions::for_root(root))
    }

    /// Scans `root`: honours `.gitignore` (inside or outside a git repository), skips hidden
    /// files, binaries and symlinks that point outside the root, never follows directory links.
    pub fn open_with(root: impl AsRef<Path>, options: &ScanOptions) -> Result<RepoMap> {
        let root = root.as_ref();
        let canon = root
            .canonicalize()
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| Error::NotARepository {
                path: root.to_path_buf(),
            })?;
        let walked = walk(&canon);
        let cache = OutlineCache::new(options.cache_dir.clone());
        let mut skipped = Vec::new();
        let paths: Vec<(PathBuf, String)> = walked
            .into_iter()
            .filter_map(|w| match w {
                Walked::File(p, rel) => Some((p, rel)),
                Walked::Skip(rel, why) => {
                    skipped.push((rel, why));
                    None
                }
            })
            .collect();
        let results: Vec<std::result::Result<FileEntry, (String, String)>> = paths
            .par_iter()
            .map(|(abs, rel)| load(abs, rel, options, &cache))
            .collect();
        let mut files = Vec::with_capacity(results.len());
        for r in results {
            match r {
                Ok(f) => files.push(f),
                Err(skip) => skipped.push(skip),
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        skipped.sort();
        Ok(RepoMap {
            root: canon,
            files,
            skipped,
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Files, sorted by path.
    pub fn files(&self) -> &[FileEntry] {
        &self.files
    }

    /// Files left out of the map, with the reason (binary, escaping symlink, unreadable).
    pub fn skipped(&self) -> &[(String, String)] {
        &self.skipped
    }

    /// The file at a repository-relative path.
    pub fn file(&self, path: &str) -> Option<&FileEntry> {
        self.files
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .ok()
            .map(|i| &self.files[i])
    }
}

fn walk(root: &Path) -> Vec<Walked> {
    let mut out = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .follow_links(false)
        .require_git(false)
        .build();
    for entry in walker {
        let Ok(entry) = entry else { continue };
        let Some(ft) = entry.file_type() else {
            continue;
        };
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if ft.is_file() {
            out.push(Walked::File(entry.path().to_path_buf(), rel));
        } else if ft.is_symlink() {
            // A link is kept only when it resolves to a file inside the root.
            match entry.path().canonicalize() {
                Ok(target) if target.starts_with(root) && target.is_file() => {
                    out.push(Walked::File(target, rel))
                }
                Ok(target) if !target.starts_with(root) => out.push(Walked::Skip(
                    rel,
                    "symlink escapes the repository root".into(),
                )),
                Ok(_) => out.push(Walked::Skip(
                    rel,
                    "symlink to a directory (not followed)".into(),
                )),
                Err(e) => out.push(Walked::Skip(rel, format!("broken symlink: {e}"))),
            }
        }
    }
    out
}

fn load(
    abs: &Path,
    rel: &str,
    options: &ScanOptions,
    cache: &OutlineCache,
) -> std::result::Result<FileEntry, (String, String)> {
    let skip = |why: String| (rel.to_string(), why);
    let size = std::fs::metadata(abs)
        .map_err(|e| skip(format!("unreadable: {e}")))?
        .len();
    let lang = Lang::from_path(rel);
    if size > options.max_read_bytes {
        return Ok(FileEntry {
            path: rel.to_string(),
            size,
            lang,
            content: Content::TooLarge,
        });
    }
    let bytes = std::fs::read(abs).map_err(|e| skip(format!("unreadable: {e}")))?;
    // Same test as git: a NUL byte early in the file means binary.
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(skip("binary".into()));
    }
    let content = match String::from_utf8(bytes) {
        Err(_) => Content::NonUtf8,
        Ok(text) => {
            let outline = match lang {
                Some(l) if size <= options.max_outline_bytes => {
                    let hash = content_hash(text.as_bytes());
                    cache.get(&hash, l).or_else(|| {
                        let o = outline(l, &text)?;
                        cache.put(&hash, l, &o);
                        Some(o)
                    })
                }
                _ => None,
            };
            Content::Text { text, outline }
        }
    };
    Ok(FileEntry {
        path: rel.to_string(),
        size,
        lang,
        content,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn honours_gitignore_skips_binaries_and_sorts() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::create_dir_all(r.join("src")).unwrap();
        fs::write(r.join("src/b.rs"), "fn b() {}").unwrap();
        fs::write(r.join("a.py"), "def a(): pass").unwrap();
        fs::write(r.join(".gitignore"), "ignored/\n").unwrap();
        fs::create_dir_all(r.join("ignored")).unwrap();
        fs::write(r.join("ignored/x.rs"), "fn x() {}").unwrap();
        fs::write(r.join("img.bin"), [1u8, 0, 2, 3]).unwrap();
        fs::write(r.join("latin1.txt"), [0xE9u8, b'a']).unwrap();
        let map = RepoMap::open_with(
            r,
            &ScanOptions {
                cache_dir: None,
                ..ScanOptions::for_root(r)
            },
        )
        .unwrap();
        let paths: Vec<_> = map.files().iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["a.py", "latin1.txt", "src/b.rs"]);
        assert!(matches!(
            map.file("latin1.txt").unwrap().content,
            Content::NonUtf8
        ));
        assert_eq!(
            map.file("src/b.rs").unwrap().outline().unwrap().symbols[0].name,
            "b"
        );
        assert_eq!(
            map.skipped(),
            &[("img.bin".to_string(), "binary".to_string())]
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_escaping_the_root_are_skipped() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.rs"), "fn secret() {}").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::write(r.join("in.rs"), "fn inside() {}").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.rs"), r.join("leak.rs")).unwrap();
        std::os::unix::fs::symlink(r.join("in.rs"), r.join("alias.rs")).unwrap();
        let map = RepoMap::open_with(
            r,
            &ScanOptions {
                cache_dir: None,
                ..ScanOptions::for_root(r)
            },
        )
        .unwrap();
        let paths: Vec<_> = map.files().iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["alias.rs", "in.rs"]);
        assert_eq!(map.skipped()[0].0, "leak.rs");
    }

    #[test]
    fn missing_root_is_a_typed_error() {
        let err = RepoMap::open("/definitely/not/here").unwrap_err();
        assert!(matches!(err, Error::NotARepository { .. }), "{err}");
    }

    #[test]
    fn warm_cache_gives_the_same_outlines() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::write(r.join("m.go"), "package m\nfunc A() {}\n").unwrap();
        let opts = ScanOptions::for_root(r);
        let cold = RepoMap::open_with(r, &opts).unwrap();
        assert!(r.join(".navigator-cache").is_dir());
        let warm = RepoMap::open_with(r, &opts).unwrap();
        assert_eq!(cold.files()[0].outline(), warm.files()[0].outline());
        // The cache directory is hidden, so it never shows up in the map itself.
        assert_eq!(warm.files().len(), 1);
    }
}
