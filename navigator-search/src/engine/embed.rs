//! Embedding on write: items cut into chunks ([`crate::chunk`]), only the chunks whose text
//! has no vector yet embedded, the rest reused from what the store holds.

use super::SearchEngine;
use crate::chunk::ItemVectors;
use crate::Result;
use navigator_core::Item;

impl SearchEngine {
    /// The stored vectors of each of `items` (by id; `None` for a new item).
    pub(super) async fn previous_vectors(
        &self,
        items: &[Item],
    ) -> Result<Vec<Option<ItemVectors>>> {
        let ids: Vec<String> = items.iter().map(|i| i.id.clone()).collect();
        self.blocking(move |engine| {
            let catalog = engine.catalog.read().map_err(|e| engine.lock_err(e))?;
            let keys: Vec<Option<u64>> = ids
                .iter()
                .map(|id| catalog.by_id(id).map(|m| m.key))
                .collect();
            drop(catalog);
            keys.into_iter()
                .map(|k| match k {
                    Some(k) => engine.store.vector(k),
                    None => Ok(None),
                })
                .collect()
        })
        .await
    }

    /// Cuts `items` into chunks and embeds each chunk whose text has no vector among
    /// `previous` (the items' stored vectors, matched by text hash): editing one section of a
    /// long note embeds that section again, not the note.
    pub(super) async fn embed_items(
        &self,
        items: &[Item],
        previous: &[Option<ItemVectors>],
    ) -> Result<Vec<ItemVectors>> {
        crate::chunk_embed::embed_items(
            &self.embedder,
            &self.config,
            items,
            previous.iter().flatten(),
        )
        .await
    }
}
