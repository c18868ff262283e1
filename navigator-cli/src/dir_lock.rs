//! One server per data directory: an exclusive lock on `<home>/mcp.lock`, held for the
//! server's life and released by the OS when the process ends (even on `kill -9`).
//!
//! The index underneath is one writer's: a second server on the same directory would fail
//! deep inside the store, or two would race their re-indexes. The lock makes the second one
//! stop at start with a message naming the directory and the process that holds it; a command
//! that cannot open the index while a server holds it names that server
//! ([`server_holding`]).

use anyhow::anyhow;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::Path;

/// The held lock; dropping it releases the directory.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
}

/// Takes the lock on `home`, or says who holds it.
pub(crate) fn acquire(home: &Path) -> anyhow::Result<DirLock> {
    let path = home.join("mcp.lock");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| anyhow!("cannot open the lock file {}: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(anyhow!(
                "the data directory {} is in use by another `navigator mcp` (process {}): \
                 one server per data directory; stop it, or start this one with another \
                 --home / NAVIGATOR_HOME",
                home.display(),
                if holder.is_empty() { "unknown" } else { holder }
            ));
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(anyhow!("cannot lock {}: {e}", path.display()))
        }
    }
    // The holder's pid, for the message above; the lock itself is what excludes.
    let _ = file.set_len(0);
    let _ = file.rewind();
    let _ = write!(file, "{}", std::process::id());
    let _ = file.flush();
    Ok(DirLock { _file: file })
}

/// The process id of the `navigator mcp` server holding `home`, if one does (`"unknown"`
/// when it wrote none): what a command that cannot open the index while it runs names.
pub(crate) fn server_holding(home: &Path) -> Option<String> {
    let mut file = std::fs::File::open(home.join("mcp.lock")).ok()?;
    match file.try_lock_shared() {
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            Some(if holder.is_empty() {
                "unknown".into()
            } else {
                holder.into()
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_with_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = acquire(dir.path()).unwrap();
        let e = acquire(dir.path()).unwrap_err().to_string();
        assert!(e.contains("in use"), "{e}");
        assert!(e.contains(&std::process::id().to_string()), "{e}");
        assert_eq!(
            server_holding(dir.path()),
            Some(std::process::id().to_string())
        );
        drop(first);
        // A process another test forks at that moment shares the lock's file until it execs:
        // released means released once that child has moved on.
        let released = (0..200).any(|_| {
            server_holding(dir.path()).is_none() || {
                std::thread::sleep(std::time::Duration::from_millis(25));
                false
            }
        });
        assert!(released, "still held after the holder dropped it");
        acquire(dir.path()).expect("released when dropped");
    }
}
