//! An item's facts — everything of it but the body and the application's metadata — kept in
//! their own table beside the items, written in the same transaction, so the engine's catalog
//! loads from a tenth of the bytes: at a million items, decoding every full item was most of
//! opening an index.
//!
//! Stored as the JSON of an [`Item`] without body and metadata (so it decodes as an `Item`
//! with the same checks). The table is trusted only while its sequence counter equals the
//! store's (`facts_seq` = `next_seq`): a store written by a version without the table, or
//! whose table a crash could not have left behind, has it rebuilt from the items on open.

use chrono::{DateTime, Utc};
use navigator_core::{Category, Item, ItemType};
use redb::TableDefinition;
use serde::Serialize;

/// Item key → the item's facts.
pub(super) const FACTS: TableDefinition<u64, &[u8]> = TableDefinition::new("facts");
/// The counter that equals `next_seq` while the facts table is complete.
pub(super) const FACTS_SEQ: &str = "facts_seq";

/// What the facts of an item serialise as (an [`Item`] without body and metadata).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Facts<'a> {
    id: &'a str,
    item_type: ItemType,
    category: Category,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    tags: &'a [String],
    created_at: &'a DateTime<Utc>,
    updated_at: &'a DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    archived_at: Option<&'a DateTime<Utc>>,
    access_count: u64,
}

/// The stored facts of `item`.
pub(super) fn encode(item: &Item) -> serde_json::Result<Vec<u8>> {
    serde_json::to_vec(&Facts {
        id: &item.id,
        item_type: item.item_type,
        category: item.category,
        title: &item.title,
        parent_id: item.parent_id.as_deref(),
        status: item.status.as_deref(),
        tags: &item.tags,
        created_at: &item.created_at,
        updated_at: &item.updated_at,
        archived_at: item.archived_at.as_ref(),
        access_count: item.access_count,
    })
}

/// The item the stored facts describe, with an empty body and no metadata.
pub(super) fn decode(bytes: &[u8]) -> serde_json::Result<Item> {
    serde_json::from_slice(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_decode_as_the_item_without_body_and_metadata() {
        let now: DateTime<Utc> = "2026-03-01T10:00:00Z".parse().unwrap();
        let mut item = Item::new("n1", ItemType::Resource, "Rust \"notes\"", now)
            .unwrap()
            .with_body("a long body")
            .with_parent("area_dev");
        item.tags = vec!["rust".into(), "Lang".into()];
        item.status = Some("active".into());
        item.access_count = 7;
        item.metadata.insert("k".into(), serde_json::json!(1));
        let back = decode(&encode(&item).unwrap()).unwrap();
        let mut expected = item.clone();
        expected.body.clear();
        expected.metadata.clear();
        assert_eq!(back, expected);
    }
}
