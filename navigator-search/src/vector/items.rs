//! Items over chunks: an item's chunks are keys `item << CHUNK_BITS | chunk` of the one
//! graph, always numbered `0..n` without gaps, and an item's similarity to a query comes
//! from all its chunks' exact similarities by the configured [`ChunkRollup`]
//! (crate::ChunkRollup).

use super::{Inner, VectorIndex};
use crate::chunk::{ItemVectors, MAX_CHUNKS};
use crate::Result;
use std::collections::HashSet;

/// Bits of a graph key that number the chunk ([`MAX_CHUNKS`] fit).
pub(crate) const CHUNK_BITS: u32 = 12;
const _: () = assert!(MAX_CHUNKS <= 1 << CHUNK_BITS);

/// The most chunk hits a walk asks for per wanted item: a long note's chunks crowd one
/// another out of the beam, so the walk collects more and rolls them up. Fewer when items
/// have fewer chunks on average ([`Inner::chunk_hits_per_item`]).
const CHUNKS_PER_ITEM: usize = 4;

/// The graph key of chunk `chunk` of item `item`.
pub(crate) fn chunk_key(item: u64, chunk: usize) -> u64 {
    (item << CHUNK_BITS) | chunk as u64
}

/// The item a graph key belongs to.
pub(crate) fn item_of(key: u64) -> u64 {
    key >> CHUNK_BITS
}

/// Whether graph key `key` is an item's second or later chunk.
pub(super) fn is_later_chunk(key: u64) -> bool {
    key & ((1 << CHUNK_BITS) - 1) != 0
}

impl Inner {
    /// How many chunk hits a walk asks for per wanted item: the mean number of chunks per
    /// item rounded up, at most [`CHUNKS_PER_ITEM`]; 1 when every item is one vector (its
    /// hits are all distinct items, and asking for more only widened the walk).
    fn chunk_hits_per_item(&self) -> usize {
        let chunks = self.exact.len();
        match chunks - self.later_chunks {
            0 => 1,
            items => chunks.div_ceil(items).clamp(1, CHUNKS_PER_ITEM),
        }
    }

    /// The exact similarity of `query` (of inverse norm `q_inv`) to each of `items` that has
    /// vectors, rolled up from its chunks by `rollup`.
    fn item_similarities(
        &self,
        rollup: crate::ChunkRollup,
        query: &[f32],
        q_inv: f32,
        items: &[u64],
    ) -> Vec<(u64, f32)> {
        if self.later_chunks == 0 {
            // Every item is its one chunk, whose similarity is the item's.
            let keys: Vec<u64> = items.iter().map(|&item| chunk_key(item, 0)).collect();
            return self
                .exact
                .similarities(&keys, query, q_inv)
                .into_iter()
                .map(|(key, s)| (item_of(key), s))
                .collect();
        }
        let mut sims: Vec<f32> = Vec::new();
        items
            .iter()
            .filter_map(|&item| {
                sims.clear();
                sims.extend(
                    (0..MAX_CHUNKS)
                        .map_while(|i| self.exact.similarity(chunk_key(item, i), query, q_inv)),
                );
                rollup.roll_up(&mut sims).map(|s| (item, s))
            })
            .collect()
    }

    /// How many chunks `item` has.
    fn chunk_count(&self, item: u64) -> usize {
        (0..MAX_CHUNKS)
            .take_while(|&i| self.exact.contains(chunk_key(item, i)))
            .count()
    }
}

impl VectorIndex {
    /// Inserts, replaces (`Some`) or removes (`None`) items with all their chunks.
    pub(crate) fn apply_items(&self, changes: &[(u64, Option<&ItemVectors>)]) -> Result<()> {
        let existing: Vec<usize> = {
            let inner = self.read()?;
            changes
                .iter()
                .map(|(item, _)| inner.chunk_count(*item))
                .collect()
        };
        let mut keyed: Vec<(u64, Option<&[f32]>)> = Vec::new();
        for ((item, vectors), old) in changes.iter().zip(existing) {
            let new = vectors.map_or(0, |v| v.chunks.len().min(MAX_CHUNKS));
            keyed.extend((new..old).map(|i| (chunk_key(*item, i), None)));
            if let Some(v) = vectors {
                keyed.extend(
                    v.chunks
                        .iter()
                        .take(MAX_CHUNKS)
                        .enumerate()
                        .map(|(i, c)| (chunk_key(*item, i), Some(c.vector.as_slice()))),
                );
            }
        }
        self.apply(&keyed)
    }

    /// The approximate `k` nearest items passing `keep` by their best chunk, as
    /// `(item, cosine)`, best first.
    pub(crate) fn search_items(
        &self,
        query: &[f32],
        k: usize,
        keep: impl Fn(u64) -> bool,
    ) -> Result<Vec<(u64, f32)>> {
        self.nearest_items(query, k, Some(&|key| keep(item_of(key))))
    }

    /// [`search_items`](Self::search_items) over every item: the walk asks nothing of the
    /// nodes it visits (at a million items, the check through the catalog was a few percent
    /// of a query).
    pub(crate) fn search_all_items(&self, query: &[f32], k: usize) -> Result<Vec<(u64, f32)>> {
        self.nearest_items(query, k, None)
    }

    /// The `k` nearest items whose chunk keys pass `keep` (all with `None`).
    fn nearest_items(
        &self,
        query: &[f32],
        k: usize,
        keep: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>> {
        let inner = self.read()?;
        let per_item = inner.chunk_hits_per_item();
        let wanted = k.saturating_mul(per_item);
        let mut hits = self.walk(&inner, query, wanted, keep)?;
        let mut items = if inner.later_chunks == 0 {
            // Every item is its one chunk: a hit's exact similarity is its item's.
            hits.into_iter()
                .map(|(key, sim)| (item_of(key), sim))
                .collect()
        } else {
            // The walk's best chunks find the items; each is then scored over all its chunks,
            // exactly.
            hits.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            hits.truncate(wanted);
            let mut seen: HashSet<u64> = HashSet::with_capacity(hits.len());
            let candidates: Vec<u64> = hits
                .into_iter()
                .map(|(key, _)| item_of(key))
                .filter(|item| seen.insert(*item))
                .collect();
            let q_inv = super::kernels::inverse_norm(query);
            inner.item_similarities(self.rollup, query, q_inv, &candidates)
        };
        items.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        items.truncate(k);
        Ok(items)
    }

    /// The exact similarity of `query` to each of `items` that has vectors (rolled up from
    /// its chunks).
    pub(crate) fn item_similarities(
        &self,
        query: &[f32],
        items: &[u64],
    ) -> Result<Vec<(u64, f32)>> {
        let inner = self.read()?;
        let q_inv = super::kernels::inverse_norm(query);
        Ok(inner.item_similarities(self.rollup, query, q_inv, items))
    }

    /// Whether `item` has a second chunk here (a one-chunk item's snippet needs no passage).
    pub(crate) fn has_several_chunks(&self, item: u64) -> Result<bool> {
        Ok(self.read()?.exact.contains(chunk_key(item, 1)))
    }

    /// The exact similarity of `query` to each chunk of `item`, in chunk order.
    pub(crate) fn chunk_similarities(&self, query: &[f32], item: u64) -> Result<Vec<f32>> {
        let inner = self.read()?;
        let q_inv = super::kernels::inverse_norm(query);
        Ok((0..MAX_CHUNKS)
            .map_while(|i| inner.exact.similarity(chunk_key(item, i), query, q_inv))
            .collect())
    }

    /// How many items have vectors (every item has a first chunk; the later ones are
    /// counted as they come and go).
    pub(crate) fn item_count(&self) -> Result<usize> {
        let inner = self.read()?;
        Ok(inner.exact.len() - inner.later_chunks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic 8-d vector for `seed`.
    fn vector(seed: u64) -> Vec<f32> {
        (0..8)
            .map(|i| ((seed as f32 + 1.0) * (i as f32 + 1.3)).sin())
            .collect()
    }

    /// Puts chunks `chunks` of `item`.
    fn put(index: &VectorIndex, item: u64, chunks: std::ops::Range<usize>) {
        let vectors: Vec<(u64, Vec<f32>)> = chunks
            .map(|i| (chunk_key(item, i), vector(item * 1000 + i as u64)))
            .collect();
        let changes: Vec<(u64, Option<&[f32]>)> = vectors
            .iter()
            .map(|(k, v)| (*k, Some(v.as_slice())))
            .collect();
        index.apply(&changes).unwrap();
    }

    /// Removes chunks `chunks` of `item`.
    fn remove(index: &VectorIndex, item: u64, chunks: std::ops::Range<usize>) {
        let changes: Vec<(u64, Option<&[f32]>)> =
            chunks.map(|i| (chunk_key(item, i), None)).collect();
        index.apply(&changes).unwrap();
    }

    /// The index's count of later chunks and the chunk hits it asks for per item.
    fn counts(index: &VectorIndex) -> (usize, usize) {
        let inner = index.read().unwrap();
        (inner.later_chunks, inner.chunk_hits_per_item())
    }

    #[test]
    fn a_walk_asks_for_as_many_chunk_hits_per_item_as_items_have_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.usearch");
        let (index, _) = VectorIndex::open(&path, 8).unwrap();
        assert_eq!(counts(&index), (0, 1), "empty");
        for item in 1..=10 {
            put(&index, item, 0..1);
        }
        assert_eq!(counts(&index), (0, 1), "one chunk each");
        put(&index, 11, 0..3);
        assert_eq!(counts(&index), (2, 2), "13 chunks over 11 items");
        assert_eq!(index.item_count().unwrap(), 11);
        put(&index, 12, 0..40);
        assert_eq!(counts(&index), (41, CHUNKS_PER_ITEM), "at most the cap");
        remove(&index, 12, 0..40);
        put(&index, 11, 1..2);
        assert_eq!(counts(&index), (2, 2), "removed, and a chunk replaced");
        index.save().unwrap();
        drop(index);
        let (index, _) = VectorIndex::open(&path, 8).unwrap();
        assert_eq!(counts(&index), (2, 2), "counted again on open");
        assert_eq!(index.item_count().unwrap(), 11);
        remove(&index, 11, 1..3);
        assert_eq!(counts(&index), (0, 1));
        index.clear().unwrap();
        put(&index, 5, 0..2);
        assert_eq!(
            counts(&index),
            (1, 2),
            "cleared, then one item of two chunks"
        );
    }

    #[test]
    fn an_item_scores_as_its_one_chunk_or_as_the_roll_up_of_all_its_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let (index, _) = VectorIndex::open(&dir.path().join("v.usearch"), 8).unwrap();
        for item in 1..=30 {
            put(&index, item, 0..1);
        }
        let query = vector(4242);
        let exact = |items: &[u64]| index.item_similarities(&query, items).unwrap();
        let all: Vec<u64> = (1..=30).collect();
        let mut expected = exact(&all);
        expected.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        expected.truncate(5);
        assert_eq!(index.search_items(&query, 5, |_| true).unwrap(), expected);
        // Item 31's second chunk is the query itself: its item ranks first with cosine 1.
        put(&index, 31, 0..1);
        index
            .apply(&[(chunk_key(31, 1), Some(query.as_slice()))])
            .unwrap();
        let hits = index.search_items(&query, 5, |item| item != 7).unwrap();
        assert_eq!(hits[0].0, 31);
        assert!((hits[0].1 - 1.0).abs() < 1e-5, "{hits:?}");
        assert!(
            hits.iter().all(|(item, _)| *item != 7),
            "kept only what passes"
        );
        assert_eq!(hits.len(), 5);
    }
}
