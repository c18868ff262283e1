//! Embedding on write, for both backends: items cut into chunks by the one chunker
//! ([`crate::chunk`]) with the window of the embedder and the [`EngineConfig`], and only the
//! chunks whose text has no stored vector embedded (matched by text hash), so editing one
//! section of a long note embeds that section again, not the note.

use crate::chunk::{chunk_item, text_hash, ChunkLimits, ChunkVector, ItemVectors};
use crate::{EngineConfig, Error, Result};
use navigator_core::{Embedder, Item};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The chunk vectors of each of `items`, reusing those of `previous` (the items' stored
/// vectors) whose text hash a chunk has.
pub(crate) async fn embed_items<'p>(
    embedder: &Arc<dyn Embedder>,
    config: &EngineConfig,
    items: &[Item],
    previous: impl IntoIterator<Item = &'p ItemVectors>,
) -> Result<Vec<ItemVectors>> {
    let dims = embedder.dimensions();
    let limits = ChunkLimits::for_embedder(&**embedder, config.chunk_tokens, config.chunk_overlap);
    let (model, owned) = (embedder.clone(), items.to_vec());
    // Counting tokens is CPU work: off the executor, like the embedding itself.
    let plans = crate::blocking::run_blocking(move || {
        let count = |t: &str| model.count_tokens(t);
        Ok(owned
            .iter()
            .map(|item| chunk_item(item, limits, &count))
            .collect::<Vec<_>>())
    })
    .await?;
    let known: HashMap<u64, &[f32]> = previous
        .into_iter()
        .flat_map(|v| &v.chunks)
        .filter(|c| c.text_hash != 0 && c.vector.len() == dims)
        .map(|c| (c.text_hash, c.vector.as_slice()))
        .collect();
    let mut queued: HashSet<u64> = HashSet::new();
    let mut wanted: Vec<(u64, &str)> = Vec::new();
    for chunk in plans.iter().flatten() {
        let h = text_hash(&chunk.text);
        if !known.contains_key(&h) && queued.insert(h) {
            wanted.push((h, &chunk.text));
        }
    }
    let mut fresh: HashMap<u64, Vec<f32>> = HashMap::with_capacity(wanted.len());
    for batch in wanted.chunks(config.embed_batch.max(1)) {
        let texts: Vec<&str> = batch.iter().map(|(_, t)| *t).collect();
        let vectors = embedder.embed_documents(&texts).await?;
        if vectors.len() != texts.len() {
            return Err(navigator_core::Error::Embedding {
                model: embedder.model_id().to_string(),
                message: format!("{} vectors for {} texts", vectors.len(), texts.len()),
            }
            .into());
        }
        for ((h, _), v) in batch.iter().zip(vectors) {
            if v.len() != dims {
                return Err(Error::Dimensions {
                    expected: dims,
                    got: v.len(),
                    model: embedder.model_id().to_string(),
                });
            }
            fresh.insert(*h, v);
        }
    }
    Ok(plans
        .iter()
        .map(|plan| ItemVectors {
            chunks: plan
                .iter()
                .map(|chunk| {
                    let h = text_hash(&chunk.text);
                    ChunkVector {
                        start: chunk.span.start as u32,
                        end: chunk.span.end as u32,
                        text_hash: h,
                        // Every hash is either known or was just embedded.
                        vector: fresh
                            .get(&h)
                            .cloned()
                            .or_else(|| known.get(&h).map(|v| v.to_vec()))
                            .unwrap_or_default(),
                    }
                })
                .collect(),
        })
        .collect())
}
