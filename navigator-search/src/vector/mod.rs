//! [`VectorIndex`]: the dense side of the engine. A [usearch](https://docs.rs/usearch) HNSW
//! graph (cosine) over 8-bit codes of the vectors finds the candidates; the exact f32 vectors,
//! kept beside it, re-rank them and give every similarity the engine reports.
//!
//! Why two forms: the graph walk computes one distance per visited node, and at 100k items
//! those distances were a third of a hybrid query's time with f32 vectors (usearch's f32
//! cosine kernel accumulates in f64, 8 values at a time). An 8-bit code is a quarter of the
//! bytes and its kernel does 32 values at a time. The walk's whole candidate list (at least
//! the search beam, [`EXPANSION_SEARCH`] unless set) is then re-scored with the exact
//! vectors, so the results and their scores are those of exact cosine over that list.
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
//! bytes are checked against the table before usearch sees them — unless both files still
//! have the identity a seal recorded when an earlier open verified them (`seal.rs`: nothing
//! has written to them since), which makes a cold open read neither. Missing, torn or damaged
//! files, a graph of another form (f32 graphs of earlier versions), or a table that does not
//! hold exactly the graph's keys start both empty ([`Opened::Damaged`], with the reason), and
//! the engine rebuilds them from the store, which keeps every vector; whatever a crash loses
//! is re-added from the store's change log on open, without the model. Memory: 4 bytes per
//! dimension per item for the exact vectors, plus 1 for the codes and the graph's links.
//!
//! Large batches do not wait for the graph (`backlog.rs`): their vectors go into the exact
//! table at once, searches scan those exactly until a background thread has put them into
//! the graph, and a saved table may hold keys its graph does not (they are put in after the
//! next open).

mod backlog;
mod cores;
mod exact;
mod items;
mod kernels;
mod reach;
mod seal;

use crate::config::VectorReads;
use crate::opened::Opened;
use crate::{Error, Result};
use backlog::Backlog;
use exact::{ExactVectors, GraphSum};
use kernels::inverse_norm;
use seal::Stamp;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

/// Build and search beam widths (the graph's degree is [`crate::EngineConfig::graph_degree`]):
/// chosen for recall@10 above 0.98 at 100k items (`benches/search.rs`) while a query stays
/// around a millisecond. The wider build beam (200 instead of usearch's 128) costs indexing
/// time, not query time: with 128, graphs built by parallel inserts measured 0.977–0.990.
const EXPANSION_ADD: usize = 200;
/// The search beam, and so the least number of candidates re-ranked exactly. Over 8-bit
/// codes of a degree-16 graph a beam of 128 gave recall@10 0.984–0.994 at 100k items (8
/// runs), 160 gave 0.987–0.996 (7 runs). With degree 32, 320 instead of 160 costs nothing
/// measurable in the engine at 100k (hybrid p50 1.79–1.82 against 1.72–1.86 ms) and lifts
/// recall@10 at a million synthetic items from 0.864 to 0.975. 400, because another build of
/// the same million items reached only 0.959 at 320 (graphs built by concurrent inserts
/// differ), and 0.977 at 400 for about 0.3–0.6 ms more a hybrid query (docs/benchmarks.md).
pub(crate) const EXPANSION_SEARCH: usize = 400;
/// The beam usearch itself keeps: the least, because a walk is as wide as the larger of
/// this and the count a search asks for, and a search asks for at least the configured
/// beam. A larger floor here made a beam set below it do nothing.
const GRAPH_BEAM: usize = 1;
/// How many searches may run at once (usearch keeps one scratch context per thread).
const SEARCH_THREADS: usize = 64;
/// Batches with at least this many new vectors leave them to the background graph builder
/// (searchable at once by an exact scan); smaller ones enter the graph before `apply`
/// returns.
const DEFER_MIN: usize = 256;

/// The graph and the exact vectors, always changed together under one lock.
struct Inner {
    graph: Index,
    exact: ExactVectors,
    /// Whether `graph` is a read-only view of its file (as opened); the first change copies
    /// it into memory ([`Inner::thaw`]).
    viewed: bool,
    /// Keys with an exact vector that the graph does not hold yet (the backlog); never in
    /// the graph at the same time.
    pending: HashSet<u64>,
    /// Keys the graph took but no search reached (`reach.rs`): out of the graph, scanned
    /// exactly like the backlog, not built again while open; never in `pending` too.
    stray: HashSet<u64>,
    /// How many of `exact`'s keys are an item's second or later chunk (`items.rs`): with
    /// none, every item is one vector.
    later_chunks: usize,
    /// Whether the files were opened on their seal (`seal.rs`) rather than read whole.
    #[cfg_attr(not(test), allow(dead_code))]
    sealed: bool,
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
        graph.change_expansion_search(GRAPH_BEAM);
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
    /// Wakes the background graph builder.
    backlog: Backlog,
    /// Whether the graph took keys from the backlog since the last save.
    graph_grew: AtomicBool,
    /// The search beam: how many candidates a walk collects, all re-ranked exactly
    /// ([`EXPANSION_SEARCH`] unless set).
    beam: AtomicUsize,
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

fn new_graph(path: &Path, dims: usize, degree: usize) -> Result<Index> {
    Index::new(&IndexOptions {
        dimensions: dims,
        metric: MetricKind::Cos,
        quantization: ScalarKind::I8,
        connectivity: degree.max(2),
        expansion_add: EXPANSION_ADD,
        expansion_search: GRAPH_BEAM,
        multi: false,
    })
    .map_err(|e| vec_err(path, e))
}

/// The file name of `p` (its whole path when it has none), for messages.
fn name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Reads the graph at `path` and the exact vectors beside it, verifying the graph's bytes
/// against the length and checksum the table records before usearch sees them; why not.
fn load(path: &Path, dims: usize, reads: VectorReads) -> std::result::Result<Inner, String> {
    let exact_file = exact_path(path);
    // Identities first: a file changed while it is verified then no longer matches them.
    let stamps = Stamp::of(path).and_then(|g| Ok((g, Stamp::of(&exact_file)?)));
    if let Ok((graph_stamp, table_stamp)) = stamps {
        if let Some(keys) = seal::keys_if_unchanged(path, graph_stamp, table_stamp) {
            // A seal only spares the reads: whatever it does not account for is verified.
            match ExactVectors::load_sealed(&exact_file, dims, reads, keys)
                .and_then(|exact| restore(path, exact, true))
            {
                Ok(inner) => return Ok(inner),
                Err(why) => tracing::warn!(
                    "the seal of {} does not fit the files ({why}); verifying them",
                    name(path)
                ),
            }
        }
    }
    // Both files are read whole to verify them: side by side, a cold open waits for the
    // disk once rather than for one file after the other.
    let (exact, read_sum) = std::thread::scope(|scope| {
        let graph_sum = scope.spawn(|| file_sum(path, false));
        let exact = ExactVectors::load(&exact_file, dims, reads);
        let graph_sum = graph_sum
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (exact, graph_sum)
    });
    let (exact, sum) = exact.map_err(|why| format!("{}: {why}", name(&exact_file)))?;
    let read_sum = read_sum.map_err(|e| format!("{}: cannot be read: {e}", name(path)))?;
    if read_sum != sum {
        return Err(format!(
            "{}: {} bytes that do not match the length ({}) and checksum {} records",
            name(path),
            read_sum.len,
            sum.len,
            name(&exact_file)
        ));
    }
    // The keys in file order, before opening moves any into memory.
    let keys = exact.file_keys();
    let inner = restore(path, exact, false)?;
    // Both verified: the next open of the same files need not read them.
    if let Ok((graph_stamp, table_stamp)) = stamps {
        if let Err(e) = seal::write(path, graph_stamp, table_stamp, &keys) {
            tracing::warn!("writing the seal of {}: {e}", name(path));
        }
    }
    Ok(inner)
}

/// The index of the verified (or sealed: `sealed`) graph file at `path` and its table.
fn restore(path: &Path, exact: ExactVectors, sealed: bool) -> std::result::Result<Inner, String> {
    let exact_file = exact_path(path);
    let dims = exact.dims();
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
    // Every graph key has an exact vector; exact vectors the graph lacks are its backlog.
    let pending: HashSet<u64> = exact.keys().filter(|&k| !graph.contains(k)).collect();
    if exact.len() - pending.len() != graph.size() {
        return Err(format!(
            "{} and {} hold different keys",
            name(path),
            name(&exact_file)
        ));
    }
    let later_chunks = exact.keys().filter(|&k| items::is_later_chunk(k)).count();
    let mut inner = Inner {
        graph,
        exact,
        viewed,
        pending,
        stray: HashSet::new(),
        later_chunks,
        sealed,
    };
    inner.hold_backlog_in_memory();
    Ok(inner)
}

impl VectorIndex {
    /// Loads the graph saved at `path` and the exact vectors beside it, or starts both empty
    /// when neither is there ([`Opened::New`]) or when they cannot be used
    /// ([`Opened::Damaged`]: missing, torn, failing their checksums, of another form or
    /// other dimensions, or not holding the same keys). A new graph has the default degree.
    #[cfg(test)]
    pub(crate) fn open(path: &Path, dims: usize) -> Result<(Self, Opened)> {
        Self::open_with_degree(path, dims, crate::config::DEFAULT_GRAPH_DEGREE)
    }

    /// [`open`](Self::open), a new graph linking each node to `degree` neighbours (at least
    /// 2; twice as many on its base layer). A loaded graph keeps the degree it was built with.
    #[cfg(test)]
    pub(crate) fn open_with_degree(
        path: &Path,
        dims: usize,
        degree: usize,
    ) -> Result<(Self, Opened)> {
        Self::open_with(path, dims, degree, VectorReads::Mapped)
    }

    /// [`open_with_degree`](Self::open_with_degree), reading the saved exact vectors as
    /// `reads` says.
    pub(crate) fn open_with(
        path: &Path,
        dims: usize,
        degree: usize,
        reads: VectorReads,
    ) -> Result<(Self, Opened)> {
        let (inner, opened) = if !path.exists() && !exact_path(path).exists() {
            (None, Opened::New)
        } else {
            match load(path, dims, reads) {
                Ok(inner) => (Some(inner), Opened::Loaded),
                Err(why) => (None, Opened::damaged(why)),
            }
        };
        let inner = match inner {
            Some(inner) => inner,
            None => Inner {
                graph: new_graph(path, dims, degree)?,
                exact: ExactVectors::new(dims),
                viewed: false,
                pending: HashSet::new(),
                stray: HashSet::new(),
                later_chunks: 0,
                sealed: false,
            },
        };
        inner.graph.change_expansion_add(EXPANSION_ADD);
        inner.graph.change_expansion_search(GRAPH_BEAM);
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
                backlog: Backlog::new(),
                graph_grew: AtomicBool::new(false),
                beam: AtomicUsize::new(EXPANSION_SEARCH),
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

    /// Grows `graph` to hold `needed` keys (at least doubling), before adding to it.
    fn make_room(&self, graph: &Index, needed: usize) -> Result<()> {
        if needed > graph.capacity() {
            graph
                .reserve_capacity_and_threads(needed.max(graph.capacity() * 2), SEARCH_THREADS)
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    fn write(&self) -> Result<RwLockWriteGuard<'_, Inner>> {
        self.inner.write().map_err(|e| self.err(e.to_string()))
    }

    /// Sets the search beam (at least 1): wider finds more of the exact nearest neighbours in
    /// a large graph and costs time per search, about linearly.
    pub(crate) fn set_search_beam(&self, beam: usize) {
        self.beam.store(beam.max(1), Ordering::Relaxed);
    }

    /// The search beam in use.
    pub(crate) fn search_beam(&self) -> usize {
        self.beam.load(Ordering::Relaxed)
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
        let mut guard = self.write()?;
        guard.thaw().map_err(|e| self.err(e))?;
        let Inner {
            graph,
            exact,
            pending,
            stray,
            later_chunks,
            ..
        } = &mut *guard;
        // Same effect as applying the changes in order: the last change of a key wins.
        let mut last: std::collections::HashMap<u64, Option<&[f32]>> =
            std::collections::HashMap::with_capacity(changes.len());
        for (key, vector) in changes {
            if graph.contains(*key) {
                graph.remove(*key).map_err(|e| self.err(e))?;
            }
            if items::is_later_chunk(*key) && exact.contains(*key) {
                *later_chunks -= 1;
            }
            exact.remove(*key);
            pending.remove(key);
            stray.remove(key);
            last.insert(*key, *vector);
        }
        let mut adds: Vec<(u64, &[f32])> = last
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
        adds.sort_unstable_by_key(|(k, _)| *k);
        *later_chunks += adds
            .iter()
            .filter(|(k, _)| items::is_later_chunk(*k))
            .count();
        if adds.len() >= DEFER_MIN {
            // Searchable now through the exact scan; the graph takes them in the background.
            for (key, v) in &adds {
                exact.put(*key, v);
                pending.insert(*key);
            }
            let backlog = pending.len();
            drop(guard);
            self.backlog.wrote(backlog);
            return Ok(());
        }
        self.make_room(graph, graph.size() + adds.len())?;
        let codes: Vec<(u64, Vec<i8>)> = adds.iter().map(|(k, v)| (*k, quantize(v))).collect();
        for ((key, v), (_, code)) in adds.iter().zip(&codes) {
            graph.add(*key, code).map_err(|e| self.err(e))?;
            exact.put(*key, v);
        }
        let lost = reach::unreachable(graph, &codes);
        guard.strand(&lost);
        let backlog = guard.pending.len();
        drop(guard);
        self.backlog.wrote(backlog);
        Ok(())
    }

    /// Drops every vector (before a full rebuild).
    pub(crate) fn clear(&self) -> Result<()> {
        let mut inner = self.write()?;
        inner.graph.reset().map_err(|e| self.err(e))?;
        inner.viewed = false;
        inner.exact.clear();
        inner.later_chunks = 0;
        inner.pending.clear();
        inner.stray.clear();
        inner
            .graph
            .reserve_capacity_and_threads(1024, SEARCH_THREADS)
            .map_err(|e| self.err(e))
    }

    /// The approximate `k` nearest keys passing `keep`, as `(key, exact cosine similarity)`,
    /// best first: the graph walk's candidates (at least the search beam) re-ranked by
    /// their exact vectors, with the backlog the graph does not hold yet scanned exactly.
    #[cfg(test)]
    pub(crate) fn search(
        &self,
        query: &[f32],
        k: usize,
        keep: impl Fn(u64) -> bool,
    ) -> Result<Vec<(u64, f32)>> {
        let inner = self.read()?;
        let mut hits = self.walk(&inner, query, k, Some(&keep))?;
        hits.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        hits.truncate(k);
        Ok(hits)
    }

    /// [`search`](Self::search) before sorting and cutting to `k`: every candidate of the
    /// walk (at least `k` and the beam) and of the backlog passing `keep` (every key with
    /// `None`: the walk then asks nothing of each node it visits), with its exact similarity.
    fn walk(
        &self,
        inner: &Inner,
        query: &[f32],
        k: usize,
        keep: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>> {
        if inner.exact.len() == 0 || k == 0 {
            return Ok(Vec::new());
        }
        let want = k.max(self.search_beam());
        let q_inv = inverse_norm(query);
        let mut hits: Vec<(u64, f32)> = Vec::new();
        if inner.graph.size() > 0 {
            let code = quantize(query);
            let found = match keep {
                Some(keep) => inner.graph.filtered_search(&code, want, keep),
                None => inner.graph.search(&code, want),
            }
            .map_err(|e| self.err(e))?;
            hits = inner.exact.similarities(&found.keys, query, q_inv);
        }
        if !inner.pending.is_empty() || !inner.stray.is_empty() {
            let keep = |key| keep.is_none_or(|keep| keep(key));
            hits.extend(backlog::scan(inner, query, q_inv, want, &keep));
        }
        Ok(hits)
    }

    /// Exact cosine similarity of `query` to each of `keys` that has a vector.
    #[cfg(test)]
    pub(crate) fn similarities(&self, query: &[f32], keys: &[u64]) -> Result<Vec<(u64, f32)>> {
        let inner = self.inner.read().map_err(|e| self.err(e.to_string()))?;
        Ok(inner.exact.similarities(keys, query, inverse_norm(query)))
    }

    /// Writes the graph and the exact vectors to their files atomically (temporary files,
    /// flushed, then renamed; the table, renamed last, records the graph's length and
    /// checksum).
    pub(crate) fn save(&self) -> Result<()> {
        let tmp = self.path.with_extension("usearch.tmp");
        let exact = exact_path(&self.path);
        let exact_tmp = exact.with_extension("f32.tmp");
        {
            let inner = self.read()?;
            inner
                .graph
                .save(&tmp.to_string_lossy())
                .map_err(|e| self.err(e))?;
            let sum = file_sum(&tmp, true).map_err(|e| self.err(e))?;
            inner.exact.save(&exact_tmp, sum).map_err(|e| self.err(e))?;
            // The builder changes the graph only under the write lock: nothing since `save`.
            self.graph_grew.store(false, Ordering::Release);
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
mod tests;
