//! Opening a store file without risking it: redb repairs a file that was not closed cleanly,
//! and marks it open, by writing to it — on a damaged file that repair may fail halfway or
//! panic, and what it wrote is then lost data. So an existing file is first opened through
//! [`Overlay`], a storage backend that reads the file and keeps every write in memory: only
//! when that open (repair included) succeeds is the real file opened. A file redb cannot
//! open is refused with a typed error and left byte for byte as it was.

use redb::{Builder, StorageBackend};
use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Mutex;

/// The overlay's unit of copy-on-write.
const BLOCK: u64 = 4096;

/// A read-only file with an in-memory layer of writes.
#[derive(Debug)]
struct Overlay {
    file: File,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// The database's length as redb sees it.
    len: u64,
    /// How many leading bytes of the file are still valid (a shrink cuts them).
    base: u64,
    /// Written blocks by index.
    blocks: BTreeMap<u64, Box<[u8]>>,
}

impl Overlay {
    fn new(file: File) -> io::Result<Self> {
        let len = file.metadata()?.len();
        Ok(Self {
            file,
            state: Mutex::new(State {
                len,
                base: len,
                blocks: BTreeMap::new(),
            }),
        })
    }

    fn state(&self) -> io::Result<std::sync::MutexGuard<'_, State>> {
        self.state
            .lock()
            .map_err(|_| io::Error::other("the overlay's lock was poisoned"))
    }

    /// Block `index` as the file and the earlier writes make it.
    fn block(&self, state: &State, index: u64) -> io::Result<Box<[u8]>> {
        if let Some(b) = state.blocks.get(&index) {
            return Ok(b.clone());
        }
        let mut buf = vec![0u8; BLOCK as usize].into_boxed_slice();
        let start = index * BLOCK;
        if start < state.base {
            let n = (state.base - start).min(BLOCK) as usize;
            self.file.read_exact_at(&mut buf[..n], start)?;
        }
        Ok(buf)
    }
}

impl StorageBackend for Overlay {
    fn len(&self) -> Result<u64, io::Error> {
        Ok(self.state()?.len)
    }

    fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, io::Error> {
        let state = self.state()?;
        let end = offset
            .checked_add(len as u64)
            .filter(|&end| end <= state.len)
            .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "read past the end"))?;
        let mut out = Vec::with_capacity(len);
        let mut at = offset;
        while at < end {
            let index = at / BLOCK;
            let within = (at % BLOCK) as usize;
            let n = ((BLOCK as usize) - within).min((end - at) as usize);
            let block = self.block(&state, index)?;
            out.extend_from_slice(&block[within..within + n]);
            at += n as u64;
        }
        Ok(out)
    }

    fn set_len(&self, len: u64) -> Result<(), io::Error> {
        let mut state = self.state()?;
        if len < state.len {
            state.base = state.base.min(len);
            let first_gone = len.div_ceil(BLOCK);
            state.blocks.split_off(&first_gone);
            // The block holding the new end keeps only the bytes before it.
            if !len.is_multiple_of(BLOCK) {
                let index = len / BLOCK;
                let mut block = self.block(&state, index)?;
                block[(len % BLOCK) as usize..].fill(0);
                state.blocks.insert(index, block);
            }
        }
        state.len = len;
        Ok(())
    }

    fn sync_data(&self, _eventual: bool) -> Result<(), io::Error> {
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), io::Error> {
        let mut state = self.state()?;
        let mut at = offset;
        let mut rest = data;
        while !rest.is_empty() {
            let index = at / BLOCK;
            let within = (at % BLOCK) as usize;
            let n = ((BLOCK as usize) - within).min(rest.len());
            let mut block = self.block(&state, index)?;
            block[within..within + n].copy_from_slice(&rest[..n]);
            state.blocks.insert(index, block);
            at += n as u64;
            rest = &rest[n..];
        }
        state.len = state.len.max(at);
        Ok(())
    }
}

/// Opens the database at `path` in memory, as redb would open it for real (repairing it if
/// it was not closed cleanly), then runs `check` on it; why not, when redb fails or panics.
/// The file is never written. `Ok(true)` when it needed redb's recovery (the real open will
/// repeat it), `Ok(false)` when it did not, or when another process holds the file (the real
/// open then reports that).
pub(super) fn probe(
    path: &Path,
    check: impl FnOnce(&redb::Database) -> Result<(), Box<redb::Error>>,
) -> Result<bool, Damage> {
    let unreadable = |e: io::Error| Damage {
        why: format!("cannot be read: {e}"),
        source: Some(Box::new(e)),
    };
    let file = File::open(path).map_err(unreadable)?;
    match file.try_lock_shared() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(false),
        Err(std::fs::TryLockError::Error(e)) => return Err(unreadable(e)),
    }
    let overlay = Overlay::new(file).map_err(unreadable)?;
    let recovered = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = recovered.clone();
    let opened = catch_unwind(AssertUnwindSafe(|| {
        let db = Builder::new()
            .set_repair_callback(move |_| flag.store(true, std::sync::atomic::Ordering::Relaxed))
            .create_with_backend(overlay)
            .map_err(|e| Box::new(redb::Error::from(e)))?;
        check(&db)
    }));
    match opened {
        Ok(Ok(())) => Ok(recovered.load(std::sync::atomic::Ordering::Relaxed)),
        Ok(Err(e)) => Err(Damage {
            why: e.to_string(),
            source: Some(e),
        }),
        Err(panic) => Err(Damage {
            why: format!(
                "redb failed reading it ({})",
                panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("a panic")
            ),
            source: None,
        }),
    }
}

/// Why a store file cannot be opened: in words, and redb's (or the OS's) error when there
/// is one.
#[derive(Debug)]
pub(crate) struct Damage {
    pub(crate) why: String,
    pub(crate) source: Option<navigator_core::BoxError>,
}
