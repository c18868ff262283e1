//! Repair on open: bring each derived index up to the store's last committed write.
//!
//! Each index remembers the last store sequence number it applied (tantivy in its commit
//! payload, the vector graph in a store counter written after each save). Opening replays the
//! store's change log past that number; an index that was missing or unreadable is rebuilt
//! from every item. Afterwards both indexes must hold exactly the store's items, otherwise
//! they are rebuilt from scratch. Vectors come from the store; items written without one (for
//! example through the plain [`navigator_core::Store`] interface) are embedded here. The
//! store and index work runs on tokio's blocking pool.

use super::{SearchEngine, VECTOR_FILES, VECTOR_SEQ};
use crate::chunk::ItemVectors;
use crate::opened::{Opened, Repair};
use crate::store::RedbStore;
use crate::{Error, Result};
use navigator_core::{Item, ItemScan, Store};
use std::collections::{BTreeSet, HashSet};

/// Items per keyword commit while rebuilding.
const REBUILD_BATCH: usize = 2_000;
/// Items per page when comparing a source store with the engine's copy.
const RECONCILE_PAGE: usize = 2_000;

/// Makes the engine's copy of the items (`own`) equal to `source`'s, logging one change per
/// difference, so the replay after it brings the indexes to the source's state: items written
/// to the source but not to the engine (a crash between the two, or another writer of the
/// source), changed there, or deleted there. A rewritten item keeps its vector while its
/// embedded text is unchanged.
pub(super) async fn reconcile(own: &RedbStore, source: &dyn Store) -> Result<()> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut after: Option<String> = None;
    loop {
        let page = source
            .scan_items(&ItemScan {
                after_id: after.take(),
                limit: Some(RECONCILE_PAGE),
                ..ItemScan::default()
            })
            .await?;
        let Some(last) = page.last() else { break };
        after = Some(last.id.clone());
        let ids: Vec<&str> = page.iter().map(|i| i.id.as_str()).collect();
        let copies = own.items_by_ids(&ids)?;
        let changed: Vec<Item> = page
            .iter()
            .zip(copies)
            .filter(|(item, copy)| copy.as_ref() != Some(*item))
            .map(|(item, _)| item.clone())
            .collect();
        if !changed.is_empty() {
            own.write_items(&changed, None)?;
        }
        seen.extend(page.into_iter().map(|i| i.id));
    }
    let mut gone: Vec<String> = Vec::new();
    own.for_each_item(|_, item| {
        if !seen.contains(&item.id) {
            gone.push(item.id);
        }
        Ok(())
    })?;
    for id in gone {
        own.remove_item(&id)?;
    }
    Ok(())
}

/// One chunk of the vector replay read from the store: keys with a stored vector of the
/// right length, live items without one (to embed), and removed keys.
type VectorChunk = (Vec<(u64, ItemVectors)>, Vec<(u64, Item)>, Vec<u64>);

impl SearchEngine {
    /// Brings both indexes up to the store, recording every rebuild of a damaged index (and
    /// of indexes found out of step with the store) in the engine's repairs. The store and
    /// index work runs on the blocking pool; only embedding items stored without a vector
    /// awaits on the caller's task.
    pub(super) async fn repair(&self, keyword: Opened, vectors: Opened) -> Result<()> {
        let (keyword_fresh, vectors_fresh) = (keyword.is_empty(), vectors.is_empty());
        for (index, path, opened) in [
            ("keyword", self.dir.join("keyword"), keyword),
            ("vector", self.dir.join(VECTOR_FILES[0]), vectors),
        ] {
            if let Opened::Damaged(reason) = opened {
                self.record(Repair {
                    index,
                    path,
                    reason,
                });
            }
        }
        let (last, keyword_from, vector_from) = self
            .blocking(move |engine| {
                let keyword_from = (!keyword_fresh)
                    .then(|| engine.keyword.applied_seq())
                    .transpose()?;
                let vector_from = (!vectors_fresh)
                    .then(|| engine.store.read_counter(VECTOR_SEQ))
                    .transpose()?;
                Ok((engine.store.last_seq()?, keyword_from, vector_from))
            })
            .await?;
        self.sync(keyword_from, vector_from, last).await?;
        let diverged = self
            .blocking(|engine| {
                let n = engine.len();
                let diverged =
                    engine.keyword.num_docs() != n as u64 || engine.vectors.item_count()? != n;
                if diverged {
                    engine.record(Repair {
                        index: "indexes",
                        path: engine.dir.clone(),
                        reason: format!(
                            "after replaying the change log they held {} and {} items, the \
                             store {n}",
                            engine.keyword.num_docs(),
                            engine.vectors.item_count()?
                        ),
                    });
                    engine.keyword.clear()?;
                    engine.vectors.clear()?;
                }
                Ok(diverged)
            })
            .await?;
        if diverged {
            self.sync(None, None, last).await?;
        }
        self.blocking(move |engine| engine.store.prune_changes(last))
            .await
    }

    /// Records (and logs) a rebuild.
    pub(super) fn record(&self, repair: Repair) {
        tracing::warn!("{repair}");
        if let Ok(mut repairs) = self.repairs.lock() {
            repairs.push(repair);
        }
    }

    /// The keys an index starting at `from` must (re)apply; every key for `None`.
    fn keys_after(&self, from: Option<u64>, last: u64) -> Result<Vec<u64>> {
        match from {
            Some(s) if s >= last => Ok(Vec::new()),
            Some(s) => Ok(self
                .store
                .changes_after(s)?
                .into_iter()
                .map(|c| c.key)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()),
            None => {
                let mut keys = Vec::with_capacity(self.len());
                self.store.for_each_item(|key, _| {
                    keys.push(key);
                    Ok(())
                })?;
                Ok(keys)
            }
        }
    }

    async fn sync(
        &self,
        keyword_from: Option<u64>,
        vector_from: Option<u64>,
        last: u64,
    ) -> Result<()> {
        self.blocking(move |engine| engine.sync_keyword(keyword_from, last))
            .await?;
        // The graph is built once the replay is over, not step by step between its writes.
        let _replaying = self.vectors.replaying();
        let vector_keys = self
            .blocking(move |engine| engine.keys_after(vector_from, last))
            .await?;
        for chunk in vector_keys.chunks(self.config.embed_batch.max(1) * 4) {
            let chunk = chunk.to_vec();
            let (mut present, missing, removed) = self
                .blocking(move |engine| engine.read_vector_chunk(&chunk))
                .await?;
            if !missing.is_empty() {
                let items: Vec<Item> = missing.iter().map(|(_, it)| it.clone()).collect();
                let embedded = self.embed_items(&items, &vec![None; items.len()]).await?;
                let fresh: Vec<(u64, ItemVectors)> =
                    missing.iter().map(|(k, _)| *k).zip(embedded).collect();
                present = self
                    .blocking(move |engine| {
                        engine.store.put_vectors(&fresh)?;
                        present.extend(fresh);
                        Ok(present)
                    })
                    .await?;
            }
            self.blocking(move |engine| {
                let mut changes: Vec<(u64, Option<&ItemVectors>)> =
                    present.iter().map(|(k, v)| (*k, Some(v))).collect();
                changes.extend(removed.iter().map(|&k| (k, None)));
                engine.vectors.apply_items(&changes)
            })
            .await?;
        }
        if vector_from != Some(last) {
            self.blocking(move |engine| {
                engine.vectors.save()?;
                engine.store.write_counter(VECTOR_SEQ, last)
            })
            .await?;
        }
        Ok(())
    }

    /// Replays the store's changes after `keyword_from` (everything for `None`) into the
    /// keyword index.
    fn sync_keyword(&self, keyword_from: Option<u64>, last: u64) -> Result<()> {
        let keyword_keys = self.keys_after(keyword_from, last)?;
        let batches: Vec<&[u64]> = keyword_keys.chunks(REBUILD_BATCH).collect();
        for (i, chunk) in batches.iter().enumerate() {
            let items: Vec<(u64, Option<Item>)> = chunk
                .iter()
                .map(|&k| Ok((k, self.store.item_by_key(k)?)))
                .collect::<Result<_>>()?;
            let changes: Vec<(u64, Option<&Item>)> =
                items.iter().map(|(k, it)| (*k, it.as_ref())).collect();
            // Only the last batch may claim the whole log as applied.
            let seq = if i + 1 == batches.len() {
                last
            } else {
                keyword_from.unwrap_or(0)
            };
            self.keyword.apply(&changes, seq)?;
        }
        if batches.is_empty() && keyword_from != Some(last) {
            self.keyword.apply(&[], last)?;
        }
        Ok(())
    }

    fn read_vector_chunk(&self, chunk: &[u64]) -> Result<VectorChunk> {
        let mut present = Vec::new();
        let mut missing = Vec::new();
        let mut removed = Vec::new();
        for &key in chunk {
            match self.store.item_by_key(key)? {
                None => removed.push(key),
                Some(item) => match self.store.vector(key)? {
                    Some(v)
                        if !v.chunks.is_empty()
                            && v.chunks
                                .iter()
                                .all(|c| c.vector.len() == self.vectors.dims()) =>
                    {
                        present.push((key, v))
                    }
                    _ => missing.push((key, item)),
                },
            }
        }
        Ok((present, missing, removed))
    }

    pub(super) fn check_dims<'v>(
        &self,
        vectors: impl IntoIterator<Item = &'v Vec<f32>>,
    ) -> Result<()> {
        match vectors.into_iter().find(|v| v.len() != self.vectors.dims()) {
            Some(v) => Err(Error::Dimensions {
                expected: self.vectors.dims(),
                got: v.len(),
                model: self.embedder.model_id().to_string(),
            }),
            None => Ok(()),
        }
    }
}
