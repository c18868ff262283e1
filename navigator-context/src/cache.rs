//! The on-disk outline cache of one repository: one file, keyed by content hash and grammar.
//!
//! Outlines are pure functions of (file bytes, grammar), so a key of both makes stale entries
//! impossible: an edited file or an upgraded grammar simply misses. All of a repository's
//! outlines live in one file (`outlines.v3.json` in the repository's cache folder), read at
//! the first lookup and written back, whole, when outlines were added: after
//! [`RepoMap::outline_all`](crate::RepoMap::outline_all) and when the map is dropped. One file
//! instead of one per source file: creating thousands of small files was 40 % of a cold
//! outline pass over a 2,800-file Python repository (docs/benchmarks.md). The file is written
//! to a temporary name and renamed, merged with what another process may have written
//! meanwhile, so a crashed or concurrent writer never leaves a torn file and loses at most
//! the other's new entries (which only cost a parse). Entries no run has used in the last
//! [`KEEP_RUNS`] writes are dropped, so old versions of edited files do not pile up.
//!
//! Whole folders go too: each records the repository it serves (a `root` file beside the
//! outlines, rewritten by every run, so its age is the time since the last use), and every
//! run that has a cache file sweeps its siblings once, removing those whose repository is
//! gone (a deleted checkout, a temporary directory) or that no run used for [`STALE_DAYS`]
//! days, along with this folder's files of older formats. Only folders that hold nothing but
//! such files are touched; a folder removed by mistake costs one cold parse.

use crate::lang::Lang;
use crate::outline::Outline;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// Bumped when the outline format, the extraction rules or the file's layout change.
const FORMAT_VERSION: u32 = 9;

/// Writes after which an entry no run used is dropped.
const KEEP_RUNS: u64 = 8;

/// Days after which a cache folder no run used is removed by another repository's run.
const STALE_DAYS: u64 = 30;

/// The file in a cache folder naming the repository it serves.
const ROOT_FILE: &str = "root";

/// The cache file in a cache folder.
fn file_in(dir: &Path) -> PathBuf {
    dir.join(format!("outlines.v{FORMAT_VERSION}.json"))
}

/// What the cache file holds.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Pack {
    format: u32,
    /// How many times the file was written.
    writes: u64,
    entries: HashMap<String, Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// The write at which a run last used (or added) it.
    used: u64,
    outline: Outline,
}

/// The cache as this process holds it.
#[derive(Debug, Default)]
struct State {
    /// Whether the file was read (once, at the first lookup).
    read: bool,
    pack: Pack,
    /// Keys used or added by this process.
    used: Vec<String>,
    /// Whether entries were added since the file was last written.
    added: bool,
    /// Whether this process recorded the repository and swept the other folders.
    swept: bool,
}

/// Where outlines are cached; `None` disables the disk cache.
#[derive(Debug)]
pub(crate) struct OutlineCache {
    dir: Option<PathBuf>,
    /// The repository the folder serves, recorded at each write (see the module docs).
    root: Option<PathBuf>,
    state: Mutex<State>,
}

impl OutlineCache {
    /// A cache that records no repository (tests of the file format).
    #[cfg(test)]
    pub(crate) fn new(dir: Option<PathBuf>) -> Self {
        OutlineCache {
            dir,
            root: None,
            state: Mutex::default(),
        }
    }

    /// The cache of the repository at `root`: its writes record it and sweep stale sibling
    /// folders.
    pub(crate) fn for_repo(dir: Option<PathBuf>, root: &Path) -> Self {
        OutlineCache {
            dir,
            root: Some(root.to_path_buf()),
            state: Mutex::default(),
        }
    }

    fn key(hash: &str, lang: Lang) -> String {
        format!("{hash}-{lang:?}-{}", lang.grammar_version())
    }

    /// The state, with the file read on first use; `None` without a cache folder.
    fn state(&self) -> Option<MutexGuard<'_, State>> {
        let dir = self.dir.as_ref()?;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if !state.read {
            state.read = true;
            state.pack = read_pack(&file_in(dir)).unwrap_or_default();
        }
        Some(state)
    }

    /// The cached outline, if present (an unreadable or corrupt file counts as empty).
    pub(crate) fn get(&self, hash: &str, lang: Lang) -> Option<Outline> {
        let mut state = self.state()?;
        let key = Self::key(hash, lang);
        let outline = state.pack.entries.get(&key)?.outline.clone();
        state.used.push(key);
        Some(outline)
    }

    /// Adds an outline; it reaches the disk at the next [`save`](Self::save).
    pub(crate) fn put(&self, hash: &str, lang: Lang, outline: &Outline) {
        let Some(mut state) = self.state() else {
            return;
        };
        let key = Self::key(hash, lang);
        let used = state.pack.writes + 1;
        state.pack.entries.insert(
            key.clone(),
            Entry {
                used,
                outline: outline.clone(),
            },
        );
        state.used.push(key);
        state.added = true;
    }

    /// Writes the file when outlines were added since it was read or last written, merged
    /// with what is on disk now; failures are ignored because the cache only saves time.
    pub(crate) fn save(&self) {
        let Some(dir) = self.dir.as_ref() else {
            return;
        };
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let path = file_in(dir);
        if state.added {
            // What another process wrote meanwhile stays, unless it is old.
            let mut pack = read_pack(&path).unwrap_or_default();
            let writes = pack.writes.max(state.pack.writes) + 1;
            for (key, entry) in std::mem::take(&mut state.pack.entries) {
                pack.entries.entry(key).or_insert(entry);
            }
            for key in std::mem::take(&mut state.used) {
                if let Some(entry) = pack.entries.get_mut(&key) {
                    entry.used = writes;
                }
            }
            pack.entries.retain(|_, e| e.used + KEEP_RUNS > writes);
            pack.format = FORMAT_VERSION;
            pack.writes = writes;
            if let Ok(json) = serde_json::to_vec(&pack) {
                let _ = write_atomic(&path, &json);
            }
            state.pack = pack;
            state.added = false;
        }
        // Once per process, when this repository has a cache file: record it (the write
        // also marks the folder as used now), and sweep.
        if let (false, Some(root), true) = (state.swept, &self.root, path.is_file()) {
            state.swept = true;
            let _ = write_atomic(&dir.join(ROOT_FILE), &path_bytes(root));
            sweep(dir);
        }
    }
}

/// A path's bytes as recorded in a `root` file: its raw bytes on Unix (a name need not be
/// UTF-8), UTF-8 elsewhere.
fn path_bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned().into_bytes()
    }
}

/// The path a `root` file records ([`path_bytes`] read back).
fn recorded_path(bytes: Vec<u8>) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_vec(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
    }
}

impl Drop for OutlineCache {
    fn drop(&mut self) {
        self.save();
    }
}

/// Removes `dir`'s files of other formats, and sibling folders that are [`stale`].
fn sweep(dir: &Path) {
    let current = file_in(dir);
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("outlines.v") && name.ends_with(".json") && entry.path() != current {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    let Some(base) = dir.parent() else {
        return;
    };
    for entry in std::fs::read_dir(base).into_iter().flatten().flatten() {
        let folder = entry.path();
        if folder != dir && entry.file_type().is_ok_and(|t| t.is_dir()) && stale(&folder) {
            let _ = std::fs::remove_dir_all(&folder);
        }
    }
}

/// Whether `folder` is an outline cache folder (nothing in it but outline files and the
/// `root` record) whose repository is gone or that no run used for [`STALE_DAYS`] days.
fn stale(folder: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return false;
    };
    let mut outlines = false;
    let mut newest = None;
    for entry in entries {
        let Ok(entry) = entry else {
            return false;
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        let outline_file = name.starts_with("outlines.v");
        if !(outline_file || name == ROOT_FILE) || !entry.file_type().is_ok_and(|t| t.is_file()) {
            return false;
        }
        outlines |= outline_file;
        let modified = entry.metadata().and_then(|m| m.modified()).ok();
        newest = newest.max(modified);
    }
    let gone = std::fs::read(folder.join(ROOT_FILE))
        .is_ok_and(|root| !root.is_empty() && !recorded_path(root).exists());
    let old = newest
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age.as_secs() > STALE_DAYS * 24 * 3600);
    outlines && (gone || old)
}

/// The pack at `path`, when it is there, readable and of this format.
fn read_pack(path: &Path) -> Option<Pack> {
    let bytes = std::fs::read(path).ok()?;
    serde_json::from_slice::<Pack>(&bytes)
        .ok()
        .filter(|p| p.format == FORMAT_VERSION)
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
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
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

    fn outline_of(src: &str) -> Outline {
        crate::outline::outline(Lang::Rust, src).unwrap()
    }

    #[test]
    fn round_trips_through_one_file_and_misses_on_other_grammar_or_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let src = "fn a() {}";
        let hash = content_hash(src.as_bytes());
        let outline = outline_of(src);
        {
            let cache = OutlineCache::new(Some(dir.path().to_path_buf()));
            assert!(cache.get(&hash, Lang::Rust).is_none());
            cache.put(&hash, Lang::Rust, &outline);
            assert_eq!(cache.get(&hash, Lang::Rust), Some(outline.clone()));
        }
        // Dropped: written, as one file.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, [format!("outlines.v{FORMAT_VERSION}.json")]);
        let cache = OutlineCache::new(Some(dir.path().to_path_buf()));
        assert_eq!(cache.get(&hash, Lang::Rust), Some(outline.clone()));
        assert!(cache.get(&hash, Lang::Go).is_none());
        std::fs::write(file_in(dir.path()), b"{not json").unwrap();
        let cache = OutlineCache::new(Some(dir.path().to_path_buf()));
        assert!(cache.get(&hash, Lang::Rust).is_none());
        // A corrupt file is replaced by the next write.
        cache.put(&hash, Lang::Rust, &outline);
        cache.save();
        let cache = OutlineCache::new(Some(dir.path().to_path_buf()));
        assert_eq!(cache.get(&hash, Lang::Rust), Some(outline));
    }

    #[test]
    fn concurrent_writers_merge_and_unused_entries_age_out() {
        let dir = tempfile::tempdir().unwrap();
        let cache = || OutlineCache::new(Some(dir.path().to_path_buf()));
        let (a, b) = ("fn a() {}", "fn b() {}");
        let (ha, hb) = (content_hash(a.as_bytes()), content_hash(b.as_bytes()));
        // Two processes read the empty file, each adds one outline, both write.
        let (one, two) = (cache(), cache());
        assert!(one.get(&ha, Lang::Rust).is_none() && two.get(&hb, Lang::Rust).is_none());
        one.put(&ha, Lang::Rust, &outline_of(a));
        two.put(&hb, Lang::Rust, &outline_of(b));
        drop(one);
        drop(two);
        let both = cache();
        assert!(both.get(&ha, Lang::Rust).is_some() && both.get(&hb, Lang::Rust).is_some());
        drop(both);
        // Runs that use only `a` (each adding something, so each writes): `b` goes after
        // KEEP_RUNS writes without a use.
        for i in 0..KEEP_RUNS {
            let run = cache();
            assert!(run.get(&ha, Lang::Rust).is_some(), "run {i}");
            let src = format!("fn f{i}() {{}}");
            run.put(&content_hash(src.as_bytes()), Lang::Rust, &outline_of(&src));
        }
        let last = cache();
        assert!(last.get(&ha, Lang::Rust).is_some());
        assert!(last.get(&hb, Lang::Rust).is_none());
    }

    #[test]
    fn nothing_is_written_without_a_folder_or_without_new_outlines() {
        let dir = tempfile::tempdir().unwrap();
        {
            let cache = OutlineCache::new(Some(dir.path().to_path_buf()));
            assert!(cache.get("00", Lang::Rust).is_none());
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let none = OutlineCache::new(None);
        none.put("00", Lang::Rust, &outline_of("fn a() {}"));
        assert!(none.get("00", Lang::Rust).is_none());
    }

    #[test]
    fn hash_is_hex_sha256() {
        assert_eq!(
            content_hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_write_sweeps_folders_of_gone_or_long_unused_repositories_and_old_formats() {
        let base = tempfile::tempdir().unwrap();
        let (live_repo, gone_repo) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let folder = |name: &str| base.path().join(name);
        let write_one = |dir: PathBuf, root: &Path, src: &str| {
            let cache = OutlineCache::for_repo(Some(dir), root);
            cache.put(&content_hash(src.as_bytes()), Lang::Rust, &outline_of(src));
            cache.save();
        };
        write_one(folder("gone"), gone_repo.path(), "fn g() {}");
        write_one(folder("old"), live_repo.path(), "fn o() {}");
        write_one(folder("live"), live_repo.path(), "fn l() {}");
        assert_eq!(
            recorded_path(std::fs::read(folder("gone").join(ROOT_FILE)).unwrap()),
            gone_repo.path()
        );
        // Not used for longer than STALE_DAYS.
        let long_ago = std::time::SystemTime::now()
            - std::time::Duration::from_secs((STALE_DAYS + 1) * 24 * 3600);
        for name in [
            format!("outlines.v{FORMAT_VERSION}.json"),
            ROOT_FILE.to_string(),
        ] {
            std::fs::File::options()
                .write(true)
                .open(folder("old").join(name))
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        // A folder of someone else's files, and an old format beside the live file.
        std::fs::create_dir(folder("foreign")).unwrap();
        std::fs::write(folder("foreign").join("notes.txt"), "keep").unwrap();
        std::fs::write(folder("live").join("outlines.v1.json"), "{}").unwrap();
        drop(gone_repo);
        // A run that adds no outline sweeps too.
        let cache = OutlineCache::for_repo(Some(folder("live")), live_repo.path());
        assert!(cache.get(&content_hash(b"fn l() {}"), Lang::Rust).is_some());
        drop(cache);
        assert!(!folder("gone").exists(), "the repository was deleted");
        assert!(
            !folder("old").exists(),
            "no run used it for over {STALE_DAYS} days"
        );
        assert!(folder("foreign").join("notes.txt").exists());
        assert!(!folder("live").join("outlines.v1.json").exists());
        assert!(file_in(&folder("live")).exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_repository_whose_path_is_not_utf8_keeps_its_folder() {
        use std::os::unix::ffi::OsStrExt;
        let base = tempfile::tempdir().unwrap();
        let parent = tempfile::tempdir().unwrap();
        let odd = parent.path().join(std::ffi::OsStr::from_bytes(b"r\xe9po"));
        std::fs::create_dir(&odd).unwrap();
        let src = "fn a() {}";
        let cache = OutlineCache::for_repo(Some(base.path().join("odd")), &odd);
        cache.put(&content_hash(src.as_bytes()), Lang::Rust, &outline_of(src));
        drop(cache);
        let other = tempfile::tempdir().unwrap();
        let cache = OutlineCache::for_repo(Some(base.path().join("other")), other.path());
        cache.put(
            &content_hash(b"fn b() {}"),
            Lang::Rust,
            &outline_of("fn b() {}"),
        );
        drop(cache);
        assert!(
            file_in(&base.path().join("odd")).exists(),
            "the repository is still there"
        );
    }
}
