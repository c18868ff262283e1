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

/// How many chunk hits a walk asks for per wanted item: a long note's chunks crowd one
/// another out of the beam, so the walk collects more and rolls them up.
const CHUNKS_PER_ITEM: usize = 4;

/// The graph key of chunk `chunk` of item `item`.
pub(crate) fn chunk_key(item: u64, chunk: usize) -> u64 {
    (item << CHUNK_BITS) | chunk as u64
}

/// The item a graph key belongs to.
pub(crate) fn item_of(key: u64) -> u64 {
    key >> CHUNK_BITS
}

impl Inner {
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
        let hits = self.search(query, k.saturating_mul(CHUNKS_PER_ITEM), |key| {
            keep(item_of(key))
        })?;
        // The walk finds the items; each is then scored over all its chunks, exactly.
        let mut seen: HashSet<u64> = HashSet::with_capacity(hits.len());
        let candidates: Vec<u64> = hits
            .into_iter()
            .map(|(key, _)| item_of(key))
            .filter(|item| seen.insert(*item))
            .collect();
        let mut items = self.item_similarities(query, &candidates)?;
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
        let q_inv = super::exact::inverse_norm(query);
        let mut sims: Vec<f32> = Vec::new();
        Ok(items
            .iter()
            .filter_map(|&item| {
                sims.clear();
                sims.extend(
                    (0..MAX_CHUNKS)
                        .map_while(|i| inner.exact.similarity(chunk_key(item, i), query, q_inv)),
                );
                self.rollup.roll_up(&mut sims).map(|s| (item, s))
            })
            .collect())
    }

    /// The exact similarity of `query` to each chunk of `item`, in chunk order.
    pub(crate) fn chunk_similarities(&self, query: &[f32], item: u64) -> Result<Vec<f32>> {
        let inner = self.read()?;
        let q_inv = super::exact::inverse_norm(query);
        Ok((0..MAX_CHUNKS)
            .map_while(|i| inner.exact.similarity(chunk_key(item, i), query, q_inv))
            .collect())
    }

    /// How many items have vectors.
    pub(crate) fn item_count(&self) -> Result<usize> {
        let inner = self.read()?;
        Ok(inner
            .exact
            .keys()
            .filter(|&k| k & ((1 << CHUNK_BITS) - 1) == 0)
            .count())
    }
}
