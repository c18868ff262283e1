//! Incremental sync of one source (a vault, a JSON-lines file) into a [`SearchEngine`].
//!
//! 1. `begin` reads what the engine holds from this source: per id, the content hash (of the
//!    file and the layout) and the text hash (of the embedded text).
//! 2. The caller marks every id the source still has (`keep`), then offers every item whose
//!    content hash changed (`put`). An item whose text hash is already stored — its own old
//!    version with other front matter, or a note that moved, or a copy — is written with the
//!    stored vector; only new text is embedded. Writes go out in batches, so memory stays
//!    bounded by the batch, not the source.
//! 3. `finish` deletes the ids the source no longer has.
//!
//! Every write is an engine write (store first, durable on return), and an old id is only
//! deleted after its successor is written, so a run killed at any point loses nothing that
//! was acknowledged and the next run completes the work.

use super::note::{content_hash, text_hash};
use super::report::IngestReport;
use super::IngestProgress;
use crate::{Result, SearchEngine};
use navigator_core::Item;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

struct Known {
    content: String,
    text: String,
}

pub(crate) struct Sync<'a, P: FnMut(IngestProgress)> {
    engine: &'a SearchEngine,
    known: HashMap<String, Known>,
    /// Text hash → an id whose stored vector embeds that text.
    by_text: HashMap<String, String>,
    seen: HashSet<String>,
    renamed_from: HashSet<String>,
    to_embed: Vec<Item>,
    /// Items written with a stored vector, pending (one store and index commit per batch).
    to_reuse: (Vec<Item>, Vec<crate::ItemVectors>),
    batch: usize,
    written: usize,
    pub(crate) report: IngestReport,
    pub(crate) progress: P,
}

impl<'a, P: FnMut(IngestProgress)> Sync<'a, P> {
    /// Loads what the engine holds from the source `vault`.
    pub(crate) fn begin(
        engine: &'a SearchEngine,
        vault: &str,
        batch: usize,
        progress: P,
    ) -> Result<Self> {
        let mut known = HashMap::new();
        let mut by_text = HashMap::new();
        engine.store().for_each_item(|_, item| {
            if item.metadata.get("vault").and_then(Value::as_str) == Some(vault) {
                let k = Known {
                    content: content_hash(&item).unwrap_or_default().to_string(),
                    text: text_hash(&item).unwrap_or_default().to_string(),
                };
                by_text
                    .entry(k.text.clone())
                    .or_insert_with(|| item.id.clone());
                known.insert(item.id, k);
            }
            Ok(())
        })?;
        Ok(Self {
            engine,
            known,
            by_text,
            seen: HashSet::new(),
            renamed_from: HashSet::new(),
            to_embed: Vec::new(),
            to_reuse: (Vec::new(), Vec::new()),
            batch: batch.max(1),
            written: 0,
            report: IngestReport::default(),
            progress,
        })
    }

    /// Marks `id` as still in the source (it is not deleted at the end, even when this run
    /// skips it: its last good version stays searchable). Every id must be marked before the
    /// first [`put`](Self::put): an unmarked id is taken as gone (a rename's old path).
    pub(crate) fn keep(&mut self, id: &str) {
        self.seen.insert(id.to_string());
    }

    /// Marks every id the engine holds from this source as still there, except `gone`: for a
    /// run over some paths only, where the rest of the source is known unchanged.
    pub(crate) fn keep_all_except(&mut self, gone: &HashSet<String>) {
        let kept: Vec<String> = self
            .known
            .keys()
            .filter(|id| !gone.contains(*id))
            .cloned()
            .collect();
        self.seen.extend(kept);
    }

    /// Whether the engine holds `id` with this content hash (nothing to do).
    pub(crate) fn unchanged(&self, id: &str, content_hash: &str) -> bool {
        self.known
            .get(id)
            .is_some_and(|k| k.content == content_hash)
    }

    /// Whether the engine holds `id` from this source.
    pub(crate) fn has(&self, id: &str) -> bool {
        self.known.contains_key(id)
    }

    /// Writes a new or changed item (its `textHash` set), reusing a stored vector when one
    /// embeds the same text.
    pub(crate) async fn put(&mut self, item: Item) -> Result<()> {
        self.keep(&item.id);
        let text = super::note::text_hash(&item)
            .unwrap_or_default()
            .to_string();
        let previous = self.known.remove(&item.id);
        let existed = previous.is_some();
        if let Some(old) = previous {
            // The stored vector of this id is about to stop embedding its old text.
            if self.by_text.get(&old.text) == Some(&item.id) && old.text != text {
                self.by_text.remove(&old.text);
            }
        }
        let donor = self.by_text.get(&text).cloned();
        let vector = match &donor {
            Some(id) => self.engine.stored_vectors(id)?,
            None => None,
        };
        match (vector, donor) {
            (Some(v), Some(donor)) => {
                if existed {
                    self.report.updated_without_embedding += 1;
                } else if !self.seen.contains(&donor) {
                    // Every id still in the source was marked before the first `put`.
                    self.report.renamed += 1;
                    self.renamed_from.insert(donor);
                } else {
                    self.report.added += 1;
                }
                self.to_reuse.0.push(item);
                self.to_reuse.1.push(v);
                if self.to_reuse.0.len() >= self.batch {
                    self.flush_reused().await?;
                }
            }
            _ => {
                if existed {
                    self.report.updated += 1;
                } else {
                    self.report.added += 1;
                }
                self.to_embed.push(item);
                if self.to_embed.len() >= self.batch {
                    self.flush().await?;
                }
            }
        }
        Ok(())
    }

    /// Writes the pending items that reuse stored vectors.
    async fn flush_reused(&mut self) -> Result<()> {
        let (items, vectors) = std::mem::take(&mut self.to_reuse);
        if !items.is_empty() {
            self.engine.upsert_embedded(&items, &vectors).await?;
            self.written += items.len();
        }
        Ok(())
    }

    /// Embeds and writes the pending items.
    async fn flush(&mut self) -> Result<()> {
        self.flush_reused().await?;
        if self.to_embed.is_empty() {
            return Ok(());
        }
        let items = std::mem::take(&mut self.to_embed);
        self.engine.upsert(&items).await?;
        self.report.embedded += items.len();
        self.written += items.len();
        for item in &items {
            if let Some(t) = text_hash(item) {
                self.by_text.insert(t.to_string(), item.id.clone());
            }
        }
        (self.progress)(IngestProgress::Embedded {
            texts: self.report.embedded,
        });
        Ok(())
    }

    /// Writes what is pending, deletes the ids the source no longer has, and saves the
    /// indexes (compacting after a large import).
    pub(crate) async fn finish(mut self) -> Result<IngestReport> {
        self.flush().await?;
        let gone: Vec<String> = self
            .known
            .keys()
            .filter(|id| !self.seen.contains(*id))
            .cloned()
            .collect();
        for id in &gone {
            self.engine.delete(id).await?;
            if !self.renamed_from.contains(id) {
                self.report.deleted += 1;
            }
        }
        self.written += gone.len();
        // Batches of long notes may have left vectors waiting for the graph: an ingest run
        // (a `navigator index` process, say) ends with the graph complete and saved.
        self.engine.finish_graph()?;
        if self.written > 0 && self.written * 2 >= self.engine.len() {
            self.engine.compact()?;
        } else {
            self.engine.flush()?;
        }
        Ok(self.report)
    }
}
