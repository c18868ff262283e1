//! The [`navigator_core::Store`] roles for [`RedbStore`]: items through the change-logged write path,
//! TOC nodes and grips as JSON records.

use super::{RedbStore, GRIPS, ITEMS, TOC_NODES};
use navigator_core::store::{AccessCounts, ItemStore, TocStore};
use navigator_core::{Grip, Item, ItemScan, TocLevel, TocNode};
use redb::{ReadableTable, TableDefinition};
use serde::{de::DeserializeOwned, Serialize};

type CoreResult<T> = navigator_core::Result<T>;

impl RedbStore {
    pub(super) fn get_json<T: DeserializeOwned>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        what: &'static str,
        id: &str,
    ) -> crate::Result<Option<T>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(table).map_err(|e| self.err(e))?;
        let guard = t.get(id).map_err(|e| self.err(e))?;
        guard
            .map(|g| serde_json::from_slice(g.value()).map_err(|e| self.corrupt(what, id, e)))
            .transpose()
    }

    pub(super) fn put_json<T: Serialize>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        records: &[(&str, &T)],
    ) -> crate::Result<()> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut t = txn.open_table(table).map_err(|e| self.err(e))?;
            for (id, value) in records {
                let json = serde_json::to_vec(value).map_err(|e| self.err(e))?;
                t.insert(*id, json.as_slice()).map_err(|e| self.err(e))?;
            }
        }
        txn.commit().map_err(|e| self.err(e))
    }

    fn scan(&self, scan: &ItemScan) -> crate::Result<Vec<Item>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(ITEMS).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        let rows = match &scan.after_id {
            Some(after) => t.range::<&str>(after.as_str()..),
            None => t.range::<&str>(..),
        }
        .map_err(|e| self.err(e))?;
        for row in rows {
            let (id, json) = row.map_err(|e| self.err(e))?;
            if scan.after_id.as_deref() == Some(id.value()) {
                continue;
            }
            let item = self.decode(id.value(), json.value())?;
            if scan.matches(&item) {
                out.push(item);
                if scan.limit.is_some_and(|l| out.len() >= l) {
                    break;
                }
            }
        }
        Ok(out)
    }
}

#[async_trait::async_trait]
impl ItemStore for RedbStore {
    fn backend(&self) -> &'static str {
        "redb"
    }

    /// Writes without vectors: a search engine opened on this store embeds them on open.
    async fn put_items(&self, items: &[Item]) -> CoreResult<()> {
        self.write_items(items, None)?;
        Ok(())
    }

    async fn get_item(&self, id: &str) -> CoreResult<Option<Item>> {
        Ok(self.item(id)?)
    }

    async fn delete_item(&self, id: &str) -> CoreResult<bool> {
        Ok(self.remove_item(id)?.is_some())
    }

    async fn scan_items(&self, scan: &ItemScan) -> CoreResult<Vec<Item>> {
        Ok(self.scan(scan)?)
    }

    async fn get_items(&self, ids: &[&str]) -> CoreResult<Vec<Option<Item>>> {
        Ok(self.items_by_ids(ids)?)
    }

    async fn count_items(&self) -> CoreResult<u64> {
        Ok(self.len()?)
    }
}

#[async_trait::async_trait]
impl AccessCounts for RedbStore {
    async fn record_access(&self, id: &str) -> CoreResult<u64> {
        self.bump_access(id)?
            .map(|item| item.access_count)
            .ok_or_else(|| navigator_core::Error::NotFound {
                kind: "item",
                id: id.to_string(),
            })
    }
}

#[async_trait::async_trait]
impl TocStore for RedbStore {
    async fn get_toc_node(&self, node_id: &str) -> CoreResult<Option<TocNode>> {
        Ok(self.get_json(TOC_NODES, "toc node", node_id)?)
    }

    async fn put_toc_node(&self, mut node: TocNode) -> CoreResult<TocNode> {
        // Read and write in one transaction so concurrent writers cannot reuse a version.
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut t = txn.open_table(TOC_NODES).map_err(|e| self.err(e))?;
            let previous = t
                .get(node.node_id.as_str())
                .map_err(|e| self.err(e))?
                .map(|g| serde_json::from_slice::<TocNode>(g.value()))
                .transpose()
                .map_err(|e| self.corrupt("toc node", &node.node_id, e))?;
            node.version = previous.map_or(0, |n| n.version) + 1;
            let json = serde_json::to_vec(&node).map_err(|e| self.err(e))?;
            t.insert(node.node_id.as_str(), json.as_slice())
                .map_err(|e| self.err(e))?;
        }
        txn.commit().map_err(|e| self.err(e))?;
        Ok(node)
    }

    async fn toc_children(&self, parent_id: &str) -> CoreResult<Vec<TocNode>> {
        let mut children: Vec<TocNode> = if parent_id.is_empty() {
            let txn = self.db.begin_read().map_err(|e| self.err(e))?;
            let t = txn.open_table(TOC_NODES).map_err(|e| self.err(e))?;
            let mut years = Vec::new();
            for row in t.iter().map_err(|e| self.err(e))? {
                let (id, json) = row.map_err(|e| self.err(e))?;
                let node: TocNode = serde_json::from_slice(json.value())
                    .map_err(|e| self.corrupt("toc node", id.value(), e))?;
                if node.level == TocLevel::Year {
                    years.push(node);
                }
            }
            years
        } else {
            let parent: TocNode = self
                .get_json(TOC_NODES, "toc node", parent_id)?
                .ok_or_else(|| navigator_core::Error::NotFound {
                    kind: "toc node",
                    id: parent_id.to_string(),
                })?;
            let mut nodes = Vec::new();
            for id in &parent.child_node_ids {
                if let Some(n) = self.get_json::<TocNode>(TOC_NODES, "toc node", id)? {
                    nodes.push(n);
                }
            }
            nodes
        };
        children.sort_by(|a, b| (a.start_time, &a.node_id).cmp(&(b.start_time, &b.node_id)));
        Ok(children)
    }

    async fn put_grips(&self, grips: &[Grip]) -> CoreResult<()> {
        let records: Vec<(&str, &Grip)> = grips.iter().map(|g| (g.grip_id.as_str(), g)).collect();
        Ok(self.put_json(GRIPS, &records)?)
    }

    async fn get_grip(&self, grip_id: &str) -> CoreResult<Option<Grip>> {
        Ok(self.get_json(GRIPS, "grip", grip_id)?)
    }
}
