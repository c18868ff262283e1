//! The vector source on PostgreSQL, by the embedded graph's rules (`vector/items.rs`): a
//! pgvector HNSW walk over chunk vectors finds the items, each is then scored over all its
//! chunks with the configured [`ChunkRollup`], and a chunked result's snippet comes from its
//! best chunk (`engine/query.rs`).

use super::chunks::ChunkHits;
use super::pg_err;
use super::sql_filter::{SqlFilter, FILTER};
use crate::chunk::{argmax, term_overlaps};
use crate::{ChunkRollup, Result};
use navigator_core::Item;
use pgvector::Vector;
use std::collections::{HashMap, HashSet};

/// How many chunk hits a walk asks for per wanted item, as the embedded walk does: a long
/// note's chunks crowd one another out of the beam, so the walk collects more and rolls
/// them up.
const CHUNKS_PER_ITEM: usize = 4;

/// The items of the chunks nearest to `query` passing `filter` (which names the owner): a
/// pgvector HNSW scan of `pool × 4` chunks with search beam `ef`, in one transaction (for its
/// `SET LOCAL`s); each item once, in the order the walk met it.
pub(super) async fn walk(
    client: &mut deadpool_postgres::Client,
    query: &Vector,
    filter: &SqlFilter<'_>,
    pool: usize,
    ef: usize,
) -> Result<Vec<u64>> {
    let err = pg_err("vector search");
    let limit = pool.saturating_mul(CHUNKS_PER_ITEM) as i64;
    let tx = client.transaction().await.map_err(&err)?;
    // The HNSW scan returns at most ef_search rows; iterative scans keep looking when
    // filters reject some or more chunks are wanted (relaxed order: the items are scored
    // exactly afterwards).
    tx.execute(
        "SELECT set_config('hnsw.ef_search', $1, true),
                set_config('hnsw.iterative_scan', 'relaxed_order', true)",
        &[&ef.clamp(40, 1000).to_string()],
    )
    .await
    .map_err(&err)?;
    let rows = if filter.unrestricted {
        let stmt = tx
            .prepare_cached(
                "SELECT item_key FROM item_chunks WHERE owner = $3
                 ORDER BY embedding <=> $1 LIMIT $2",
            )
            .await
            .map_err(&err)?;
        tx.query(&stmt, &[query, &limit, &filter.owner()])
            .await
            .map_err(&err)?
    } else {
        // FILTER names item columns (the owner qualified); item_chunks has none of the
        // others. The join is on (owner, key): co-located, it stays on one shard.
        let stmt = tx
            .prepare_cached(&format!(
                "SELECT c.item_key FROM item_chunks c
                 JOIN items ON items.owner = c.owner AND items.key = c.item_key
                 WHERE c.owner = $8 AND {FILTER} ORDER BY c.embedding <=> $9 LIMIT $10"
            ))
            .await
            .map_err(&err)?;
        tx.query(&stmt, &filter.params(&[query, &limit]))
            .await
            .map_err(&err)?
    };
    tx.commit().await.map_err(&err)?;
    let mut seen = HashSet::with_capacity(rows.len());
    Ok(rows
        .iter()
        .map(|r| r.get::<_, i64>(0) as u64)
        .filter(|key| seen.insert(*key))
        .collect())
}

/// The similarity of each of `keys` that has chunks, rolled up from its chunks' cosines.
pub(super) fn rolled_up(
    rollup: ChunkRollup,
    chunks: &HashMap<u64, ChunkHits>,
    keys: impl IntoIterator<Item = u64>,
) -> Vec<(u64, f32)> {
    let mut sims = Vec::new();
    keys.into_iter()
        .filter_map(|key| {
            sims.clear();
            sims.extend_from_slice(&chunks.get(&key)?.similarities);
            rollup.roll_up(&mut sims).map(|s| (key, s))
        })
        .collect()
}

/// The walked items scored over all their chunks, best first (ties by key), at most `pool`.
pub(super) fn vector_hits(
    rollup: ChunkRollup,
    chunks: &HashMap<u64, ChunkHits>,
    walked: &[u64],
    pool: usize,
) -> Vec<(u64, f32)> {
    let mut hits = rolled_up(rollup, chunks, walked.iter().copied());
    hits.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    hits.truncate(pool);
    hits
}

/// For each chunked item of a page (keys and stored items in page order), the passage its
/// snippet comes from: the chunk most similar to the query vector when `chunks` has
/// similarities, else the chunk sharing the most query terms. `None` for one-chunk items
/// (their snippet looks at the whole body).
pub(super) fn best_passages(
    keys: &[u64],
    items: &[Option<Item>],
    chunks: &HashMap<u64, ChunkHits>,
    query_terms: &[String],
) -> Vec<Option<String>> {
    keys.iter()
        .zip(items)
        .map(|(key, item)| {
            let item = item.as_ref()?;
            let hits = chunks.get(key)?;
            if hits.spans.chunks.len() < 2 {
                return None;
            }
            let best = match hits.similarities.is_empty() {
                false => argmax(&hits.similarities),
                true => argmax(&term_overlaps(&item.body, &hits.spans, query_terms)),
            };
            best.map(|i| hits.spans.passage(&item.body, i).to_string())
        })
        .collect()
}
