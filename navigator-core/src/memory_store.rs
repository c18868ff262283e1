//! [`MemoryStore`]: a [`Store`](crate::Store) held in process memory.

use crate::store::{AccessCounts, ItemStore, TocStore};
use crate::{
    ConversationRecord, ConversationStore, Error, Grip, Item, ItemScan, Result, TocLevel, TocNode,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A [`Store`](crate::Store) (and a [`ConversationStore`]) kept in memory: for applications that
/// rebuild their data at start-up, for tests, and as the reference the durable backends are
/// checked against. Nothing survives the process.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: RwLock<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    items: BTreeMap<String, Item>,
    nodes: HashMap<String, TocNode>,
    grips: HashMap<String, Grip>,
    conversations: HashMap<String, ConversationRecord>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn read(&self) -> Result<RwLockReadGuard<'_, Inner>> {
        self.inner.read().map_err(|_| poisoned())
    }

    fn write(&self) -> Result<RwLockWriteGuard<'_, Inner>> {
        self.inner.write().map_err(|_| poisoned())
    }
}

fn poisoned() -> Error {
    Error::Store {
        backend: "memory",
        message: "a writer panicked while holding the lock".into(),
    }
}

#[async_trait]
impl ItemStore for MemoryStore {
    fn backend(&self) -> &'static str {
        "memory"
    }

    async fn put_items(&self, items: &[Item]) -> Result<()> {
        items.iter().try_for_each(Item::validate)?;
        let mut inner = self.write()?;
        for item in items {
            inner.items.insert(item.id.clone(), item.clone());
        }
        Ok(())
    }

    async fn get_item(&self, id: &str) -> Result<Option<Item>> {
        Ok(self.read()?.items.get(id).cloned())
    }

    async fn delete_item(&self, id: &str) -> Result<bool> {
        Ok(self.write()?.items.remove(id).is_some())
    }

    async fn scan_items(&self, scan: &ItemScan) -> Result<Vec<Item>> {
        let inner = self.read()?;
        let start = match &scan.after_id {
            Some(after) => std::ops::Bound::Excluded(after.clone()),
            None => std::ops::Bound::Unbounded,
        };
        Ok(inner
            .items
            .range((start, std::ops::Bound::Unbounded))
            .map(|(_, item)| item)
            .filter(|item| scan.matches(item))
            .take(scan.limit.unwrap_or(usize::MAX))
            .cloned()
            .collect())
    }

    async fn count_items(&self) -> Result<u64> {
        Ok(self.read()?.items.len() as u64)
    }
}

#[async_trait]
impl AccessCounts for MemoryStore {
    async fn record_access(&self, id: &str) -> Result<u64> {
        let mut inner = self.write()?;
        let item = inner.items.get_mut(id).ok_or_else(|| Error::NotFound {
            kind: "item",
            id: id.to_string(),
        })?;
        item.access_count += 1;
        Ok(item.access_count)
    }
}

#[async_trait]
impl TocStore for MemoryStore {
    async fn get_toc_node(&self, node_id: &str) -> Result<Option<TocNode>> {
        Ok(self.read()?.nodes.get(node_id).cloned())
    }

    async fn put_toc_node(&self, mut node: TocNode) -> Result<TocNode> {
        let mut inner = self.write()?;
        node.version = inner.nodes.get(&node.node_id).map_or(0, |n| n.version) + 1;
        inner.nodes.insert(node.node_id.clone(), node.clone());
        Ok(node)
    }

    async fn toc_children(&self, parent_id: &str) -> Result<Vec<TocNode>> {
        let inner = self.read()?;
        let mut children: Vec<TocNode> = if parent_id.is_empty() {
            inner
                .nodes
                .values()
                .filter(|n| n.level == TocLevel::Year)
                .cloned()
                .collect()
        } else {
            let parent = inner.nodes.get(parent_id).ok_or_else(|| Error::NotFound {
                kind: "toc node",
                id: parent_id.to_string(),
            })?;
            parent
                .child_node_ids
                .iter()
                .filter_map(|id| inner.nodes.get(id).cloned())
                .collect()
        };
        children.sort_by(|a, b| (a.start_time, &a.node_id).cmp(&(b.start_time, &b.node_id)));
        Ok(children)
    }

    async fn put_grips(&self, grips: &[Grip]) -> Result<()> {
        let mut inner = self.write()?;
        for g in grips {
            inner.grips.insert(g.grip_id.clone(), g.clone());
        }
        Ok(())
    }

    async fn get_grip(&self, grip_id: &str) -> Result<Option<Grip>> {
        Ok(self.read()?.grips.get(grip_id).cloned())
    }
}

#[async_trait]
impl ConversationStore for MemoryStore {
    async fn put_conversation(&self, record: &ConversationRecord) -> Result<()> {
        record.validate()?;
        self.write()?
            .conversations
            .insert(record.id.clone(), record.clone());
        Ok(())
    }

    async fn get_conversation(&self, id: &str) -> Result<Option<ConversationRecord>> {
        ConversationRecord::check_id(id)?;
        Ok(self.read()?.conversations.get(id).cloned())
    }

    async fn delete_conversation(&self, id: &str) -> Result<bool> {
        ConversationRecord::check_id(id)?;
        Ok(self.write()?.conversations.remove(id).is_some())
    }

    async fn list_conversations(&self, limit: usize) -> Result<Vec<(String, DateTime<Utc>)>> {
        let mut listed: Vec<(String, DateTime<Utc>)> = self
            .read()?
            .conversations
            .values()
            .map(|c| (c.id.clone(), c.updated_at))
            .collect();
        listed.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        listed.truncate(limit);
        Ok(listed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Category, ItemType};
    use chrono::{TimeZone, Utc};

    fn item(id: &str, t: ItemType) -> Item {
        Item::new(
            id,
            t,
            format!("title {id}"),
            Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap(),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn scan_pages_in_id_order_and_filters_by_category() {
        let store = MemoryStore::new();
        store
            .put_items(&[
                item("c", ItemType::Task),
                item("a", ItemType::Area),
                item("b", ItemType::ArchivedTask),
            ])
            .await
            .unwrap();
        let all = store.scan_items(&ItemScan::default()).await.unwrap();
        let ids: Vec<_> = all.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        let page = store
            .scan_items(&ItemScan {
                after_id: Some("a".into()),
                limit: Some(1),
                ..ItemScan::default()
            })
            .await
            .unwrap();
        assert_eq!(page[0].id, "b");
        let archived = store
            .scan_items(&ItemScan {
                categories: Some(vec![Category::Archive]),
                ..ItemScan::default()
            })
            .await
            .unwrap();
        assert_eq!(archived.len(), 1);
    }

    #[tokio::test]
    async fn invalid_item_is_rejected_and_nothing_is_written() {
        let store = MemoryStore::new();
        let mut bad = item("x", ItemType::Task);
        bad.category = Category::Archive;
        let err = store
            .put_items(&[item("ok", ItemType::Task), bad])
            .await
            .unwrap_err();
        assert_eq!(err.field(), Some("category"));
        assert_eq!(store.count_items().await.unwrap(), 0);
    }

    #[tokio::test]
    async fn record_access_counts_and_unknown_id_is_not_found() {
        let store = MemoryStore::new();
        store.put_item(&item("a", ItemType::Task)).await.unwrap();
        assert_eq!(store.record_access("a").await.unwrap(), 1);
        assert_eq!(store.record_access("a").await.unwrap(), 2);
        assert!(matches!(
            store.record_access("nope").await,
            Err(Error::NotFound { .. })
        ));
    }
}
