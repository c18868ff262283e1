//! The write path: validate, embed (outside any lock), write to the source store when it is
//! not the engine's own, commit to the engine's store, then apply to the vector and keyword
//! indexes and the catalog.

use super::SearchEngine;
use crate::catalog::ItemMeta;
use crate::chunk::ItemVectors;
use crate::keyword::Staged;
use crate::{Error, Result};
use navigator_core::Item;

/// Unsaved vector changes after which a write saves the vector files (`compact`, `flush` and
/// closing the engine save them too), or half the items when that is more. A crash replays
/// at most that many from the store's change log, without embedding and without graph
/// insertion on the way (replayed vectors join the graph backlog); saving more often
/// rewrote the whole vector table at every doubling of a bulk load.
const SAVE_AFTER: usize = 100_000;

/// How far a [`SearchEngine::bulk_load`] has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Items indexed so far.
    pub done: usize,
    /// Items to index in all.
    pub total: usize,
}

impl SearchEngine {
    /// Inserts or replaces items: embeds them, commits them to the store, then indexes them.
    /// When it returns `Ok`, the items are durable and searchable. A batch with an invalid
    /// item writes nothing and names the item.
    ///
    /// An item longer than the embedder's window is cut into chunks (at headings, then
    /// paragraphs and sentences) and every chunk is embedded; a chunk whose text is unchanged
    /// since the item was last written keeps its vector.
    pub async fn upsert(&self, items: &[Item]) -> Result<()> {
        for item in items {
            item.validate()?;
        }
        let previous = self.previous_vectors(items).await?;
        let vectors = self.embed_items(items, &previous).await?;
        self.upsert_embedded(items, &vectors).await
    }

    /// Inserts or replaces items with precomputed vectors (one per item, in order, from the
    /// engine's embedding model), each standing for its whole item (no chunks).
    pub async fn upsert_with_vectors(&self, items: &[Item], vectors: &[Vec<f32>]) -> Result<()> {
        let vectors: Vec<ItemVectors> = vectors
            .iter()
            .map(|v| ItemVectors::whole(v.clone()))
            .collect();
        self.upsert_embedded(items, &vectors).await
    }

    /// Inserts or replaces items with their chunk vectors as
    /// [`stored_vectors`](Self::stored_vectors) returns them (ingest moves a renamed note
    /// this way without embedding it again).
    pub async fn upsert_embedded(&self, items: &[Item], vectors: &[ItemVectors]) -> Result<()> {
        if items.len() != vectors.len() {
            return Err(navigator_core::Error::invalid(
                "vectors",
                format!("{} vectors for {} items", vectors.len(), items.len()),
            )
            .into());
        }
        for v in vectors {
            if v.chunks.is_empty() {
                return Err(navigator_core::Error::invalid(
                    "vectors",
                    "an item needs at least one vector".to_string(),
                )
                .into());
            }
            self.check_dims(v.chunks.iter().map(|c| &c.vector))?;
        }
        let keep = crate::store::last_write_of_each_id(items);
        let items: Vec<Item> = keep.iter().map(|&i| items[i].clone()).collect();
        let vectors: Vec<ItemVectors> = keep.iter().map(|&i| vectors[i].clone()).collect();

        let _order = self.write_order.lock().await;
        if let Some(source) = &self.source {
            source.put_items(&items).await?;
        }
        // The store commit and index writes block: off the executor.
        self.blocking(move |engine| engine.index_items(&items, &vectors))
            .await
    }

    /// Commits items to the engine's store, then applies them to both indexes and the
    /// catalog (blocking).
    ///
    /// The keyword documents are handed to tantivy's indexing threads before the store
    /// writes, under the keys the store is about to give (read first), and their commit is
    /// prepared while the store writes, so analysing the text, writing the segment and
    /// writing the store use the cores side by side; the documents become searchable once
    /// the store has committed. A failed store write drops them, and keys that came out
    /// otherwise than planned (another writer of the store in between) stage them again.
    fn index_items(&self, items: &[Item], vectors: &[ItemVectors]) -> Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        let mut unsaved = self.writer.lock().map_err(|e| self.lock_err(e))?;
        let _writing = self.vectors.writing();
        let (planned, new_from) = self.store.planned_keys(items)?;
        let (changes, keyword) =
            self.write_store_and_keywords(items, vectors, &planned, new_from)?;
        let vec_changes: Vec<(u64, Option<&ItemVectors>)> = changes
            .iter()
            .zip(vectors)
            .map(|(c, v)| (c.key, Some(v)))
            .collect();
        // A large batch only fills the exact table here (the graph takes it in the
        // background); a small one enters the graph.
        self.vectors.apply_items(&vec_changes)?;
        keyword?;
        {
            let mut catalog = self.catalog.write().map_err(|e| self.lock_err(e))?;
            for (c, item) in changes.iter().zip(items) {
                catalog.insert(ItemMeta::new(c.key, item));
            }
        }
        *unsaved += changes.len();
        if *unsaved >= (self.len() / 2).max(SAVE_AFTER) {
            self.save(&mut unsaved)?;
        }
        Ok(())
    }

    /// Stages the keyword documents under `planned` keys (those from `new_from` on new),
    /// then commits the store while their commit is prepared; the store's changes, and
    /// whether the documents, under the keys the store gave, were committed after it (`Err`
    /// there leaves the store written, and the keyword index a write behind).
    fn write_store_and_keywords(
        &self,
        items: &[Item],
        vectors: &[ItemVectors],
        planned: &[u64],
        new_from: u64,
    ) -> Result<(Vec<crate::store::Change>, Result<()>)> {
        let stage = |keys: &[u64], new_from: u64| {
            let changes: Vec<(u64, Option<&Item>)> = keys
                .iter()
                .zip(items)
                .map(|(&key, it)| (key, Some(it)))
                .collect();
            self.keyword.stage(&changes, new_from)
        };
        let drop_staged = |e: Error| {
            if let Err(rollback) = self.keyword.rollback() {
                tracing::warn!("dropping staged keyword documents failed: {rollback}");
            }
            e
        };
        stage(planned, new_from).map_err(drop_staged)?;
        let as_planned = |changes: &[crate::store::Change]| {
            changes.len() == planned.len() && changes.iter().zip(planned).all(|(c, &p)| c.key == p)
        };
        let (written, keyword) = self
            .keyword
            .commit_beside(
                || self.store.write_items(items, Some(vectors)),
                |written| match written {
                    Ok(changes) if as_planned(changes) => {
                        Staged::Commit(changes.last().map_or(0, |c| c.seq))
                    }
                    _ => Staged::Drop,
                },
            )
            .map_err(drop_staged)?;
        let changes = written?;
        if as_planned(&changes) {
            return Ok((changes, keyword));
        }
        let keys: Vec<u64> = changes.iter().map(|c| c.key).collect();
        let seq = changes.last().map_or(0, |c| c.seq);
        let keyword = keyword
            .and_then(|()| stage(&keys, u64::MAX))
            .and_then(|()| self.keyword.commit(seq));
        Ok((changes, keyword))
    }

    /// Deletes an item from the store and both indexes; whether it existed.
    pub async fn delete(&self, id: &str) -> Result<bool> {
        let _order = self.write_order.lock().await;
        let existed = match &self.source {
            Some(source) => source.delete_item(id).await?,
            None => false,
        };
        let id = id.to_string();
        let removed = self
            .blocking(move |engine| engine.unindex_item(&id))
            .await?;
        Ok(removed || existed)
    }

    /// Removes an item from the engine's store, both indexes and the catalog (blocking);
    /// whether it was there.
    fn unindex_item(&self, id: &str) -> Result<bool> {
        let mut unsaved = self.writer.lock().map_err(|e| self.lock_err(e))?;
        let _writing = self.vectors.writing();
        let Some(change) = self.store.remove_item(id)? else {
            return Ok(false);
        };
        self.vectors.apply_items(&[(change.key, None)])?;
        self.keyword.apply(&[(change.key, None)], change.seq)?;
        self.catalog
            .write()
            .map_err(|e| self.lock_err(e))?
            .remove(change.key);
        *unsaved += 1;
        Ok(true)
    }

    /// Indexes many items in batches of [`embed_batch`](crate::EngineConfig::embed_batch),
    /// calling `progress` after each committed batch. Every item is validated before the
    /// first write, so a bad item stops the load before anything is written. A load that
    /// wrote at least half the items the engine then holds ends with
    /// [`compact`](Self::compact); a smaller one with [`flush`](Self::flush).
    pub async fn bulk_load(
        &self,
        items: &[Item],
        mut progress: impl FnMut(Progress),
    ) -> Result<()> {
        for item in items {
            item.validate()?;
        }
        let total = items.len();
        let mut done = 0;
        for chunk in items.chunks(self.config.embed_batch.max(1)) {
            self.upsert(chunk).await?;
            done += chunk.len();
            progress(Progress { done, total });
        }
        let compact = total > 0 && total * 2 >= self.len();
        self.blocking(move |engine| match compact {
            true => engine.compact(),
            false => engine.flush(),
        })
        .await
    }

    /// Counts one interaction with an item (it feeds the access-frequency signal); the new
    /// count. An unknown id is a [`navigator_core::Error::NotFound`].
    pub async fn record_access(&self, id: &str) -> Result<u64> {
        if let Some(source) = &self.source {
            source.record_access(id).await?;
        }
        let id = id.to_string();
        self.blocking(move |engine| engine.count_access(&id)).await
    }

    /// Adds one to the item's access count in the store and the catalog (blocking); the new
    /// count. Under the writer lock: a catalog snapshot written meanwhile must not see the
    /// count in the store but not in the catalog.
    fn count_access(&self, id: &str) -> Result<u64> {
        let _writer = self.writer.lock().map_err(|e| self.lock_err(e))?;
        let item = self.store.bump_access(id)?.ok_or_else(|| {
            Error::Core(navigator_core::Error::NotFound {
                kind: "item",
                id: id.to_string(),
            })
        })?;
        let mut catalog = self.catalog.write().map_err(|e| self.lock_err(e))?;
        if let Some(key) = catalog.by_id(id).map(|m| m.key) {
            catalog.set_access_count(key, item.access_count);
        }
        Ok(item.access_count)
    }

    /// The stored item with this id.
    pub fn item(&self, id: &str) -> Result<Option<Item>> {
        self.store.item(id)
    }

    /// The chunk vectors stored for the item with this id (as embedded when it was
    /// written), if the item exists. With [`upsert_embedded`](Self::upsert_embedded) it
    /// moves or re-files an item whose text did not change without embedding it again
    /// (ingest follows renamed notes this way).
    pub fn stored_vectors(&self, id: &str) -> Result<Option<ItemVectors>> {
        let key = self
            .catalog
            .read()
            .map_err(|e| self.lock_err(e))?
            .by_id(id)
            .map(|m| m.key);
        match key {
            Some(key) => self.store.vector(key),
            None => Ok(None),
        }
    }
}
