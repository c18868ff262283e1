//! [`VectorIndex`]: the dense side of the engine. A [usearch](https://docs.rs/usearch) HNSW
//! graph (cosine) over 8-bit codes of the vectors finds the candidates; the exact f32 vectors,
//! kept beside it, re-rank them and give every similarity the engine reports.
//!
//! Why two forms: the graph walk computes one distance per visited node, and at 100k items
//! those distances were a third of a hybrid query's time with f32 vectors (usearch's f32
//! cosine kernel accumulates in f64, 8 values at a time). An 8-bit code is a quarter of the
//! bytes and its kernel does 32 values at a time. The walk's whole candidate list (at least
//! [`EXPANSION_SEARCH`] keys) is then re-scored with the exact vectors, so the results and
//! their scores are those of exact cosine over that list.
//!
//! Quantisation: each vector is scaled by 127 / its largest absolute component and rounded.
//! Cosine does not depend on a vector's length, so each vector may have its own scale; this
//! uses the whole 8-bit range, where scaling by 127 / the norm (usearch's own cast) leaves a
//! 384-d unit vector's components within about ±20.
//!
//! Files: the graph in `chunks.usearch`, the exact vectors in `chunks.f32`, each written to
//! a temporary file and renamed, so a crash never leaves a torn file. The table records the
//! graph file's length and CRC-32 and its own entries' CRC-32: usearch reads a graph file
//! without verifying it (flipped bytes once crashed the process), so on open the graph's
//! bytes are checked against the table before usearch sees them. Missing, torn or damaged
//! files, a graph of another form (f32 graphs of earlier versions), or a table that does not
//! hold exactly the graph's keys start both empty ([`Opened::Damaged`], with the reason), and
//! the engine rebuilds them from the store, which keeps every vector; whatever a crash loses
//! is re-added from the store's change log on open, without the model. Memory: 4 bytes per
//! dimension per item for the exact vectors, plus 1 for the codes and the graph's links.

mod exact;
mod items;

use crate::opened::Opened;
use crate::{Error, Result};
use exact::{inverse_norm, ExactVectors, GraphSum};
use std::path::{Path, PathBuf};
use std::sync::{RwLock, RwLockReadGuard};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

/// Graph degree (neighbours per node) and build/search beam widths: chosen for recall@10
/// above 0.98 at 100k items (`benches/search.rs`) while a query stays around a millisecond.
/// The wider build beam (200 instead of usearch's 128) costs indexing time, not query time:
/// with 128, graphs built by parallel inserts measured 0.977–0.990.
const CONNECTIVITY: usize = 16;
const EXPANSION_ADD: usize = 200;
/// The search beam, and so the least number of candidates re-ranked exactly. Over 8-bit
/// codes a beam of 128 gave recall@10 0.984–0.994 at 100k items (8 runs); 160 gives
/// 0.987–0.996 (7 runs) for about 0.1 ms more per walk.
pub(crate) const EXPANSION_SEARCH: usize = 160;
/// How many searches may run at once (usearch keeps one scratch context per thread).
const SEARCH_THREADS: usize = 64;
/// Batches with at least this many vectors are inserted by several threads at once.
const PARALLEL_ADD_MIN: usize = 256;

/// The graph and the exact vectors, always changed together under one lock.
struct Inner {
    graph: Index,
    exact: ExactVectors,
    /// Whether `graph` is a read-only view of its file (as opened); the first change copies
    /// it into memory ([`Inner::thaw`]).
    viewed: bool,
}

impl Inner {
    /// Makes a viewed graph writable: copies it into memory (what opening used to do), so
    /// an index that is only searched never pays for the copy.
    fn thaw(&mut self) -> std::result::Result<(), String> {
        if !self.viewed {
            return Ok(());
        }
        let mut bytes = vec![0u8; self.graph.serialized_length()];
        self.graph
            .save_to_buffer(&mut bytes)
            .map_err(|e| e.to_string())?;
        let graph = Index::restore_from_buffer(&bytes).map_err(|e| e.to_string())?;
        graph.change_expansion_add(EXPANSION_ADD);
        graph.change_expansion_search(EXPANSION_SEARCH);
        graph
            .reserve_capacity_and_threads(graph.size().max(1024), SEARCH_THREADS)
            .map_err(|e| e.to_string())?;
        self.graph = graph;
        self.viewed = false;
        Ok(())
    }
}

/// The usearch HNSW index with its exact vectors.
pub(crate) struct VectorIndex {
    inner: RwLock<Inner>,
    dims: usize,
    path: PathBuf,
    /// How an item's chunks make its similarity.
    rollup: crate::ChunkRollup,
}

/// The 8-bit code of `v`: scaled by 127 / its largest absolute component, rounded. A zero
/// or non-finite vector gives zeros.
fn quantize(v: &[f32]) -> Vec<i8> {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if !(max > 0.0 && max.is_finite()) {
        return vec![0; v.len()];
    }
    let scale = 127.0 / max;
    // `as` saturates, and NaN becomes 0.
    v.iter().map(|x| (x * scale).round() as i8).collect()
}

fn new_graph(path: &Path, dims: usize) -> Result<Index> {
    Index::new(&IndexOptions {
        dimensions: dims,
        metric: MetricKind::Cos,
        quantization: ScalarKind::I8,
        connectivity: CONNECTIVITY,
        expansion_add: EXPANSION_ADD,
        expansion_search: EXPANSION_SEARCH,
        multi: false,
    })
    .map_err(|e| vec_err(path, e))
}

/// Reads the graph at `path` and the exact vectors beside it, verifying the graph's bytes
/// against the length and checksum the table records before usearch sees them; why not.
fn load(path: &Path, dims: usize) -> std::result::Result<Inner, String> {
    let name = |p: &Path| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let exact_file = exact_path(path);
    let (exact, sum) = ExactVectors::load(&exact_file, dims)
        .map_err(|why| format!("{}: {why}", name(&exact_file)))?;
    let read_sum =
        file_sum(path, false).map_err(|e| format!("{}: cannot be read: {e}", name(path)))?;
    if read_sum != sum {
        return Err(format!(
            "{}: {} bytes that do not match the length ({}) and checksum {} records",
            name(path),
            read_sum.len,
            sum.len,
            name(&exact_file)
        ));
    }
    // Verified: now usearch may read it. On Unix the graph is a view of the file (mapped,
    // not copied; the engine replaces the file only by renaming a new one over it).
    let (graph, viewed) = if cfg!(unix) {
        let graph = Index::restore_view(&path.to_string_lossy())
            .map_err(|e| format!("{}: {e}", name(path)))?;
        (graph, true)
    } else {
        let bytes =
            std::fs::read(path).map_err(|e| format!("{}: cannot be read: {e}", name(path)))?;
        let graph =
            Index::restore_from_buffer(&bytes).map_err(|e| format!("{}: {e}", name(path)))?;
        (graph, false)
    };
    if graph.dimensions() != dims
        || graph.scalar_kind() != ScalarKind::I8
        || graph.metric_kind() != MetricKind::Cos
    {
        return Err(format!("{}: a graph of another form", name(path)));
    }
    if exact.len() != graph.size() || !exact.keys().all(|k| graph.contains(k)) {
        return Err(format!(
            "{} and {} hold different keys",
            name(path),
            name(&exact_file)
        ));
    }
    Ok(Inner {
        graph,
        exact,
        viewed,
    })
}

impl VectorIndex {
    /// Loads the graph saved at `path` and the exact vectors beside it, or starts both empty
    /// when neither is there ([`Opened::New`]) or when they cannot be used
    /// ([`Opened::Damaged`]: missing, torn, failing their checksums, of another form or
    /// other dimensions, or not holding the same keys).
    pub(crate) fn open(path: &Path, dims: usize) -> Result<(Self, Opened)> {
        let (inner, opened) = if !path.exists() && !exact_path(path).exists() {
            (None, Opened::New)
        } else {
            match load(path, dims) {
                Ok(inner) => (Some(inner), Opened::Loaded),
                Err(why) => (None, Opened::damaged(why)),
            }
        };
        let inner = match inner {
            Some(inner) => inner,
            None => Inner {
                graph: new_graph(path, dims)?,
                exact: ExactVectors::new(dims),
                viewed: false,
            },
        };
        inner.graph.change_expansion_add(EXPANSION_ADD);
        inner.graph.change_expansion_search(EXPANSION_SEARCH);
        let capacity = inner.graph.size().max(1024);
        inner
            .graph
            .reserve_capacity_and_threads(capacity, SEARCH_THREADS)
            .map_err(|e| vec_err(path, e))?;
        Ok((
            Self {
                inner: RwLock::new(inner),
                dims,
                path: path.to_path_buf(),
                rollup: crate::ChunkRollup::Max,
            },
            opened,
        ))
    }

    fn err(&self, e: impl Into<navigator_core::BoxError>) -> Error {
        vec_err(&self.path, e)
    }

    fn read(&self) -> Result<RwLockReadGuard<'_, Inner>> {
        self.inner.read().map_err(|e| self.err(e.to_string()))
    }

    /// Sets how an item's chunks make its similarity.
    pub(crate) fn set_rollup(&mut self, rollup: crate::ChunkRollup) {
        self.rollup = rollup;
    }

    /// The vector length this index holds.
    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// How many vectors it holds.
    pub(crate) fn len(&self) -> Result<usize> {
        Ok(self
            .inner
            .read()
            .map_err(|e| self.err(e.to_string()))?
            .exact
            .len())
    }

    /// Inserts or replaces vectors; `None` removes the key.
    pub(crate) fn apply(&self, changes: &[(u64, Option<&[f32]>)]) -> Result<()> {
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
                        source: None,
                    });
                }
            }
        }
        let mut guard = self.inner.write().map_err(|e| self.err(e.to_string()))?;
        guard.thaw().map_err(|e| self.err(e))?;
        let Inner { graph, exact, .. } = &mut *guard;
        let needed = graph.size() + changes.len();
        if needed > graph.capacity() {
            graph
                .reserve_capacity_and_threads(needed.max(graph.capacity() * 2), SEARCH_THREADS)
                .map_err(|e| self.err(e))?;
        }
        // Same effect as applying the changes in order: the last change of a key wins.
        let mut last: std::collections::HashMap<u64, Option<&[f32]>> =
            std::collections::HashMap::with_capacity(changes.len());
        for (key, vector) in changes {
            if graph.contains(*key) {
                graph.remove(*key).map_err(|e| self.err(e))?;
            }
            exact.remove(*key);
            last.insert(*key, *vector);
        }
        let mut adds: Vec<(u64, &[f32], Vec<i8>)> = last
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v, quantize(v))))
            .collect();
        adds.sort_unstable_by_key(|(k, _, _)| *k);
        // Graph insertion dominates indexing; usearch takes concurrent adds, so large batches
        // are split across the machine's cores.
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(SEARCH_THREADS);
        if threads < 2 || adds.len() < PARALLEL_ADD_MIN {
            for (key, v, code) in &adds {
                graph.add(*key, code).map_err(|e| self.err(e))?;
                exact.put(*key, v);
            }
            return Ok(());
        }
        let shared: &Index = graph;
        let chunk = adds.len().div_ceil(threads);
        let added = std::thread::scope(|scope| {
            let workers: Vec<_> = adds
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        for (key, _, code) in part {
                            shared.add(*key, code).map_err(|e| e.to_string())?;
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
        });
        // Only what the graph holds gets an exact vector, so the two keep the same keys.
        for (key, v, _) in &adds {
            if graph.contains(*key) {
                exact.put(*key, v);
            }
        }
        added
    }

    /// Drops every vector (before a full rebuild).
    pub(crate) fn clear(&self) -> Result<()> {
        let mut inner = self.inner.write().map_err(|e| self.err(e.to_string()))?;
        inner.graph.reset().map_err(|e| self.err(e))?;
        inner.viewed = false;
        inner.exact.clear();
        inner
            .graph
            .reserve_capacity_and_threads(1024, SEARCH_THREADS)
            .map_err(|e| self.err(e))
    }

    /// The approximate `k` nearest keys passing `keep`, as `(key, exact cosine similarity)`,
    /// best first: the graph walk's candidates (at least [`EXPANSION_SEARCH`]) re-ranked by
    /// their exact vectors.
    pub(crate) fn search(
        &self,
        query: &[f32],
        k: usize,
        keep: impl Fn(u64) -> bool,
    ) -> Result<Vec<(u64, f32)>> {
        let inner = self.inner.read().map_err(|e| self.err(e.to_string()))?;
        if inner.graph.size() == 0 || k == 0 {
            return Ok(Vec::new());
        }
        let code = quantize(query);
        let found = inner
            .graph
            .filtered_search(&code, k.max(EXPANSION_SEARCH), keep)
            .map_err(|e| self.err(e))?;
        let q_inv = inverse_norm(query);
        let mut hits: Vec<(u64, f32)> = found
            .keys
            .into_iter()
            .filter_map(|key| Some((key, inner.exact.similarity(key, query, q_inv)?)))
            .collect();
        hits.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        hits.truncate(k);
        Ok(hits)
    }

    /// Exact cosine similarity of `query` to each of `keys` that has a vector.
    #[cfg(test)]
    pub(crate) fn similarities(&self, query: &[f32], keys: &[u64]) -> Result<Vec<(u64, f32)>> {
        let inner = self.inner.read().map_err(|e| self.err(e.to_string()))?;
        let q_inv = inverse_norm(query);
        Ok(keys
            .iter()
            .filter_map(|&key| Some((key, inner.exact.similarity(key, query, q_inv)?)))
            .collect())
    }

    /// Writes the graph and the exact vectors to their files atomically (temporary files,
    /// flushed, then renamed; the table, renamed last, records the graph's length and
    /// checksum).
    pub(crate) fn save(&self) -> Result<()> {
        let tmp = self.path.with_extension("usearch.tmp");
        let exact = exact_path(&self.path);
        let exact_tmp = exact.with_extension("f32.tmp");
        {
            let inner = self.inner.read().map_err(|e| self.err(e.to_string()))?;
            inner
                .graph
                .save(&tmp.to_string_lossy())
                .map_err(|e| self.err(e))?;
            let sum = file_sum(&tmp, true).map_err(|e| self.err(e))?;
            inner.exact.save(&exact_tmp, sum).map_err(|e| self.err(e))?;
        }
        std::fs::rename(&tmp, &self.path).map_err(|e| self.err(e))?;
        std::fs::rename(&exact_tmp, &exact).map_err(|e| self.err(e))
    }
}

/// The sum of the graph file at `path` (read in blocks), after flushing it to disk when
/// `sync` (a file just written).
fn file_sum(path: &Path, sync: bool) -> std::io::Result<GraphSum> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    if sync {
        file.sync_all()?;
    }
    let mut crc = crc32fast::Hasher::new();
    let mut len = 0u64;
    let mut block = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut block)?;
        if n == 0 {
            break;
        }
        crc.update(&block[..n]);
        len += n as u64;
    }
    Ok(GraphSum {
        len,
        crc: crc.finalize(),
    })
}

impl crate::retrieval::ExactSimilarity for VectorIndex {
    fn similarities(&self, query: &[f32], keys: &[u64]) -> Result<Vec<(u64, f32)>> {
        self.item_similarities(query, keys)
    }
}

/// Where the exact vectors of the graph at `graph_path` are kept.
fn exact_path(graph_path: &Path) -> PathBuf {
    graph_path.with_extension("f32")
}

/// A vector index failure at `path`, keeping usearch's (or the OS's) error as the source.
fn vec_err(path: &Path, e: impl Into<navigator_core::BoxError>) -> Error {
    let source = e.into();
    Error::Index {
        index: "vector",
        path: path.to_path_buf(),
        message: source.to_string(),
        source: Some(source),
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

    /// Every vector as an insert under its position as key.
    fn keyed(vectors: &[Vec<f32>]) -> Vec<(u64, Option<&[f32]>)> {
        vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u64, Some(v.as_slice())))
            .collect()
    }

    #[test]
    fn a_large_batch_applies_like_its_changes_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let (index, opened) = VectorIndex::open(&dir.path().join("v.usearch"), 16).unwrap();
        assert_eq!(opened, Opened::New);
        let vectors: Vec<Vec<f32>> = (0..600).map(|i| unit(i, 16)).collect();
        let replaced = unit(10_000, 16);
        let mut changes = keyed(&vectors);
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
    fn codes_use_the_whole_range_and_degenerate_vectors_give_zeros() {
        assert_eq!(quantize(&[0.5, -0.25, 0.0, 0.1]), vec![127, -64, 0, 25]);
        assert_eq!(quantize(&[0.0; 3]), vec![0; 3]);
        assert_eq!(quantize(&[f32::INFINITY, 1.0]), vec![0; 2]);
        assert_eq!(quantize(&[f32::NAN, 1.0]), vec![0, 127]);
    }

    #[test]
    fn search_reranks_by_exact_cosine_and_agrees_with_an_exact_scan() {
        let dir = tempfile::tempdir().unwrap();
        let dims = 48;
        let (index, _) = VectorIndex::open(&dir.path().join("v.usearch"), dims).unwrap();
        let vectors: Vec<Vec<f32>> = (0..2_000).map(|i| unit(i, dims)).collect();
        index.apply(&keyed(&vectors)).unwrap();
        let mut found = 0;
        for q in 0..20u64 {
            let query = unit(50_000 + q, dims);
            let hits = index.search(&query, 10, |_| true).unwrap();
            assert_eq!(hits.len(), 10);
            for (key, sim) in &hits {
                let exact = navigator_core::cosine(&query, &vectors[*key as usize]);
                assert!((sim - exact).abs() < 1e-5, "{sim} vs {exact}");
            }
            assert!(hits.windows(2).all(|w| w[0].1 >= w[1].1), "best first");
            let mut scan: Vec<(usize, f32)> = vectors
                .iter()
                .enumerate()
                .map(|(i, v)| (i, navigator_core::cosine(&query, v)))
                .collect();
            scan.sort_by(|a, b| b.1.total_cmp(&a.1));
            found += scan[..10]
                .iter()
                .filter(|(i, _)| hits.iter().any(|(k, _)| *k == *i as u64))
                .count();
        }
        assert!(found >= 190, "recall@10 {found}/200");
        let evens = index.search(&vectors[7], 5, |k| k % 2 == 0).unwrap();
        assert!(evens.iter().all(|(k, _)| k % 2 == 0));
    }

    /// A saved index of 300 16-d vectors (key 3 deleted) at `path`.
    fn saved(path: &Path, dims: usize) -> Vec<Vec<f32>> {
        let vectors: Vec<Vec<f32>> = (0..300).map(|i| unit(i, dims)).collect();
        let (index, opened) = VectorIndex::open(path, dims).unwrap();
        assert_eq!(opened, Opened::New);
        index.apply(&keyed(&vectors)).unwrap();
        index.apply(&[(3, None)]).unwrap();
        index.save().unwrap();
        vectors
    }

    /// Opens `path`, expecting it to start empty for a reason containing `why`.
    fn assert_damaged(path: &Path, dims: usize, why: &str) {
        let (index, opened) = VectorIndex::open(path, dims).unwrap();
        match &opened {
            Opened::Damaged(reason) => assert!(reason.contains(why), "{reason:?} lacks {why:?}"),
            other => panic!("opened as {other:?}, expected damaged ({why})"),
        }
        assert_eq!(index.len().unwrap(), 0);
        // An emptied index takes writes and saves again.
        index.apply(&[(1, Some(unit(1, dims).as_slice()))]).unwrap();
        index.save().unwrap();
    }

    #[test]
    fn a_saved_index_reopens_and_a_missing_or_foreign_part_starts_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.usearch");
        let dims = 16;
        let vectors = saved(&path, dims);
        let (index, opened) = VectorIndex::open(&path, dims).unwrap();
        assert_eq!(opened, Opened::Loaded);
        assert_eq!(index.len().unwrap(), 299);
        assert_eq!(index.search(&vectors[9], 1, |_| true).unwrap()[0].0, 9);
        assert!(index.similarities(&vectors[3], &[3]).unwrap().is_empty());
        drop(index);

        // Without its exact vectors the graph is not used.
        std::fs::remove_file(exact_path(&path)).unwrap();
        assert_damaged(&path, dims, "v.f32: cannot be read");

        // A graph of f32 vectors (an earlier form) is rebuilt, not read.
        let old = Index::new(&IndexOptions {
            dimensions: dims,
            metric: MetricKind::Cos,
            quantization: ScalarKind::F32,
            ..IndexOptions::default()
        })
        .unwrap();
        old.reserve(10).unwrap();
        old.add(1, &vectors[1]).unwrap();
        old.save(&path.to_string_lossy()).unwrap();
        let mut table = ExactVectors::new(dims);
        table.put(1, &vectors[1]);
        let bytes = std::fs::read(&path).unwrap();
        table
            .save(&exact_path(&path), GraphSum::of(&bytes))
            .unwrap();
        assert_damaged(&path, dims, "another form");
    }

    #[test]
    fn an_opened_index_is_a_view_until_its_first_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.usearch");
        let dims = 16;
        let vectors = saved(&path, dims);
        let (index, _) = VectorIndex::open(&path, dims).unwrap();
        assert_eq!(index.read().unwrap().viewed, cfg!(unix));
        assert_eq!(index.search(&vectors[9], 1, |_| true).unwrap()[0].0, 9);
        // The first change copies the graph into memory and goes on from there.
        let fresh = unit(77_777, dims);
        index
            .apply(&[(1_000, Some(fresh.as_slice())), (9, None)])
            .unwrap();
        assert!(!index.read().unwrap().viewed);
        assert_eq!(index.len().unwrap(), 299);
        assert_eq!(index.search(&fresh, 1, |_| true).unwrap()[0].0, 1_000);
        assert_ne!(index.search(&vectors[9], 1, |_| true).unwrap()[0].0, 9);
        assert_eq!(index.search(&vectors[20], 1, |_| true).unwrap()[0].0, 20);
        index.save().unwrap();
        drop(index);
        let (back, opened) = VectorIndex::open(&path, dims).unwrap();
        assert_eq!(opened, Opened::Loaded);
        assert_eq!(back.len().unwrap(), 299);
        assert_eq!(back.search(&fresh, 1, |_| true).unwrap()[0].0, 1_000);
    }

    /// Defect 3 of the reliability audit: flipping bytes in the middle of the graph file made
    /// usearch crash the process (SIGSEGV) on open. The graph is now checked against the sum
    /// its table records before usearch reads it.
    #[test]
    fn defect_3_a_graph_with_flipped_body_bytes_is_rebuilt_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.usearch");
        let dims = 16;
        type Damage = fn(&mut Vec<u8>);
        let damages: [(&str, Damage); 3] = [
            ("flipped", |b| {
                let len = b.len();
                for p in [len / 3, len / 2, len / 2 + 1, len - 9] {
                    b[p] ^= 0x5a;
                }
            }),
            ("truncated", |b| b.truncate(b.len() / 2)),
            ("emptied", |b| b.clear()),
        ];
        for (what, damage) in damages {
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::remove_file(exact_path(&path));
            saved(&path, dims);
            let mut bytes = std::fs::read(&path).unwrap();
            damage(&mut bytes);
            std::fs::write(&path, &bytes).unwrap();
            eprintln!("graph {what}");
            assert_damaged(&path, dims, "do not match");
        }
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
