//! [`RedbStore`]: the on-disk source of truth, an embedded [redb](https://docs.rs/redb)
//! database.
//!
//! Besides the items it keeps what the derived indexes need to be rebuilt without the
//! embedding model: each item's chunk vectors, a stable `u64` key per item (the key both indexes use),
//! and a change log (`seq → key`) that records every write in commit order. An index remembers
//! the last sequence number it has applied; on open the engine replays the log past that number,
//! which repairs any divergence left by a crash between the store commit and the index writes.

mod catalog_log;
mod conversations;
mod facts;
mod probe;
mod service;

pub(crate) use catalog_log::Stamp;
pub(crate) use facts::{
    decode_batch as decode_facts_batch, write as encode_facts, Fields as FactFields,
};
pub(crate) use probe::Damage;
mod vectors;

use crate::chunk::ItemVectors;
use crate::{Error, Result};
use navigator_core::Item;
use redb::{Database, ReadableTable, ReadableTableMetadata, TableDefinition};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

const ITEMS: TableDefinition<&str, &[u8]> = TableDefinition::new("items");
const KEYS: TableDefinition<&str, u64> = TableDefinition::new("keys");
const IDS: TableDefinition<u64, &str> = TableDefinition::new("ids");
const VECTORS: TableDefinition<u64, &[u8]> = TableDefinition::new("vectors");
const CHANGES: TableDefinition<u64, u64> = TableDefinition::new("changes");
const COUNTERS: TableDefinition<&str, u64> = TableDefinition::new("counters");
const TOC_NODES: TableDefinition<&str, &[u8]> = TableDefinition::new("toc_nodes");
const GRIPS: TableDefinition<&str, &[u8]> = TableDefinition::new("grips");
/// Conversation records (`ConversationStore`), JSON by conversation id.
const CONVERSATIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("conversations");
/// Facts about the index as a whole (the embedding model it was built with).
const META: TableDefinition<&str, &str> = TableDefinition::new("meta");

const NEXT_KEY: &str = "next_key";
const NEXT_SEQ: &str = "next_seq";
/// Facts decoded per batch when the catalog loads.
pub(crate) const FACTS_BATCH: usize = 65_536;

/// The positions in `items` that survive "the last write of an id wins" within one batch, in
/// order (indexing a duplicate twice would leave two documents for one item).
pub(crate) fn last_write_of_each_id(items: &[Item]) -> Vec<usize> {
    let mut last_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, item) in items.iter().enumerate() {
        last_of.insert(item.id.as_str(), i);
    }
    (0..items.len())
        .filter(|&i| last_of[items[i].id.as_str()] == i)
        .collect()
}

/// One committed write: the item's index key and the write's sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) seq: u64,
    pub(crate) key: u64,
}

/// The embedded on-disk store (redb). Implements [`navigator_core::Store`] and
/// [`navigator_core::ConversationStore`]; the search engine uses it as its source of truth.
///
/// Every write is one ACID transaction, durable when the call returns. Clones share the one
/// open database (a search engine's store can be handed to a tool as an `Arc<dyn Store>`).
#[derive(Clone)]
pub struct RedbStore {
    db: std::sync::Arc<Database>,
    path: PathBuf,
    /// Whether opening needed redb's recovery (the file was not closed cleanly).
    recovered: bool,
}

impl std::fmt::Debug for RedbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbStore")
            .field("path", &self.path)
            .finish()
    }
}

impl RedbStore {
    /// Opens the database file at `path`, creating it (and its tables) when missing.
    ///
    /// An existing file is first opened in memory (`store/probe.rs`): a file redb cannot open
    /// (truncated, overwritten, damaged) is refused with an [`Error::Storage`] naming it —
    /// never a panic — and left unchanged.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        Self::open_unless_damaged(path)?.map_err(|damage| damaged(path, damage))
    }

    /// [`open`](Self::open), with a damaged file as the inner `Err`, apart from the other
    /// failures (the file is in use, the disk fails).
    pub(crate) fn open_unless_damaged(path: &Path) -> Result<std::result::Result<Self, Damage>> {
        let path = path.to_path_buf();
        let existing = std::fs::metadata(&path).is_ok_and(|m| m.len() > 0);
        let mut recovered = false;
        if existing {
            match probe::probe(&path, create_tables) {
                Ok(r) => recovered = r,
                Err(damage) => return Ok(Err(damage)),
            }
        }
        if recovered {
            // Nothing acknowledged is lost, but redb reads the whole file to rebuild its
            // allocator state (twice: in the probe and for real), which at a million items
            // takes seconds: say why this open is slow.
            tracing::warn!(
                path = %path.display(),
                "the store was not closed cleanly (a crash or a kill); recovering it"
            );
        }
        let db = match catch_unwind(AssertUnwindSafe(|| Database::create(&path))) {
            Ok(Err(redb::DatabaseError::DatabaseAlreadyOpen)) => {
                return Err(Error::InUse { path });
            }
            Ok(db) => db.map_err(|e| storage(&path, e))?,
            Err(_) => {
                return Ok(Err(Damage {
                    why: "redb failed opening it".into(),
                    source: None,
                }))
            }
        };
        let store = Self {
            db: std::sync::Arc::new(db),
            path,
            recovered,
        };
        create_tables(&store.db).map_err(|e| store.err(*e))?;
        Ok(Ok(store))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether opening needed redb's recovery: the file was not closed cleanly (a crash or a
    /// kill while it was open). Every acknowledged write is still there; the recovery only
    /// made this open slower.
    pub fn recovered_at_open(&self) -> bool {
        self.recovered
    }

    fn err(&self, e: impl Into<navigator_core::BoxError>) -> Error {
        storage(&self.path, e)
    }

    /// Writes items (with their vectors when given, in the same order) in one transaction and
    /// logs one change per item. Items are validated first, so a bad item writes nothing.
    pub(crate) fn write_items(
        &self,
        items: &[Item],
        vectors: Option<&[ItemVectors]>,
    ) -> Result<Vec<Change>> {
        for item in items {
            item.validate()?;
        }
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        let mut changes = Vec::with_capacity(items.len());
        {
            let mut item_t = txn.open_table(ITEMS).map_err(|e| self.err(e))?;
            let mut keys = txn.open_table(KEYS).map_err(|e| self.err(e))?;
            let mut ids = txn.open_table(IDS).map_err(|e| self.err(e))?;
            let mut vec_t = txn.open_table(VECTORS).map_err(|e| self.err(e))?;
            let mut log = txn.open_table(CHANGES).map_err(|e| self.err(e))?;
            let mut facts_t = txn.open_table(facts::FACTS).map_err(|e| self.err(e))?;
            let mut counters = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
            let mut next_key = counter(&counters, NEXT_KEY).map_err(|e| self.err(e))?;
            let mut next_seq = counter(&counters, NEXT_SEQ).map_err(|e| self.err(e))?;
            let facts_whole = facts_known_whole(&counters, next_seq).map_err(|e| self.err(e))?;
            for (i, item) in items.iter().enumerate() {
                let existing = keys
                    .get(item.id.as_str())
                    .map_err(|e| self.err(e))?
                    .map(|g| g.value());
                let key = match existing {
                    Some(k) => k,
                    None => {
                        next_key += 1;
                        keys.insert(item.id.as_str(), next_key)
                            .map_err(|e| self.err(e))?;
                        ids.insert(next_key, item.id.as_str())
                            .map_err(|e| self.err(e))?;
                        next_key
                    }
                };
                let json = serde_json::to_vec(item).map_err(|e| self.err(e))?;
                let previous = item_t
                    .insert(item.id.as_str(), json.as_slice())
                    .map_err(|e| self.err(e))?
                    .map(|old| self.decode(&item.id, old.value()))
                    .transpose()?;
                match vectors.map(|v| &v[i]) {
                    Some(v) => {
                        vec_t
                            .insert(key, vectors::encode(v).as_slice())
                            .map_err(|e| self.err(e))?;
                    }
                    // A write without a vector keeps the old one while the embedded text is
                    // the same, and otherwise makes it stale: the engine embeds items without
                    // vectors when it next opens.
                    None => {
                        let same_text = previous
                            .is_some_and(|old| old.embedding_text() == item.embedding_text());
                        if !same_text {
                            vec_t.remove(key).map_err(|e| self.err(e))?;
                        }
                    }
                }
                let item_facts = facts::encode(item);
                facts_t
                    .insert(key, item_facts.as_slice())
                    .map_err(|e| self.err(e))?;
                next_seq += 1;
                log.insert(next_seq, key).map_err(|e| self.err(e))?;
                changes.push(Change { seq: next_seq, key });
            }
            counters
                .insert(NEXT_KEY, next_key)
                .map_err(|e| self.err(e))?;
            counters
                .insert(NEXT_SEQ, next_seq)
                .map_err(|e| self.err(e))?;
            if facts_whole {
                counters
                    .insert(facts::FACTS_SEQ, next_seq)
                    .map_err(|e| self.err(e))?;
            }
        }
        txn.commit().map_err(|e| self.err(e))?;
        Ok(changes)
    }

    /// The keys [`write_items`](Self::write_items) would give `items` (ids distinct) if it
    /// ran now: each existing id's key, and new keys in order for the others; and the first
    /// new key (every key from it on is new). The engine builds the keyword documents with
    /// them while the store writes.
    pub(crate) fn planned_keys(&self, items: &[Item]) -> Result<(Vec<u64>, u64)> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let keys = txn.open_table(KEYS).map_err(|e| self.err(e))?;
        let counters = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
        let mut next_key = counter(&counters, NEXT_KEY).map_err(|e| self.err(e))?;
        let first_new = next_key + 1;
        let planned = items
            .iter()
            .map(|item| {
                let existing = keys.get(item.id.as_str()).map_err(|e| self.err(e))?;
                Ok(match existing {
                    Some(key) => key.value(),
                    None => {
                        next_key += 1;
                        next_key
                    }
                })
            })
            .collect::<Result<Vec<u64>>>()?;
        Ok((planned, first_new))
    }

    /// Deletes an item and its vector, logging the change; `None` when it did not exist.
    pub(crate) fn remove_item(&self, id: &str) -> Result<Option<Change>> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        let change = {
            let mut item_t = txn.open_table(ITEMS).map_err(|e| self.err(e))?;
            if item_t.remove(id).map_err(|e| self.err(e))?.is_none() {
                return Ok(None);
            }
            let keys = txn.open_table(KEYS).map_err(|e| self.err(e))?;
            let key = keys
                .get(id)
                .map_err(|e| self.err(e))?
                .map(|g| g.value())
                .ok_or_else(|| self.corrupt("key", id, "item has no index key"))?;
            let mut vec_t = txn.open_table(VECTORS).map_err(|e| self.err(e))?;
            vec_t.remove(key).map_err(|e| self.err(e))?;
            let mut facts_t = txn.open_table(facts::FACTS).map_err(|e| self.err(e))?;
            facts_t.remove(key).map_err(|e| self.err(e))?;
            let mut counters = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
            let seq = counter(&counters, NEXT_SEQ).map_err(|e| self.err(e))? + 1;
            if facts_known_whole(&counters, seq - 1).map_err(|e| self.err(e))? {
                counters
                    .insert(facts::FACTS_SEQ, seq)
                    .map_err(|e| self.err(e))?;
            }
            counters.insert(NEXT_SEQ, seq).map_err(|e| self.err(e))?;
            let mut log = txn.open_table(CHANGES).map_err(|e| self.err(e))?;
            log.insert(seq, key).map_err(|e| self.err(e))?;
            Change { seq, key }
        };
        txn.commit().map_err(|e| self.err(e))?;
        Ok(Some(change))
    }

    /// The item with this id.
    pub(crate) fn item(&self, id: &str) -> Result<Option<Item>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(ITEMS).map_err(|e| self.err(e))?;
        let guard = t.get(id).map_err(|e| self.err(e))?;
        guard.map(|g| self.decode(id, g.value())).transpose()
    }

    /// The item stored under an index key, with its id.
    pub(crate) fn item_by_key(&self, key: u64) -> Result<Option<Item>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let ids = txn.open_table(IDS).map_err(|e| self.err(e))?;
        let Some(id) = ids
            .get(key)
            .map_err(|e| self.err(e))?
            .map(|g| g.value().to_string())
        else {
            return Ok(None);
        };
        let t = txn.open_table(ITEMS).map_err(|e| self.err(e))?;
        let guard = t.get(id.as_str()).map_err(|e| self.err(e))?;
        guard.map(|g| self.decode(&id, g.value())).transpose()
    }

    /// The items of `keys` (`None` for a key no live item has), in order, read in one
    /// transaction.
    pub(crate) fn items_by_keys(&self, keys: &[u64]) -> Result<Vec<Option<Item>>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let ids = txn.open_table(IDS).map_err(|e| self.err(e))?;
        let items = txn.open_table(ITEMS).map_err(|e| self.err(e))?;
        keys.iter()
            .map(|key| {
                let Some(id) = ids.get(*key).map_err(|e| self.err(e))? else {
                    return Ok(None);
                };
                let id = id.value();
                let guard = items.get(id).map_err(|e| self.err(e))?;
                guard.map(|g| self.decode(id, g.value())).transpose()
            })
            .collect()
    }

    /// The items with these ids, in order, read in one transaction.
    pub(crate) fn items_by_ids(&self, ids: &[&str]) -> Result<Vec<Option<Item>>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let items = txn.open_table(ITEMS).map_err(|e| self.err(e))?;
        ids.iter()
            .map(|id| {
                let guard = items.get(*id).map_err(|e| self.err(e))?;
                guard.map(|g| self.decode(id, g.value())).transpose()
            })
            .collect()
    }

    /// Calls `f` with every item and its key, in id order, from one consistent snapshot.
    pub(crate) fn for_each_item(&self, mut f: impl FnMut(u64, Item) -> Result<()>) -> Result<()> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(ITEMS).map_err(|e| self.err(e))?;
        let keys = txn.open_table(KEYS).map_err(|e| self.err(e))?;
        // Both tables are ordered by id: walking them side by side finds each item's key
        // without a lookup per item (a million lookups were most of opening a large index).
        let mut key_rows = keys.iter().map_err(|e| self.err(e))?.peekable();
        for row in t.iter().map_err(|e| self.err(e))? {
            let (id, json) = row.map_err(|e| self.err(e))?;
            let item = self.decode(id.value(), json.value())?;
            let mut key = None;
            while let Some(Ok((key_id, k))) = key_rows.peek() {
                match key_id.value().cmp(id.value()) {
                    std::cmp::Ordering::Less => {
                        key_rows.next();
                    }
                    std::cmp::Ordering::Equal => {
                        key = Some(k.value());
                        key_rows.next();
                        break;
                    }
                    std::cmp::Ordering::Greater => break,
                }
            }
            let key = match key {
                Some(key) => key,
                None => keys
                    .get(id.value())
                    .map_err(|e| self.err(e))?
                    .map(|g| g.value())
                    .ok_or_else(|| self.corrupt("key", id.value(), "item has no index key"))?,
            };
            f(key, item)?;
        }
        Ok(())
    }

    /// The key and facts (the item without body and metadata) of every item, in key order,
    /// each passed through `map`, handed to `sink` a batch at a time: what the engine's
    /// catalog is built from. Each batch is decoded on every core while `sink` takes the one
    /// before. Rebuilds the facts table from the items first when it is not known to be
    /// complete (a store written by an earlier version).
    pub(crate) fn item_facts<T: Send>(
        &self,
        map: impl Fn(u64, Item) -> T + Sync,
        mut sink: impl FnMut(Vec<T>),
    ) -> Result<()> {
        let whole = {
            let txn = self.db.begin_read().map_err(|e| self.err(e))?;
            let counters = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
            let next_seq = counter(&counters, NEXT_SEQ).map_err(|e| self.err(e))?;
            facts_known_whole(&counters, next_seq).map_err(|e| self.err(e))?
                && txn
                    .open_table(facts::FACTS)
                    .and_then(|t| t.len().map_err(Into::into))
                    .ok()
                    == txn
                        .open_table(ITEMS)
                        .and_then(|t| t.len().map_err(Into::into))
                        .ok()
        };
        if !whole {
            self.rebuild_facts()?;
        }
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(facts::FACTS).map_err(|e| self.err(e))?;
        let mut rows = t.iter().map_err(|e| self.err(e))?;
        let mut decoded: Vec<T> = Vec::new();
        // A batch: the rows' bytes end to end, and each row's key and end offset.
        let (mut bytes, mut ends): (Vec<u8>, Vec<(u64, usize)>) = (Vec::new(), Vec::new());
        loop {
            bytes.clear();
            ends.clear();
            for row in rows.by_ref().take(FACTS_BATCH) {
                let (key, value) = row.map_err(|e| self.err(e))?;
                bytes.extend_from_slice(value.value());
                ends.push((key.value(), bytes.len()));
            }
            if ends.is_empty() {
                sink(decoded);
                return Ok(());
            }
            // The batch before goes to the sink while this one is decoded.
            let before = std::mem::take(&mut decoded);
            decoded = facts::decode_batch(&bytes, &ends, 0, &map, || sink(before))
                .map_err(|(key, e)| self.corrupt("facts", &key.to_string(), e))?;
        }
    }

    /// Writes the facts table again from the items, in one transaction.
    fn rebuild_facts(&self) -> Result<()> {
        let mut rows: Vec<(u64, Vec<u8>)> = Vec::new();
        self.for_each_item(|key, item| {
            rows.push((key, facts::encode(&item)));
            Ok(())
        })?;
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            txn.delete_table(facts::FACTS).map_err(|e| self.err(e))?;
            let mut t = txn.open_table(facts::FACTS).map_err(|e| self.err(e))?;
            for (key, bytes) in &rows {
                t.insert(*key, bytes.as_slice()).map_err(|e| self.err(e))?;
            }
            let mut counters = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
            let next_seq = counter(&counters, NEXT_SEQ).map_err(|e| self.err(e))?;
            counters
                .insert(facts::FACTS_SEQ, next_seq)
                .map_err(|e| self.err(e))?;
        }
        txn.commit().map_err(|e| self.err(e))
    }

    /// The stored vectors of an item key.
    pub(crate) fn vector(&self, key: u64) -> Result<Option<ItemVectors>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(VECTORS).map_err(|e| self.err(e))?;
        let guard = t.get(key).map_err(|e| self.err(e))?;
        guard
            .map(|g| {
                vectors::decode(g.value()).ok_or_else(|| {
                    self.corrupt("vector", &key.to_string(), "not a vector table entry")
                })
            })
            .transpose()
    }

    /// Stores vectors for items that were written without one (repair after open).
    pub(crate) fn put_vectors(&self, vectors: &[(u64, ItemVectors)]) -> Result<()> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut t = txn.open_table(VECTORS).map_err(|e| self.err(e))?;
            for (key, v) in vectors {
                t.insert(*key, vectors::encode(v).as_slice())
                    .map_err(|e| self.err(e))?;
            }
        }
        txn.commit().map_err(|e| self.err(e))
    }

    /// The changes logged after `seq`, in order.
    pub(crate) fn changes_after(&self, seq: u64) -> Result<Vec<Change>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(CHANGES).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in t.range(seq + 1..).map_err(|e| self.err(e))? {
            let (s, k) = row.map_err(|e| self.err(e))?;
            out.push(Change {
                seq: s.value(),
                key: k.value(),
            });
        }
        Ok(out)
    }

    /// Drops change-log entries every index has applied (`seq` and before), keeping those
    /// after the catalog snapshot's stamp (the next open applies them to it).
    pub(crate) fn prune_changes(&self, seq: u64) -> Result<()> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        let floor = {
            let counters = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
            Self::snapshot_floor(&counters).map_err(|e| self.err(e))?
        };
        let seq = floor.map_or(seq, |f| f.min(seq));
        let all = {
            let mut t = txn.open_table(CHANGES).map_err(|e| self.err(e))?;
            let last = t.last().map_err(|e| self.err(e))?.map(|(k, _)| k.value());
            let all = last.is_some_and(|last| last <= seq);
            if !all {
                t.retain_in(..=seq, |_, _| false).map_err(|e| self.err(e))?;
            }
            all
        };
        if all {
            // Dropping the whole log frees its pages at once; deleting 100k entries one by
            // one took 2.7 s.
            txn.delete_table(CHANGES).map_err(|e| self.err(e))?;
            txn.open_table(CHANGES).map_err(|e| self.err(e))?;
        }
        txn.commit().map_err(|e| self.err(e))
    }

    /// The sequence number of the last committed write (0 for a new store).
    pub(crate) fn last_seq(&self) -> Result<u64> {
        self.read_counter(NEXT_SEQ)
    }

    /// A named counter (an index's applied sequence number, for instance); 0 when unset.
    pub(crate) fn read_counter(&self, name: &str) -> Result<u64> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
        counter(&t, name).map_err(|e| self.err(e))
    }

    /// Sets a named counter.
    pub(crate) fn write_counter(&self, name: &str, value: u64) -> Result<()> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut t = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
            t.insert(name, value).map_err(|e| self.err(e))?;
        }
        txn.commit().map_err(|e| self.err(e))
    }

    /// A named fact about the index (`None` when never set).
    pub(crate) fn meta(&self, name: &str) -> Result<Option<String>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(META).map_err(|e| self.err(e))?;
        let value = t.get(name).map_err(|e| self.err(e))?;
        Ok(value.map(|v| v.value().to_string()))
    }

    /// Sets a named fact about the index.
    pub(crate) fn set_meta(&self, name: &str, value: &str) -> Result<()> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut t = txn.open_table(META).map_err(|e| self.err(e))?;
            t.insert(name, value).map_err(|e| self.err(e))?;
        }
        txn.commit().map_err(|e| self.err(e))
    }

    /// Forgets every stored vector and records `model` as the index's model, in one
    /// transaction (before re-embedding everything with that model).
    pub(crate) fn reset_vectors(&self, model_name: &str, model: &str) -> Result<()> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut t = txn.open_table(VECTORS).map_err(|e| self.err(e))?;
            t.retain(|_, _| false).map_err(|e| self.err(e))?;
            let mut m = txn.open_table(META).map_err(|e| self.err(e))?;
            m.insert(model_name, model).map_err(|e| self.err(e))?;
        }
        txn.commit().map_err(|e| self.err(e))
    }

    /// How many items are stored.
    pub(crate) fn len(&self) -> Result<u64> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(ITEMS).map_err(|e| self.err(e))?;
        t.len().map_err(|e| self.err(e))
    }

    /// Adds one to an item's access count; the updated item, `None` for an unknown id.
    /// Not logged as a change (access counts feed ranking, not the indexes) but in the access
    /// log, which the catalog snapshot is brought up to date from.
    pub(crate) fn bump_access(&self, id: &str) -> Result<Option<Item>> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        let item = {
            let mut t = txn.open_table(ITEMS).map_err(|e| self.err(e))?;
            let current = t
                .get(id)
                .map_err(|e| self.err(e))?
                .map(|g| g.value().to_vec());
            let Some(json) = current else {
                return Ok(None);
            };
            let mut item = self.decode(id, &json)?;
            item.access_count = item.access_count.saturating_add(1);
            let json = serde_json::to_vec(&item).map_err(|e| self.err(e))?;
            t.insert(id, json.as_slice()).map_err(|e| self.err(e))?;
            let key = txn
                .open_table(KEYS)
                .map_err(|e| self.err(e))?
                .get(id)
                .map_err(|e| self.err(e))?
                .map(|g| g.value());
            if let Some(key) = key {
                catalog_log::log_access(&txn, key).map_err(|e| self.err(e))?;
                let item_facts = facts::encode(&item);
                txn.open_table(facts::FACTS)
                    .map_err(|e| self.err(e))?
                    .insert(key, item_facts.as_slice())
                    .map_err(|e| self.err(e))?;
            }
            item
        };
        txn.commit().map_err(|e| self.err(e))?;
        Ok(Some(item))
    }

    fn decode(&self, id: &str, json: &[u8]) -> Result<Item> {
        serde_json::from_slice(json).map_err(|e| self.corrupt("item", id, e))
    }

    fn corrupt(&self, what: &'static str, key: &str, e: impl std::fmt::Display) -> Error {
        Error::Corrupt {
            what,
            key: key.to_string(),
            message: format!("{e} (in {})", self.path.display()),
        }
    }
}

/// A store failure at `path`, keeping redb's (or the OS's) error as the source.
/// Whether the facts table is known to hold every item at sequence `seq` (its counter was
/// kept in step with every write since it was complete).
fn facts_known_whole(
    counters: &impl ReadableTable<&'static str, u64>,
    seq: u64,
) -> std::result::Result<bool, redb::StorageError> {
    Ok(counter(counters, facts::FACTS_SEQ)? == seq)
}

/// Opens (creating when missing) every table, in one committed transaction.
fn create_tables(db: &Database) -> std::result::Result<(), Box<redb::Error>> {
    let txn = db.begin_write().map_err(|e| Box::new(e.into()))?;
    for result in [
        txn.open_table(ITEMS).map(drop),
        txn.open_table(KEYS).map(drop),
        txn.open_table(IDS).map(drop),
        txn.open_table(VECTORS).map(drop),
        txn.open_table(CHANGES).map(drop),
        txn.open_table(COUNTERS).map(drop),
        txn.open_table(TOC_NODES).map(drop),
        txn.open_table(GRIPS).map(drop),
        txn.open_table(CONVERSATIONS).map(drop),
        txn.open_table(META).map(drop),
        txn.open_table(facts::FACTS).map(drop),
        txn.open_table(catalog_log::ACCESS_LOG).map(drop),
    ] {
        result.map_err(|e| Box::new(e.into()))?;
    }
    txn.commit().map_err(|e| Box::new(e.into()))
}

/// The error for a store file redb cannot open: what is wrong, and what to do.
fn damaged(path: &Path, damage: Damage) -> Error {
    Error::Storage {
        path: path.to_path_buf(),
        message: format!(
            "the store file is damaged and was left as it is: {}; restore it from a backup, \
             or remove the directory and index the notes again",
            damage.why
        ),
        source: damage.source,
    }
}

fn storage(path: &Path, e: impl Into<navigator_core::BoxError>) -> Error {
    let source = e.into();
    Error::Storage {
        path: path.to_path_buf(),
        message: source.to_string(),
        source: Some(source),
    }
}

fn counter(
    t: &impl ReadableTable<&'static str, u64>,
    name: &str,
) -> std::result::Result<u64, redb::StorageError> {
    Ok(t.get(name)?.map_or(0, |g| g.value()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_core::ItemType;

    fn item(id: &str) -> Item {
        let t = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .to_utc();
        Item::new(id, ItemType::Task, format!("title {id}"), t).unwrap()
    }

    /// Every item's facts, by key, as the catalog reads them.
    fn facts_of(store: &RedbStore) -> Vec<(u64, Item)> {
        let mut all = Vec::new();
        store
            .item_facts(|key, item| (key, item), |batch| all.extend(batch))
            .unwrap();
        all
    }

    #[test]
    fn facts_stored_as_json_by_earlier_versions_load_and_are_upgraded_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = RedbStore::open(dir.path().join("s.redb")).unwrap();
        let items: Vec<Item> = (0..4).map(|i| item(&format!("j{i}"))).collect();
        store.write_items(&items, None).unwrap();
        let current = facts_of(&store);
        // Rows 0 and 2 as an earlier version wrote them: the JSON of the item without body.
        let txn = store.db.begin_write().unwrap();
        {
            let mut t = txn.open_table(facts::FACTS).unwrap();
            for (key, item) in [&current[0], &current[2]] {
                let json = serde_json::to_vec(item).unwrap();
                t.insert(*key, json.as_slice()).unwrap();
            }
        }
        txn.commit().unwrap();
        assert_eq!(facts_of(&store), current, "JSON facts still load");
        assert_eq!(store.upgrade_facts().unwrap(), 2);
        assert_eq!(facts_of(&store), current);
        let txn = store.db.begin_read().unwrap();
        let t = txn.open_table(facts::FACTS).unwrap();
        for row in t.iter().unwrap() {
            assert_ne!(row.unwrap().1.value()[0], b'{', "every row binary");
        }
        assert_eq!(store.upgrade_facts().unwrap(), 0, "nothing left to upgrade");
    }

    #[test]
    fn facts_follow_every_write_and_are_rebuilt_when_not_known_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = RedbStore::open(dir.path().join("s.redb")).unwrap();
        let mut items: Vec<Item> = (0..5).map(|i| item(&format!("t{i}"))).collect();
        items[1].body = "a body the facts leave out".into();
        store.write_items(&items, None).unwrap();
        store.remove_item("t3").unwrap();
        store.bump_access("t2").unwrap();
        items[0].title = "renamed".into();
        store.write_items(&items[..1], None).unwrap();
        let facts = facts_of(&store);
        let ids: Vec<&str> = facts.iter().map(|(_, i)| i.id.as_str()).collect();
        assert_eq!(ids, ["t0", "t1", "t2", "t4"], "in key order, t3 gone");
        assert_eq!(facts[0].1.title, "renamed");
        assert_eq!(facts[1].1.body, "", "no body");
        assert_eq!(facts[2].1.access_count, 1);

        // A store whose facts are not known to be whole (written by an earlier version):
        // rebuilt from the items.
        let txn = store.db.begin_write().unwrap();
        {
            txn.open_table(COUNTERS)
                .unwrap()
                .remove(facts::FACTS_SEQ)
                .unwrap();
            txn.open_table(facts::FACTS).unwrap().remove(1).unwrap();
        }
        txn.commit().unwrap();
        store.bump_access("t4").unwrap();
        let rebuilt = facts_of(&store);
        assert_eq!(rebuilt.len(), 4);
        assert_eq!(rebuilt[0].1.title, "renamed");
        assert_eq!(rebuilt[3].1.access_count, 1);
        store.write_items(&[item("t9")], None).unwrap();
        assert_eq!(facts_of(&store).len(), 5, "whole again, and kept so");
    }

    /// Defect 4 of the reliability audit: a truncated store file made open panic inside
    /// redb. It is now a typed error naming the file, the file is left as it was, and an
    /// intact file still opens with everything in it.
    #[test]
    fn defect_4_a_truncated_store_is_a_typed_error_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        {
            let store = RedbStore::open(&path).unwrap();
            let items: Vec<Item> = (0..200).map(|i| item(&format!("i{i}"))).collect();
            store.write_items(&items, None).unwrap();
        }
        let intact = std::fs::read(&path).unwrap();
        for cut in [intact.len() / 2, intact.len() / 3, 4096] {
            std::fs::write(&path, &intact[..cut]).unwrap();
            let err = RedbStore::open(&path).unwrap_err();
            assert_eq!(err.kind(), navigator_core::ErrorKind::CorruptIndex, "{err}");
            let text = err.to_string();
            assert!(
                text.contains("store.redb") && text.contains("damaged"),
                "{text}"
            );
            assert_eq!(
                std::fs::read(&path).unwrap(),
                &intact[..cut],
                "left as it was"
            );
        }
        std::fs::write(&path, &intact).unwrap();
        let store = RedbStore::open(&path).unwrap();
        assert!(store.item_by_key(1).unwrap().is_some());
    }

    #[test]
    fn a_store_open_elsewhere_is_refused_once_in_plain_words_and_left_working() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        let first = RedbStore::open(&path).unwrap();
        first.write_items(&[item("a")], None).unwrap();
        let err = RedbStore::open(&path).unwrap_err();
        assert!(matches!(err, Error::InUse { .. }), "{err:?}");
        assert_eq!(err.kind(), navigator_core::ErrorKind::Unavailable);
        let chain = format!("{:#}", anyhow::Error::from(err));
        assert!(chain.contains("already open"), "{chain}");
        assert_eq!(
            chain.matches("already open").count(),
            1,
            "said once: {chain}"
        );
        assert!(first.item_by_key(1).unwrap().is_some());
        drop(first);
        assert!(RedbStore::open(&path)
            .unwrap()
            .item_by_key(1)
            .unwrap()
            .is_some());
    }

    #[test]
    fn a_store_left_open_is_recovered_and_a_closed_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        let copy = dir.path().join("copy.redb");
        let store = RedbStore::open(&path).unwrap();
        assert!(!store.recovered_at_open(), "a new file");
        store.write_items(&[item("a")], None).unwrap();
        // The bytes of a store still open: what a kill leaves behind.
        std::fs::copy(&path, &copy).unwrap();
        drop(store);
        let crashed = RedbStore::open(&copy).unwrap();
        assert!(crashed.recovered_at_open());
        assert!(
            crashed.item_by_key(1).unwrap().is_some(),
            "nothing acknowledged is lost"
        );
        let closed = RedbStore::open(&path).unwrap();
        assert!(!closed.recovered_at_open());
    }

    #[test]
    fn writes_keep_keys_and_log_every_change() {
        let dir = tempfile::tempdir().unwrap();
        let store = RedbStore::open(dir.path().join("db.redb")).unwrap();
        let c1 = store
            .write_items(
                &[item("a"), item("b")],
                Some(&[
                    ItemVectors::whole(vec![1.0, 0.0]),
                    ItemVectors::whole(vec![0.0, 1.0]),
                ]),
            )
            .unwrap();
        let kept = store.write_items(&[item("b")], None).unwrap();
        assert_eq!(kept[0].key, c1[1].key);
        assert_eq!(
            store.vector(c1[1].key).unwrap(),
            Some(ItemVectors::whole(vec![0.0, 1.0])),
            "same text, vector kept"
        );
        let mut retitled = item("a");
        retitled.title = "another title".into();
        let c2 = store.write_items(&[retitled], None).unwrap();
        assert_eq!(c2[0].key, c1[0].key, "an update keeps the item's key");
        assert_eq!(
            store.vector(c1[0].key).unwrap(),
            None,
            "stale vector dropped"
        );
        assert_eq!(
            store.vector(c1[1].key).unwrap(),
            Some(ItemVectors::whole(vec![0.0, 1.0]))
        );
        let removed = store.remove_item("b").unwrap().unwrap();
        assert_eq!(removed.key, c1[1].key);
        assert_eq!(store.remove_item("b").unwrap(), None);
        let seqs: Vec<u64> = store
            .changes_after(1)
            .unwrap()
            .iter()
            .map(|c| c.seq)
            .collect();
        assert_eq!(seqs, vec![2, 3, 4, 5]);
        store.prune_changes(4).unwrap();
        assert_eq!(store.changes_after(0).unwrap().len(), 1);
        // Pruning every entry drops the log at once; the next write logs again.
        store.prune_changes(9).unwrap();
        assert!(store.changes_after(0).unwrap().is_empty());
        let c2 = store.write_items(&[item("c")], None).unwrap();
        assert_eq!(c2[0].seq, 6);
        assert_eq!(store.changes_after(5).unwrap(), c2);
        store.remove_item("c").unwrap();
        assert_eq!(store.len().unwrap(), 1);
        assert_eq!(store.bump_access("a").unwrap().unwrap().access_count, 1);
        assert_eq!(store.bump_access("zzz").unwrap(), None);
    }

    #[test]
    fn an_invalid_item_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = RedbStore::open(dir.path().join("db.redb")).unwrap();
        let mut bad = item("bad");
        bad.updated_at = bad.created_at - chrono::Duration::days(1);
        let err = store.write_items(&[item("ok"), bad], None).unwrap_err();
        assert!(err.to_string().contains("updatedAt"), "{err}");
        assert_eq!(store.len().unwrap(), 0);
    }
}
