//! The on-disk outline cache, keyed by content hash and grammar version.
//!
//! Outlines are pure functions of (file bytes, grammar), so a key of both makes stale entries
//! impossible: an edited file or an upgraded grammar simply misses. Entries are written to a
//! temporary name and renamed, so a crashed or concurrent writer never leaves a torn entry.

use crate::lang::Lang;
use crate::outline::Outline;
use std::path::{Path, PathBuf};

/// Bumped when the outline format or extraction rules change.
const FORMAT_VERSION: u32 = 2;

/// Where outlines are cached; `None` disables the disk cache.
#[derive(Debug, Clone)]
pub(crate) struct OutlineCache {
    dir: Option<PathBuf>,
}

impl OutlineCache {
    pub(crate) fn new(dir: Option<PathBuf>) -> Self {
        OutlineCache { dir }
    }

    fn entry(&self, hash: &str, lang: Lang) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(dir.join(&hash[..2]).join(format!(
            "{hash}-{}-v{FORMAT_VERSION}.json",
            lang.grammar_version()
        )))
    }

    /// The cached outline, if present and readable (a corrupt entry counts as a miss).
    pub(crate) fn get(&self, hash: &str, lang: Lang) -> Option<Outline> {
        let bytes = std::fs::read(self.entry(hash, lang)?).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Stores an outline; failures are ignored because the cache only saves time.
    pub(crate) fn put(&self, hash: &str, lang: Lang, outline: &Outline) {
        let Some(path) = self.entry(hash, lang) else {
            return;
        };
        let Ok(json) = serde_json::to_vec(outline) else {
            return;
        };
        let _ = write_atomic(&path, &json);
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension(format!(
        "tmp{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// Hex SHA-256 of `bytes`.
pub(crate) fn content_hash(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_misses_on_other_grammar_or_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let cache = OutlineCache::new(Some(dir.path().to_path_buf()));
        let src = "fn a() {}";
        let hash = content_hash(src.as_bytes());
        let outline = crate::outline::outline(Lang::Rust, src).unwrap();
        assert!(cache.get(&hash, Lang::Rust).is_none());
        cache.put(&hash, Lang::Rust, &outline);
        assert_eq!(cache.get(&hash, Lang::Rust), Some(outline));
        assert!(cache.get(&hash, Lang::Go).is_none());
        std::fs::write(cache.entry(&hash, Lang::Rust).unwrap(), b"{not json").unwrap();
        assert!(cache.get(&hash, Lang::Rust).is_none());
    }

    #[test]
    fn hash_is_hex_sha256() {
        assert_eq!(
            content_hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
