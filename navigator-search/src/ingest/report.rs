//! [`IngestReport`]: what one ingest run did, and what it skipped and why.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// Why a file or row was not indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Larger than [`IngestOptions::max_file_bytes`](super::IngestOptions::max_file_bytes).
    TooLarge,
    /// Binary content (a NUL byte near the start).
    Binary,
    /// Text that is not UTF-8.
    NotUtf8,
    /// Front matter that is not valid YAML, or not a mapping.
    InvalidFrontMatter,
    /// The file could not be read (permissions, vanished while walking).
    Unreadable,
    /// A JSON-lines row that is not a valid item.
    InvalidRow,
    /// Nothing to index: no title could be derived and the text is empty.
    Empty,
    /// A symbolic link to a note or a folder: links are not followed (one could lead out of
    /// the vault, or index a note twice under two paths).
    Symlink,
}

impl SkipReason {
    /// The snake_case name used in JSON and in the CLI's report.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::TooLarge => "too_large",
            SkipReason::Binary => "binary",
            SkipReason::NotUtf8 => "not_utf8",
            SkipReason::InvalidFrontMatter => "invalid_front_matter",
            SkipReason::Unreadable => "unreadable",
            SkipReason::InvalidRow => "invalid_row",
            SkipReason::Empty => "empty",
            SkipReason::Symlink => "symlink",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One skipped file or row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The vault-relative path (or `file.jsonl:LINE` for a row).
    pub path: String,
    /// Why.
    pub reason: SkipReason,
    /// The details (the YAML error, the row's field and value, the size).
    pub message: String,
}

/// What an ingest run did. Counts are notes (and folder items) of the source, not files of
/// the folder: an image in the vault is neither indexed nor skipped.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestReport {
    /// Items looked at: notes (files, or rows) and the folder items of their folders.
    pub seen: usize,
    /// New items, embedded.
    pub added: usize,
    /// Changed items whose text changed, re-embedded.
    pub updated: usize,
    /// Changed items whose indexed text did not change (front matter, folder): written with
    /// their stored vector, not re-embedded.
    pub updated_without_embedding: usize,
    /// Items moved to a new path with the same text: written with their stored vector.
    pub renamed: usize,
    /// Items whose source did not change.
    pub unchanged: usize,
    /// Items whose source is gone, removed from the index.
    pub deleted: usize,
    /// Texts sent to the embedder.
    pub embedded: usize,
    /// What was skipped, in path order.
    pub skipped: Vec<Skipped>,
    /// Things that were indexed but not entirely understood (a date in no known format).
    pub warnings: Vec<String>,
}

impl IngestReport {
    /// Skipped files counted by reason.
    pub fn skipped_by_reason(&self) -> BTreeMap<SkipReason, usize> {
        let mut counts = BTreeMap::new();
        for s in &self.skipped {
            *counts.entry(s.reason).or_insert(0) += 1;
        }
        counts
    }

    /// Whether the run changed the index.
    pub fn changed(&self) -> bool {
        self.added + self.updated + self.updated_without_embedding + self.renamed + self.deleted > 0
    }

    pub(crate) fn skip(&mut self, path: &str, reason: SkipReason, message: impl Into<String>) {
        self.skipped.push(Skipped {
            path: path.to_string(),
            reason,
            message: message.into(),
        });
    }
}

impl fmt::Display for IngestReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} items (notes and their folders) seen: {} added, {} updated ({} without re-embedding), {} renamed, {} unchanged, {} deleted, {} embedded",
            self.seen,
            self.added,
            self.updated + self.updated_without_embedding,
            self.updated_without_embedding,
            self.renamed,
            self.unchanged,
            self.deleted,
            self.embedded
        )?;
        let by_reason = self.skipped_by_reason();
        if !by_reason.is_empty() {
            let parts: Vec<String> = by_reason.iter().map(|(r, n)| format!("{n} {r}")).collect();
            write!(f, "; skipped {}", parts.join(", "))?;
        }
        Ok(())
    }
}
