//! Walking a repository: gitignore-aware, never leaving the root, binaries skipped.
//!
//! Outlines are parsed lazily, on the first look, and cached on disk by content hash: a
//! satellite view that shows only paths or directory counts parses nothing, and the ranking
//! asks for all of them at once through [`RepoMap::outline_all`], which parses in parallel.
//! Token counts of file blocks are memoised per file and level for the same reason: a render
//! is the sum of its blocks, so re-rendering a plan counts only the blocks it has not seen.

use crate::cache::{content_hash, OutlineCache};
use crate::doc_outline::DocFormat;
use crate::error::{Error, Result};
use crate::flight_plan::Level;
use crate::history::ChangeHistory;
use crate::lang::Lang;
use crate::outline::{outline, Outline};
use crate::tokens::Tokenizer;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Options for [`RepoMap::open_with`].
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Directory of the outline cache; `None` disables it. Default:
    /// [`default_cache_dir`], in the platform's cache directory, never inside the repository.
    pub cache_dir: Option<PathBuf>,
    /// Files larger than this are listed but never read (path only).
    pub max_read_bytes: u64,
    /// Files larger than this are read but not outlined (parsing giant generated files costs
    /// more than their outline is worth).
    pub max_outline_bytes: u64,
    /// Read the last commits of the git repository holding the root (when it is in one) as
    /// a ranking prior: [`ChangeHistory`]. Default `true`; outside git the map simply has no
    /// history.
    pub history: bool,
    /// Files left out of the map (absolute, or relative to the current directory; a link to
    /// one stays): a Flight Plan written into the repository is not part of the code it
    /// describes, and its replay must not count it as an added file. Paths outside the root
    /// or in a directory that does not exist are ignored.
    pub exclude: Vec<PathBuf>,
}

impl ScanOptions {
    /// The defaults for a repository root: outline cache at [`default_cache_dir`], 16 MiB read
    /// cap, 1 MiB outline cap, git history read.
    pub fn for_root(root: &Path) -> Self {
        ScanOptions {
            cache_dir: default_cache_dir(root),
            max_read_bytes: 16 * 1024 * 1024,
            max_outline_bytes: 1024 * 1024,
            history: true,
            exclude: Vec::new(),
        }
    }
}

/// Environment variable that moves the outline cache's base directory.
pub const CACHE_DIR_ENV: &str = "NAVIGATOR_CACHE_DIR";

/// Where the outlines of the repository at `root` are cached: under `$NAVIGATOR_CACHE_DIR`
/// when set, else the platform's cache directory (`~/.cache` on Linux, `~/Library/Caches` on
/// macOS, `%LOCALAPPDATA%` on Windows) in `navigator/outlines/`, one folder per repository
/// named after it and a hash of its canonical path. `None` when the platform has no cache
/// directory (the map then parses without caching). Never inside the repository: a cache
/// there would show up in the user's tree and in `git status`.
///
/// ```no_run
/// // e.g. ~/.cache/navigator/outlines/myproject-3f2a9c0d1e4b5a6c
/// println!("{:?}", navigator_context::default_cache_dir(std::path::Path::new(".")));
/// ```
pub fn default_cache_dir(root: &Path) -> Option<PathBuf> {
    let base = std::env::var_os(CACHE_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::cache_dir().map(|d| d.join("navigator").join("outlines")))?;
    Some(cache_dir_in(&base, root))
}

/// The cache folder of the repository at `root` under `base`: `<name>-<16 hex of the
/// canonical path's hash>`, so two checkouts of one project never share or clobber entries
/// by accident (entries are keyed by content hash, so sharing would be safe, only untidy).
pub(crate) fn cache_dir_in(base: &Path, root: &Path) -> PathBuf {
    let canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let name: String = canon
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".into())
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let hash = content_hash(canon.to_string_lossy().as_bytes());
    base.join(format!("{name}-{}", &hash[..16]))
}

/// What a file holds, as far as the map cares.
#[derive(Debug, Clone)]
pub enum Content {
    /// UTF-8 text (its outline comes from [`FileEntry::outline`]); a file with a few bytes
    /// that are not UTF-8 (a Latin-1 comment) is read lossily, each such byte as U+FFFD.
    Text {
        /// The text.
        text: String,
    },
    /// Mostly not UTF-8 (shown as a path only).
    NonUtf8,
    /// Larger than [`ScanOptions::max_read_bytes`] (shown as a path only).
    TooLarge,
}

/// One file of the repository.
#[derive(Debug, Clone)]
pub struct FileEntry {
    /// Path relative to the root, `/`-separated; bytes of a name that are not UTF-8 are
    /// written `\xNN` and a backslash `\\`, so every file has its own path.
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
    /// Tokens of the block's body (without its header) per (tokenizer, level).
    body_tokens: [OnceLock<usize>; 2 * Level::ALL.len()],
    /// Capped outline blocks (`max_items`), made on first use.
    pub(crate) capped: CappedMemo,
    /// Whether the file is minified code (lines of thousands of characters holding half of it
    /// at least): no outline, and shown as a path unless a rule names it exactly.
    pub minified: bool,
}

impl FileEntry {
    /// The text, when the file is readable UTF-8.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            Content::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The outline, when the language has a grammar and tree-sitter parsed the file, or the
    /// file is a Markdown (headings) or TOML (tables and keys) document. Parsed on the first
    /// call (code outlines: or read from the disk cache), then kept.
    pub fn outline(&self) -> Option<&Outline> {
        self.outline
            .get_or_init(|| {
                let cache = self.outliner.as_ref()?;
                let text = self.text()?;
                let Some(lang) = self.lang else {
                    return crate::doc_outline::document_outline(&self.path, text);
                };
                let hash = content_hash(text.as_bytes());
                cache.get(&hash, lang).or_else(|| {
                    let o = outline(lang, text)?;
                    cache.put(&hash, lang, &o);
                    Some(o)
                })
            })
            .as_ref()
    }

    /// The outline of a source file (one with a code grammar): what ranking and the reference
    /// graph read. A document's headings or tables are never definitions.
    pub fn code_outline(&self) -> Option<&Outline> {
        self.lang.and_then(|_| self.outline())
    }

    /// Why this file cannot show `level`'s content although files of its kind can: larger
    /// than the read cap or mostly not UTF-8 (any content level), too large to outline
    /// (levels 2 and 3; [`ScanOptions::max_outline_bytes`]) or TOML that does not parse.
    /// `None` when it can, and for kinds of file that have no outline at all (JSON, plain
    /// text): those show as a path or whole by design.
    pub fn limit_at(&self, level: Level) -> Option<&'static str> {
        if level <= Level::Path {
            return None;
        }
        match &self.content {
            Content::TooLarge => Some("larger than the scan's read cap, so never read"),
            Content::NonUtf8 => Some("not UTF-8 text"),
            Content::Text { .. } if level < Level::Full && self.minified => {
                Some("minified code (lines of thousands of characters), which has no outline")
            }
            Content::Text { .. }
                if level < Level::Full
                    && self.outliner.is_none()
                    && (self.lang.is_some() || DocFormat::from_path(&self.path).is_some()) =>
            {
                Some("too large to outline (over the scan's outline cap)")
            }
            // A TOML file that does not parse has an empty, partial outline.
            Content::Text { .. }
                if level < Level::Full
                    && DocFormat::from_path(&self.path) == Some(DocFormat::Toml)
                    && self
                        .outline()
                        .is_some_and(|o| o.partial && o.symbols.is_empty()) =>
            {
                Some("not valid TOML, so it has no outline")
            }
            Content::Text { .. } => None,
        }
    }

    /// Tokens of `block` (this file's block at `level`), memoised per tokenizer and level.
    pub(crate) fn block_tokens(
        &self,
        tokenizer: Tokenizer,
        level: Level,
        block: impl FnOnce() -> String,
    ) -> usize {
        memoised(&self.block_tokens, tokenizer, level, block)
    }

    /// Tokens of `body` (this file's block at `level` without its header), memoised likewise.
    pub(crate) fn body_tokens(
        &self,
        tokenizer: Tokenizer,
        level: Level,
        body: impl FnOnce() -> String,
    ) -> usize {
        memoised(&self.body_tokens, tokenizer, level, body)
    }
}

/// The count in `cells` for (tokenizer, level), counting `text` the first time.
fn memoised(
    cells: &[OnceLock<usize>; 2 * Level::ALL.len()],
    tokenizer: Tokenizer,
    level: Level,
    text: impl FnOnce() -> String,
) -> usize {
    let t = Tokenizer::ALL
        .iter()
        .position(|x| *x == tokenizer)
        .unwrap_or(0);
    *cells[t * Level::ALL.len() + level as usize].get_or_init(|| tokenizer.count(&text()))
}

/// A scanned repository: its files, sorted by path, with outlines.
#[derive(Debug, Clone)]
pub struct RepoMap {
    root: PathBuf,
    files: Vec<FileEntry>,
    skipped: Vec<(String, String)>,
    history: Option<Arc<ChangeHistory>>,
    /// The outline cache the files share (written after [`outline_all`](Self::outline_all)
    /// and when the last of them is dropped).
    outlines: Arc<OutlineCache>,
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
        let not_one = |reason: String| Error::NotARepository {
            path: root.to_path_buf(),
            reason,
        };
        let canon = match root.canonicalize() {
            Ok(p) if p.is_dir() => p,
            Ok(_) => return Err(not_one("is a file, not a directory".into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(not_one("does not exist".into()))
            }
            Err(e) => return Err(not_one(format!("cannot be read: {e}"))),
        };
        // git reads the history while the tree is walked and parsed.
        let log = options
            .history
            .then(|| crate::history::spawn_log(&canon, "HEAD").ok())
            .flatten();
        // Excluded files by their repository-relative key (a link to one stays).
        let excluded: Vec<String> = options
            .exclude
            .iter()
            .filter_map(|p| {
                let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
                let dir = parent.unwrap_or(Path::new(".")).canonicalize().ok()?;
                let rel = dir.join(p.file_name()?);
                Some(rel_key(rel.strip_prefix(&canon).ok()?))
            })
            .collect();
        let mut walked = walk(&canon);
        walked.retain(|w| !matches!(w, Walked::File(_, rel) if excluded.contains(rel)));
        let cache = Arc::new(OutlineCache::for_repo(options.cache_dir.clone(), &canon));
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
        // Outside git (or without git) the map has no history; that is not an error.
        let history = log
            .and_then(|child| ChangeHistory::from_child(child, &canon).ok())
            .filter(|h| !h.is_empty())
            .map(Arc::new);
        Ok(RepoMap {
            root: canon,
            files,
            skipped,
            history,
            outlines: cache,
        })
    }

    /// The change history the ranking uses as a prior, when there is one.
    pub fn history(&self) -> Option<&ChangeHistory> {
        self.history.as_deref()
    }

    /// Replaces the change history: `None` ranks on the text alone; a history read with
    /// [`ChangeHistory::from_git`] suits a tree exported from a repository at some revision.
    pub fn with_history(mut self, history: Option<ChangeHistory>) -> RepoMap {
        self.history = history.map(Arc::new);
        self
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Files, sorted by path.
    pub fn files(&self) -> &[FileEntry] {
        &self.files
    }

    /// Files left out of the map, with the reason (binary, escaping symlink, unreadable), by
    /// path.
    pub fn skipped(&self) -> &[(String, String)] {
        &self.skipped
    }

    /// Parses (or reads from the cache) the outline of every source file, in parallel, and
    /// writes what it parsed to the outline cache; later [`FileEntry::code_outline`] calls are
    /// then free. Documents' outlines, which ranking never reads, are parsed when first shown.
    pub fn outline_all(&self) {
        self.files.par_iter().for_each(|f| {
            f.code_outline();
        });
        self.outlines.save();
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
    // Folders on another file system (`/proc`, `/sys`, a mounted drive under the root) are not
    // entered: they are no part of a repository, and `/proc` alone never ends. Each is said.
    let crossings = Arc::new(Mutex::new(Vec::new()));
    let mut builder = ignore::WalkBuilder::new(root);
    builder.follow_links(false).require_git(false);
    if let Some(device) = device_of(root) {
        let crossings = Arc::clone(&crossings);
        let root = root.to_path_buf();
        builder.filter_entry(move |e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if e.depth() == 0 || !is_dir || device_of(e.path()).is_none_or(|d| d == device) {
                return true;
            }
            let rel = e
                .path()
                .strip_prefix(&root)
                .map_or_else(|_| ".".into(), rel_key);
            crossings
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(rel);
            false
        });
    }
    for entry in builder.build() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                // A folder or file the walk cannot read is left out, and said so.
                if let Some((path, err)) = unreadable(&e) {
                    let rel = path.strip_prefix(root).map_or_else(|_| ".".into(), rel_key);
                    let rel = if rel.is_empty() { ".".into() } else { rel };
                    out.push(Walked::Skip(rel, format!("unreadable: {err}")));
                }
                continue;
            }
        };
        let Some(ft) = entry.file_type() else {
            continue;
        };
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel = rel_key(rel);
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
        } else if !ft.is_dir() {
            out.push(Walked::Skip(rel, special_kind(&ft).into()));
        }
    }
    let crossed = std::mem::take(
        &mut *crossings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    out.extend(crossed.into_iter().map(|rel| {
        Walked::Skip(
            rel,
            "a folder on another file system (a mount point, not entered)".into(),
        )
    }));
    out
}

/// The device (file system) `path` lies on; `None` where it cannot be read or the platform
/// has no such notion.
fn device_of(path: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| m.dev())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The path and I/O error of a walk error that is a file or folder it could not read (not a
/// bad `.gitignore` line).
fn unreadable(e: &ignore::Error) -> Option<(&Path, &std::io::Error)> {
    match e {
        ignore::Error::WithPath { path, err } => Some((path.as_path(), err.io_error()?)),
        ignore::Error::WithDepth { err, .. } => unreadable(err),
        _ => None,
    }
}

/// Why a walked entry that is neither a file, a directory nor a link is left out.
fn special_kind(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a named pipe (FIFO), not a regular file";
        }
        if ft.is_socket() {
            return "a socket, not a regular file";
        }
        if ft.is_block_device() || ft.is_char_device() {
            return "a device, not a regular file";
        }
    }
    let _ = ft;
    "not a regular file"
}

/// A root-relative path as the map's key: `/`-separated [`path_key`]s of its components.
fn rel_key(rel: &Path) -> String {
    rel.components()
        .map(|c| path_key(c.as_os_str()))
        .collect::<Vec<_>>()
        .join("/")
}

/// A path component as text, losslessly: bytes that are not UTF-8 are written `\xNN` and a
/// backslash `\\`, so two different names never share a key. (`to_string_lossy` turned
/// every invalid byte into U+FFFD and made such files collide.) Valid names without a
/// backslash, all but a handful in practice, are unchanged.
fn path_key(name: &std::ffi::OsStr) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(name);
    #[cfg(not(unix))]
    let lossy = name.to_string_lossy();
    #[cfg(not(unix))]
    let bytes = lossy.as_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
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
    let entry = |content: Content, outliner: Option<Arc<OutlineCache>>, minified: bool| FileEntry {
        path: rel.to_string(),
        size,
        lang,
        minified,
        content,
        outliner,
        outline: OnceLock::new(),
        block_tokens: Default::default(),
        body_tokens: Default::default(),
        capped: Default::default(),
    };
    if size > options.max_read_bytes {
        return Ok(entry(Content::TooLarge, None, false));
    }
    let bytes = std::fs::read(abs).map_err(|e| skip(format!("unreadable: {e}")))?;
    // Same test as git: a NUL byte early in the file means binary.
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(skip("binary".into()));
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            // A few stray bytes (a Latin-1 comment in a source file) do not make a file
            // unreadable: they show as U+FFFD. Mostly non-UTF-8 files stay paths.
            let bytes = e.into_bytes();
            let invalid: usize = bytes.utf8_chunks().map(|c| c.invalid().len()).sum();
            if invalid * LOSSY_BYTES_PER_INVALID > bytes.len() {
                return Ok(entry(Content::NonUtf8, None, false));
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
    };
    // Classic Mac line ends (`\r` alone): tree-sitter counts rows by `\n` and `str::lines` splits
    // at it, so such a file would be one line long to its outline, its zoom and its render.
    let text = if text.contains('\r') && !text.contains('\n') {
        text.replace('\r', "\n")
    } else {
        text
    };
    let minified = lang.is_some() && is_minified(&text);
    let outlined = (lang.is_some() || DocFormat::from_path(rel).is_some())
        && size <= options.max_outline_bytes
        && !minified;
    Ok(entry(
        Content::Text { text },
        outlined.then(|| cache.clone()),
        minified,
    ))
}

/// A line at least this long, holding most of its file, is no line a person wrote.
const MINIFIED_LINE_BYTES: usize = 2_000;

/// Whether source `text` is minified (a bundle's `.min.js`, a `.prod.js`): one line or a few,
/// thousands of characters each. Its outline is a list of one-letter functions and its source
/// unreadable, while it matches every word its sources do: it is shown as a path.
pub(crate) fn is_minified(text: &str) -> bool {
    if text.len() < 2 * MINIFIED_LINE_BYTES {
        return false;
    }
    let long: usize = text
        .split('\n')
        .map(str::len)
        .filter(|&n| n >= MINIFIED_LINE_BYTES)
        .sum();
    long * 2 >= text.len()
}

/// A file with at most one byte that is not UTF-8 in this many is read as text, lossily.
const LOSSY_BYTES_PER_INVALID: usize = 32;

/// Bodies beyond this many bytes add little signal and cost time (ranking and the reference
/// graph read the same prefix).
const BODY_BYTES: usize = 64 * 1024;

/// Capped blocks kept per file at most (a plan's packing and fits use a handful).
const CAPPED_MEMO_MAX: usize = 32;

/// A capped block and its tokens, `None` when the cap leaves nothing out.
pub(crate) type CappedBlock = Option<(String, usize)>;

/// One file's capped blocks, made once per (tokenizer, level, entries kept, goal words): a
/// fit renders the same plan many times.
#[derive(Debug, Default)]
pub(crate) struct CappedMemo(Mutex<HashMap<(Tokenizer, Level, u32, u64), CappedBlock>>);

impl Clone for CappedMemo {
    /// A clone starts empty (it recounts on use).
    fn clone(&self) -> Self {
        CappedMemo::default()
    }
}

impl CappedMemo {
    /// The block for (`tokenizer`, `level`, `max`, the goal words' fingerprint `goal`), made
    /// by `make` the first time.
    pub(crate) fn get_or(
        &self,
        tokenizer: Tokenizer,
        level: Level,
        max: u32,
        goal: u64,
        make: impl FnOnce() -> CappedBlock,
    ) -> CappedBlock {
        let key = (tokenizer, level, max, goal);
        // A panic while the lock was held leaves nothing half-written: the map is still good.
        let lock = || self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = lock().get(&key) {
            return hit.clone();
        }
        let made = make();
        let mut memo = lock();
        // A long-lived map serves many goals: keep the memo to the blocks of a few.
        if memo.len() >= CAPPED_MEMO_MAX {
            memo.clear();
        }
        memo.insert(key, made.clone());
        made
    }
}

/// Writes `files` (path, text) into a fresh temporary directory and scans it without the
/// outline cache: the unit tests' repository.
#[cfg(test)]
pub(crate) fn temp_map<P: AsRef<str>, T: AsRef<str>>(
    files: &[(P, T)],
) -> (tempfile::TempDir, RepoMap) {
    let dir = tempfile::tempdir().unwrap();
    for (p, t) in files {
        let (p, t) = (p.as_ref(), t.as_ref());
        let path = dir.path().join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    }
    let options = ScanOptions {
        cache_dir: None,
        ..ScanOptions::for_root(dir.path())
    };
    let map = RepoMap::open_with(dir.path(), &options).unwrap();
    (dir, map)
}

/// The names of the symbols `f` defines (parsing its outline on first use).
pub(crate) fn symbol_names(f: &FileEntry) -> impl Iterator<Item = &str> {
    f.code_outline()
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
    #[test]
    fn minified_code_is_told_by_its_long_lines() {
        let bundle = (0..400)
            .map(|i| format!("function a{i}(e,t){{return e+t*{i}}}"))
            .collect::<Vec<_>>()
            .join(";");
        assert!(super::is_minified(&bundle));
        assert!(super::is_minified(&format!("/*! v1.2 */\n{bundle}\n")));
        // Code a person wrote, long or not, and a short one-liner, are not.
        let written = "def f(x):\n    return x\n".repeat(400);
        assert!(!super::is_minified(&written));
        assert!(!super::is_minified("export const a = 1;"));
        let one_long = format!("{written}X = '{}'\n", "y".repeat(2_500));
        assert!(!super::is_minified(&one_long));
    }

    use super::*;
    use std::fs;

    /// The map of `r`, without an outline cache.
    fn uncached(r: &Path) -> RepoMap {
        let options = ScanOptions {
            cache_dir: None,
            ..ScanOptions::for_root(r)
        };
        RepoMap::open_with(r, &options).unwrap()
    }

    #[test]
    fn a_file_with_carriage_returns_alone_has_its_lines() {
        let (_d, map) = temp_map(&[("a.py", "def a():\r    return 1\rdef b():\r    return 2\r")]);
        let f = &map.files()[0];
        assert_eq!(
            f.text(),
            Some("def a():\n    return 1\ndef b():\n    return 2\n")
        );
        let lines: Vec<(u32, u32)> = f
            .code_outline()
            .unwrap()
            .symbols
            .iter()
            .map(|s| (s.line, s.end_line))
            .collect();
        assert_eq!(lines, [(1, 2), (3, 4)]);
    }

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
        fs::write(
            r.join("legacy.py"),
            b"# caf\xe9 au lait\ndef quux_handler(request):\n    return request\n",
        )
        .unwrap();
        let map = uncached(r);
        let paths: Vec<_> = map.files().iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["a.py", "latin1.txt", "legacy.py", "src/b.rs"]);
        assert!(matches!(
            map.file("latin1.txt").unwrap().content,
            Content::NonUtf8
        ));
        // One stray Latin-1 byte: read as text, outlined.
        let legacy = map.file("legacy.py").unwrap();
        assert!(legacy.text().unwrap().starts_with("# caf\u{FFFD} au lait"));
        assert_eq!(legacy.outline().unwrap().symbols[0].name, "quux_handler");
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
        let map = uncached(r);
        let paths: Vec<_> = map.files().iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["alias.rs", "in.rs"]);
        assert_eq!(map.skipped()[0].0, "leak.rs");
    }

    /// `/dev` holds mount points of other file systems on Linux (`/dev/pts`, `/dev/shm`): the
    /// walk lists them as not entered instead of walking into them (as it would `/proc` from
    /// `/`).
    #[cfg(target_os = "linux")]
    #[test]
    fn folders_on_another_file_system_are_not_entered_and_said() {
        let dev = Path::new("/dev");
        let mounts: Vec<&str> = ["pts", "shm", "mqueue"]
            .into_iter()
            .filter(|m| {
                let p = dev.join(m);
                p.is_dir() && device_of(&p) != device_of(dev)
            })
            .collect();
        assert!(!mounts.is_empty(), "no file system is mounted under /dev");
        let walked = walk(dev);
        for m in mounts {
            assert!(
                walked.iter().any(|w| matches!(w, Walked::Skip(rel, why)
                    if rel == m && why.contains("another file system"))),
                "{m} not said"
            );
            let inside = format!("{m}/");
            assert!(!walked
                .iter()
                .any(|w| matches!(w, Walked::File(_, rel) | Walked::Skip(rel, _)
                    if rel.starts_with(&inside))));
        }
    }

    #[cfg(unix)]
    #[test]
    fn sockets_and_other_special_files_are_skipped_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::write(r.join("in.rs"), "fn inside() {}").unwrap();
        let _listener = std::os::unix::net::UnixListener::bind(r.join("app.sock")).unwrap();
        let map = uncached(r);
        let paths: Vec<_> = map.files().iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["in.rs"]);
        assert_eq!(
            map.skipped(),
            [(
                "app.sock".to_string(),
                "a socket, not a regular file".to_string()
            )]
        );
    }

    #[test]
    fn a_walk_error_reading_a_folder_is_an_unreadable_entry_and_a_bad_ignore_line_is_not() {
        let denied = ignore::Error::WithDepth {
            depth: 1,
            err: Box::new(ignore::Error::WithPath {
                path: PathBuf::from("/repo/locked"),
                err: Box::new(ignore::Error::Io(std::io::Error::from(
                    std::io::ErrorKind::PermissionDenied,
                ))),
            }),
        };
        let (path, err) = unreadable(&denied).unwrap();
        assert_eq!(path, Path::new("/repo/locked"));
        assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied);
        // The walk's own shape: the path around the depth around the I/O error.
        let walked = ignore::Error::WithPath {
            path: PathBuf::from("/repo/locked"),
            err: Box::new(ignore::Error::WithDepth {
                depth: 1,
                err: Box::new(ignore::Error::Io(std::io::Error::from(
                    std::io::ErrorKind::PermissionDenied,
                ))),
            }),
        };
        assert_eq!(unreadable(&walked).unwrap().0, Path::new("/repo/locked"));
        let glob = ignore::Error::WithPath {
            path: PathBuf::from("/repo/.gitignore"),
            err: Box::new(ignore::Error::Glob {
                glob: Some("a[".into()),
                err: "unclosed character class".into(),
            }),
        };
        assert!(unreadable(&glob).is_none());
    }

    #[test]
    fn excluded_files_are_left_out_but_links_to_them_stay() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::create_dir(r.join("plans")).unwrap();
        fs::write(r.join("in.rs"), "fn inside() {}").unwrap();
        fs::write(r.join("plans/plan.yaml"), "goal: x").unwrap();
        std::os::unix::fs::symlink(r.join("in.rs"), r.join("alias.rs")).unwrap();
        let map = RepoMap::open_with(
            r,
            &ScanOptions {
                cache_dir: None,
                exclude: vec![
                    r.join("plans/plan.yaml"),
                    r.join("in.rs"),
                    r.join("not-there.yaml"),
                ],
                ..ScanOptions::for_root(r)
            },
        )
        .unwrap();
        let paths: Vec<_> = map.files().iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["alias.rs"]);
    }

    #[test]
    fn missing_root_is_a_typed_error() {
        let err = RepoMap::open("/definitely/not/here").unwrap_err();
        assert!(matches!(err, Error::NotARepository { .. }), "{err}");
        assert!(err.to_string().ends_with("does not exist"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lib.rs");
        fs::write(&file, "fn a() {}").unwrap();
        let err = RepoMap::open(&file).unwrap_err();
        assert!(
            err.to_string().ends_with("is a file, not a directory"),
            "{err}"
        );
    }

    #[test]
    fn warm_cache_gives_the_same_outlines_and_lives_outside_the_tree() {
        let dir = tempfile::tempdir().unwrap();
        let caches = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::write(r.join("m.go"), "package m\nfunc A() {}\n").unwrap();
        let opts = ScanOptions {
            cache_dir: Some(cache_dir_in(caches.path(), r)),
            ..ScanOptions::for_root(r)
        };
        let cold = RepoMap::open_with(r, &opts).unwrap();
        // Outlines are parsed on first use, so nothing is cached until someone asks.
        assert!(!opts.cache_dir.as_ref().unwrap().exists());
        cold.outline_all();
        assert!(opts.cache_dir.as_ref().unwrap().is_dir());
        let warm = RepoMap::open_with(r, &opts).unwrap();
        assert_eq!(cold.files()[0].outline(), warm.files()[0].outline());
        // Nothing was written into the repository.
        let names: Vec<_> = fs::read_dir(r)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["m.go"]);
    }

    #[test]
    fn the_default_cache_is_per_repository_and_outside_it() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let (da, db) = (
            ScanOptions::for_root(a.path()).cache_dir,
            ScanOptions::for_root(b.path()).cache_dir,
        );
        if std::env::var_os(CACHE_DIR_ENV).is_none() {
            // The platform's cache directory, under navigator/outlines.
            let base = dirs::cache_dir()
                .unwrap()
                .join("navigator")
                .join("outlines");
            assert!(da.as_ref().unwrap().starts_with(&base), "{da:?}");
        }
        assert_ne!(da, db);
        for (root, d) in [(a.path(), &da), (b.path(), &db)] {
            assert!(!d
                .as_ref()
                .unwrap()
                .starts_with(root.canonicalize().unwrap()));
        }
        // The same repository gets the same folder; an override base is honoured.
        assert_eq!(
            cache_dir_in(Path::new("/base"), a.path()),
            cache_dir_in(Path::new("/base"), a.path())
        );
        assert!(cache_dir_in(Path::new("/base"), a.path()).starts_with("/base"));
    }

    /// Defect 10: two file names differing only in bytes that are not UTF-8 became one path
    /// (both bytes turned into U+FFFD), so one file hid the other.
    #[cfg(unix)]
    #[test]
    fn non_utf8_file_names_do_not_collide_in_the_repository_map() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let (a, b) = (b"caf\xe9.rs".as_slice(), b"caf\xff.rs".as_slice());
        for (name, body) in [(a, "fn a() {}"), (b, "fn b() {}")] {
            fs::write(r.join(OsStr::from_bytes(name)), body).unwrap();
        }
        fs::write(r.join("back\\x5cslash.rs"), "fn c() {}").unwrap();
        let map = RepoMap::open(r).unwrap();
        let paths: Vec<&str> = map.files().iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            ["back\\\\x5cslash.rs", "caf\\xe9.rs", "caf\\xff.rs"],
            "{paths:?}"
        );
        assert_eq!(map.file("caf\\xe9.rs").unwrap().text(), Some("fn a() {}"));
        assert_eq!(map.file("caf\\xff.rs").unwrap().text(), Some("fn b() {}"));
    }
}
