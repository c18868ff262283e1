//! Embedding on write: items cut into chunks ([`crate::chunk`]), only the chunks whose text
//! has no vector yet embedded, the rest reused from what the store holds.

use super::SearchEngine;
use crate::chunk::{chunk_item, text_hash, ChunkLimits, ChunkVector, ItemVectors};
use crate::Result;
use navigator_core::Item;
use std::collections::HashMap;

impl SearchEngine {
    /// The chunk window of this engine's embedder.
    fn chunk_limits(&self) -> ChunkLimits {
        ChunkLimits::for_embedder(
            &*self.embedder,
            self.config.chunk_tokens,
            self.config.chunk_overlap,
        )
    }

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
        let limits = self.chunk_limits();
        let owned = items.to_vec();
        // Counting tokens is CPU work: off the executor, like the embedding itself.
        let plans = self
            .blocking(move |engine| {
                let count = |t: &str| engine.embedder.count_tokens(t);
                Ok(owned
                    .iter()
                    .map(|item| chunk_item(item, limits, &count))
                    .collect::<Vec<_>>())
            })
            .await?;
        let known: HashMap<u64, &[f32]> = previous
            .iter()
            .flatten()
            .flat_map(|v| &v.chunks)
            .filter(|c| c.text_hash != 0 && c.vector.len() == self.vectors.dims())
            .map(|c| (c.text_hash, c.vector.as_slice()))
            .collect();
        let mut texts: Vec<&str> = Vec::new();
        let mut text_hashes: Vec<u64> = Vec::new();
        let mut hashes: Vec<Vec<u64>> = Vec::with_capacity(plans.len());
        for plan in &plans {
            let mut item_hashes = Vec::with_capacity(plan.len());
            for chunk in plan {
                let h = text_hash(&chunk.text);
                if !known.contains_key(&h) {
                    texts.push(&chunk.text);
                    text_hashes.push(h);
                }
                item_hashes.push(h);
            }
            hashes.push(item_hashes);
        }
        let embedded = self.embedder.embed_documents(&texts).await?;
        self.check_dims(&embedded)?;
        let fresh: HashMap<u64, Vec<f32>> =
            texts.iter().map(|t| text_hash(t)).zip(embedded).collect();
        Ok(plans
            .iter()
            .zip(hashes)
            .map(|(plan, hashes)| ItemVectors {
                chunks: plan
                    .iter()
                    .zip(hashes)
                    .map(|(chunk, h)| ChunkVector {
                        start: chunk.span.start as u32,
                        end: chunk.span.end as u32,
                        text_hash: h,
                        vector: fresh
                            .get(&h)
                            .cloned()
                            .or_else(|| known.get(&h).map(|v| v.to_vec()))
                            .unwrap_or_default(),
                    })
                    .collect(),
            })
            .collect())
    }
}
