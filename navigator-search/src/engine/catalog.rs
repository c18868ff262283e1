//! Loading the catalog on open (from its snapshot when that can be trusted, otherwise from
//! the store's facts) and writing the snapshot when the engine saves its indexes.

use super::Shared;
use crate::catalog::{snapshot, Catalog, ItemMeta};
use crate::store::{RedbStore, Stamp};
use crate::Result;
use std::path::Path;

/// Where an engine's catalog snapshot stands: the change and access sequence numbers the
/// snapshot file holds, `None` when there is none this engine can rely on.
pub(super) type SnapshotAt = Option<(u64, u64)>;

/// The catalog of the items in `store`, and what the snapshot in `dir` holds.
pub(super) fn load(dir: &Path, store: &RedbStore) -> Result<(Catalog, SnapshotAt)> {
    let started = std::time::Instant::now();
    match snapshot::load(dir, store)? {
        Ok((catalog, stamp)) => {
            tracing::debug!(
                items = catalog.len(),
                seconds = started.elapsed().as_secs_f64(),
                "catalog loaded from its snapshot"
            );
            Ok((catalog, Some((stamp.seq, stamp.access_seq))))
        }
        Err(why) => {
            tracing::debug!("catalog snapshot not used: {why}");
            let catalog = from_facts(store)?;
            tracing::debug!(
                items = catalog.len(),
                seconds = started.elapsed().as_secs_f64(),
                "catalog loaded from the store"
            );
            Ok((catalog, None))
        }
    }
}

/// The catalog read from the store's facts table.
fn from_facts(store: &RedbStore) -> Result<Catalog> {
    // The item count only sizes the maps: a failure to read it shows in the load below.
    let mut catalog = Catalog::with_capacity(store.len().unwrap_or(0) as usize);
    store.item_facts(
        |key, item| Box::new(ItemMeta::from_item(key, item)),
        |metas| {
            for meta in metas {
                catalog.insert_boxed(meta);
            }
        },
    )?;
    Ok(catalog)
}

/// A token no earlier snapshot of this store is likely to have had (never 0, which means
/// "none").
fn new_token() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::hash::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    h.finish().max(1)
}

impl Shared {
    /// Writes the catalog snapshot when it does not hold the store's current state. Called
    /// with the writer lock held, so no write changes the store or the catalog meanwhile.
    pub(super) fn save_catalog(&self) -> Result<()> {
        let (seq, access_seq) = self.store.sequence_numbers()?;
        let mut at = self.snapshot_at.lock().map_err(|e| self.lock_err(e))?;
        if *at == Some((seq, access_seq)) {
            return Ok(());
        }
        let stamp = Stamp {
            token: new_token(),
            seq,
            access_seq,
        };
        let written = {
            let catalog = self.catalog.read().map_err(|e| self.lock_err(e))?;
            snapshot::write(&self.dir, &catalog, stamp)
        };
        if let Err(e) = written {
            // Only a faster open is lost: the store still holds every item's facts.
            tracing::warn!(
                "writing the catalog snapshot {} failed, the next open reads the catalog \
                 from the store: {e}",
                self.dir.join(snapshot::FILE).display()
            );
            if let Err(e) = snapshot::remove(&self.dir) {
                tracing::warn!("removing the catalog snapshot failed: {e}");
            }
            self.store.forget_snapshot()?;
            *at = None;
            return Ok(());
        }
        self.store.record_snapshot(stamp)?;
        *at = Some((seq, access_seq));
        Ok(())
    }
}
