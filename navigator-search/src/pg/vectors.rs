//! The vector source on PostgreSQL, by the embedded graph's rules (`vector/items.rs`): a
//! pgvector HNSW walk over chunk vectors finds the items, each is then scored over all its
//! chunks with the configured [`ChunkRollup`], and a chunked result's snippet comes from its
//! best chunk (`engine/query.rs`).

use super::chunks::ChunkHits;
use super::sql_filter::{SqlFilter, FILTER};
use super::{pg_err, PgConfig};
use crate::chunk::{argmax, term_overlaps};
use crate::{ChunkRollup, Result};
use navigator_core::Item;
use pgvector::Vector;
use std::collections::{HashMap, HashSet};
use tokio_postgres::types::ToSql;

/// How many chunk hits a walk asks for per wanted item, as the embedded walk does: a long
/// note's chunks crowd one another out of the beam, so the walk collects more and rolls
/// them up.
const CHUNKS_PER_ITEM: usize = 4;

/// `hnsw.ef_search` for a beam of `ef`: within pgvector's accepted range.
pub(super) fn beam(ef: usize) -> usize {
    ef.clamp(40, 1000)
}

/// The items of the chunks nearest to `query` passing `filter` (which names the owner): a
/// pgvector HNSW scan of `pool × 4` chunks with search beam `ef`; each item once, in the
/// order the walk met it. With the session's default beam ([`PgConfig::ef_search`], set when
/// the connection opens, with relaxed-order iterative scans) it is one statement; another
/// beam is set for one transaction (`SET LOCAL`).
pub(super) async fn walk(
    client: &mut deadpool_postgres::Client,
    query: &Vector,
    filter: &SqlFilter<'_>,
    pool: usize,
    ef: usize,
    config: &PgConfig,
) -> Result<Vec<u64>> {
    let err = pg_err("vector search");
    let limit = pool.saturating_mul(CHUNKS_PER_ITEM) as i64;
    // The HNSW scan returns at most ef_search rows; iterative scans keep looking when
    // filters reject some or more chunks are wanted (relaxed order: the items are scored
    // exactly afterwards).
    let sql = match filter.unrestricted {
        true => "SELECT item_key FROM item_chunks WHERE owner = $3
                 ORDER BY embedding <=> $1 LIMIT $2"
            .to_string(),
        // FILTER names item columns (the owner qualified); item_chunks has none of the
        // others. The join is on (owner, key): co-located, it stays on one shard.
        false => format!(
            "SELECT c.item_key FROM item_chunks c
             JOIN items ON items.owner = c.owner AND items.key = c.item_key
             WHERE c.owner = $8 AND {FILTER} ORDER BY c.embedding <=> $9 LIMIT $10"
        ),
    };
    let owner = filter.owner();
    let plain = [query as &(dyn ToSql + Sync), &limit, &owner];
    let params = match filter.unrestricted {
        true => plain.to_vec(),
        false => filter.params(&[query, &limit]),
    };
    let rows = if beam(ef) == beam(config.ef_search) {
        let stmt = client.prepare_cached(&sql).await.map_err(&err)?;
        client.query(&stmt, &params).await.map_err(&err)?
    } else {
        let tx = client.transaction().await.map_err(&err)?;
        tx.execute(
            "SELECT set_config('hnsw.ef_search', $1, true)",
            &[&beam(ef).to_string()],
        )
        .await
        .map_err(&err)?;
        let stmt = tx.prepare_cached(&sql).await.map_err(&err)?;
        let rows = tx.query(&stmt, &params).await.map_err(&err)?;
        tx.commit().await.map_err(&err)?;
        rows
    };
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
