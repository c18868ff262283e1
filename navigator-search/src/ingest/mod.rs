//! Ingest: a folder of notes (a PARA vault) or a JSON-lines export → items in a
//! [`SearchEngine`], incrementally.
//!
//! ```no_run
//! # async fn demo(engine: &navigator_search::SearchEngine) -> navigator_search::Result<()> {
//! use navigator_search::ingest::{index_folder, IngestOptions};
//! let report = index_folder(engine, "/home/ana/vault".as_ref(), &IngestOptions::default(), |_| {}).await?;
//! println!("{report}"); // 31 items (notes and their folders) seen: 31 added, ... ; skipped 1 too_large
//! // Again: nothing changed, nothing is embedded.
//! let again = index_folder(engine, "/home/ana/vault".as_ref(), &IngestOptions::default(), |_| {}).await?;
//! assert_eq!(again.embedded, 0);
//! # Ok(()) }
//! ```
//!
//! Data flow: walk ([`walk`](self) module: gitignore-aware, hidden folders skipped) → for each
//! note file: size and binary checks, content hash, and only when the hash changed: front
//! matter ([`front_matter`]), markdown ([`markdown`]), placement by folder ([`ParaLayout`]) →
//! incremental sync into the engine (same text → stored vector reused; deleted files
//! removed). How notes and folders become items is documented in the `note` module's docs,
//! repeated in the README. Bad files are skipped and counted in the [`IngestReport`], never
//! half-written; only a root that cannot be read at all is an error.

pub mod front_matter;
pub mod jsonl;
mod layout;
pub mod markdown;
mod note;
mod report;
mod sync;
mod walk;

pub use jsonl::RowError;
pub use layout::ParaLayout;
pub use report::{IngestReport, SkipReason, Skipped};

use crate::{Error, Result, SearchEngine};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use sync::Sync;

/// How one note becomes an item, without an engine: what [`index_folder`] does with each
/// note whose content changed (front matter, markdown, placement by folder; see the README's
/// "How notes become items"). `path` is the note's path relative to the vault root,
/// `/`-separated; `modified` stands in for dates the front matter does not give. Returns the
/// item and the front matter's warnings, or why the note would be skipped.
///
/// ```
/// use navigator_search::ingest::{note_to_item, ParaLayout};
/// let text = "---\ntags: [q3]\n---\n# Launch plan\nShip it.";
/// let (item, warnings) =
///     note_to_item("Projects/Launch/plan.md", text, &ParaLayout::default(), chrono::Utc::now())
///         .unwrap();
/// assert_eq!((item.title.as_str(), item.category.as_str()), ("Launch plan", "project"));
/// assert!(warnings.is_empty());
/// ```
pub fn note_to_item(
    path: &str,
    text: &str,
    layout: &ParaLayout,
    modified: DateTime<Utc>,
) -> std::result::Result<(navigator_core::Item, Vec<String>), (SkipReason, String)> {
    note::note_item(path, text, layout, modified, Default::default())
}

/// How a source is read.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// Top-level folders → PARA categories.
    pub layout: ParaLayout,
    /// Files larger than this are skipped as [`SkipReason::TooLarge`] (default 8 MiB: far
    /// above any hand-written note, far below what would stall the embedder).
    pub max_file_bytes: u64,
    /// Items per embedding batch (also the most items held in memory at once).
    pub batch: usize,
}

impl Default for IngestOptions {
    fn default() -> Self {
        Self {
            layout: ParaLayout::default(),
            max_file_bytes: 8 * 1024 * 1024,
            batch: 64,
        }
    }
}

/// How far an ingest run has come, for progress bars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IngestProgress {
    /// The walk is done: this many note files (or valid rows) and folders to look at.
    Walked {
        /// Note files or rows.
        notes: usize,
    },
    /// This many notes (or rows) have been looked at.
    Read {
        /// Looked at so far.
        done: usize,
        /// To look at.
        total: usize,
    },
    /// This many texts have been embedded so far in this run.
    Embedded {
        /// Embedded so far.
        texts: usize,
    },
}

/// Indexes the folder `root` (see the module docs) into `engine`: adds new notes, re-embeds
/// changed ones, follows renames without re-embedding, removes deleted ones. Returns what it
/// did; an unreadable root is [`Error::Ingest`].
pub async fn index_folder(
    engine: &SearchEngine,
    root: &Path,
    options: &IngestOptions,
    mut progress: impl FnMut(IngestProgress),
) -> Result<IngestReport> {
    let root = source_path(root, true)?;
    let vault = root.to_string_lossy().into_owned();
    let fingerprint = options.layout.fingerprint();
    let mut walk_report = IngestReport::default();
    let walked = walk::walk(&root, &mut walk_report);
    progress(IngestProgress::Walked {
        notes: walked.notes.len(),
    });
    let mut sync = Sync::begin(engine, &vault, options.batch, progress)?;
    sync.report.skipped = walk_report.skipped;
    let meta = |path: &str, hash: &str| note::bookkeeping("vault", &vault, path, hash);

    let folders: Vec<(&String, String)> = walked
        .folders
        .iter()
        .filter(|f| f.contains('/') || options.layout.category_of(f).is_none())
        .map(|f| (f, format!("{f}/")))
        .collect();
    for (_, id) in &folders {
        sync.keep(id);
    }
    for n in &walked.notes {
        sync.keep(&n.rel);
    }
    for (rel, id) in &folders {
        sync.report.seen += 1;
        let hash = note::hash(&[b"folder", fingerprint.as_bytes(), rel.as_bytes()]);
        if sync.unchanged(id, &hash) {
            sync.report.unchanged += 1;
            continue;
        }
        let at = modified(&root.join(rel.as_str()));
        if let Some(item) = note::folder_item(rel, &options.layout, at, meta(id, &hash)) {
            sync.put(item).await?;
        }
    }
    let total = walked.notes.len();
    for (done, file) in walked.notes.iter().enumerate() {
        sync.report.seen += 1;
        if let Some(item) = read_note(file, options, &fingerprint, &vault, &mut sync)? {
            sync.put(item).await?;
        }
        (sync.progress)(IngestProgress::Read {
            done: done + 1,
            total,
        });
    }
    sync.finish().await
}

/// One note file → its item when it changed; skips and unchanged files are counted in the
/// report.
fn read_note<P: FnMut(IngestProgress)>(
    file: &walk::NoteFile,
    options: &IngestOptions,
    fingerprint: &str,
    vault: &str,
    sync: &mut Sync<'_, P>,
) -> Result<Option<navigator_core::Item>> {
    let rel = file.rel.as_str();
    if file.size > options.max_file_bytes {
        let msg = format!(
            "{} bytes, over the {} byte limit",
            file.size, options.max_file_bytes
        );
        sync.report.skip(rel, SkipReason::TooLarge, msg);
        return Ok(None);
    }
    let bytes = match std::fs::read(&file.abs) {
        Ok(b) => b,
        Err(e) => {
            sync.report.skip(rel, SkipReason::Unreadable, e.to_string());
            return Ok(None);
        }
    };
    if bytes[..bytes.len().min(8192)].contains(&0) {
        sync.report
            .skip(rel, SkipReason::Binary, "a NUL byte in the first 8 KiB");
        return Ok(None);
    }
    let hash = note::hash(&[b"note", fingerprint.as_bytes(), &bytes]);
    if sync.unchanged(rel, &hash) {
        sync.report.unchanged += 1;
        return Ok(None);
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            sync.report.skip(rel, SkipReason::NotUtf8, e.to_string());
            return Ok(None);
        }
    };
    let at = file.modified.map_or_else(Utc::now, DateTime::<Utc>::from);
    let meta = note::bookkeeping("vault", vault, rel, &hash);
    match note::note_item(rel, text, &options.layout, at, meta) {
        Ok((item, warnings)) => {
            sync.report.warnings.extend(warnings);
            Ok(Some(item))
        }
        Err((reason, message)) => {
            if sync.has(rel) {
                tracing::warn!("{rel}: {message}; its last indexed version stays searchable");
            }
            sync.report.skip(rel, reason, message);
            Ok(None)
        }
    }
}

/// Re-indexes only `paths` (vault-relative, `/`-separated: note ids) of the folder `root`,
/// without walking it: for callers that know what they changed (an editor, an agent writing
/// notes). A path whose file exists is read exactly as [`index_folder`] reads it, and its
/// folders are added when they are new; a path whose file is gone is removed; every other
/// note of the vault is left as it is. A move is its old path and its new one: the new note
/// reuses the old one's vector. A path that is absolute or climbs out with `..` is
/// [`Error::Ingest`].
pub async fn index_paths(
    engine: &SearchEngine,
    root: &Path,
    paths: &[&str],
    options: &IngestOptions,
    progress: impl FnMut(IngestProgress),
) -> Result<IngestReport> {
    let root = source_path(root, true)?;
    let vault = root.to_string_lossy().into_owned();
    let fingerprint = options.layout.fingerprint();
    for rel in paths {
        let plain = Path::new(rel)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if rel.is_empty() || !plain {
            return Err(Error::Ingest {
                path: root.join(rel),
                message: "not a plain path inside the vault".into(),
            });
        }
    }
    let (present, gone): (Vec<&str>, Vec<&str>) =
        paths.iter().partition(|rel| root.join(rel).is_file());
    let mut sync = Sync::begin(engine, &vault, options.batch, progress)?;
    sync.keep_all_except(&gone.iter().map(|g| g.to_string()).collect());
    (sync.progress)(IngestProgress::Walked {
        notes: present.len(),
    });
    let meta = |path: &str, hash: &str| note::bookkeeping("vault", &vault, path, hash);
    // New folders first, as the walk would have found them (top-level category folders are
    // categories, not items).
    let mut folders: Vec<String> = Vec::new();
    for rel in &present {
        let mut parts: Vec<&str> = rel.split('/').collect();
        parts.pop();
        for depth in 1..=parts.len() {
            let folder = parts[..depth].join("/");
            let is_item = folder.contains('/') || options.layout.category_of(&folder).is_none();
            if is_item && !folders.contains(&folder) && !sync.has(&format!("{folder}/")) {
                folders.push(folder);
            }
        }
    }
    for rel in &folders {
        let id = format!("{rel}/");
        sync.keep(&id);
        sync.report.seen += 1;
        let hash = note::hash(&[b"folder", fingerprint.as_bytes(), rel.as_bytes()]);
        let at = modified(&root.join(rel.as_str()));
        if let Some(item) = note::folder_item(rel, &options.layout, at, meta(&id, &hash)) {
            sync.put(item).await?;
        }
    }
    for rel in &present {
        sync.keep(rel);
    }
    let total = present.len();
    for (done, rel) in present.iter().enumerate() {
        let abs = root.join(rel);
        let meta = std::fs::metadata(&abs).map_err(|e| ingest_err(&abs, e))?;
        let file = walk::NoteFile {
            rel: rel.to_string(),
            abs,
            size: meta.len(),
            modified: meta.modified().ok(),
        };
        sync.report.seen += 1;
        if let Some(item) = read_note(&file, options, &fingerprint, &vault, &mut sync)? {
            sync.put(item).await?;
        }
        (sync.progress)(IngestProgress::Read {
            done: done + 1,
            total,
        });
    }
    sync.finish().await
}

/// Imports a JSON-lines file (schema in [`jsonl`]) into `engine`, incrementally like
/// [`index_folder`]: rows whose line did not change are not touched, rows gone from the file
/// are removed. Bad rows are skipped and reported with their line number.
pub async fn import_jsonl(
    engine: &SearchEngine,
    path: &Path,
    options: &IngestOptions,
    mut progress: impl FnMut(IngestProgress),
) -> Result<IngestReport> {
    let path = source_path(path, false)?;
    let source = path.to_string_lossy().into_owned();
    let name = path
        .file_name()
        .map_or_else(|| source.clone(), |n| n.to_string_lossy().into_owned());
    let now = Utc::now();
    // Pass 1: every valid row's id (so deletions and renames are known before any write).
    let mut report = IngestReport::default();
    let mut valid: HashMap<usize, String> = HashMap::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for_each_line(&path, |line, text| {
        match jsonl::parse_row(line, text, now) {
            Ok(item) => match first_line.get(&item.id) {
                Some(first) => report.skip(
                    &format!("{name}:{line}"),
                    SkipReason::InvalidRow,
                    format!(
                        "line {line}: field `id`: `{}` is already on line {first}",
                        item.id
                    ),
                ),
                None => {
                    first_line.insert(item.id.clone(), line);
                    valid.insert(line, item.id);
                }
            },
            Err(e) => report.skip(
                &format!("{name}:{line}"),
                SkipReason::InvalidRow,
                e.to_string(),
            ),
        }
    })?;
    progress(IngestProgress::Walked { notes: valid.len() });
    let mut sync = Sync::begin(engine, &source, options.batch, progress)?;
    sync.report.skipped = report.skipped;
    for id in valid.values() {
        sync.keep(id);
    }
    // Pass 2: write the rows that changed, streaming (memory stays bounded by the batch).
    let total = valid.len();
    let file = std::fs::File::open(&path).map_err(|e| ingest_err(&path, e))?;
    for (i, text) in std::io::BufReader::new(file).lines().enumerate() {
        let line = i + 1;
        let text = text.map_err(|e| line_err(&path, line, e))?;
        let text = without_bom(i, &text);
        let Some(id) = valid.get(&line) else {
            continue;
        };
        sync.report.seen += 1;
        let hash = note::hash(&[b"row", text.as_bytes()]);
        if sync.unchanged(id, &hash) {
            sync.report.unchanged += 1;
        } else {
            let mut item = jsonl::parse_row(line, text, now).map_err(|e| Error::Ingest {
                path: path.clone(),
                message: format!("the file changed while it was imported: {e}"),
            })?;
            item.metadata
                .extend(note::bookkeeping("jsonl", &source, &name, &hash));
            note::set_text_hash(&mut item);
            sync.put(item).await?;
        }
        (sync.progress)(IngestProgress::Read {
            done: sync.report.seen,
            total,
        });
    }
    sync.finish().await
}

/// Line `i` (from 0) without the byte-order mark an editor may have put before the first
/// (it made the first row invalid JSON).
fn without_bom(i: usize, line: &str) -> &str {
    match i {
        0 => line.strip_prefix('\u{feff}').unwrap_or(line),
        _ => line,
    }
}

/// Calls `f(line_number, text)` for every non-blank line.
fn for_each_line(path: &Path, mut f: impl FnMut(usize, &str)) -> Result<()> {
    let file = std::fs::File::open(path).map_err(|e| ingest_err(path, e))?;
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| line_err(path, i + 1, e))?;
        let line = without_bom(i, &line);
        if !line.trim().is_empty() {
            f(i + 1, line);
        }
    }
    Ok(())
}

fn source_path(path: &Path, folder: bool) -> Result<PathBuf> {
    let abs = path.canonicalize().map_err(|e| ingest_err(path, e))?;
    if folder && !abs.is_dir() {
        return Err(Error::Ingest {
            path: path.to_path_buf(),
            message: "not a folder".into(),
        });
    }
    if !folder && !abs.is_file() {
        return Err(Error::Ingest {
            path: path.to_path_buf(),
            message: "not a file".into(),
        });
    }
    Ok(abs)
}

fn line_err(path: &Path, line: usize, e: std::io::Error) -> Error {
    Error::Ingest {
        path: path.to_path_buf(),
        message: format!("line {line}: {e}"),
    }
}

fn ingest_err(path: &Path, e: std::io::Error) -> Error {
    Error::Ingest {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

fn modified(path: &Path) -> DateTime<Utc> {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_or_else(|_| Utc::now(), DateTime::<Utc>::from)
}
