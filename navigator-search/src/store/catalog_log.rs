//! What the engine's catalog snapshot (`catalog.snap`, written beside the store) needs from
//! the store to be trusted and brought up to date on open: the stamp of the snapshot last
//! written (a random token, the change sequence number and the access sequence number it
//! covers), the keys changed since (the change log, which is not pruned past the stamp) and
//! the keys whose access count changed since (the access log, which only the snapshot reads:
//! access counts are not changes of the indexes).
//!
//! Both logs number their entries without gaps, so whether one still holds everything after
//! a number is a count: an older version of this crate that pruned the change log further
//! shows as entries missing, and the snapshot is then not used.

use super::{counter, facts, RedbStore, COUNTERS};
use crate::Result;
use navigator_core::Item;
use redb::{ReadableTable, TableDefinition};

/// Access sequence number → the key of the item whose access count changed.
pub(super) const ACCESS_LOG: TableDefinition<u64, u64> = TableDefinition::new("access_log");
/// The access sequence number of the last access counted.
pub(super) const ACCESS_SEQ: &str = "access_seq";
const SNAPSHOT_TOKEN: &str = "catalog_token";
const SNAPSHOT_SEQ: &str = "catalog_seq";
const SNAPSHOT_ACCESS_SEQ: &str = "catalog_access_seq";

/// Which state of the store a catalog snapshot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// Random, new for each snapshot: a snapshot file is trusted only while the store names
    /// its token (a store restored from a backup, or another index's file, does not).
    pub(crate) token: u64,
    /// The last change the snapshot includes.
    pub(crate) seq: u64,
    /// The last access count change the snapshot includes.
    pub(crate) access_seq: u64,
}

impl RedbStore {
    /// The stamp of the catalog snapshot last recorded, `None` when none was.
    pub(crate) fn snapshot_stamp(&self) -> Result<Option<Stamp>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
        let read = |name| counter(&t, name).map_err(|e| self.err(e));
        let token = read(SNAPSHOT_TOKEN)?;
        Ok((token != 0).then_some(Stamp {
            token,
            seq: read(SNAPSHOT_SEQ)?,
            access_seq: read(SNAPSHOT_ACCESS_SEQ)?,
        }))
    }

    /// The store's current change and access sequence numbers, read together.
    pub(crate) fn sequence_numbers(&self) -> Result<(u64, u64)> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
        let read = |name| counter(&t, name).map_err(|e| self.err(e));
        Ok((read(super::NEXT_SEQ)?, read(ACCESS_SEQ)?))
    }

    /// Records that the snapshot file now holds `stamp`, and drops the access log up to it
    /// (nothing else reads it). From now on the change log is kept from `stamp.seq` on.
    pub(crate) fn record_snapshot(&self, stamp: Stamp) -> Result<()> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut t = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
            for (name, value) in [
                (SNAPSHOT_TOKEN, stamp.token),
                (SNAPSHOT_SEQ, stamp.seq),
                (SNAPSHOT_ACCESS_SEQ, stamp.access_seq),
            ] {
                t.insert(name, value).map_err(|e| self.err(e))?;
            }
            let mut log = txn.open_table(ACCESS_LOG).map_err(|e| self.err(e))?;
            log.retain_in(..=stamp.access_seq, |_, _| false)
                .map_err(|e| self.err(e))?;
        }
        txn.commit().map_err(|e| self.err(e))
    }

    /// Forgets the recorded snapshot (its file is gone or unusable): the change log may be
    /// pruned again as far as the indexes allow.
    pub(crate) fn forget_snapshot(&self) -> Result<()> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        {
            let mut t = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
            t.remove(SNAPSHOT_TOKEN).map_err(|e| self.err(e))?;
        }
        txn.commit().map_err(|e| self.err(e))
    }

    /// The change sequence number the change log must be kept from for the recorded
    /// snapshot, if any.
    pub(super) fn snapshot_floor(
        counters: &impl ReadableTable<&'static str, u64>,
    ) -> std::result::Result<Option<u64>, redb::StorageError> {
        (counter(counters, SNAPSHOT_TOKEN)? != 0)
            .then(|| counter(counters, SNAPSHOT_SEQ))
            .transpose()
    }

    /// The keys whose facts changed after `stamp` (written, removed, or their access counted),
    /// distinct and sorted; `None` when the logs no longer hold every change since (pruned
    /// by another version) or the facts table is not complete.
    pub(crate) fn changed_since(&self, stamp: &Stamp) -> Result<Option<Vec<u64>>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let counters = txn.open_table(COUNTERS).map_err(|e| self.err(e))?;
        let read = |name| counter(&counters, name).map_err(|e| self.err(e));
        let (seq, access_seq) = (read(super::NEXT_SEQ)?, read(ACCESS_SEQ)?);
        if seq < stamp.seq
            || access_seq < stamp.access_seq
            || !super::facts_known_whole(&counters, seq).map_err(|e| self.err(e))?
        {
            return Ok(None);
        }
        let mut keys = Vec::new();
        for (table, from, to) in [
            (super::CHANGES, stamp.seq, seq),
            (ACCESS_LOG, stamp.access_seq, access_seq),
        ] {
            let t = txn.open_table(table).map_err(|e| self.err(e))?;
            let before = keys.len();
            for row in t.range(from + 1..=to).map_err(|e| self.err(e))? {
                keys.push(row.map_err(|e| self.err(e))?.1.value());
            }
            if (keys.len() - before) as u64 != to - from {
                return Ok(None);
            }
        }
        keys.sort_unstable();
        keys.dedup();
        Ok(Some(keys))
    }

    /// The facts of each key (`None` for a key with no item), in the order given.
    pub(crate) fn facts_of(&self, keys: &[u64]) -> Result<Vec<(u64, Option<Item>)>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(facts::FACTS).map_err(|e| self.err(e))?;
        keys.iter()
            .map(|&key| {
                let item = t
                    .get(key)
                    .map_err(|e| self.err(e))?
                    .map(|g| facts::decode(g.value()))
                    .transpose()
                    .map_err(|e| self.corrupt("facts", &key.to_string(), e))?;
                Ok((key, item))
            })
            .collect()
    }
}

/// Logs one access count change of `key` in `txn` (the caller's write).
pub(super) fn log_access(
    txn: &redb::WriteTransaction,
    key: u64,
) -> std::result::Result<(), Box<redb::Error>> {
    let mut counters = txn.open_table(COUNTERS).map_err(|e| Box::new(e.into()))?;
    let seq = counter(&counters, ACCESS_SEQ).map_err(|e| Box::new(e.into()))? + 1;
    counters
        .insert(ACCESS_SEQ, seq)
        .map_err(|e| Box::new(e.into()))?;
    txn.open_table(ACCESS_LOG)
        .map_err(|e| Box::new(e.into()))?
        .insert(seq, key)
        .map_err(|e| Box::new(e.into()))?;
    Ok(())
}
