//! Migrating an embedded index to PostgreSQL: items and the chunk vectors the embedded store
//! already holds, so nothing is embedded again.

use super::{pg_err, PgSearchService};
use crate::{Error, ItemVectors, Result, SearchEngine};
use navigator_core::Item;

/// Items per transaction.
const SYNC_BATCH: usize = 1_000;

/// What [`sync_from_engine`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SyncReport {
    /// Items written (inserted or replaced).
    pub items: usize,
    /// Of those, items written with the engine's stored vectors.
    pub with_vectors: usize,
    /// Chunk vectors written (a chunked item has several).
    pub chunks: usize,
    /// Items deleted from PostgreSQL because the engine no longer has them.
    pub removed: usize,
    /// Transactions committed.
    pub batches: usize,
}

/// Makes `target` hold exactly the items of `engine`: upserts every item with all its stored
/// chunk vectors, spans and text hashes (in batches of 1 000 items, one transaction each, in
/// the engine's key order so ties break the same way on both backends), then deletes the
/// items the engine does not have. Only the target's owner ([`PgConfig::owner`]) is written
/// and pruned; other owners' items in the schema are untouched.
///
/// [`PgConfig::owner`]: super::PgConfig::owner
///
/// Idempotent: running it again writes the same rows. Items the embedded store holds without
/// vectors (or with vectors of another width) are written without; their stored chunks in
/// PostgreSQL are kept when their text is unchanged, and [`PgSearchService::embed_missing`]
/// embeds those without any. TOC nodes and grips are not copied.
///
/// ```no_run
/// # async fn demo(engine: navigator_search::SearchEngine, pg: navigator_search::pg::PgSearchService) -> navigator_search::Result<()> {
/// let report = navigator_search::pg::sync_from_engine(&engine, &pg).await?;
/// println!("{} items copied, {} with {} chunk vectors", report.items, report.with_vectors, report.chunks);
/// # Ok(()) }
/// ```
pub async fn sync_from_engine(
    engine: &SearchEngine,
    target: &PgSearchService,
) -> Result<SyncReport> {
    let dims = target.store().config().dimensions;
    if engine.embedder().dimensions() != dims {
        return Err(Error::Dimensions {
            expected: dims,
            got: engine.embedder().dimensions(),
            model: engine.embedder().model_id().to_string(),
        });
    }
    let mut keyed: Vec<(u64, Item)> = Vec::with_capacity(engine.len());
    engine.store().for_each_item(|key, item| {
        keyed.push((key, item));
        Ok(())
    })?;
    keyed.sort_by_key(|(key, _)| *key);

    let mut report = SyncReport::default();
    for chunk in keyed.chunks(SYNC_BATCH) {
        let mut with: (Vec<Item>, Vec<ItemVectors>) = (Vec::new(), Vec::new());
        let mut without: Vec<Item> = Vec::new();
        for (key, item) in chunk {
            match engine.store().vector(*key)? {
                Some(v)
                    if !v.chunks.is_empty() && v.chunks.iter().all(|c| c.vector.len() == dims) =>
                {
                    report.chunks += v.chunks.len().min(crate::chunk::MAX_CHUNKS);
                    with.0.push(item.clone());
                    with.1.push(v);
                }
                _ => without.push(item.clone()),
            }
        }
        let store = target.store();
        if !with.0.is_empty() {
            store.put_items_embedded(&with.0, Some(&with.1)).await?;
            report.batches += 1;
        }
        if !without.is_empty() {
            store.put_items_embedded(&without, None).await?;
            report.batches += 1;
        }
        report.items += chunk.len();
        report.with_vectors += with.0.len();
    }

    let ids: Vec<&str> = keyed.iter().map(|(_, i)| i.id.as_str()).collect();
    let client = target.store().client().await?;
    report.removed = client
        .execute(
            "DELETE FROM items WHERE owner = $2 AND NOT (id = ANY($1))",
            &[&ids, target.store().owner()],
        )
        .await
        .map_err(pg_err("sync: remove items the engine does not have"))?
        as usize;
    Ok(report)
}
