//! The exact lookups behind the Navigator agent on PostgreSQL: the item a query names (by id,
//! else by a title only one item has) and the title vocabulary for spelling suggestions. The
//! rules are the embedded engine's (`catalog.rs`): the server narrows, the library decides.

use super::{pg_err, PgStore};
use crate::catalog::{normalize_title, title_words};
use crate::{Error, Result};
use navigator_core::{Category, ItemType, NavigationTarget};
use tokio_postgres::Row;

impl PgStore {
    /// The item `query` names exactly: its id (trimmed), else its title when exactly one
    /// item's title is equal case- and spacing-insensitively.
    pub(crate) async fn find_exact(&self, query: &str) -> Result<Option<NavigationTarget>> {
        let client = self.client().await?;
        let err = pg_err("find exact");
        let by_id = client
            .prepare_cached(
                "SELECT id, item_type, category, title FROM items WHERE owner = $1 AND id = $2",
            )
            .await
            .map_err(&err)?;
        if let Some(row) = client
            .query_opt(&by_id, &[self.owner(), &query.trim()])
            .await
            .map_err(&err)?
        {
            return target(&row).map(Some);
        }
        let wanted = normalize_title(query);
        if wanted.is_empty() {
            return Ok(None);
        }
        // The server's normalisation finds the candidates; the library's decides, so the
        // rule is the embedded engine's to the character.
        let by_title = client
            .prepare_cached(
                "SELECT id, item_type, category, title FROM items
                 WHERE owner = $1 AND regexp_replace(lower(btrim(title)), '\\s+', ' ', 'g') = $2
                 ORDER BY key LIMIT 8",
            )
            .await
            .map_err(&err)?;
        let rows = client
            .query(&by_title, &[self.owner(), &wanted])
            .await
            .map_err(&err)?;
        let matching: Vec<&Row> = rows
            .iter()
            .filter(|r| normalize_title(r.get::<_, &str>(3)) == wanted)
            .collect();
        match matching.as_slice() {
            [only] => target(only).map(Some),
            _ => Ok(None),
        }
    }

    /// The distinct lower-cased words of all the owner's titles, sorted.
    pub(crate) async fn title_words(&self) -> Result<Vec<String>> {
        let client = self.client().await?;
        let err = pg_err("title words");
        let rows = client
            .query(
                "SELECT DISTINCT title FROM items WHERE owner = $1",
                &[self.owner()],
            )
            .await
            .map_err(&err)?;
        Ok(title_words(rows.iter().map(|r| r.get::<_, &str>(0))))
    }
}

/// A `(id, item_type, category, title)` row as a navigation target.
fn target(row: &Row) -> Result<NavigationTarget> {
    let id: String = row.get(0);
    let corrupt = |message: String| Error::Corrupt {
        what: "item",
        key: id.clone(),
        message,
    };
    let item_type: &str = row.get(1);
    let category: &str = row.get(2);
    Ok(NavigationTarget {
        item_type: ItemType::parse(item_type)
            .ok_or_else(|| corrupt(format!("unknown item type `{item_type}`")))?,
        category: Category::parse(category)
            .ok_or_else(|| corrupt(format!("unknown category `{category}`")))?,
        item_id: id.clone(),
    })
}
