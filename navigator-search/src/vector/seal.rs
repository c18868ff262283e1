//! The seal of a pair of vector files the engine wrote or verified (`chunks.seal` beside
//! `chunks.usearch`): each file's identity as the file system reports it (device, inode,
//! length, modification and change times) and the exact table's keys in file order.
//!
//! Why: verifying the two files reads them whole (2.2 GB at a million 384-d vectors), which
//! is most of a cold open. While both files still have the identity they had when they were
//! written or last verified, nothing has written to them since, so opening takes the keys
//! from the seal (8 bytes a vector) and reads neither file. Any write to either file, a
//! replacement, a truncation or a copy changes its identity (the change time cannot be set
//! back), and the next open verifies both files whole again, as without a seal. What a seal
//! cannot see is damage below the file system (a disk returning other bytes than were
//! written), as with most databases' files.
//!
//! File times have a granularity (a few milliseconds on Linux, up to two seconds elsewhere):
//! a write in the same tick as the time a seal records would leave the identity unchanged.
//! So a seal is written, and trusted, only for files last changed at least [`MARGIN`] before
//! the seal itself (git's "racily clean" entries, the same problem): the engine writes one
//! when an open has verified files that old, and the first open after a save verifies.
//!
//! Layout (little-endian): the magic `NAVSEAL1`, the two identities (graph, then table; seven
//! `u64` each), the key count (`u64`), the keys, and the CRC-32 of everything before it. A
//! seal that is torn, damaged or of another format is ignored.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const MAGIC: &[u8; 8] = b"NAVSEAL1";
const STAMP: usize = 7 * 8;
/// How much older than its seal a file must be for the seal to vouch for it.
#[cfg(not(test))]
pub(super) const MARGIN: Duration = Duration::from_secs(2);
/// In unit tests, well above Linux's timestamp tick, so a test waits a fraction of a second.
#[cfg(test)]
pub(super) const MARGIN: Duration = Duration::from_millis(60);

/// A file's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp([u64; 7]);

impl Stamp {
    /// The identity of the file at `path`.
    pub(super) fn of(path: &Path) -> std::io::Result<Stamp> {
        let meta = std::fs::metadata(path)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Ok(Stamp([
                meta.dev(),
                meta.ino(),
                meta.size(),
                meta.mtime() as u64,
                meta.mtime_nsec() as u64,
                meta.ctime() as u64,
                meta.ctime_nsec() as u64,
            ]))
        }
        #[cfg(not(unix))]
        {
            let modified = meta
                .modified()?
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            Ok(Stamp([
                0,
                0,
                meta.len(),
                modified.as_secs(),
                u64::from(modified.subsec_nanos()),
                0,
                0,
            ]))
        }
    }

    /// The later of the file's modification and change times, since the epoch.
    fn newest(&self) -> Duration {
        let [.., m_s, m_ns, c_s, c_ns] = self.0;
        let at = |s: u64, ns: u64| Duration::new(s, ns.min(999_999_999) as u32);
        at(m_s, m_ns).max(at(c_s, c_ns))
    }
}

/// Whether files last changed at `newest` are at least [`MARGIN`] older than `then`.
fn settled(newest: Duration, then: SystemTime) -> bool {
    then.duration_since(UNIX_EPOCH)
        .is_ok_and(|then| then >= newest + MARGIN)
}

/// Where the seal of the graph at `graph` is kept.
pub(super) fn path_for(graph: &Path) -> PathBuf {
    graph.with_extension("seal")
}

/// The exact table's keys in file order when the seal beside `graph` matches the identities
/// of both files now (`graph_now`, `table_now`); `None` when it does not, or is missing,
/// torn or damaged.
pub(super) fn keys_if_unchanged(
    graph: &Path,
    graph_now: Stamp,
    table_now: Stamp,
) -> Option<Vec<u64>> {
    let path = path_for(graph);
    let sealed_at = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
    if !settled(graph_now.newest().max(table_now.newest()), sealed_at) {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    let body_len = bytes.len().checked_sub(4)?;
    let (body, crc) = bytes.split_at(body_len);
    if crc32fast::hash(body).to_le_bytes() != crc || body.len() < 8 + 2 * STAMP + 8 {
        return None;
    }
    if &body[..8] != MAGIC {
        return None;
    }
    let u64_at = |i: usize| u64::from_le_bytes(std::array::from_fn(|j| body[i + j]));
    let stamp_at = |at: usize| Stamp(std::array::from_fn(|k| u64_at(at + 8 * k)));
    if stamp_at(8) != graph_now || stamp_at(8 + STAMP) != table_now {
        return None;
    }
    let count = usize::try_from(u64_at(8 + 2 * STAMP)).ok()?;
    let keys_at = 8 + 2 * STAMP + 8;
    if body.len() - keys_at != count.checked_mul(8)? {
        return None;
    }
    Some(
        body[keys_at..]
            .chunks_exact(8)
            .map(|k| u64::from_le_bytes(std::array::from_fn(|j| k[j])))
            .collect(),
    )
}

/// Writes the seal of the graph at `graph` and its table: their identities and the table's
/// keys in file order; whether it did (not for files changed within [`MARGIN`]). Not flushed
/// to disk: a seal lost or torn by a crash is only ignored.
pub(super) fn write(
    graph: &Path,
    graph_stamp: Stamp,
    table_stamp: Stamp,
    keys: &[u64],
) -> std::io::Result<bool> {
    if !settled(
        graph_stamp.newest().max(table_stamp.newest()),
        SystemTime::now(),
    ) {
        return Ok(false);
    }
    let mut body = Vec::with_capacity(8 + 2 * STAMP + 8 + 8 * keys.len() + 4);
    body.extend_from_slice(MAGIC);
    for v in graph_stamp.0.iter().chain(&table_stamp.0) {
        body.extend_from_slice(&v.to_le_bytes());
    }
    body.extend_from_slice(&(keys.len() as u64).to_le_bytes());
    for k in keys {
        body.extend_from_slice(&k.to_le_bytes());
    }
    let crc = crc32fast::hash(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    let path = path_for(graph);
    let tmp = path.with_extension("seal.tmp");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(&body)?;
    drop(file);
    std::fs::rename(&tmp, &path)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_gives_its_keys_back_only_while_both_files_are_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let (graph, table) = (dir.path().join("g.usearch"), dir.path().join("g.f32"));
        std::fs::write(&graph, b"graph").unwrap();
        std::fs::write(&table, b"table").unwrap();
        let stamps = || (Stamp::of(&graph).unwrap(), Stamp::of(&table).unwrap());
        let (g, t) = stamps();
        assert_eq!(keys_if_unchanged(&graph, g, t), None, "no seal yet");
        // Files changed within the margin are not sealed: a write in the same tick of the
        // file system's clock would keep their identity.
        assert!(!write(&graph, g, t, &[7, 3, 11]).unwrap());
        assert!(!path_for(&graph).exists());
        let settle = || std::thread::sleep(MARGIN + Duration::from_millis(30));
        settle();
        assert!(write(&graph, g, t, &[7, 3, 11]).unwrap());
        assert_eq!(keys_if_unchanged(&graph, g, t), Some(vec![7, 3, 11]));
        // The same length written again: another identity.
        std::fs::write(&table, b"tablE").unwrap();
        let (g2, t2) = stamps();
        assert_eq!(g2, g);
        assert_ne!(t2, t);
        assert_eq!(keys_if_unchanged(&graph, g2, t2), None);
        // A seal written within the margin of the files' last change is not trusted.
        settle();
        assert!(write(&graph, g2, t2, &[1, 2]).unwrap());
        assert_eq!(keys_if_unchanged(&graph, g2, t2), Some(vec![1, 2]));
        std::fs::write(&table, b"table").unwrap();
        let (g3, t3) = stamps();
        let fresh = std::fs::read(path_for(&graph)).unwrap();
        let mut body = fresh[..fresh.len() - 4].to_vec();
        body[8 + STAMP..8 + 2 * STAMP].copy_from_slice(
            &t3.0
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        );
        let crc = crc32fast::hash(&body);
        body.extend_from_slice(&crc.to_le_bytes());
        std::fs::write(path_for(&graph), &body).unwrap();
        assert_eq!(keys_if_unchanged(&graph, g3, t3), None, "racy");
        settle();
        std::fs::write(path_for(&graph), &body).unwrap();
        assert_eq!(keys_if_unchanged(&graph, g3, t3), Some(vec![1, 2]));
        // A damaged or torn seal is ignored.
        let seal = path_for(&graph);
        let mut bytes = std::fs::read(&seal).unwrap();
        let n = bytes.len();
        bytes[n - 10] ^= 1;
        std::fs::write(&seal, &bytes).unwrap();
        settle();
        assert_eq!(keys_if_unchanged(&graph, g3, t3), None);
        std::fs::write(&seal, &bytes[..n / 2]).unwrap();
        settle();
        assert_eq!(keys_if_unchanged(&graph, g3, t3), None);
    }
}
