//! Item chunks in `item_chunks` (migration 3): one row per embedded chunk of an item, numbered
//! `0..n` without gaps as the embedded graph numbers them, with the chunk's byte span in the
//! body, the hash of the text it embedded and its vector. An item's chunk rows are replaced
//! together with the item, in the caller's transaction; deleting an item deletes them
//! (`ON DELETE CASCADE`). A chunk row carries its item's owner (migration 4) and every
//! statement here names it, joining items on `(owner, key)`.

use super::pg_err;
use crate::chunk::{ChunkVector, ItemVectors, MAX_CHUNKS};
use crate::{Error, Result};
use navigator_core::Item;
use pgvector::Vector;
use std::collections::HashMap;

/// Chunk rows per insert statement.
const CHUNK_BATCH: usize = 1_000;

const INSERT: &str = "
INSERT INTO item_chunks (owner, item_key, chunk, start_byte, end_byte, text_hash, embedding)
SELECT $7::text, * FROM unnest($1::bigint[], $2::integer[], $3::integer[], $4::integer[],
                               $5::bigint[], $6::vector[])";

/// Replaces the chunks of each `(key, item, vectors)` of `owner` (keys unique) inside the
/// caller's transaction. Chunks past [`MAX_CHUNKS`] are dropped, as the embedded graph drops
/// them.
pub(crate) async fn replace(
    tx: &deadpool_postgres::Transaction<'_>,
    owner: &str,
    items: &[(i64, &Item, &ItemVectors)],
) -> Result<()> {
    let err = pg_err("put item chunks");
    let keys: Vec<i64> = items.iter().map(|(key, ..)| *key).collect();
    let delete = tx
        .prepare_cached("DELETE FROM item_chunks WHERE owner = $1 AND item_key = ANY($2)")
        .await
        .map_err(&err)?;
    tx.execute(&delete, &[&owner, &keys]).await.map_err(&err)?;
    let insert = tx.prepare_cached(INSERT).await.map_err(&err)?;
    let mut rows = Rows::default();
    for (key, item, vectors) in items {
        for (i, chunk) in vectors.chunks.iter().take(MAX_CHUNKS).enumerate() {
            rows.push(*key, i, item, chunk)?;
            if rows.keys.len() == CHUNK_BATCH {
                rows.flush(tx, &insert, owner).await?;
            }
        }
    }
    rows.flush(tx, &insert, owner).await
}

/// Chunk rows gathered for one insert, column by column.
#[derive(Default)]
struct Rows {
    keys: Vec<i64>,
    chunks: Vec<i32>,
    starts: Vec<i32>,
    ends: Vec<i32>,
    hashes: Vec<i64>,
    vectors: Vec<Vector>,
}

impl Rows {
    fn push(&mut self, key: i64, index: usize, item: &Item, chunk: &ChunkVector) -> Result<()> {
        // A whole-item vector spans `0..u32::MAX`: offsets are kept within the body.
        let offset = |at: u32| {
            i32::try_from((at as usize).min(item.body.len())).map_err(|_| {
                Error::from(navigator_core::Error::invalid(
                    "body",
                    format!(
                        "item `{}` is {} bytes, past the chunk offsets PostgreSQL keeps (2 GiB)",
                        item.id,
                        item.body.len()
                    ),
                ))
            })
        };
        self.keys.push(key);
        // At most MAX_CHUNKS (4,096).
        self.chunks.push(index as i32);
        self.starts.push(offset(chunk.start)?);
        self.ends.push(offset(chunk.end)?);
        // The hash's bits as a bigint; read back with `as u64`.
        self.hashes.push(chunk.text_hash as i64);
        self.vectors.push(Vector::from(chunk.vector.clone()));
        Ok(())
    }

    async fn flush(
        &mut self,
        tx: &deadpool_postgres::Transaction<'_>,
        insert: &tokio_postgres::Statement,
        owner: &str,
    ) -> Result<()> {
        if self.keys.is_empty() {
            return Ok(());
        }
        tx.execute(
            insert,
            &[
                &self.keys,
                &self.chunks,
                &self.starts,
                &self.ends,
                &self.hashes,
                &self.vectors,
                &owner,
            ],
        )
        .await
        .map_err(pg_err("put item chunks"))?;
        *self = Self::default();
        Ok(())
    }
}

/// Deletes the chunks of those of `owner`'s `items` whose stored title or body differ from
/// theirs (a write without vectors: vectors of other text would be stale; those of unchanged
/// text stay). Runs before the items are written, in the caller's transaction.
pub(crate) async fn drop_stale(
    tx: &deadpool_postgres::Transaction<'_>,
    owner: &str,
    items: &[&Item],
) -> Result<()> {
    let err = pg_err("put items: drop stale chunks");
    let stmt = tx
        .prepare_cached(
            "DELETE FROM item_chunks c
             USING items i, unnest($1::text[], $2::text[], $3::text[]) AS u(id, title, body)
             WHERE i.owner = $4 AND c.owner = i.owner AND c.item_key = i.key AND i.id = u.id
               AND (i.title <> u.title OR i.body <> u.body)",
        )
        .await
        .map_err(&err)?;
    let column = |f: fn(&Item) -> &str| items.iter().map(|i| f(i)).collect::<Vec<&str>>();
    tx.execute(
        &stmt,
        &[
            &column(|i| &i.id),
            &column(|i| &i.title),
            &column(|i| &i.body),
            &owner,
        ],
    )
    .await
    .map_err(&err)?;
    Ok(())
}

/// The stored chunk vectors of `owner`'s items with `ids` (items without chunks are left out).
pub(crate) async fn vectors_by_id(
    client: &deadpool_postgres::Client,
    owner: &str,
    ids: &[&str],
) -> Result<HashMap<String, ItemVectors>> {
    let err = pg_err("read item chunks");
    let stmt = client
        .prepare_cached(
            "SELECT i.id, c.start_byte, c.end_byte, c.text_hash, c.embedding
             FROM items i JOIN item_chunks c ON c.owner = i.owner AND c.item_key = i.key
             WHERE i.owner = $1 AND i.id = ANY($2) ORDER BY i.id, c.chunk",
        )
        .await
        .map_err(&err)?;
    let rows = client.query(&stmt, &[&owner, &ids]).await.map_err(&err)?;
    let mut out: HashMap<String, ItemVectors> = HashMap::new();
    for row in &rows {
        let id: String = row.try_get(0).map_err(&err)?;
        let (start, end) = span(row, &id, 1)?;
        let hash: i64 = row.try_get(3).map_err(&err)?;
        let vector: Vector = row.try_get(4).map_err(&err)?;
        out.entry(id).or_default().chunks.push(ChunkVector {
            start,
            end,
            text_hash: hash as u64,
            vector: vector.to_vec(),
        });
    }
    Ok(out)
}

/// The chunks of one item as a search reads them: their spans (vectors left empty) and,
/// when the search has a query vector, each chunk's cosine to it, in chunk order.
#[derive(Debug, Default)]
pub(crate) struct ChunkHits {
    pub(crate) spans: ItemVectors,
    pub(crate) similarities: Vec<f32>,
}

/// The chunks of `owner`'s items with `keys`, with their cosines to `query` when given.
pub(crate) async fn read(
    client: &deadpool_postgres::Client,
    owner: &str,
    keys: &[i64],
    query: Option<&Vector>,
) -> Result<HashMap<u64, ChunkHits>> {
    if keys.is_empty() {
        return Ok(HashMap::new());
    }
    let err = pg_err("read chunk similarities");
    let stmt = client
        .prepare_cached(
            "SELECT item_key, start_byte, end_byte,
                    CASE WHEN $2::vector IS NULL THEN NULL
                         ELSE (1 - (embedding <=> $2))::real END
             FROM item_chunks WHERE owner = $3 AND item_key = ANY($1) ORDER BY item_key, chunk",
        )
        .await
        .map_err(&err)?;
    let rows = client
        .query(&stmt, &[&keys, &query, &owner])
        .await
        .map_err(&err)?;
    let mut out: HashMap<u64, ChunkHits> = HashMap::new();
    for row in &rows {
        let key: i64 = row.try_get(0).map_err(&err)?;
        let (start, end) = span(row, &key.to_string(), 1)?;
        let hits = out.entry(key as u64).or_default();
        hits.spans.chunks.push(ChunkVector {
            start,
            end,
            text_hash: 0,
            vector: Vec::new(),
        });
        if let Some(sim) = row.try_get::<_, Option<f32>>(3).map_err(&err)? {
            hits.similarities.push(sim);
        }
    }
    Ok(out)
}

/// The byte span in columns `at` and `at + 1` of a chunk row of item `item`.
fn span(row: &tokio_postgres::Row, item: &str, at: usize) -> Result<(u32, u32)> {
    let corrupt = |message: String| Error::Corrupt {
        what: "item chunk",
        key: item.to_string(),
        message,
    };
    let offset = |i: usize| -> Result<u32> {
        let v: i32 = row.try_get(i).map_err(|e| corrupt(e.to_string()))?;
        u32::try_from(v).map_err(|_| corrupt(format!("byte offset {v}")))
    };
    Ok((offset(at)?, offset(at + 1)?))
}
