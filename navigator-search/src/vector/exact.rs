//! [`ExactVectors`]: every item's f32 vector in one contiguous table, for exact cosine
//! similarities (the graph only holds 8-bit codes), and its file.
//!
//! File layout (little-endian): the magic `NAVEXACT`, a format version (`u32`), the width
//! (`u32`), the entry count (`u64`), then per entry the key (`u64`) and `width` f32 values.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"NAVEXACT";
const VERSION: u32 = 1;
const HEADER: usize = 8 + 4 + 4 + 8;

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

    /// Writes the table to `path` and flushes it to disk.
    pub(super) fn save(&self, path: &Path) -> std::io::Result<()> {
        let file = std::fs::File::create(path)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&(self.dims as u32).to_le_bytes())?;
        out.write_all(&(self.len() as u64).to_le_bytes())?;
        let mut buf = Vec::with_capacity(8 + 4 * self.dims);
        for (slot, key) in self.keys.iter().enumerate() {
            let Some(key) = key else { continue };
            buf.clear();
            buf.extend_from_slice(&key.to_le_bytes());
            for x in &self.data[slot * self.dims..(slot + 1) * self.dims] {
                buf.extend_from_slice(&x.to_le_bytes());
            }
            out.write_all(&buf)?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    }

    /// Reads a table written by [`Self::save`]; `None` when the file is missing, torn, of
    /// another format or of another width.
    pub(super) fn load(path: &Path, dims: usize) -> Option<Self> {
        let bytes = std::fs::read(path).ok()?;
        let header = bytes.get(..HEADER)?;
        let u32_at = |i: usize| u32::from_le_bytes(header[i..i + 4].try_into().unwrap_or([0; 4]));
        if &header[..8] != MAGIC || u32_at(8) != VERSION || u32_at(12) as usize != dims {
            return None;
        }
        let count = usize::try_from(u64::from_le_bytes(header[16..24].try_into().ok()?)).ok()?;
        let entry = 8 + 4 * dims;
        if bytes.len() != HEADER.checked_add(count.checked_mul(entry)?)? {
            return None;
        }
        let mut table = Self::new(dims);
        let mut v = vec![0f32; dims];
        for chunk in bytes[HEADER..].chunks_exact(entry) {
            let key = u64::from_le_bytes(chunk[..8].try_into().ok()?);
            for (x, b) in v.iter_mut().zip(chunk[8..].chunks_exact(4)) {
                *x = f32::from_le_bytes(b.try_into().ok()?);
            }
            if table.slot_of.contains_key(&key) {
                return None;
            }
            table.put(key, &v);
        }
        Some(table)
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
    fn a_saved_table_loads_back_and_a_torn_or_foreign_file_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.f32");
        let mut t = ExactVectors::new(3);
        for k in 0..50u64 {
            t.put(k, &[k as f32, 1.0, -(k as f32)]);
        }
        t.remove(10);
        t.save(&path).unwrap();
        let back = ExactVectors::load(&path, 3).unwrap();
        assert_eq!(back.len(), 49);
        let q = [3.0, 1.0, -3.0];
        assert_eq!(
            back.similarity(3, &q, inverse_norm(&q)),
            t.similarity(3, &q, inverse_norm(&q))
        );
        assert!(back.similarity(10, &q, 1.0).is_none());
        assert!(ExactVectors::load(&path, 4).is_none(), "other width");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(ExactVectors::load(&path, 3).is_none(), "torn file");
        std::fs::write(&path, b"not a table").unwrap();
        assert!(ExactVectors::load(&path, 3).is_none());
        assert!(ExactVectors::load(&dir.path().join("missing"), 3).is_none());
    }
}
