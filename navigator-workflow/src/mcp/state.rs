//! The server's state file (`--state <file>`): the navigator's [`Snapshot`], rewritten after
//! every change before the change is acknowledged.
//!
//! A write goes to `<file>.tmp`, is flushed to disk (`fsync`), then renamed over `<file>`,
//! and the directory is flushed so the rename itself survives a power cut. A crash at any
//! point leaves either the old state or the new one, never a torn file; a left-over `.tmp`
//! is simply overwritten by the next write.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::navigator::Navigator;
use crate::snapshot::Snapshot;

fn state_error(path: &Path, message: impl std::fmt::Display) -> Error {
    Error::State {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

/// The file `path` names, links followed: canonical when it exists, else its canonical folder
/// joined with its name (a state file not written yet), else `path` as given (the error
/// comes with the first write).
pub(crate) fn resolve(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(folder), path.file_name()) {
        (Ok(folder), Some(name)) => folder.join(name),
        _ => path.to_path_buf(),
    }
}

/// Takes the exclusive lock on `<path>.lock` (created if missing) that keeps a second server
/// off the state file, writing this process's id into it for the message a second one
/// gives.
pub(crate) fn lock(path: &Path) -> Result<std::fs::File, Error> {
    use std::io::{Read, Seek};
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let lock_path = PathBuf::from(name);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|e| state_error(path, format!("cannot open {}: {e}", lock_path.display())))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(state_error(
                path,
                format!(
                    "in use by another server (process {}): one server per state file; stop \
                     it, or give this one another --state",
                    if holder.is_empty() { "unknown" } else { holder }
                ),
            ));
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(state_error(
                path,
                format!("cannot lock {}: {e}", lock_path.display()),
            ))
        }
    }
    let _ = file.set_len(0);
    let _ = file.rewind();
    let _ = write!(file, "{}", std::process::id());
    let _ = file.flush();
    Ok(file)
}

/// Reads the navigator saved at `path`; `None` when the file does not exist yet.
pub(crate) fn load(path: &Path) -> Result<Option<Navigator>, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(state_error(path, e)),
    };
    let snapshot = Snapshot::from_json(&text).map_err(|e| state_error(path, e))?;
    Navigator::restore(snapshot)
        .map(Some)
        .map_err(|e| state_error(path, e))
}

/// Writes `navigator` to `path` atomically and durably (see the module docs).
pub(crate) fn save(path: &Path, navigator: &Navigator) -> Result<(), Error> {
    let json = navigator.snapshot().to_json();
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(".tmp");
    let tmp = PathBuf::from(tmp_name);
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&tmp)?;
        // The new file keeps the old one's permissions (a state file made private stays so).
        if let Ok(old) = std::fs::metadata(path) {
            file.set_permissions(old.permissions())?;
        }
        file.write_all(json.as_bytes())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)?;
        #[cfg(unix)]
        {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    };
    write().map_err(|e| state_error(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Task, WorkflowDefinition};

    #[test]
    fn saved_state_loads_back_identically_and_a_missing_file_is_none() {
        let dir = std::env::temp_dir().join(format!("nav-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.json");
        let _ = std::fs::remove_file(&path);
        assert!(load(&path).unwrap().is_none());

        let mut nav = Navigator::new();
        let def = WorkflowDefinition::from_yaml(
            "nodes:\n  start: { type: start }\n  work: { type: task, name: Work }\n  end: { type: end, result: success }\nedges:\n  - { from: start, to: work }\n  - { from: work, to: end }\n",
        )
        .unwrap();
        nav.load_workflow("w", def).unwrap();
        nav.load_tasks(vec![Task::new("t1", "I-1", "w", 1)], false)
            .unwrap();
        nav.advance("t1", "passed", None).unwrap();
        nav.claim_task("t1", "agent-a", 60_000).unwrap();
        save(&path, &nav).unwrap();
        let back = load(&path).unwrap().unwrap();
        assert_eq!(back.snapshot(), nav.snapshot());
        assert_eq!(back.claim("t1").unwrap().agent, "agent-a");

        std::fs::write(&path, "{ torn").unwrap();
        let err = load(&path).unwrap_err();
        assert!(err.to_string().contains("state.json"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
