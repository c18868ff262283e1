//! Walking a vault: the note files and folders under a root, gitignore-aware.
//!
//! Hidden files and folders (`.obsidian/`, `.trash/`, `.git/`) and whatever `.gitignore`,
//! `.ignore` files exclude are not walked, whether or not the vault is a git repository.
//! Symbolic links are not followed, so a walk never leaves the root.

use super::report::{IngestReport, SkipReason};
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

/// The file extensions read as notes (case-insensitive).
pub(crate) const NOTE_EXTENSIONS: [&str; 3] = ["md", "markdown", "txt"];

/// A note file found by the walk.
#[derive(Debug, Clone)]
pub(crate) struct NoteFile {
    /// Vault-relative path with `/` separators (the note's id).
    pub rel: String,
    /// Where it is on disk.
    pub abs: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Its last modification time.
    pub modified: Option<SystemTime>,
}

/// What a walk found.
#[derive(Debug, Default)]
pub(crate) struct Walked {
    /// Note files, sorted by relative path.
    pub notes: Vec<NoteFile>,
    /// Every folder under the root (relative, `/`-separated, no trailing slash), sorted.
    pub folders: Vec<String>,
}

/// Walks `root`; unreadable entries are recorded in `report` as skipped.
pub(crate) fn walk(root: &Path, report: &mut IngestReport) -> Walked {
    let mut walked = Walked::default();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = match &e {
                    ignore::Error::WithPath { path, .. } => relative(root, path),
                    _ => String::new(),
                };
                report.skip(&path, SkipReason::Unreadable, e.to_string());
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        let rel = relative(root, entry.path());
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walked.folders.push(rel);
            continue;
        }
        // Said, not silently passed over: a link to a note or a folder is not followed.
        if kind.is_symlink() && (is_note(entry.path()) || entry.path().is_dir()) {
            let target = std::fs::read_link(entry.path())
                .map(|t| t.display().to_string())
                .unwrap_or_default();
            report.skip(
                &rel,
                SkipReason::Symlink,
                format!(
                    "a symbolic link to `{target}`: links are not followed (index the note or \
                     folder where it lies, or copy it into the vault)"
                ),
            );
            continue;
        }
        if !kind.is_file() || !is_note(entry.path()) {
            continue;
        }
        match entry.metadata() {
            Ok(meta) => walked.notes.push(NoteFile {
                rel,
                abs: entry.path().to_path_buf(),
                size: meta.len(),
                modified: meta.modified().ok(),
            }),
            Err(e) => report.skip(&rel, SkipReason::Unreadable, e.to_string()),
        }
    }
    walked.notes.sort_by(|a, b| a.rel.cmp(&b.rel));
    walked.folders.sort();
    walked
}

/// Whether a path has a note extension.
pub(crate) fn is_note(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| NOTE_EXTENSIONS.iter().any(|n| e.eq_ignore_ascii_case(n)))
}

/// `root/a/b.md` → `"a/b.md"`. Names that are not UTF-8 keep their valid parts and write
/// each invalid byte as `%XX`, so the id is stable and printable.
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(encode_name(name)),
            _ => None,
        })
        .collect();
    parts.join("/")
}

#[cfg(unix)]
fn encode_name(name: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(not(unix))]
fn encode_name(name: &std::ffi::OsStr) -> String {
    name.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_use_slashes() {
        let root = Path::new("/vault");
        assert_eq!(
            relative(root, Path::new("/vault/1 Projects/x.md")),
            "1 Projects/x.md"
        );
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_names_are_escaped() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9.md");
        assert_eq!(encode_name(name), "caf%E9.md");
    }
}
