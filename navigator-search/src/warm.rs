//! Warming the page cache behind an open: the vector files a search reads at random (the
//! graph's nodes, the exact vectors that re-rank its candidates) are read through once, in
//! order, on a thread of their own, so the first searches after a restart stop waiting on the
//! disk after seconds rather than after thousands of searches. The open itself reads neither
//! file (the seal vouches for them), and nothing is kept in the process: the pages stay in the
//! page cache, shared with every other reader of the files.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Bytes per read.
const CHUNK: usize = 1 << 20;

/// A background read of some files; dropping it stops the read after its current chunk.
pub(crate) struct Warmer {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<u64>>,
}

impl Warmer {
    /// Starts reading `files` (missing ones skipped) through, in order, unless together they
    /// would take more than half the memory the system says is available (Linux; elsewhere
    /// they are read): reading more than fits would evict the first files' pages for the
    /// last ones'.
    pub(crate) fn start(files: Vec<PathBuf>) -> Option<Self> {
        let files: Vec<(PathBuf, u64)> = files
            .into_iter()
            .filter_map(|f| std::fs::metadata(&f).ok().map(|m| (f, m.len())))
            .collect();
        let total: u64 = files.iter().map(|(_, len)| len).sum();
        if total == 0 || available_memory().is_some_and(|free| total > free / 2) {
            return None;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("navigator-warm".into())
            .spawn(move || {
                let mut read = 0;
                for (file, _) in &files {
                    match read_through(file, &flag) {
                        Ok(n) => read += n,
                        Err(e) => tracing::debug!("warming {} stopped: {e}", file.display()),
                    }
                    if flag.load(Ordering::Relaxed) {
                        break;
                    }
                }
                read
            })
            .map_err(|e| tracing::debug!("no thread to warm the vector files: {e}"))
            .ok()?;
        Some(Self {
            stop,
            thread: Some(thread),
        })
    }

    /// Waits for the read to end; the bytes read.
    #[cfg(test)]
    pub(crate) fn finish(mut self) -> u64 {
        self.thread.take().map_or(0, |t| t.join().unwrap_or(0))
    }
}

impl Drop for Warmer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Reads `path` to its end (or until `stop`), discarding the bytes; how many were read.
fn read_through(path: &Path, stop: &AtomicBool) -> std::io::Result<u64> {
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; CHUNK];
    let mut read = 0;
    while !stop.load(Ordering::Relaxed) {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => read += n as u64,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(read)
}

/// Memory the system could give without swapping, in bytes (`MemAvailable` of
/// `/proc/meminfo`); `None` where that is not known.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_available(&info)
}

fn parse_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_file_through_and_skips_missing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, vec![1u8; CHUNK + 5]).unwrap();
        std::fs::write(&b, vec![2u8; 7]).unwrap();
        let warmer = Warmer::start(vec![a, dir.path().join("missing"), b]).unwrap();
        assert_eq!(warmer.finish(), CHUNK as u64 + 12);
    }

    #[test]
    fn nothing_to_read_starts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Warmer::start(vec![dir.path().join("missing")]).is_none());
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(Warmer::start(vec![empty]).is_none());
    }

    #[test]
    fn a_stopped_read_ends_early() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        std::fs::write(&big, vec![0u8; 4 * CHUNK]).unwrap();
        let stop = AtomicBool::new(true);
        assert_eq!(read_through(&big, &stop).unwrap(), 0);
    }

    #[test]
    fn available_memory_comes_from_meminfo() {
        let info =
            "MemTotal:       24000000 kB\nMemFree:         1000 kB\nMemAvailable:   16000000 kB\n";
        assert_eq!(parse_available(info), Some(16_000_000 * 1024));
        assert_eq!(parse_available("MemTotal: 1 kB\n"), None);
    }
}
