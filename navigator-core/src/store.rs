//! The [`Store`] trait and its roles: durable storage of PARA items, their access counts
//! and the time hierarchy.

use crate::{Category, Grip, Item, Result, TocNode};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

pub use crate::conversation::ConversationStore;

/// Which items a [`ItemStore::scan_items`] returns; the default returns everything.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemScan {
    /// Only these categories (all when `None`).
    pub categories: Option<Vec<Category>>,
    /// Only items updated at or after this instant.
    pub updated_since: Option<DateTime<Utc>>,
    /// Resume after this id (ids are returned in ascending order).
    pub after_id: Option<String>,
    /// At most this many items.
    pub limit: Option<usize>,
}

impl ItemScan {
    /// Whether `item` passes the category and time conditions (not paging).
    pub fn matches(&self, item: &Item) -> bool {
        self.categories
            .as_ref()
            .is_none_or(|c| c.contains(&item.category))
            && self.updated_since.is_none_or(|t| item.updated_at >= t)
    }
}

/// Durable storage: the source of truth that search indexes are derived from.
///
/// `Store` is the umbrella over three roles, each its own trait so a backend states plainly
/// what it keeps: [`ItemStore`] (PARA items), [`AccessCounts`] (the interaction counter that
/// feeds ranking) and [`TocStore`] (the time hierarchy and its grips). Anything that
/// implements the three is a `Store` (blanket implementation), so a new backend is one file
/// with three `impl` blocks, and callers take `Arc<dyn Store>` (bring the role traits into
/// scope, or `use navigator_core::store::*`, to call their methods).
///
/// A fourth role, [`ConversationStore`] (conversation history), stands outside the umbrella,
/// so a store written before it existed is still a `Store`; a backend that keeps
/// conversations implements it too.
///
/// Object-safe and `Send + Sync`. Writes are atomic per call (`put_items` writes all or
/// nothing) and durable when the call returns; implementations validate every item before
/// writing. Items come back from scans in ascending id order so callers can page with
/// [`ItemScan::after_id`].
pub trait Store: ItemStore + AccessCounts + TocStore {}

impl<T: ItemStore + AccessCounts + TocStore + ?Sized> Store for T {}

/// The items role of a [`Store`]: PARA items by id.
#[async_trait]
pub trait ItemStore: Send + Sync {
    /// A short backend name for errors and logs (`memory`, `redb`, `postgres`).
    fn backend(&self) -> &'static str;

    /// Inserts or replaces items, all in one transaction.
    async fn put_items(&self, items: &[Item]) -> Result<()>;

    /// Inserts or replaces one item.
    async fn put_item(&self, item: &Item) -> Result<()> {
        self.put_items(std::slice::from_ref(item)).await
    }

    /// The item with this id, if any.
    async fn get_item(&self, id: &str) -> Result<Option<Item>>;

    /// The items with these ids, in order (`None` where there is none). The default asks
    /// [`get_item`](Self::get_item) once per id; backends override it to read in one go
    /// (a search reads its page this way).
    async fn get_items(&self, ids: &[&str]) -> Result<Vec<Option<Item>>> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            out.push(self.get_item(id).await?);
        }
        Ok(out)
    }

    /// Deletes an item; whether it existed.
    async fn delete_item(&self, id: &str) -> Result<bool>;

    /// Items matching `scan`, ascending by id.
    async fn scan_items(&self, scan: &ItemScan) -> Result<Vec<Item>>;

    /// How many items are stored.
    async fn count_items(&self) -> Result<u64>;
}

/// The access-count role of a [`Store`]: how often each item was used.
#[async_trait]
pub trait AccessCounts: Send + Sync {
    /// Counts one interaction with the item and returns the new access count; an unknown id
    /// is [`Error::NotFound`](crate::Error::NotFound).
    async fn record_access(&self, id: &str) -> Result<u64>;
}

/// The time-hierarchy role of a [`Store`]: TOC nodes and the grips their bullets cite.
#[async_trait]
pub trait TocStore: Send + Sync {
    /// The node with this id, if any.
    async fn get_toc_node(&self, node_id: &str) -> Result<Option<TocNode>>;

    /// Writes a node, setting its version to one more than the stored one (1 when new);
    /// returns the node as stored.
    async fn put_toc_node(&self, node: TocNode) -> Result<TocNode>;

    /// The children of `parent_id` sorted by start time; `""` means the year nodes. An
    /// unknown parent is [`Error::NotFound`](crate::Error::NotFound).
    async fn toc_children(&self, parent_id: &str) -> Result<Vec<TocNode>>;

    /// Stores grips (evidence for bullets); the last write of an id wins.
    async fn put_grips(&self, grips: &[Grip]) -> Result<()>;

    /// The grip with this id, if any.
    async fn get_grip(&self, grip_id: &str) -> Result<Option<Grip>>;
}
