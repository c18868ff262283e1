//! Writing items with their chunk vectors (`item_chunks`, replaced with their item in one
//! transaction) and reading those vectors back.

use super::rows::{self, item_from_row, ITEM_COLUMNS, WRITE_BATCH};
use super::{chunks, pg_err, PgStore};
use crate::{Error, ItemVectors, Result};
use navigator_core::Item;
use std::collections::HashMap;

impl PgStore {
    /// Inserts or replaces items with their embeddings (one per item, in order, each standing
    /// for its whole item: one chunk; `None`: keep the stored chunks where title and body are
    /// unchanged), in one transaction. Within the call the last write of an id wins.
    pub async fn put_items_with_vectors(
        &self,
        items: &[Item],
        vectors: Option<&[Vec<f32>]>,
    ) -> Result<()> {
        let whole: Option<Vec<ItemVectors>> =
            vectors.map(|v| v.iter().map(|v| ItemVectors::whole(v.clone())).collect());
        self.put_items_embedded(items, whole.as_deref()).await
    }

    /// Inserts or replaces items with their chunk vectors (one [`ItemVectors`] per item, in
    /// order, each with at least one chunk), in one transaction: an item's chunk rows are
    /// replaced with it, so a search never sees an item with another version's chunks. With
    /// `None` an item keeps its stored chunks where its title and body are unchanged and loses
    /// them otherwise ([`PgSearchService::embed_missing`] embeds it again). Within the call
    /// the last write of an id wins; chunks past the 4,096th are dropped, as the embedded
    /// engine drops them.
    ///
    /// [`PgSearchService::embed_missing`]: super::PgSearchService::embed_missing
    pub async fn put_items_embedded(
        &self,
        items: &[Item],
        vectors: Option<&[ItemVectors]>,
    ) -> Result<()> {
        for item in items {
            item.validate()?;
        }
        if let Some(v) = vectors {
            self.check_vectors(items, v)?;
        }
        let keep = crate::store::last_write_of_each_id(items);
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg_err("begin"))?;
        for batch in keep.chunks(WRITE_BATCH) {
            let written: Vec<&Item> = batch.iter().map(|&i| &items[i]).collect();
            if vectors.is_none() {
                chunks::drop_stale(&tx, self.owner(), &written).await?;
            }
            let keys = rows::upsert(&tx, self.owner(), &written).await?;
            if let Some(v) = vectors {
                let mut embedded = Vec::with_capacity(batch.len());
                for &i in batch {
                    let key = keys.get(&items[i].id).ok_or_else(|| Error::Postgres {
                        operation: "put items",
                        code: None,
                        message: format!("no key came back for item `{}`", items[i].id),
                    })?;
                    embedded.push((*key, &items[i], &v[i]));
                }
                chunks::replace(&tx, self.owner(), &embedded).await?;
            }
        }
        tx.commit().await.map_err(pg_err("commit"))
    }

    /// One [`ItemVectors`] per item, each with chunks as wide as the column.
    fn check_vectors(&self, items: &[Item], vectors: &[ItemVectors]) -> Result<()> {
        let dims = self.config().dimensions;
        let wrong = vectors
            .iter()
            .flat_map(|v| &v.chunks)
            .find(|c| c.vector.len() != dims);
        if let Some(bad) = wrong {
            return Err(Error::Dimensions {
                expected: dims,
                got: bad.vector.len(),
                model: format!("vectors written to schema `{}`", self.config().schema),
            });
        }
        if vectors.len() != items.len() {
            return Err(navigator_core::Error::invalid(
                "vectors",
                format!("{} vectors for {} items", vectors.len(), items.len()),
            )
            .into());
        }
        if let Some(i) = vectors.iter().position(|v| v.chunks.is_empty()) {
            return Err(navigator_core::Error::invalid(
                "vectors",
                format!("item `{}` has no vector (at least one chunk)", items[i].id),
            )
            .into());
        }
        Ok(())
    }

    /// The chunk vectors stored for item `id` (`None` when it has none or does not exist):
    /// what [`put_items_embedded`](Self::put_items_embedded) wrote, in chunk order.
    pub async fn stored_vectors(&self, id: &str) -> Result<Option<ItemVectors>> {
        Ok(self.vectors_by_id(&[id]).await?.remove(id))
    }

    /// The stored chunk vectors of the items with `ids` (those without chunks left out).
    pub(crate) async fn vectors_by_id(&self, ids: &[&str]) -> Result<HashMap<String, ItemVectors>> {
        let client = self.client().await?;
        chunks::vectors_by_id(&client, self.owner(), ids).await
    }

    /// How many chunk vectors are stored, over all the owner's items.
    pub async fn count_chunks(&self) -> Result<u64> {
        let rows = self
            .query(
                "count chunks",
                "SELECT count(*) FROM item_chunks WHERE owner = $1",
                &[self.owner()],
            )
            .await?;
        Ok(rows.first().map_or(0, |r| r.get::<_, i64>(0).max(0) as u64))
    }

    /// Items that have no chunks yet (written through [`Store::put_items`] or with a changed
    /// text), ascending by key, at most `limit`.
    ///
    /// [`Store::put_items`]: navigator_core::ItemStore::put_items
    pub(crate) async fn items_without_chunks(&self, limit: i64) -> Result<Vec<Item>> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(&format!(
                "SELECT {ITEM_COLUMNS} FROM items
                 WHERE owner = $2 AND NOT EXISTS (
                     SELECT 1 FROM item_chunks c
                     WHERE c.owner = items.owner AND c.item_key = items.key)
                 ORDER BY key LIMIT $1"
            ))
            .await
            .map_err(pg_err("scan unembedded"))?;
        let rows = client
            .query(&stmt, &[&limit, self.owner()])
            .await
            .map_err(pg_err("scan unembedded"))?;
        rows.iter()
            .map(|r| item_from_row(r).map(|(_, i)| i))
            .collect()
    }
}
