//! [`ExactVectors`]: every item's f32 vector, for exact cosine similarities (the graph only
//! holds 8-bit codes), and its file.
//!
//! A table read from its file stays in the file: the file is memory-mapped (on Unix) and its
//! entries are used where they are, so opening a large index neither copies the vectors nor
//! makes them resident — a query touches only the pages of the vectors it re-ranks. Vectors
//! written since live in memory beside it until the next save. Opening reads the file once
//! (not through the mapping) to check its checksum and collect its keys, or, when the file
//! is as a seal recorded it (`seal.rs`), only its header, the keys coming from the seal.
//!
//! File layout (little-endian), format 2: the magic `NAVEXACT`, the format version (`u32`),
//! the width (`u32`), the entry count (`u64`), the graph file's length (`u64`) and CRC-32
//! (`u32`), the CRC-32 of the entries (`u32`); then per entry the key (`u64`) and `width` f32
//! values. The graph's length and checksum live here because usearch reads its own file
//! without verifying it (a damaged graph once crashed the process): the engine checks the
//! graph's bytes against them before handing them to usearch.

use super::kernels::{dot, dot_and_square, inverse_norm, inverse_of_root, prefetch};
use crate::config::VectorReads;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"NAVEXACT";
const VERSION: u32 = 2;
/// Magic, version, width, count, graph length, graph CRC, entries CRC.
const HEADER: usize = 8 + 4 + 4 + 8 + 8 + 4 + 4;
/// Where the entries' CRC sits in the header.
const BODY_CRC_AT: u64 = 36;

/// The length and CRC-32 of a serialized graph, kept in the table's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct GraphSum {
    pub(super) len: u64,
    pub(super) crc: u32,
}

impl GraphSum {
    /// The sum of a graph's serialized bytes.
    #[cfg(test)]
    pub(super) fn of(bytes: &[u8]) -> Self {
        Self {
            len: bytes.len() as u64,
            crc: crc32fast::hash(bytes),
        }
    }
}

/// Where a key's vector is: a slot in memory, or an entry of the file the table was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Memory(usize),
    File(usize),
}

/// The table file the table was read from: mapped on Unix, or an open file read one vector at
/// a time ([`VectorReads::Positioned`]), or read whole where neither is available (a mapped
/// file cannot be replaced by a rename on Windows).
enum FileBytes {
    #[cfg(unix)]
    Mapped(memmap2::Mmap),
    #[cfg(any(unix, windows))]
    Positioned { file: std::fs::File, len: usize },
    #[cfg_attr(unix, allow(dead_code))]
    Read(Vec<u8>),
}

impl FileBytes {
    fn len(&self) -> usize {
        match self {
            #[cfg(unix)]
            FileBytes::Mapped(map) => map.len(),
            #[cfg(any(unix, windows))]
            FileBytes::Positioned { len, .. } => *len,
            FileBytes::Read(bytes) => bytes.len(),
        }
    }

    /// The bytes at `at..at + len`: borrowed where the file is in memory, read otherwise;
    /// `None` outside the file or when the read fails.
    fn get(&self, at: usize, len: usize) -> Option<Cow<'_, [u8]>> {
        match self {
            #[cfg(unix)]
            FileBytes::Mapped(map) => map.get(at..at.checked_add(len)?).map(Cow::Borrowed),
            #[cfg(any(unix, windows))]
            FileBytes::Positioned { .. } => {
                let mut buf = vec![0u8; len];
                self.read_into(&mut buf, at)?;
                Some(Cow::Owned(buf))
            }
            FileBytes::Read(bytes) => bytes.get(at..at.checked_add(len)?).map(Cow::Borrowed),
        }
    }

    /// The `count` little-endian f32 at `at`: borrowed where the file is in memory and they
    /// are aligned (a mapped file: the header and each key are multiples of 4 bytes), read
    /// straight into the vector returned by a positioned read, decoded otherwise.
    fn floats(&self, at: usize, count: usize) -> Option<Cow<'_, [f32]>> {
        let decode = |bytes: &[u8]| -> Vec<f32> {
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        };
        #[cfg(any(unix, windows))]
        if let FileBytes::Positioned { .. } = self {
            let mut floats = vec![0f32; count];
            // SAFETY: a slice of f32 viewed as its bytes: u8 has no alignment and every byte
            // pattern written into it is a valid f32.
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(floats.as_mut_ptr().cast::<u8>(), 4 * count)
            };
            self.read_into(bytes, at)?;
            if cfg!(target_endian = "big") {
                for x in &mut floats {
                    *x = f32::from_bits(u32::from_le(x.to_bits()));
                }
            }
            return Some(Cow::Owned(floats));
        }
        let Cow::Borrowed(bytes) = self.get(at, 4 * count)? else {
            return None;
        };
        if cfg!(target_endian = "little") {
            // SAFETY: every bit pattern is a valid f32; `align_to` only yields the aligned
            // middle, used only when it covers the whole vector.
            let (head, floats, tail) = unsafe { bytes.align_to::<f32>() };
            if head.is_empty() && tail.is_empty() {
                return Some(Cow::Borrowed(floats));
            }
        }
        Some(Cow::Owned(decode(bytes)))
    }

    /// Fills `buf` from the file at `at` by a positioned read; `None` outside the file, when
    /// the read fails (logged) or when the file is not read by position.
    fn read_into(&self, buf: &mut [u8], at: usize) -> Option<()> {
        match self {
            #[cfg(any(unix, windows))]
            FileBytes::Positioned { file, len } => {
                if at.checked_add(buf.len())? > *len {
                    return None;
                }
                read_exact_at(file, buf, at as u64)
                    .inspect_err(|e| tracing::warn!("reading the exact vector table: {e}"))
                    .ok()
            }
            _ => None,
        }
    }

    /// Whether reading a range copies it (a positioned read) rather than borrowing it.
    fn reads_by_copy(&self) -> bool {
        #[cfg(any(unix, windows))]
        if let FileBytes::Positioned { .. } = self {
            return true;
        }
        false
    }
}

/// Fills `buf` from `file` at `offset` without moving the file's cursor.
#[cfg(any(unix, windows))]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let (mut done, mut offset) = (0, offset);
        while done < buf.len() {
            match std::os::windows::fs::FileExt::seek_read(file, &mut buf[done..], offset)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => {
                    done += n;
                    offset += n as u64;
                }
            }
        }
        Ok(())
    }
}

/// Exact vectors by key; freed memory slots are reused.
pub(super) struct ExactVectors {
    dims: usize,
    slot_of: HashMap<u64, Slot>,
    /// The key in each memory slot (`None` once freed).
    keys: Vec<Option<u64>>,
    /// `dims` values per memory slot.
    data: Vec<f32>,
    /// 1 / the Euclidean norm of each memory slot's vector (0 for a zero vector).
    inv_norm: Vec<f32>,
    free: Vec<usize>,
    /// The file the table was read from (its entries are `Slot::File`).
    file: Option<FileBytes>,
}

impl ExactVectors {
    pub(super) fn new(dims: usize) -> Self {
        Self {
            dims,
            slot_of: HashMap::new(),
            keys: Vec::new(),
            data: Vec::new(),
            inv_norm: Vec::new(),
            free: Vec::new(),
            file: None,
        }
    }

    /// The width of its vectors.
    pub(super) fn dims(&self) -> usize {
        self.dims
    }

    /// How many keys have a vector.
    pub(super) fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// Whether `key` has a vector.
    pub(super) fn contains(&self, key: u64) -> bool {
        self.slot_of.contains_key(&key)
    }

    /// The keys that have a vector, in no particular order.
    pub(super) fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.slot_of.keys().copied()
    }

    /// Stores (or replaces) `key`'s vector; `v` must be `dims` long.
    pub(super) fn put(&mut self, key: u64, v: &[f32]) {
        debug_assert_eq!(v.len(), self.dims);
        let slot = match self.slot_of.get(&key) {
            Some(&Slot::Memory(slot)) => slot,
            // A key of the file (whose entry is left as it is) or a new one.
            _ => {
                let slot = self.free.pop().unwrap_or_else(|| {
                    self.keys.push(None);
                    self.inv_norm.push(0.0);
                    self.data.resize(self.data.len() + self.dims, 0.0);
                    self.keys.len() - 1
                });
                self.slot_of.insert(key, Slot::Memory(slot));
                self.keys[slot] = Some(key);
                slot
            }
        };
        self.data[slot * self.dims..(slot + 1) * self.dims].copy_from_slice(v);
        self.inv_norm[slot] = inverse_norm(v);
    }

    /// Forgets `key`'s vector.
    pub(super) fn remove(&mut self, key: u64) {
        if let Some(Slot::Memory(slot)) = self.slot_of.remove(&key) {
            self.keys[slot] = None;
            self.free.push(slot);
        }
    }

    /// Forgets every vector and gives the memory back.
    pub(super) fn clear(&mut self) {
        *self = Self::new(self.dims);
    }

    /// The exact cosine similarity of `query` (whose inverse norm is `query_inv_norm`) to
    /// `key`'s vector; `None` when `key` has none. 0 when either vector is zero.
    pub(super) fn similarity(&self, key: u64, query: &[f32], query_inv_norm: f32) -> Option<f32> {
        self.similarity_at(*self.slot_of.get(&key)?, query, query_inv_norm)
    }

    /// [`similarity`](Self::similarity) of the vector in `slot`.
    fn similarity_at(&self, slot: Slot, query: &[f32], query_inv_norm: f32) -> Option<f32> {
        match slot {
            Slot::Memory(slot) => {
                let v = &self.data[slot * self.dims..(slot + 1) * self.dims];
                Some(dot(query, v) * query_inv_norm * self.inv_norm[slot])
            }
            Slot::File(entry) => {
                let v = self.file_vector(entry)?;
                let (qv, vv) = dot_and_square(query, &v);
                Some(qv * query_inv_norm * inverse_of_root(vv))
            }
        }
    }

    /// [`similarity`](Self::similarity) of each of `keys` that has a vector, in order. A
    /// walk's candidates lie scattered (at a million items, across 1.5 GB of mapped file):
    /// each vector is fetched a few keys ahead of the one being scored, so the reads overlap
    /// instead of each waiting on memory in turn.
    pub(super) fn similarities(
        &self,
        keys: &[u64],
        query: &[f32],
        query_inv_norm: f32,
    ) -> Vec<(u64, f32)> {
        const AHEAD: usize = 4;
        let slots: Vec<(u64, Slot)> = keys
            .iter()
            .filter_map(|&key| Some((key, *self.slot_of.get(&key)?)))
            .collect();
        let mut out = Vec::with_capacity(slots.len());
        for (i, &(key, slot)) in slots.iter().enumerate() {
            if let Some(&(_, ahead)) = slots.get(i + AHEAD) {
                self.fetch(ahead);
            }
            if let Some(s) = self.similarity_at(slot, query, query_inv_norm) {
                out.push((key, s));
            }
        }
        out
    }

    /// Starts loading the vector in `slot` into the cache (a hint: nothing waits for it).
    fn fetch(&self, slot: Slot) {
        match slot {
            Slot::Memory(slot) => {
                prefetch(self.data[slot * self.dims..].as_ptr().cast(), 4 * self.dims)
            }
            // A positioned read is a copy made when the vector is scored: nothing to hint.
            Slot::File(entry) => {
                if self.file.as_ref().is_some_and(|f| !f.reads_by_copy()) {
                    if let Some(bytes) = self.file_entry(entry) {
                        prefetch(bytes.as_ptr(), bytes.len());
                    }
                }
            }
        }
    }

    /// Calls `f` with the key, vector and inverse norm of every vector held in memory (those
    /// written since the table was read), in slot order: one pass through memory.
    pub(super) fn for_each_in_memory(&self, mut f: impl FnMut(u64, &[f32], f32)) {
        for (slot, key) in self.keys.iter().enumerate() {
            if let Some(key) = key {
                let v = &self.data[slot * self.dims..(slot + 1) * self.dims];
                f(*key, v, self.inv_norm[slot]);
            }
        }
    }

    /// Whether `key`'s vector is held in memory (not in the file the table was read from).
    pub(super) fn in_memory(&self, key: u64) -> bool {
        matches!(self.slot_of.get(&key), Some(Slot::Memory(_)))
    }

    /// `key`'s vector, if it has one (borrowed from memory or from the mapped file).
    pub(super) fn vector(&self, key: u64) -> Option<Cow<'_, [f32]>> {
        match *self.slot_of.get(&key)? {
            Slot::Memory(slot) => Some(Cow::Borrowed(
                &self.data[slot * self.dims..(slot + 1) * self.dims],
            )),
            Slot::File(entry) => self.file_vector(entry),
        }
    }

    /// The bytes of entry `entry` of the file (key, then the vector).
    fn file_entry(&self, entry: usize) -> Option<Cow<'_, [u8]>> {
        let len = 8 + 4 * self.dims;
        self.file.as_ref()?.get(HEADER + entry * len, len)
    }

    /// The vector of entry `entry` of the file (see [`FileBytes::floats`]).
    fn file_vector(&self, entry: usize) -> Option<Cow<'_, [f32]>> {
        let at = HEADER + entry * (8 + 4 * self.dims) + 8;
        self.file.as_ref()?.floats(at, self.dims)
    }

    /// Calls `f` with the bytes of each of `entries` (ascending) of the file, in order; a
    /// file read by position is read a block of neighbouring entries at a time.
    fn for_each_file_entry(
        &self,
        entries: &[usize],
        mut f: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let Some(file) = self.file.as_ref() else {
            return match entries.first() {
                Some(entry) => Err(outside(*entry)),
                None => Ok(()),
            };
        };
        let len = 8 + 4 * self.dims;
        let per_block = ((1 << 20) / len).max(1);
        let mut rest = entries;
        while let Some(&first) = rest.first() {
            // A run of entries within one block of the file, read (or borrowed) at once.
            let run = if file.reads_by_copy() {
                rest.partition_point(|&e| e < first.saturating_add(per_block))
            } else {
                rest.len()
            };
            let (now, later) = rest.split_at(run);
            let last = *now.last().unwrap_or(&first);
            let span = (last - first + 1) * len;
            let block = file
                .get(HEADER + first * len, span)
                .ok_or_else(|| outside(last))?;
            for &entry in now {
                let at = (entry - first) * len;
                f(&block[at..at + len])?;
            }
            rest = later;
        }
        Ok(())
    }

    /// Writes the table, with the sum of the graph it belongs to, to `path` and flushes it
    /// to disk.
    pub(super) fn save(&self, path: &Path, graph: GraphSum) -> std::io::Result<()> {
        let file = std::fs::File::create(path)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&(self.dims as u32).to_le_bytes())?;
        out.write_all(&(self.len() as u64).to_le_bytes())?;
        out.write_all(&graph.len.to_le_bytes())?;
        out.write_all(&graph.crc.to_le_bytes())?;
        // The entries' checksum is known once they are written.
        out.write_all(&0u32.to_le_bytes())?;
        let mut crc = crc32fast::Hasher::new();
        let mut buf = Vec::with_capacity(8 + 4 * self.dims);
        // The file's live entries in file order, then the memory slots in slot order.
        let mut from_file: Vec<usize> = self
            .slot_of
            .values()
            .filter_map(|s| match s {
                Slot::File(entry) => Some(*entry),
                Slot::Memory(_) => None,
            })
            .collect();
        from_file.sort_unstable();
        self.for_each_file_entry(&from_file, |bytes| {
            crc.update(bytes);
            out.write_all(bytes)
        })?;
        for (slot, key) in self.keys.iter().enumerate() {
            let Some(key) = key else { continue };
            buf.clear();
            buf.extend_from_slice(&key.to_le_bytes());
            for x in &self.data[slot * self.dims..(slot + 1) * self.dims] {
                buf.extend_from_slice(&x.to_le_bytes());
            }
            crc.update(&buf);
            out.write_all(&buf)?;
        }
        out.seek(SeekFrom::Start(BODY_CRC_AT))?;
        out.write_all(&crc.finalize().to_le_bytes())?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    }

    /// Reads a table written by [`Self::save`] and the sum of its graph; why not when the
    /// file is missing, torn, damaged (its checksum), of another format or of another width.
    /// The file is read once to verify it and collect its keys, then kept open as `reads`
    /// says: its vectors are not copied.
    pub(super) fn load(
        path: &Path,
        dims: usize,
        reads: VectorReads,
    ) -> Result<(Self, GraphSum), String> {
        let (mut file, header) = open_table(path, dims)?;
        let io = |e: std::io::Error| format!("cannot be read: {e}");
        let Header {
            count,
            file_len: expected,
            graph,
            body_crc,
        } = header;
        let entry = 8 + 4 * dims;
        // One pass over the entries, in blocks: their checksum and their keys.
        let mut crc = crc32fast::Hasher::new();
        let mut slot_of: HashMap<u64, Slot> = HashMap::with_capacity(count);
        let per_block = ((1 << 20) / entry).max(1);
        let mut block = vec![0u8; per_block * entry];
        let (mut done, mut twice) = (0, None);
        while done < count {
            let n = per_block.min(count - done);
            let bytes = &mut block[..n * entry];
            file.read_exact(bytes).map_err(io)?;
            crc.update(bytes);
            for (i, e) in bytes.chunks_exact(entry).enumerate() {
                let key = u64::from_le_bytes(std::array::from_fn(|j| e[j]));
                if slot_of.insert(key, Slot::File(done + i)).is_some() {
                    twice.get_or_insert(key);
                }
            }
            done += n;
        }
        if crc.finalize() != body_crc {
            return Err("its entries fail their checksum".into());
        }
        if let Some(key) = twice {
            return Err(format!("key {key} twice"));
        }
        let mut table = Self::new(dims);
        if count > 0 {
            table.file = Some(file_bytes(file, reads).map_err(io)?);
            if table.file.as_ref().map(FileBytes::len) != Some(expected) {
                return Err("changed while it was read".into());
            }
        }
        table.slot_of = slot_of;
        Ok((table, graph))
    }

    /// The keys of the entries of the file the table was read from, in file order (those
    /// still there: not replaced or removed since).
    pub(super) fn file_keys(&self) -> Vec<u64> {
        let mut entries: Vec<(usize, u64)> = self
            .slot_of
            .iter()
            .filter_map(|(&key, slot)| match slot {
                Slot::File(entry) => Some((*entry, key)),
                Slot::Memory(_) => None,
            })
            .collect();
        entries.sort_unstable();
        entries.into_iter().map(|(_, key)| key).collect()
    }

    /// [`load`](Self::load) for a file whose entries' keys are known (`keys`, in file order:
    /// a seal's, `seal.rs`): reads and checks the header only, not the entries.
    pub(super) fn load_sealed(
        path: &Path,
        dims: usize,
        reads: VectorReads,
        keys: Vec<u64>,
    ) -> Result<Self, String> {
        let (file, header) = open_table(path, dims)?;
        if header.count != keys.len() {
            return Err(format!(
                "{} entries, its seal {} keys",
                header.count,
                keys.len()
            ));
        }
        let io = |e: std::io::Error| format!("cannot be read: {e}");
        let mut table = Self::new(dims);
        table.slot_of = HashMap::with_capacity(keys.len());
        for (entry, &key) in keys.iter().enumerate() {
            if table.slot_of.insert(key, Slot::File(entry)).is_some() {
                return Err(format!("key {key} twice"));
            }
        }
        if !keys.is_empty() {
            table.file = Some(file_bytes(file, reads).map_err(io)?);
        }
        Ok(table)
    }
}

/// What a table file's header says, checked against the file's length.
struct Header {
    count: usize,
    file_len: usize,
    graph: GraphSum,
    body_crc: u32,
}

/// Opens the table file at `path` and reads its header (the file is left just after it); why
/// not when it is missing, shorter than its header, of another format or width, or not as
/// long as its entry count says.
fn open_table(path: &Path, dims: usize) -> Result<(std::fs::File, Header), String> {
    let io = |e: std::io::Error| format!("cannot be read: {e}");
    let mut file = std::fs::File::open(path).map_err(io)?;
    let file_len = file.metadata().map_err(io)?.len();
    let mut header = [0u8; HEADER];
    let got = read_up_to(&mut file, &mut header).map_err(io)?;
    if got < HEADER {
        return Err(format!("{got} bytes, shorter than its header"));
    }
    let u32_at = |i: usize| u32::from_le_bytes(std::array::from_fn(|j| header[i + j]));
    let u64_at = |i: usize| u64::from_le_bytes(std::array::from_fn(|j| header[i + j]));
    if &header[..8] != MAGIC {
        return Err("not a vector table (its magic number)".into());
    }
    if u32_at(8) != VERSION {
        return Err(format!("format {}, not {VERSION}", u32_at(8)));
    }
    if u32_at(12) as usize != dims {
        return Err(format!("{}-d vectors, not {dims}-d", u32_at(12)));
    }
    let count = usize::try_from(u64_at(16)).ok();
    let expected = count
        .and_then(|count| count.checked_mul(8 + 4 * dims))
        .and_then(|body| body.checked_add(HEADER));
    let (Some(count), Some(expected)) = (count, expected) else {
        return Err(format!("{} entries, more than fit in memory", u64_at(16)));
    };
    if expected as u64 != file_len {
        return Err(format!(
            "{file_len} bytes, not what {} entries take",
            u64_at(16)
        ));
    }
    let header = Header {
        count,
        file_len: expected,
        graph: GraphSum {
            len: u64_at(24),
            crc: u32_at(32),
        },
        body_crc: u32_at(BODY_CRC_AT as usize),
    };
    Ok((file, header))
}

/// Reads until `buf` is full or the file ends; how many bytes were read.
fn read_up_to(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// `file` kept for reading its vectors: mapped on Unix (the engine replaces the file only by
/// renaming a new one over it, which leaves a mapping or an open file of the old one intact)
/// or kept open for positioned reads, as `reads` says; read whole where neither is available.
fn file_bytes(file: std::fs::File, reads: VectorReads) -> std::io::Result<FileBytes> {
    let file_len = file.metadata()?.len();
    #[cfg(any(unix, windows))]
    if reads.for_table_of(file_len) == VectorReads::Positioned {
        let len = usize::try_from(file_len).map_err(std::io::Error::other)?;
        return Ok(FileBytes::Positioned { file, len });
    }
    #[cfg(unix)]
    {
        // SAFETY: the engine never writes to or truncates a table file in place: a new table
        // is written to a temporary file and renamed over the old one, so the mapped bytes
        // stay as they were verified for as long as the mapping lives.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        // Vectors are read one at a time at random places (the candidates of a query): no
        // read-ahead, which would make resident the neighbours of every vector touched.
        map.advise(memmap2::Advice::Random)?;
        Ok(FileBytes::Mapped(map))
    }
    #[cfg(not(unix))]
    {
        let (_, _, mut file) = (reads, file_len, file);
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(0))?;
        file.read_to_end(&mut bytes)?;
        Ok(FileBytes::Read(bytes))
    }
}

/// A table entry past the end of its file.
fn outside(entry: usize) -> std::io::Error {
    std::io::Error::other(format!("entry {entry} is outside the table's file"))
}

#[cfg(test)]
mod tests {
    use super::super::kernels::inverse_norm;
    use super::*;

    #[test]
    fn similarities_are_exact_cosines() {
        let mut t = ExactVectors::new(20);
        let a: Vec<f32> = (0..20).map(|i| i as f32 - 7.5).collect();
        let b: Vec<f32> = (0..20).map(|i| ((i * 7) % 5) as f32).collect();
        t.put(1, &a);
        t.put(2, &b);
        let s = t.similarity(2, &a, inverse_norm(&a)).unwrap();
        let expected = navigator_core::cosine(&a, &b);
        assert!((s - expected).abs() < 1e-6, "{s} vs {expected}");
        assert!((t.similarity(1, &a, inverse_norm(&a)).unwrap() - 1.0).abs() < 1e-6);
        assert_eq!(t.similarity(3, &a, 1.0), None);
        t.put(4, &[0.0; 20]);
        assert_eq!(t.similarity(4, &a, inverse_norm(&a)), Some(0.0));
    }

    #[test]
    fn removed_slots_are_reused_and_replacing_keeps_one_entry() {
        let mut t = ExactVectors::new(2);
        t.put(1, &[1.0, 0.0]);
        t.put(2, &[0.0, 1.0]);
        t.remove(1);
        t.put(3, &[1.0, 1.0]);
        t.put(3, &[2.0, 0.0]);
        assert_eq!(t.len(), 2);
        assert_eq!(t.keys.len(), 2, "slot of key 1 reused");
        assert!((t.similarity(3, &[1.0, 0.0], 1.0).unwrap() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn a_saved_table_loads_back_and_a_torn_damaged_or_foreign_file_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.f32");
        let mut t = ExactVectors::new(3);
        for k in 0..50u64 {
            t.put(k, &[k as f32, 1.0, -(k as f32)]);
        }
        t.remove(10);
        let sum = GraphSum::of(b"graph bytes");
        t.save(&path, sum).unwrap();
        let (back, back_sum) = ExactVectors::load(&path, 3, VectorReads::Mapped).unwrap();
        assert_eq!(back_sum, sum);
        assert_eq!(back.len(), 49);
        let q = [3.0, 1.0, -3.0];
        assert_eq!(
            back.similarity(3, &q, inverse_norm(&q)),
            t.similarity(3, &q, inverse_norm(&q))
        );
        assert!(back.similarity(10, &q, 1.0).is_none());
        let err = |r: Result<(ExactVectors, GraphSum), String>| r.err().unwrap();
        assert!(
            err(ExactVectors::load(&path, 4, VectorReads::Mapped)).contains("3-d"),
            "other width"
        );
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(
            err(ExactVectors::load(&path, 3, VectorReads::Mapped)).contains("bytes"),
            "torn file"
        );
        let mut flipped = bytes.clone();
        flipped[HEADER + 20] ^= 0x10;
        std::fs::write(&path, &flipped).unwrap();
        assert!(err(ExactVectors::load(&path, 3, VectorReads::Mapped)).contains("checksum"));
        std::fs::write(&path, b"not a table").unwrap();
        assert!(err(ExactVectors::load(&path, 3, VectorReads::Mapped)).contains("header"));
        let mut v1 = bytes;
        v1[8] = 1;
        std::fs::write(&path, &v1).unwrap();
        assert!(err(ExactVectors::load(&path, 3, VectorReads::Mapped)).contains("format 1"));
        assert!(ExactVectors::load(&dir.path().join("missing"), 3, VectorReads::Mapped).is_err());
    }

    #[test]
    fn a_loaded_table_reads_its_file_in_place_and_takes_changes_beside_it() {
        loaded_table_reads_in_place(VectorReads::Mapped);
    }

    #[test]
    fn a_table_read_by_position_reads_its_file_in_place_and_takes_changes_beside_it() {
        loaded_table_reads_in_place(VectorReads::Positioned);
    }

    #[test]
    fn by_default_a_table_is_mapped_up_to_its_size_limit_and_read_by_position_past_it() {
        // The table below (40 entries of a key and five floats) is 1,160 bytes.
        let (at_limit, past_limit) = (
            VectorReads::Auto { map_up_to: 1_160 },
            VectorReads::Auto { map_up_to: 1_159 },
        );
        assert_eq!(at_limit.for_table_of(1_160), VectorReads::Mapped);
        assert_eq!(past_limit.for_table_of(1_160), VectorReads::Positioned);
        for reads in [at_limit, past_limit, VectorReads::default()] {
            assert_eq!(loaded_table_reads_in_place(reads), 1_160);
        }
    }

    /// Checks a table loaded as `reads` says; the size of its file.
    fn loaded_table_reads_in_place(reads: VectorReads) -> u64 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.f32");
        let dims = 5;
        let vector =
            |k: u64| -> Vec<f32> { (0..dims).map(|i| (k * 7 + i as u64) as f32 - 3.0).collect() };
        let mut t = ExactVectors::new(dims);
        for k in 0..40u64 {
            t.put(k, &vector(k));
        }
        let sum = GraphSum::of(b"g");
        t.save(&path, sum).unwrap();
        let (mut loaded, _) = ExactVectors::load(&path, dims, reads).unwrap();
        assert!(
            loaded.file.is_some() && loaded.keys.is_empty(),
            "nothing copied"
        );
        let file_len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(
            loaded.file.as_ref().unwrap().reads_by_copy(),
            cfg!(any(unix, windows)) && reads.for_table_of(file_len) == VectorReads::Positioned
        );
        let q = vector(1000);
        let qi = inverse_norm(&q);
        for k in [0u64, 17, 39] {
            let (a, b) = (
                loaded.similarity(k, &q, qi).unwrap(),
                t.similarity(k, &q, qi).unwrap(),
            );
            assert!((a - b).abs() < 1e-6, "key {k}: {a} vs {b}");
        }
        // Replace a key of the file, remove another, add a new one; save over the mapped file.
        loaded.put(17, &vector(500));
        loaded.remove(3);
        loaded.put(99, &vector(99));
        assert_eq!(loaded.len(), 40);
        loaded.save(&path.with_extension("tmp"), sum).unwrap();
        std::fs::rename(path.with_extension("tmp"), &path).unwrap();
        // The old mapping still reads what it verified.
        assert!(loaded.similarity(18, &q, qi).is_some());
        // In a batch: memory and file slots alike, keys without a vector left out, in order.
        let keys: Vec<u64> = vec![17, 3, 99, 18, 12_345, 0, 1, 2, 39];
        let one_by_one: Vec<(u64, f32)> = keys
            .iter()
            .filter_map(|&k| Some((k, loaded.similarity(k, &q, qi)?)))
            .collect();
        assert_eq!(one_by_one.len(), 7);
        assert_eq!(loaded.similarities(&keys, &q, qi), one_by_one);
        let (back, _) = ExactVectors::load(&path, dims, reads).unwrap();
        assert_eq!(back.len(), 40);
        assert!(back.similarity(3, &q, qi).is_none());
        let replaced = navigator_core::cosine(&q, &vector(500));
        assert!((back.similarity(17, &q, qi).unwrap() - replaced).abs() < 1e-6);
        let added = navigator_core::cosine(&q, &vector(99));
        assert!((back.similarity(99, &q, qi).unwrap() - added).abs() < 1e-6);
        let mut keys: Vec<u64> = back.keys().collect();
        keys.sort_unstable();
        assert_eq!(keys.len(), 40);
        assert!(!keys.contains(&3) && keys.contains(&99));
        file_len
    }

    #[test]
    fn a_table_read_by_position_saves_its_file_entries_a_block_at_a_time() {
        // 1,208-byte entries: 868 to a block, so the 2,000 entries span three blocks.
        let dims = 300;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.f32");
        let vector =
            |k: u64| -> Vec<f32> { (0..dims).map(|i| ((k + i as u64) % 13) as f32).collect() };
        let mut t = ExactVectors::new(dims);
        for k in 0..2_000u64 {
            t.put(k, &vector(k));
        }
        let sum = GraphSum::of(b"g");
        t.save(&path, sum).unwrap();
        let (mut loaded, _) = ExactVectors::load(&path, dims, VectorReads::Positioned).unwrap();
        // Gaps inside and across blocks.
        for k in (0..2_000u64).filter(|k| k % 7 == 3 || (860..880).contains(k)) {
            loaded.remove(k);
        }
        loaded.put(5_000, &vector(5_000));
        let other = dir.path().join("w.f32");
        loaded.save(&other, sum).unwrap();
        let (back, back_sum) = ExactVectors::load(&other, dims, VectorReads::Mapped).unwrap();
        assert_eq!(back_sum, sum);
        assert_eq!(back.len(), loaded.len());
        for k in (0..2_000u64).chain([5_000]) {
            match loaded.vector(k) {
                Some(v) => assert_eq!(back.vector(k).as_deref(), Some(&v[..]), "key {k}"),
                None => assert!(back.vector(k).is_none(), "key {k}"),
            }
        }
        assert_eq!(back.vector(1_999).as_deref(), Some(&vector(1_999)[..]));
    }
}
