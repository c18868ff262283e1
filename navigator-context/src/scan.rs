//! Walking a repository: gitignore-aware, never leaving the root, binaries skipped.
//!
//! Outlines are parsed lazily, on the first look, and cached on disk by content hash: a
//! satellite view that shows only paths or directory counts parses nothing, and the ranking
//! asks for all of them at once through [`RepoMap::outline_all`], which parses in parallel.
//! Token counts of file blocks are memoised per file and level for the same reason: a render
//! is the sum of its blocks, so re-rendering a plan counts only the blocks it has not seen.

use crate::cache::{content_hash, OutlineCache};
use crate::error::{Error, Result};
use crate::flight_plan::Level;
use crate::lang::Lang;
use crate::outline::{outline, Outline};
use crate::tokens::Tokenizer;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

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
    /// UTF-8 text (its outline comes from [`FileEntry::outline`]).
    Text {
        /// The text.
        text: String,
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
    /// Where to parse and cache the outline; `None` when the file gets none (no grammar, not
    /// text, or over the outline cap).
    outliner: Option<Arc<OutlineCache>>,
    outline: OnceLock<Option<Outline>>,
    /// Tokens of this file's block per (tokenizer, level), counted on first use.
    block_tokens: [OnceLock<usize>; 2 * Level::ALL.len()],
}

impl FileEntry {
    /// The text, when the file is readable UTF-8.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            Content::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The outline, when the language has a grammar and tree-sitter parsed the file. Parsed
    /// on the first call (or read from the disk cache), then kept.
    pub fn outline(&self) -> Option<&Outline> {
        self.outline
            .get_or_init(|| {
                let cache = self.outliner.as_ref()?;
                let (lang, text) = (self.lang?, self.text()?);
                let hash = content_hash(text.as_bytes());
                cache.get(&hash, lang).or_else(|| {
                    let o = outline(lang, text)?;
                    cache.put(&hash, lang, &o);
                    Some(o)
                })
            })
            .as_ref()
    }

    /// Tokens of `block` (this file's block at `level`), memoised per tokenizer and level.
    pub(crate) fn block_tokens(
        &self,
        tokenizer: Tokenizer,
        level: Level,
        block: impl FnOnce() -> String,
    ) -> usize {
        let t = Tokenizer::ALL
            .iter()
            .position(|x| *x == tokenizer)
            .unwrap_or(0);
        *self.block_tokens[t * Level::ALL.len() + level as usize]
            .get_or_init(|| tokenizer.count(&block()))
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
        let cache = Arc::new(OutlineCache::new(options.cache_dir.clone()));
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

    /// Parses (or reads from the cache) the outline of every file that has one, in parallel;
    /// later [`FileEntry::outline`] calls are then free.
    pub fn outline_all(&self) {
        self.files.par_iter().for_each(|f| {
            f.outline();
        });
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
    cache: &Arc<OutlineCache>,
) -> std::result::Result<FileEntry, (String, String)> {
    let skip = |why: String| (rel.to_string(), why);
    let size = std::fs::metadata(abs)
        .map_err(|e| skip(format!("unreadable: {e}")))?
        .len();
    let lang = Lang::from_path(rel);
    let entry = |content: Content, outliner: Option<Arc<OutlineCache>>| FileEntry {
        path: rel.to_string(),
        size,
        lang,
        content,
        outliner,
        outline: OnceLock::new(),
        block_tokens: Default::default(),
    };
    if size > options.max_read_bytes {
        return Ok(entry(Content::TooLarge, None));
    }
    let bytes = std::fs::read(abs).map_err(|e| skip(format!("unreadable: {e}")))?;
    // Same test as git: a NUL byte early in the file means binary.
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(skip("binary".into()));
    }
    Ok(match String::from_utf8(bytes) {
        Err(_) => entry(Content::NonUtf8, None),
        Ok(text) => {
            let outlined = lang.is_some() && size <= options.max_outline_bytes;
            entry(Content::Text { text }, outlined.then(|| cache.clone()))
        }
    })
}

/// Bodies beyond this many bytes add little signal and cost time (ranking and the reference
/// graph read the same prefix).
const BODY_BYTES: usize = 64 * 1024;

/// The names of the symbols `f` defines (parsing its outline on first use).
pub(crate) fn symbol_names(f: &FileEntry) -> impl Iterator<Item = &str> {
    f.outline()
        .into_iter()
        .flat_map(|o| o.symbols.iter().map(|s| s.name.as_str()))
}

/// The first [`BODY_BYTES`] of `f`'s text (cut at a character boundary); empty when unreadable.
pub(crate) fn body(f: &FileEntry) -> &str {
    let text = f.text().unwrap_or("");
    let mut end = text.len().min(BODY_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
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
        // Outlines are parsed on first use, so nothing is cached until someone asks.
        assert!(!r.join(".navigator-cache").exists());
        cold.outline_all();
        assert!(r.join(".navigator-cache").is_dir());
        let warm = RepoMap::open_with(r, &opts).unwrap();
        assert_eq!(cold.files()[0].outline(), warm.files()[0].outline());
        // The cache directory is hidden, so it never shows up in the map itself.
        assert_eq!(warm.files().len(), 1);
    }
}
