//! [`ExactVectors`]: every item's f32 vector in one contiguous table, for exact cosine
//! similarities (the graph only holds 8-bit codes), and its file.
//!
//! File layout (little-endian), format 2: the magic `NAVEXACT`, the format version (`u32`),
//! the width (`u32`), the entry count (`u64`), the graph file's length (`u64`) and CRC-32
//! (`u32`), the CRC-32 of the entries (`u32`); then per entry the key (`u64`) and `width` f32
//! values. The graph's length and checksum live here because usearch reads its own file
//! without verifying it (a damaged graph once crashed the process): the engine checks the
//! graph's bytes against them before handing them to usearch.

use std::collections::HashMap;
use std::io::{BufWriter, Seek, SeekFrom, Write};
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
    pub(super) fn of(bytes: &[u8]) -> Self {
        Self {
            len: bytes.len() as u64,
            crc: crc32fast::hash(bytes),
        }
    }
}

/// Exact vectors by key; freed slots are reused.
pub(super) struct ExactVectors {
    dims: usize,
    slot_of: HashMap<u64, usize>,
    /// The key in each slot (`None` once freed).
    keys: Vec<Option<u64>>,
    /// `dims` values per slot.
    data: Vec<f32>,
    /// 1 / the Euclidean norm of each slot's vector (0 for a zero vector).
    inv_norm: Vec<f32>,
    free: Vec<usize>,
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
        }
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
            Some(&slot) => slot,
            None => {
                let slot = self.free.pop().unwrap_or_else(|| {
                    self.keys.push(None);
                    self.inv_norm.push(0.0);
                    self.data.resize(self.data.len() + self.dims, 0.0);
                    self.keys.len() - 1
                });
                self.slot_of.insert(key, slot);
                self.keys[slot] = Some(key);
                slot
            }
        };
        self.data[slot * self.dims..(slot + 1) * self.dims].copy_from_slice(v);
        self.inv_norm[slot] = inverse_norm(v);
    }

    /// Forgets `key`'s vector.
    pub(super) fn remove(&mut self, key: u64) {
        if let Some(slot) = self.slot_of.remove(&key) {
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
        let slot = *self.slot_of.get(&key)?;
        let v = &self.data[slot * self.dims..(slot + 1) * self.dims];
        Some(dot(query, v) * query_inv_norm * self.inv_norm[slot])
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
    pub(super) fn load(path: &Path, dims: usize) -> Result<(Self, GraphSum), String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot be read: {e}"))?;
        let header = bytes
            .get(..HEADER)
            .ok_or_else(|| format!("{} bytes, shorter than its header", bytes.len()))?;
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
        let entry = 8 + 4 * dims;
        let expected = usize::try_from(u64_at(16))
            .ok()
            .and_then(|count| count.checked_mul(entry))
            .and_then(|body| body.checked_add(HEADER));
        if expected != Some(bytes.len()) {
            return Err(format!(
                "{} bytes, not what {} entries take",
                bytes.len(),
                u64_at(16)
            ));
        }
        let body = &bytes[HEADER..];
        if crc32fast::hash(body) != u32_at(BODY_CRC_AT as usize) {
            return Err("its entries fail their checksum".into());
        }
        let graph = GraphSum {
            len: u64_at(24),
            crc: u32_at(32),
        };
        let mut table = Self::new(dims);
        let mut v = vec![0f32; dims];
        for chunk in body.chunks_exact(entry) {
            let key = u64::from_le_bytes(std::array::from_fn(|j| chunk[j]));
            for (x, b) in v.iter_mut().zip(chunk[8..].chunks_exact(4)) {
                *x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            if table.slot_of.contains_key(&key) {
                return Err(format!("key {key} twice"));
            }
            table.put(key, &v);
        }
        Ok((table, graph))
    }
}

/// 1 / the Euclidean norm of `v`, or 0 when it is zero or not finite.
pub(super) fn inverse_norm(v: &[f32]) -> f32 {
    let n = dot(v, v).sqrt();
    if n > 0.0 && n.is_finite() {
        1.0 / n
    } else {
        0.0
    }
}

/// The dot product, summed in 16 independent lanes so the compiler can vectorise it.
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
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
        let (back, back_sum) = ExactVectors::load(&path, 3).unwrap();
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
            err(ExactVectors::load(&path, 4)).contains("3-d"),
            "other width"
        );
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(
            err(ExactVectors::load(&path, 3)).contains("bytes"),
            "torn file"
        );
        let mut flipped = bytes.clone();
        flipped[HEADER + 20] ^= 0x10;
        std::fs::write(&path, &flipped).unwrap();
        assert!(err(ExactVectors::load(&path, 3)).contains("checksum"));
        std::fs::write(&path, b"not a table").unwrap();
        assert!(err(ExactVectors::load(&path, 3)).contains("header"));
        let mut v1 = bytes;
        v1[8] = 1;
        std::fs::write(&path, &v1).unwrap();
        assert!(err(ExactVectors::load(&path, 3)).contains("format 1"));
        assert!(ExactVectors::load(&dir.path().join("missing"), 3).is_err());
    }
}
