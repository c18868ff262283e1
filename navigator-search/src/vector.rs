//! [`VectorIndex`]: the dense side of the engine, a [usearch](https://docs.rs/usearch) HNSW
//! graph (cosine, f32) keyed by the store's item keys.
//!
//! The graph lives in memory and is saved to one file (write to a temporary file, then
//! rename, so a crash never leaves a torn file). The store keeps every vector, so whatever a
//! crash loses is re-added from the store's change log on open, without the model.

use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

/// Graph degree (neighbours per node) and build/search beam widths: chosen for recall@10
/// above 0.98 at 100k items (`benches/search.rs`) while a query stays around a millisecond.
/// The wider build beam (200 instead of usearch's 128) costs indexing time, not query time:
/// with 128, graphs built by parallel inserts measured 0.977–0.990.
const CONNECTIVITY: usize = 16;
const EXPANSION_ADD: usize = 200;
const EXPANSION_SEARCH: usize = 128;
/// How many searches may run at once (usearch keeps one scratch context per thread).
const SEARCH_THREADS: usize = 64;
/// Batches with at least this many vectors are inserted by several threads at once.
const PARALLEL_ADD_MIN: usize = 256;

/// The usearch HNSW index.
pub(crate) struct VectorIndex {
    index: RwLock<Index>,
    dims: usize,
    path: PathBuf,
}

impl VectorIndex {
    /// Loads the graph saved at `path`, or starts an empty one when the file is missing,
    /// unreadable or of other dimensions. The flag says whether it started empty.
    pub(crate) fn open(path: &Path, dims: usize) -> Result<(Self, bool)> {
        let loaded = path
            .exists()
            .then(|| Index::restore(&path.to_string_lossy()).ok())
            .flatten()
            .filter(|i| i.dimensions() == dims);
        let (index, fresh) = match loaded {
            Some(index) => (index, false),
            None => {
                let options = IndexOptions {
                    dimensions: dims,
                    metric: MetricKind::Cos,
                    quantization: ScalarKind::F32,
                    connectivity: CONNECTIVITY,
                    expansion_add: EXPANSION_ADD,
                    expansion_search: EXPANSION_SEARCH,
                    multi: false,
                };
                (Index::new(&options).map_err(|e| vec_err(path, e))?, true)
            }
        };
        index.change_expansion_add(EXPANSION_ADD);
        index.change_expansion_search(EXPANSION_SEARCH);
        let capacity = index.size().max(1024);
        index
            .reserve_capacity_and_threads(capacity, SEARCH_THREADS)
            .map_err(|e| vec_err(path, e))?;
        Ok((
            Self {
                index: RwLock::new(index),
                dims,
                path: path.to_path_buf(),
            },
            fresh,
        ))
    }

    fn err(&self, e: impl std::fmt::Display) -> Error {
        vec_err(&self.path, e)
    }

    /// The vector length this index holds.
    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// How many vectors it holds.
    pub(crate) fn len(&self) -> Result<usize> {
        Ok(self.index.read().map_err(|e| self.err(e))?.size())
    }

    /// Inserts or replaces vectors; `None` removes the key.
    pub(crate) fn apply(&self, changes: &[(u64, Option<&[f32]>)]) -> Result<()> {
        let index = self.index.write().map_err(|e| self.err(e))?;
        let needed = index.size() + changes.len();
        if needed > index.capacity() {
            index
                .reserve_capacity_and_threads(needed.max(index.capacity() * 2), SEARCH_THREADS)
                .map_err(|e| self.err(e))?;
        }
        for (key, vector) in changes {
            if let Some(v) = vector {
                if v.len() != self.dims {
                    return Err(Error::Index {
                        index: "vector",
                        path: self.path.clone(),
                        message: format!(
                            "key {key}: {}-d vector, index is {}-d",
                            v.len(),
                            self.dims
                        ),
                    });
                }
            }
        }
        // Same effect as applying the changes in order: the last change of a key wins.
        let mut last: std::collections::HashMap<u64, Option<&[f32]>> =
            std::collections::HashMap::with_capacity(changes.len());
        for (key, vector) in changes {
            if index.contains(*key) {
                index.remove(*key).map_err(|e| self.err(e))?;
            }
            last.insert(*key, *vector);
        }
        let mut adds: Vec<(u64, &[f32])> = last
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
        adds.sort_unstable_by_key(|(k, _)| *k);
        // Graph insertion dominates indexing; usearch takes concurrent adds, so large batches
        // are split across the machine's cores.
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(SEARCH_THREADS);
        if threads < 2 || adds.len() < PARALLEL_ADD_MIN {
            for (key, v) in &adds {
                index.add(*key, v).map_err(|e| self.err(e))?;
            }
            return Ok(());
        }
        let index = &*index;
        let chunk = adds.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = adds
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        for (key, v) in part {
                            index.add(*key, v).map_err(|e| e.to_string())?;
                        }
                        Ok::<(), String>(())
                    })
                })
                .collect();
            workers.into_iter().try_for_each(|w| {
                w.join()
                    .map_err(|_| self.err("an indexing thread panicked"))?
                    .map_err(|e| self.err(e))
            })
        })
    }

    /// Drops every vector (before a full rebuild).
    pub(crate) fn clear(&self) -> Result<()> {
        let index = self.index.write().map_err(|e| self.err(e))?;
        index.reset().map_err(|e| self.err(e))?;
        index
            .reserve_capacity_and_threads(1024, SEARCH_THREADS)
            .map_err(|e| self.err(e))
    }

    /// The approximate `k` nearest keys passing `keep`, as `(key, cosine similarity)`, best
    /// first.
    pub(crate) fn search(
        &self,
        query: &[f32],
        k: usize,
        keep: impl Fn(u64) -> bool,
    ) -> Result<Vec<(u64, f32)>> {
        let index = self.index.read().map_err(|e| self.err(e))?;
        if index.size() == 0 {
            return Ok(Vec::new());
        }
        let m = index
            .filtered_search(query, k, keep)
            .map_err(|e| self.err(e))?;
        Ok(m.keys
            .into_iter()
            .zip(m.distances)
            .map(|(k, d)| (k, 1.0 - d))
            .collect())
    }

    /// Exact cosine similarity of `query` to each of `keys` that has a vector.
    pub(crate) fn similarities(&self, query: &[f32], keys: &[u64]) -> Result<Vec<(u64, f32)>> {
        let index = self.index.read().map_err(|e| self.err(e))?;
        let mut buf = vec![0f32; self.dims];
        let mut out = Vec::with_capacity(keys.len());
        for &key in keys {
            if index.get(key, &mut buf).map_err(|e| self.err(e))? > 0 {
                out.push((key, navigator_core::cosine(query, &buf)));
            }
        }
        Ok(out)
    }

    /// Writes the graph to its file atomically (temporary file, then rename).
    pub(crate) fn save(&self) -> Result<()> {
        let tmp = self.path.with_extension("usearch.tmp");
        {
            let index = self.index.read().map_err(|e| self.err(e))?;
            index
                .save(&tmp.to_string_lossy())
                .map_err(|e| self.err(e))?;
        }
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| self.err(e))?;
        std::fs::rename(&tmp, &self.path).map_err(|e| self.err(e))
    }
}

fn vec_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Index {
        index: "vector",
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic unit vector for `seed`.
    fn unit(seed: u64, dims: usize) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let v: Vec<f32> = (0..dims)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2000) as f32 / 1000.0 - 1.0
            })
            .collect();
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.into_iter().map(|a| a / n).collect()
    }

    #[test]
    fn a_large_batch_applies_like_its_changes_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let (index, fresh) = VectorIndex::open(&dir.path().join("v.usearch"), 16).unwrap();
        assert!(fresh);
        let vectors: Vec<Vec<f32>> = (0..600).map(|i| unit(i, 16)).collect();
        let replaced = unit(10_000, 16);
        let mut changes: Vec<(u64, Option<&[f32]>)> = vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u64, Some(v.as_slice())))
            .collect();
        // Key 5 is written twice (the second wins), key 7 is added then deleted.
        changes.push((5, Some(replaced.as_slice())));
        changes.push((7, None));
        index.apply(&changes).unwrap();
        assert_eq!(index.len().unwrap(), 599);
        let sims = index.similarities(&replaced, &[5, 7]).unwrap();
        assert_eq!(sims.len(), 1, "key 7 was deleted");
        assert!(
            (sims[0].1 - 1.0).abs() < 1e-5,
            "key 5 holds its last vector"
        );
        let top = index.search(&vectors[42], 1, |_| true).unwrap();
        assert_eq!(top[0].0, 42);
    }

    #[test]
    fn a_vector_of_the_wrong_width_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (index, _) = VectorIndex::open(&dir.path().join("v.usearch"), 16).unwrap();
        let good = unit(1, 16);
        let bad = unit(2, 8);
        let err = index
            .apply(&[(1, Some(good.as_slice())), (2, Some(bad.as_slice()))])
            .unwrap_err();
        assert!(err.to_string().contains("8-d vector"), "{err}");
        assert_eq!(index.len().unwrap(), 0);
    }
}
