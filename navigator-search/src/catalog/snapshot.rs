//! The catalog snapshot: `catalog.snap` beside the store, the whole catalog in one file that
//! opening reads front to back. Loading the catalog from the store's facts table reads its
//! B-tree pages one at a time, scattered across a store of gigabytes: at a million items that
//! was 5.4 s of a cold open, against a sequential read of about 100 MB here.
//!
//! The engine writes the snapshot when it saves its vector index (periodically while writing,
//! on [`flush`](crate::SearchEngine::flush), on close; and on an open of a large index that
//! could not use it) and records its stamp in the store
//! ([`Stamp`]). Opening trusts the file only when its checksum holds and the store names its
//! token, then applies the changes the store logged after it (writes, removals, access counts):
//! a process killed after writing still opens from the snapshot. Anything else — no file, a
//! torn or foreign one, logs that no longer reach back to it, more changes since than a
//! direct read is worth, an item count that differs from the store's — loads the catalog from
//! the store as before; the snapshot is only ever a faster way to the same catalog.
//!
//! Layout (little-endian): the magic `NAVCAT01`; token, change and access sequence numbers
//! (`u64` each); each item's facts end to end (the store's binary form); per item its key and
//! the end offset of its facts (`u64` each); the item count and the facts' length (`u64`
//! each); the CRC-32 of everything before it.

use super::{Catalog, ItemMeta};
use crate::store::{FactFields, RedbStore, Stamp, FACTS_BATCH};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// The snapshot's file name in the engine directory.
pub(crate) const FILE: &str = "catalog.snap";
/// The file a snapshot is written to before it is renamed over [`FILE`].
const TMP: &str = "catalog.snap.tmp";
const MAGIC: [u8; 8] = *b"NAVCAT01";
/// Magic and the three stamp numbers.
const HEADER: usize = 8 + 3 * 8;
/// Item count and facts length, after the index.
const TRAILER: usize = 2 * 8;
/// Bytes of each item's entry in the index section: key and end offset.
const ENTRY: usize = 16;
/// Changes since the snapshot, per item it holds, above which the catalog is read from the
/// store instead: one random facts read per changed key costs more than the scan they save.
const MAX_CHANGED_SHARE: usize = 8;

/// Writes `catalog`, which holds the store's state `stamp`, as `dir`'s snapshot: to a
/// temporary file, synced, then renamed over the previous one (a crash leaves either).
pub(crate) fn write(dir: &Path, catalog: &Catalog, stamp: Stamp) -> std::io::Result<()> {
    let tmp = dir.join(TMP);
    let mut out = Checksummed {
        out: BufWriter::with_capacity(1 << 20, File::create(&tmp)?),
        crc: crc32fast::Hasher::new(),
    };
    out.put(&MAGIC)?;
    for n in [stamp.token, stamp.seq, stamp.access_seq] {
        out.put(&n.to_le_bytes())?;
    }
    let mut facts_len = 0u64;
    let mut index: Vec<u8> = Vec::with_capacity(catalog.len() * ENTRY);
    let mut row = Vec::with_capacity(256);
    for meta in catalog.records() {
        row.clear();
        crate::store::encode_facts(&mut row, &fields(meta));
        out.put(&row)?;
        facts_len += row.len() as u64;
        index.extend_from_slice(&meta.key.to_le_bytes());
        index.extend_from_slice(&facts_len.to_le_bytes());
    }
    out.put(&index)?;
    out.put(&(catalog.len() as u64).to_le_bytes())?;
    out.put(&facts_len.to_le_bytes())?;
    let crc = out.crc.finalize();
    out.out.write_all(&crc.to_le_bytes())?;
    let file = out.out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, dir.join(FILE))?;
    // The rename itself must reach the disk before the store names the new token (a
    // directory is synced through a handle on Unix; Windows has no such handle).
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    Ok(())
}

/// A record's facts in the store's binary form (the catalog keeps no archive date).
fn fields(meta: &ItemMeta) -> FactFields<'_> {
    FactFields {
        item_type: meta.item_type,
        category: meta.category,
        created_at: &meta.created_at,
        updated_at: &meta.updated_at,
        archived_at: None,
        access_count: meta.access_count,
        id: &meta.id,
        title: &meta.title,
        parent_id: meta.parent_id.as_deref(),
        status: meta.status.as_deref(),
        tags: &meta.tags,
    }
}

/// A writer that checksums what goes through it.
struct Checksummed {
    out: BufWriter<File>,
    crc: crc32fast::Hasher,
}

impl Checksummed {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crc.update(bytes);
        self.out.write_all(bytes)
    }
}

/// Removes `dir`'s snapshot files, if any.
pub(crate) fn remove(dir: &Path) -> std::io::Result<()> {
    for name in [FILE, TMP] {
        match std::fs::remove_file(dir.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// The catalog `dir`'s snapshot holds, brought up to `store`'s state, and the stamp it was
/// read at; the inner `Err` says why the snapshot could not be used (the caller loads the
/// catalog from the store). The outer error is the store failing.
pub(crate) fn load(
    dir: &Path,
    store: &RedbStore,
) -> crate::Result<Result<(Catalog, Stamp), String>> {
    let Some(stamp) = store.snapshot_stamp()? else {
        return Ok(Err("none was written".into()));
    };
    let bytes = match std::fs::read(dir.join(FILE)) {
        Ok(bytes) => bytes,
        Err(e) => return Ok(Err(format!("reading {FILE}: {e}"))),
    };
    let file = match parse(&bytes, stamp) {
        Ok(file) => file,
        Err(why) => return Ok(Err(why)),
    };
    let Some(changed) = store.changed_since(&stamp)? else {
        return Ok(Err(
            "the store's logs no longer hold every change since it was written".into(),
        ));
    };
    if changed.len() > file.ends.len() / MAX_CHANGED_SHARE + 1_000 {
        return Ok(Err(format!(
            "{} items changed since it was written",
            changed.len()
        )));
    }
    let mut catalog = Catalog::with_capacity(file.ends.len() + changed.len());
    let map = |key, item| Box::new(ItemMeta::from_normalized(key, item));
    let mut decoded: Vec<Box<ItemMeta>> = Vec::new();
    let mut start = 0usize;
    for batch in file.ends.chunks(FACTS_BATCH) {
        let before = std::mem::take(&mut decoded);
        let sink = |catalog: &mut Catalog| before.into_iter().for_each(|m| catalog.insert_boxed(m));
        let result =
            crate::store::decode_facts_batch(file.facts, batch, start, &map, || sink(&mut catalog));
        decoded = match result {
            Ok(decoded) => decoded,
            Err((key, e)) => return Ok(Err(format!("item {key}: {e}"))),
        };
        start = batch.last().map_or(start, |&(_, end)| end);
    }
    decoded.into_iter().for_each(|m| catalog.insert_boxed(m));
    for (key, item) in store.facts_of(&changed)? {
        match item {
            Some(item) => catalog.insert(ItemMeta::from_item(key, item)),
            None => {
                catalog.remove(key);
            }
        }
    }
    let stored = store.len()?;
    if catalog.len() as u64 != stored {
        return Ok(Err(format!(
            "it holds {} items after the changes since, the store {stored}",
            catalog.len()
        )));
    }
    Ok(Ok((catalog, stamp)))
}

/// A snapshot file's facts section and index, checked.
struct Parsed<'a> {
    facts: &'a [u8],
    ends: Vec<(u64, usize)>,
}

/// Checks a snapshot file's magic, checksum, stamp and shape.
fn parse(bytes: &[u8], stamp: Stamp) -> Result<Parsed<'_>, String> {
    if bytes.len() < HEADER + TRAILER + 4 || bytes[..8] != MAGIC {
        return Err(format!("{FILE} is not a catalog snapshot"));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
        return Err(format!("{FILE} fails its checksum"));
    }
    let number = |i: usize| {
        let at = 8 + 8 * i;
        u64::from_le_bytes(std::array::from_fn(|j| body[at + j]))
    };
    let found = Stamp {
        token: number(0),
        seq: number(1),
        access_seq: number(2),
    };
    if found != stamp {
        return Err(format!(
            "{FILE} holds another state than the store recorded ({found:?}, not {stamp:?})"
        ));
    }
    let tail = |i: usize| {
        let at = body.len() - TRAILER + 8 * i;
        u64::from_le_bytes(std::array::from_fn(|j| body[at + j]))
    };
    let shape = usize::try_from(tail(0))
        .ok()
        .zip(usize::try_from(tail(1)).ok())
        .filter(|&(n, f)| {
            n.checked_mul(ENTRY)
                .and_then(|i| i.checked_add(f))
                .and_then(|s| s.checked_add(HEADER + TRAILER))
                == Some(body.len())
        });
    let Some((count, facts_len)) = shape else {
        return Err(format!(
            "{FILE} is {} bytes, not the size its trailer gives",
            bytes.len()
        ));
    };
    let facts = &body[HEADER..HEADER + facts_len];
    let mut ends = Vec::with_capacity(count);
    let mut last = 0usize;
    for entry in body[HEADER + facts_len..body.len() - TRAILER].chunks_exact(ENTRY) {
        let key = u64::from_le_bytes(std::array::from_fn(|j| entry[j]));
        let end = u64::from_le_bytes(std::array::from_fn(|j| entry[8 + j]));
        let end = usize::try_from(end)
            .ok()
            .filter(|&e| e >= last && e <= facts_len)
            .ok_or_else(|| format!("{FILE}: item {key} ends outside the facts"))?;
        ends.push((key, end));
        last = end;
    }
    Ok(Parsed { facts, ends })
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_core::{Category, Item, ItemType};

    fn item(id: &str, item_type: ItemType) -> Item {
        let t = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .to_utc();
        let mut item = Item::new(id, item_type, format!("Title of {id}"), t).unwrap();
        item.tags = vec!["# #odd".into(), "Rust".into()];
        item.status = Some("active".into());
        item
    }

    const TYPES: [ItemType; 4] = [
        ItemType::Project,
        ItemType::Area,
        ItemType::Resource,
        ItemType::ArchivedResource,
    ];

    /// The catalog as the store's facts give it.
    fn from_facts(store: &RedbStore) -> Catalog {
        let mut catalog = Catalog::default();
        store
            .item_facts(
                |key, item| Box::new(ItemMeta::from_item(key, item)),
                |metas| metas.into_iter().for_each(|m| catalog.insert_boxed(m)),
            )
            .unwrap();
        catalog
    }

    fn records(catalog: &Catalog) -> Vec<ItemMeta> {
        let mut records: Vec<ItemMeta> = catalog.records().cloned().collect();
        records.sort_by_key(|m| m.key);
        records
    }

    /// A store of `n` items with a snapshot of its catalog written and recorded.
    fn snapshotted(dir: &Path, n: usize) -> (RedbStore, Stamp) {
        let store = RedbStore::open(dir.join("store.redb")).unwrap();
        let items: Vec<Item> = (0..n)
            .map(|i| item(&format!("n{i}"), TYPES[i % TYPES.len()]))
            .collect();
        store.write_items(&items, None).unwrap();
        store.bump_access("n1").unwrap();
        let (seq, access_seq) = store.sequence_numbers().unwrap();
        let stamp = Stamp {
            token: 77,
            seq,
            access_seq,
        };
        write(dir, &from_facts(&store), stamp).unwrap();
        store.record_snapshot(stamp).unwrap();
        (store, stamp)
    }

    fn loaded(dir: &Path, store: &RedbStore) -> Result<(Catalog, Stamp), String> {
        load(dir, store).unwrap()
    }

    #[test]
    fn a_snapshot_loads_as_the_catalog_the_store_gives() {
        let dir = tempfile::tempdir().unwrap();
        let (store, stamp) = snapshotted(dir.path(), 40);
        let (catalog, at) = loaded(dir.path(), &store).unwrap();
        assert_eq!(at, stamp);
        assert_eq!(records(&catalog), records(&from_facts(&store)));
        assert_eq!(catalog.len(), 40);
        assert_eq!(catalog.by_id("n1").unwrap().access_count, 1);
        // Tags were normalised once, when the catalog was built: the snapshot keeps them.
        assert_eq!(catalog.by_id("n3").unwrap().tags, vec![" #odd", "rust"]);
        assert_eq!(catalog.by_title("title of n7").len(), 1);
        assert!(!dir.path().join(TMP).exists());
    }

    #[test]
    fn changes_after_the_snapshot_are_applied_on_load() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = snapshotted(dir.path(), 40);
        let mut moved = item("n2", ItemType::ArchivedArea);
        moved.title = "A new title".into();
        store
            .write_items(&[moved, item("fresh", ItemType::Project)], None)
            .unwrap();
        store.remove_item("n5").unwrap();
        store.bump_access("n9").unwrap();
        store.bump_access("n9").unwrap();
        let (catalog, _) = loaded(dir.path(), &store).unwrap();
        assert_eq!(records(&catalog), records(&from_facts(&store)));
        assert!(catalog.by_id("n5").is_none());
        assert_eq!(catalog.by_id("n9").unwrap().access_count, 2);
        assert_eq!(catalog.by_id("n2").unwrap().category, Category::Archive);
        assert_eq!(catalog.by_title("a new title").len(), 1);
        assert!(catalog.by_title("title of n2").is_empty());
    }

    #[test]
    fn a_damaged_or_foreign_snapshot_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let (store, stamp) = snapshotted(dir.path(), 30);
        let path = dir.path().join(FILE);
        let good = std::fs::read(&path).unwrap();
        let why = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            loaded(dir.path(), &store).err().unwrap()
        };
        let mut flipped = good.clone();
        flipped[HEADER + 20] ^= 0x40;
        assert!(why(&flipped).contains("checksum"), "{}", why(&flipped));
        assert!(why(&good[..good.len() - 9]).contains("checksum"));
        assert!(why(b"short").contains("not a catalog snapshot"));
        // A file whose checksum holds but whose trailer lies about its shape.
        let mut lying = good[..good.len() - 4].to_vec();
        let at = lying.len() - 8;
        lying[at] ^= 1;
        let crc = crc32fast::hash(&lying);
        lying.extend_from_slice(&crc.to_le_bytes());
        assert!(why(&lying).contains("size"), "{}", why(&lying));
        // Another state of the store (a backup restored under a newer snapshot, say).
        std::fs::write(&path, &good).unwrap();
        store.record_snapshot(Stamp { token: 78, ..stamp }).unwrap();
        assert!(loaded(dir.path(), &store)
            .err()
            .unwrap()
            .contains("another state"));
        store.record_snapshot(stamp).unwrap();
        assert!(loaded(dir.path(), &store).is_ok());
        std::fs::remove_file(&path).unwrap();
        assert!(loaded(dir.path(), &store).err().unwrap().contains(FILE));
    }

    #[test]
    fn the_change_log_is_kept_from_the_snapshot_and_a_gap_in_it_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (store, stamp) = snapshotted(dir.path(), 20);
        store
            .write_items(&[item("late", ItemType::Area)], None)
            .unwrap();
        // The indexes have applied everything: the log still reaches back to the snapshot.
        store.prune_changes(stamp.seq + 1).unwrap();
        assert_eq!(store.changes_after(stamp.seq).unwrap().len(), 1);
        assert!(loaded(dir.path(), &store).is_ok());
        // A version that knows no snapshot prunes further: the gap is seen.
        store.forget_snapshot().unwrap();
        store.prune_changes(stamp.seq + 1).unwrap();
        store.record_snapshot(stamp).unwrap();
        assert!(loaded(dir.path(), &store)
            .err()
            .unwrap()
            .contains("no longer hold"));
    }

    #[test]
    fn many_changes_since_the_snapshot_read_the_store_instead() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = snapshotted(dir.path(), 10);
        let many: Vec<Item> = (0..1_100)
            .map(|i| item(&format!("m{i}"), ItemType::Resource))
            .collect();
        store.write_items(&many, None).unwrap();
        assert!(loaded(dir.path(), &store)
            .err()
            .unwrap()
            .contains("changed since"));
    }
}
