//! A new `Store` backend written as an application would: one type over a
//! `Mutex<HashMap>`, the three role traits, nothing but the crates' public API. It passes the
//! store contract, and a `SearchEngine` runs over it (and re-indexes what was written to the
//! store behind the engine's back when it reopens).

mod contract;
#[path = "contract/words.rs"]
mod words;

use async_trait::async_trait;
use navigator_core::store::{AccessCounts, ItemStore, TocStore};
use navigator_core::{
    Error, Grip, Item, ItemScan, Result, SearchMode, SearchRequest, SearchService, TocLevel,
    TocNode,
};
use navigator_search::{EngineConfig, SearchEngine};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use words::WordHash;

/// Everything in three hash maps behind one lock.
#[derive(Default)]
struct HashMapStore {
    inner: Mutex<Maps>,
}

#[derive(Default)]
struct Maps {
    items: HashMap<String, Item>,
    nodes: HashMap<String, TocNode>,
    grips: HashMap<String, Grip>,
}

impl HashMapStore {
    fn lock(&self) -> Result<MutexGuard<'_, Maps>> {
        self.inner.lock().map_err(|_| Error::Store {
            backend: "hashmap",
            message: "poisoned".into(),
        })
    }
}

fn not_found(kind: &'static str, id: &str) -> Error {
    Error::NotFound {
        kind,
        id: id.to_string(),
    }
}

#[async_trait]
impl ItemStore for HashMapStore {
    fn backend(&self) -> &'static str {
        "hashmap"
    }

    async fn put_items(&self, items: &[Item]) -> Result<()> {
        items.iter().try_for_each(Item::validate)?;
        let mut maps = self.lock()?;
        for item in items {
            maps.items.insert(item.id.clone(), item.clone());
        }
        Ok(())
    }

    async fn get_item(&self, id: &str) -> Result<Option<Item>> {
        Ok(self.lock()?.items.get(id).cloned())
    }

    async fn delete_item(&self, id: &str) -> Result<bool> {
        Ok(self.lock()?.items.remove(id).is_some())
    }

    async fn scan_items(&self, scan: &ItemScan) -> Result<Vec<Item>> {
        let maps = self.lock()?;
        let mut items: Vec<&Item> = maps
            .items
            .values()
            .filter(|i| scan.after_id.as_ref().is_none_or(|a| i.id > *a) && scan.matches(i))
            .collect();
        items.sort_by(|a, b| a.id.cmp(&b.id));
        items.truncate(scan.limit.unwrap_or(usize::MAX));
        Ok(items.into_iter().cloned().collect())
    }

    async fn count_items(&self) -> Result<u64> {
        Ok(self.lock()?.items.len() as u64)
    }
}

#[async_trait]
impl AccessCounts for HashMapStore {
    async fn record_access(&self, id: &str) -> Result<u64> {
        let mut maps = self.lock()?;
        let item = maps
            .items
            .get_mut(id)
            .ok_or_else(|| not_found("item", id))?;
        item.access_count += 1;
        Ok(item.access_count)
    }
}

#[async_trait]
impl TocStore for HashMapStore {
    async fn get_toc_node(&self, node_id: &str) -> Result<Option<TocNode>> {
        Ok(self.lock()?.nodes.get(node_id).cloned())
    }

    async fn put_toc_node(&self, mut node: TocNode) -> Result<TocNode> {
        let mut maps = self.lock()?;
        node.version = maps.nodes.get(&node.node_id).map_or(0, |n| n.version) + 1;
        maps.nodes.insert(node.node_id.clone(), node.clone());
        Ok(node)
    }

    async fn toc_children(&self, parent_id: &str) -> Result<Vec<TocNode>> {
        let maps = self.lock()?;
        let mut children: Vec<TocNode> = if parent_id.is_empty() {
            let years = maps.nodes.values().filter(|n| n.level == TocLevel::Year);
            years.cloned().collect()
        } else {
            let parent = maps
                .nodes
                .get(parent_id)
                .ok_or_else(|| not_found("toc node", parent_id))?;
            let ids = parent.child_node_ids.iter();
            ids.filter_map(|id| maps.nodes.get(id).cloned()).collect()
        };
        children.sort_by(|a, b| (a.start_time, &a.node_id).cmp(&(b.start_time, &b.node_id)));
        Ok(children)
    }

    async fn put_grips(&self, grips: &[Grip]) -> Result<()> {
        let mut maps = self.lock()?;
        for g in grips {
            maps.grips.insert(g.grip_id.clone(), g.clone());
        }
        Ok(())
    }

    async fn get_grip(&self, grip_id: &str) -> Result<Option<Grip>> {
        Ok(self.lock()?.grips.get(grip_id).cloned())
    }
}

#[tokio::test]
async fn a_hashmap_store_keeps_the_store_contract() {
    contract::store_contract(&HashMapStore::default()).await;
}

#[tokio::test]
async fn a_search_engine_runs_over_a_user_store() {
    let store = Arc::new(HashMapStore::default());
    let dir = tempfile::tempdir().unwrap();
    let open = |store: Arc<HashMapStore>| {
        SearchEngine::with_store(
            dir.path(),
            store,
            Arc::new(WordHash),
            EngineConfig::default(),
        )
    };
    {
        let engine = open(store.clone()).await.unwrap();
        engine.upsert(&contract::corpus()).await.unwrap();
        assert_eq!(
            store.count_items().await.unwrap(),
            5,
            "written to the user's store"
        );
        contract::search_contract(&engine).await;
        assert_eq!(engine.record_access("r_bread").await.unwrap(), 1);
        assert_eq!(
            store
                .get_item("r_bread")
                .await
                .unwrap()
                .unwrap()
                .access_count,
            1
        );
    }

    // Written to the store behind the engine's back: indexed when the engine reopens.
    let mut bread = store.get_item("r_bread").await.unwrap().unwrap();
    bread.title = "Rye loaf recipe".into();
    store.put_item(&bread).await.unwrap();
    store.delete_item("a_garden").await.unwrap();
    let engine = open(store.clone()).await.unwrap();
    let keyword = |q: &str| SearchRequest::new(q).unwrap().mode(SearchMode::Keyword);
    let rye = engine.search(&keyword("rye loaf")).await.unwrap();
    assert_eq!(rye.results[0].item_id, "r_bread");
    let garden = engine.search(&keyword("garden compost")).await.unwrap();
    assert!(garden.results.is_empty(), "{:?}", garden.results);
    assert_eq!(engine.len(), 4);
    assert!(engine.delete("r_bread").await.unwrap());
    assert_eq!(store.get_item("r_bread").await.unwrap(), None);
}
