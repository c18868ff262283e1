//! Items to and from rows: the column list, decoding with typed errors, and the batched upsert
//! (one statement per batch: `INSERT … SELECT FROM unnest(…) ON CONFLICT DO UPDATE`). Their
//! vectors live in `item_chunks` (`chunks.rs`).

use super::pg_err;
use crate::{Error, Result};
use navigator_core::{Category, Item, ItemType};
use std::collections::HashMap;
use tokio_postgres::Row;

/// Every item column but the tsvector, in the order [`item_from_row`] reads.
pub(crate) const ITEM_COLUMNS: &str = "key, id, item_type, category, title, body, parent_id, \
     status, tags, created_at, updated_at, archived_at, access_count, metadata";

/// [`ITEM_COLUMNS`] with an empty body and metadata in their places: the catalog facts of an
/// item, decoded by [`item_from_row`] as well.
pub(crate) const META_COLUMNS: &str = "key, id, item_type, category, title, ''::text, \
     parent_id, status, tags, created_at, updated_at, archived_at, access_count, '{}'::jsonb";

/// Rows per upsert statement.
pub(crate) const WRITE_BATCH: usize = 500;

/// The weighted `tsvector` of the searchable words of row source `u` (columns `title_words`,
/// `tag_words`, `body_words`: [`Searchable`]'s): title A, tags B, body C.
macro_rules! tsv_of_u {
    () => {
        "setweight(to_tsvector('english'::regconfig, u.title_words), 'A')
           || setweight(to_tsvector('english'::regconfig, u.tag_words), 'B')
           || setweight(to_tsvector('english'::regconfig, u.body_words), 'C')"
    };
}
pub(crate) use tsv_of_u;

/// Inserts or replaces items of owner `$15`; their chunks (`item_chunks`) are the caller's
/// to replace. The searchable forms (`$16`..`$20`) are [`Searchable`]'s.
const UPSERT: &str = concat!(
    "
INSERT INTO items (owner, id, item_type, category, title, body, parent_id, status, tags,
                   tags_text, created_at, updated_at, archived_at, access_count, metadata,
                   tsv, parent_key, tag_keys)
SELECT $15::text, u.id, u.item_type, u.category, u.title, u.body, u.parent_id, u.status,
       ARRAY(SELECT jsonb_array_elements_text(u.tags)), u.tags_text,
       u.created_at, u.updated_at, u.archived_at, u.access_count, u.metadata,
       ",
    tsv_of_u!(),
    ",
       u.parent_key, ARRAY(SELECT jsonb_array_elements_text(u.tag_keys))
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
            $8::jsonb[], $9::text[], $10::timestamptz[], $11::timestamptz[], $12::timestamptz[],
            $13::bigint[], $14::jsonb[], $16::text[], $17::text[], $18::text[], $19::text[],
            $20::jsonb[])
     AS u(id, item_type, category, title, body, parent_id, status, tags, tags_text,
          created_at, updated_at, archived_at, access_count, metadata,
          title_words, tag_words, body_words, parent_key, tag_keys)
ON CONFLICT (owner, id) DO UPDATE SET
    item_type = EXCLUDED.item_type, category = EXCLUDED.category, title = EXCLUDED.title,
    body = EXCLUDED.body, parent_id = EXCLUDED.parent_id, status = EXCLUDED.status,
    tags = EXCLUDED.tags, tags_text = EXCLUDED.tags_text, created_at = EXCLUDED.created_at,
    updated_at = EXCLUDED.updated_at, archived_at = EXCLUDED.archived_at,
    access_count = EXCLUDED.access_count, metadata = EXCLUDED.metadata, tsv = EXCLUDED.tsv,
    parent_key = EXCLUDED.parent_key, tag_keys = EXCLUDED.tag_keys
RETURNING key, id"
);

/// Writes one batch of `owner`'s items (ids unique within it) inside the caller's
/// transaction; the key of each item by id.
pub(crate) async fn upsert(
    tx: &deadpool_postgres::Transaction<'_>,
    owner: &str,
    items: &[&Item],
) -> Result<HashMap<String, i64>> {
    let err = pg_err("put items");
    let texts = |f: fn(&Item) -> &str| items.iter().map(|i| f(i)).collect::<Vec<&str>>();
    let opt = |f: fn(&Item) -> Option<&str>| items.iter().map(|i| f(i)).collect::<Vec<_>>();
    let mut access = Vec::with_capacity(items.len());
    for i in items {
        access.push(i64::try_from(i.access_count).map_err(|_| {
            navigator_core::Error::invalid(
                "accessCount",
                format!(
                    "{} of item `{}` exceeds PostgreSQL's bigint",
                    i.access_count, i.id
                ),
            )
        })?);
    }
    let tags: Vec<serde_json::Value> = items.iter().map(|i| serde_json::json!(i.tags)).collect();
    let tags_text: Vec<String> = items.iter().map(|i| i.tags.join(" ")).collect();
    let metadata: Vec<serde_json::Value> = items
        .iter()
        .map(|i| serde_json::to_value(&i.metadata).unwrap_or_default())
        .collect();
    let columns = Searchable::columns(
        items
            .iter()
            .map(|i| Searchable::of(&i.title, &i.tags, &i.body, i.parent_id.as_deref())),
    );
    let stmt = tx.prepare_cached(UPSERT).await.map_err(&err)?;
    let rows = tx
        .query(
            &stmt,
            &[
                &texts(|i| &i.id),
                &items
                    .iter()
                    .map(|i| i.item_type.as_str())
                    .collect::<Vec<_>>(),
                &items
                    .iter()
                    .map(|i| i.category.as_str())
                    .collect::<Vec<_>>(),
                &texts(|i| &i.title),
                &texts(|i| &i.body),
                &opt(|i| i.parent_id.as_deref()),
                &opt(|i| i.status.as_deref()),
                &tags,
                &tags_text,
                &items.iter().map(|i| i.created_at).collect::<Vec<_>>(),
                &items.iter().map(|i| i.updated_at).collect::<Vec<_>>(),
                &items.iter().map(|i| i.archived_at).collect::<Vec<_>>(),
                &access,
                &metadata,
                &owner,
                &columns.title,
                &columns.tags,
                &columns.body,
                &columns.parent,
                &columns.tag_keys,
            ],
        )
        .await
        .map_err(&err)?;
    rows.iter()
        .map(|r| Ok((r.try_get(1).map_err(&err)?, r.try_get(0).map_err(&err)?)))
        .collect()
}

/// What the keyword search and the filters read of an item, computed here rather than by
/// the server so that they match as the embedded engine's do: its words as
/// [`folded_words`](crate::words::folded_words) gives them (for the `tsvector`), its parent in
/// composed form (NFC) and its tags as [`TagFilter::normalize`] compares them.
///
/// [`TagFilter::normalize`]: navigator_core::TagFilter::normalize
pub(crate) struct Searchable {
    pub(crate) title: String,
    pub(crate) tags: String,
    pub(crate) body: String,
    pub(crate) parent: Option<String>,
    pub(crate) tag_keys: serde_json::Value,
}

impl Searchable {
    /// The searchable forms of an item with these fields.
    pub(crate) fn of(title: &str, tags: &[String], body: &str, parent: Option<&str>) -> Self {
        use crate::words::folded_words;
        Self {
            title: folded_words(title),
            tags: folded_words(&tags.join(" ")),
            body: folded_words(body),
            parent: parent.map(|p| crate::filter::composed(p).into_owned()),
            tag_keys: serde_json::json!(tags
                .iter()
                .map(|t| navigator_core::TagFilter::normalize(t))
                .collect::<Vec<_>>()),
        }
    }

    /// The forms of many items as one array per column, for an `unnest` statement.
    pub(crate) fn columns(forms: impl Iterator<Item = Searchable>) -> SearchableColumns {
        let mut c = SearchableColumns::default();
        for f in forms {
            c.title.push(f.title);
            c.tags.push(f.tags);
            c.body.push(f.body);
            c.parent.push(f.parent);
            c.tag_keys.push(f.tag_keys);
        }
        c
    }
}

/// [`Searchable`] forms of many items, a column each.
#[derive(Default)]
pub(crate) struct SearchableColumns {
    pub(crate) title: Vec<String>,
    pub(crate) tags: Vec<String>,
    pub(crate) body: Vec<String>,
    pub(crate) parent: Vec<Option<String>>,
    pub(crate) tag_keys: Vec<serde_json::Value>,
}

/// Decodes a row selected with [`ITEM_COLUMNS`] into `(key, item)`.
pub(crate) fn item_from_row(row: &Row) -> Result<(u64, Item)> {
    let id: String = row.try_get(1).map_err(pg_err("read item"))?;
    let corrupt = |message: String| Error::Corrupt {
        what: "item",
        key: id.clone(),
        message,
    };
    let col = |e: tokio_postgres::Error| corrupt(e.to_string());
    let item_type: String = row.try_get(2).map_err(col)?;
    let category: String = row.try_get(3).map_err(col)?;
    let access: i64 = row.try_get(12).map_err(col)?;
    let metadata: serde_json::Value = row.try_get(13).map_err(col)?;
    let key: i64 = row.try_get(0).map_err(col)?;
    let item = Item {
        id: id.clone(),
        item_type: ItemType::parse(&item_type)
            .ok_or_else(|| corrupt(format!("unknown item type `{item_type}`")))?,
        category: Category::parse(&category)
            .ok_or_else(|| corrupt(format!("unknown category `{category}`")))?,
        title: row.try_get(4).map_err(col)?,
        body: row.try_get(5).map_err(col)?,
        parent_id: row.try_get(6).map_err(col)?,
        status: row.try_get(7).map_err(col)?,
        tags: row.try_get(8).map_err(col)?,
        created_at: row.try_get(9).map_err(col)?,
        updated_at: row.try_get(10).map_err(col)?,
        archived_at: row.try_get(11).map_err(col)?,
        access_count: u64::try_from(access)
            .map_err(|_| corrupt(format!("access count {access}")))?,
        metadata: serde_json::from_value(metadata)
            .map_err(|e| corrupt(format!("metadata: {e}")))?,
    };
    item.validate().map_err(|e| corrupt(e.to_string()))?;
    Ok((key as u64, item))
}
