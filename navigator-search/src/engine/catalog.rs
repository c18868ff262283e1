//! Loading the catalog on open (from its snapshot when that can be trusted, otherwise from
//! the store's facts) and writing the snapshot when the engine saves its indexes.

use super::Shared;
use crate::catalog::{snapshot, Catalog, ItemMeta};
use crate::store::{RedbStore, Stamp};
use crate::Result;
use std::path::Path;

/// Items from which an open whose catalog came from the store writes the snapshot at once
/// rather than on the next save: below it the store read is quick (about 0.5 s at 100k), above
/// it a process that is always killed rather than closed would read the store on every open.
pub(super) const SNAPSHOT_AT_OPEN: usize = 50_000;

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
    /// Writes the catalog snapshot now when the engine holds at least `at_least` items and
    /// its catalog did not come from one (blocking; waits for writes in progress).
    pub(super) fn snapshot_if_missing(&self, at_least: usize) -> Result<()> {
        let missing = self
            .snapshot_at
            .lock()
            .map_err(|e| self.lock_err(e))?
            .is_none();
        let items = self.catalog.read().map_or(0, |c| c.len());
        if !missing || items < at_least {
            return Ok(());
        }
        let _writer = self.writer.lock().map_err(|e| self.lock_err(e))?;
        let started = std::time::Instant::now();
        self.save_catalog()?;
        tracing::info!(
            items,
            seconds = started.elapsed().as_secs_f64(),
            "catalog snapshot written on open (the catalog was read from the store)"
        );
        Ok(())
    }

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

#[cfg(test)]
mod tests {
    use crate::catalog::snapshot;
    use crate::test_embedder::Fixed;
    use crate::{EngineConfig, SearchEngine};
    use navigator_core::{Item, ItemType};
    use std::sync::Arc;

    async fn open(dir: &std::path::Path) -> SearchEngine {
        SearchEngine::open_with(dir, Arc::new(Fixed), EngineConfig::default())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn an_open_without_a_usable_snapshot_writes_one_for_a_large_catalog() {
        let dir = tempfile::tempdir().unwrap();
        let t = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .to_utc();
        let items: Vec<Item> = (0..3)
            .map(|i| Item::new(format!("n{i}"), ItemType::Resource, format!("Note {i}"), t))
            .collect::<Result<_, _>>()
            .unwrap();
        open(dir.path()).await.upsert(&items).await.unwrap();
        let file = dir.path().join(snapshot::FILE);
        assert!(file.exists(), "closing writes the snapshot");
        std::fs::remove_file(&file).unwrap();

        let engine = open(dir.path()).await;
        assert!(
            !file.exists(),
            "3 items are below the size that writes one on open"
        );
        // Not yet large enough.
        engine.snapshot_if_missing(4).unwrap();
        assert!(!file.exists());
        engine.snapshot_if_missing(3).unwrap();
        assert!(file.exists());
        let written = std::fs::metadata(&file).unwrap().modified().unwrap();
        // Once written, it is not written again until something changes.
        engine.snapshot_if_missing(0).unwrap();
        assert_eq!(
            std::fs::metadata(&file).unwrap().modified().unwrap(),
            written
        );
        assert_eq!(
            *engine.snapshot_at.lock().unwrap(),
            Some(engine.store.sequence_numbers().unwrap())
        );
    }
}
