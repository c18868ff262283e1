//! [`SearchEngine`]: the embedded hybrid engine. The store is the source of truth; the keyword
//! and vector indexes are derived from it and repaired on open.
//!
//! Layout of an engine directory: `store.redb` — or, over another [`Store`]
//! ([`SearchEngine::with_store`]), `index.redb` — holding the engine's bookkeeping (each item's
//! key and vector, a copy of the items, the change log the indexes replay), `keyword/`
//! (tantivy), `chunks.usearch` (HNSW graph over 8-bit codes of every chunk's vector),
//! `chunks.f32` (the exact vectors the graph's candidates are re-ranked with), `chunks.seal`
//! (the identities of those two files as an open last verified them), `catalog.snap`
//! (the in-memory catalog as last saved, `catalog/snapshot.rs`).
//!
//! Damage: the store is opened in memory first (`store/probe.rs`) and a store file redb
//! cannot open is refused with [`Error::Storage`] naming it, left as it was; so is a missing
//! or empty store beside existing indexes (a new empty store would drop every item). Damaged
//! derived files — a tantivy segment failing its checksum, a torn vector file, a bookkeeping
//! file beside another store — are rebuilt from the store and reported by
//! [`SearchEngine::repairs`].
//!
//! Over another store, every write goes to that store first and then, under the engine's
//! write lock, to the bookkeeping and the indexes; opening compares the store with the
//! bookkeeping item by item and logs every difference as a change, so whatever a crash
//! interrupted, or the store's other writers did, is replayed into the indexes.

mod catalog;
mod embed;
mod helper;
mod query;
mod repair;
mod write;

use crate::blocking::run_blocking;
use crate::catalog::Catalog;
use crate::config::EngineConfig;
use crate::keyword::KeywordIndex;
use crate::opened::{Opened, Repair};
use crate::store::RedbStore;
use crate::vector::VectorIndex;
use crate::{Error, Result};
use navigator_core::{Embedder, Store};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

pub use write::Progress;

/// Counter name of the last store sequence number saved in the vector file.
const VECTOR_SEQ: &str = "vector_seq";
/// Meta name of the embedding model the index was built with ([`Embedder::fingerprint`]).
const MODEL_META: &str = "model";
/// The store file of an engine that is its own source of truth.
const STORE_FILE: &str = "store.redb";
/// The vector files (graph, exact vectors, and the seal of the two) in an engine directory.
const VECTOR_FILES: [&str; 3] = ["chunks.usearch", "chunks.f32", "chunks.seal"];
/// Everything in an engine directory that is derived from the store: the keyword index's
/// directory, the vector files and the catalog snapshot.
const DERIVED: [&str; 5] = [
    "keyword",
    VECTOR_FILES[0],
    VECTOR_FILES[1],
    VECTOR_FILES[2],
    crate::catalog::snapshot::FILE,
];

/// The embedded hybrid search engine over a PARA knowledge base.
///
/// Thread-safe: searches run concurrently with each other and with one writer at a time.
/// A `SearchEngine` is a handle: clones share one engine. Its async methods run the blocking
/// tantivy, usearch and redb work on tokio's blocking pool, so they never stall the async
/// executor (a `current_thread` runtime included); the synchronous methods
/// ([`search_with_vector`](Self::search_with_vector),
/// [`upsert_with_vectors`](Self::upsert_with_vectors), ...) run on the caller's thread.
///
/// ```no_run
/// # async fn demo() -> navigator_search::Result<()> {
/// use navigator_core::{FastEmbedder, SearchRequest, SearchService};
/// use navigator_search::SearchEngine;
/// use std::sync::Arc;
/// let engine = SearchEngine::open("./kb-index", Arc::new(FastEmbedder::default_model()?)).await?;
/// let page = engine.search(&SearchRequest::new("quarterly report")?).await?;
/// for hit in page.results {
///     println!("{:.2} {}", hit.relevance_score, hit.title);
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct SearchEngine {
    shared: Arc<Shared>,
}

/// The engine's state, shared by its handles; the last handle dropped saves the vectors.
pub struct Shared {
    /// The engine's bookkeeping; the source of truth itself unless `source` is set.
    store: RedbStore,
    /// The source of truth when it is not `store` ([`SearchEngine::with_store`]).
    source: Option<Arc<dyn Store>>,
    /// Orders writes to `source` and to the bookkeeping the same way (held across awaits).
    write_order: tokio::sync::Mutex<()>,
    keyword: Arc<KeywordIndex>,
    vectors: Arc<VectorIndex>,
    /// The second retrieval thread of hybrid searches (`parallel_retrieval`).
    helper: Option<helper::Helper>,
    catalog: RwLock<Catalog>,
    embedder: Arc<dyn Embedder>,
    config: EngineConfig,
    /// Serialises writers; holds how many vector changes are not yet saved to disk.
    writer: Mutex<usize>,
    /// What the catalog snapshot on disk holds.
    snapshot_at: Mutex<catalog::SnapshotAt>,
    /// The indexes rebuilt from the store when the engine opened.
    repairs: Mutex<Vec<Repair>>,
    /// Reading the vector files into the page cache after the open, if it still runs.
    _warmer: Option<crate::warm::Warmer>,
    dir: PathBuf,
}

impl std::ops::Deref for SearchEngine {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.shared
    }
}

impl std::fmt::Debug for SearchEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchEngine")
            .field("dir", &self.dir)
            .field("model", &self.embedder.model_id())
            .finish()
    }
}

impl SearchEngine {
    /// Opens (or creates) the engine in `dir` with the default configuration, repairing the
    /// indexes from the store when they diverge.
    pub async fn open(dir: impl AsRef<Path>, embedder: Arc<dyn Embedder>) -> Result<Self> {
        Self::open_with(dir, embedder, EngineConfig::default()).await
    }

    /// Opens (or creates) the engine in `dir` with `config`.
    pub async fn open_with(
        dir: impl AsRef<Path>,
        embedder: Arc<dyn Embedder>,
        config: EngineConfig,
    ) -> Result<Self> {
        Self::open_over(dir.as_ref(), None, embedder, config, false).await
    }

    /// Opens the engine in `dir` and embeds every item again with `embedder`, from the text
    /// the store keeps: what to run after changing the embedding model (an index opened with
    /// another model than its own is an [`Error::ModelMismatch`]). The new model is recorded
    /// once the vectors are dropped; an interrupted re-index is finished by the next open.
    pub async fn reindex(
        dir: impl AsRef<Path>,
        embedder: Arc<dyn Embedder>,
        config: EngineConfig,
    ) -> Result<Self> {
        Self::open_over(dir.as_ref(), None, embedder, config, true).await
    }

    /// Opens (or creates) the engine's indexes in `dir` over any [`Store`] as the source of
    /// truth: items written through the engine go to `store` first; items others wrote to
    /// `store` meanwhile are indexed when the engine opens.
    ///
    /// ```no_run
    /// # async fn demo(embedder: std::sync::Arc<dyn navigator_core::Embedder>) -> navigator_search::Result<()> {
    /// use navigator_core::MemoryStore;
    /// use navigator_search::{EngineConfig, SearchEngine};
    /// use std::sync::Arc;
    /// let store = Arc::new(MemoryStore::new());
    /// let engine = SearchEngine::with_store("./kb-index", store, embedder, EngineConfig::default()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn with_store(
        dir: impl AsRef<Path>,
        store: Arc<dyn Store>,
        embedder: Arc<dyn Embedder>,
        config: EngineConfig,
    ) -> Result<Self> {
        Self::open_over(dir.as_ref(), Some(store), embedder, config, false).await
    }

    async fn open_over(
        dir: &Path,
        source: Option<Arc<dyn Store>>,
        embedder: Arc<dyn Embedder>,
        config: EngineConfig,
        reembed: bool,
    ) -> Result<Self> {
        let dir = dir.to_path_buf();
        let fingerprint = embedder.fingerprint();
        let file = if source.is_some() {
            "index.redb"
        } else {
            STORE_FILE
        };
        let store_dir = dir.clone();
        let own_store = source.is_none();
        let (store, repaired) = run_blocking(move || {
            std::fs::create_dir_all(&store_dir).map_err(|source| Error::Io {
                path: store_dir.clone(),
                source,
            })?;
            let path = store_dir.join(file);
            let (store, repaired) = if own_store {
                refuse_lost_store(&store_dir)?;
                (RedbStore::open(&path)?, None)
            } else {
                // The bookkeeping beside another store is derived from it: a damaged one
                // is rebuilt, with the indexes, by the reconciliation below.
                match RedbStore::open_unless_damaged(&path)? {
                    Ok(store) => (store, None),
                    Err(damage) => {
                        remove_derived(&store_dir, &path)?;
                        let repair = Repair {
                            index: "bookkeeping",
                            path: path.clone(),
                            reason: damage.why,
                        };
                        (RedbStore::open(&path)?, Some(repair))
                    }
                }
            };
            check_model(&store, &store_dir, &fingerprint, reembed)?;
            Ok((store, repaired))
        })
        .await?;
        if let Some(source) = &source {
            repair::reconcile(&store, source.as_ref()).await?;
        }
        let (engine, keyword, vectors) =
            run_blocking(move || Self::open_files(dir, store, source, embedder, config)).await?;
        if let Some(repair) = repaired {
            engine.record(repair);
        }
        engine.repair(keyword, vectors).await?;
        engine
            .blocking(|engine| engine.snapshot_if_missing(catalog::SNAPSHOT_AT_OPEN))
            .await?;
        Ok(engine)
    }

    /// The blocking part of opening: both indexes and the catalog; how each index found its
    /// files.
    fn open_files(
        dir: PathBuf,
        store: RedbStore,
        source: Option<Arc<dyn Store>>,
        embedder: Arc<dyn Embedder>,
        config: EngineConfig,
    ) -> Result<(Self, Opened, Opened)> {
        // Graphs of versions before chunking (`vectors.*`, keyed by item) are rebuilt from
        // the store as `chunks.*`.
        for old in ["vectors.usearch", "vectors.f32"] {
            let _ = std::fs::remove_file(dir.join(old));
        }
        // The three loads are independent (each verifies or decodes its own files): side by
        // side, opening a large index takes as long as the slowest of them.
        let (keyword, vectors, catalog) = std::thread::scope(|scope| {
            let keyword = scope.spawn(|| KeywordIndex::open(&dir.join("keyword")));
            let vectors = scope.spawn(|| {
                VectorIndex::open_with(
                    &dir.join(VECTOR_FILES[0]),
                    embedder.dimensions(),
                    config.graph_degree,
                    config.vector_reads,
                )
            });
            let catalog = catalog::load(&dir, &store);
            (joined(keyword), joined(vectors), catalog)
        });
        let (keyword, keyword_opened) = keyword?;
        let (mut vectors, vectors_opened) = vectors?;
        vectors.set_rollup(config.chunk_rollup);
        vectors.set_search_beam(config.search_beam);
        let (catalog, snapshot_at) = catalog?;
        let helper = config
            .parallel_retrieval
            .then(helper::Helper::start)
            .flatten();
        let warmer = (config.warm_vector_files && vectors_opened == Opened::Loaded)
            .then(|| {
                crate::warm::Warmer::start(vec![
                    dir.join(VECTOR_FILES[0]),
                    dir.join(VECTOR_FILES[1]),
                ])
            })
            .flatten();
        let shared = Shared {
            store,
            source,
            write_order: tokio::sync::Mutex::new(()),
            keyword: Arc::new(keyword),
            vectors: Arc::new(vectors),
            helper,
            catalog: RwLock::new(catalog),
            embedder,
            config,
            writer: Mutex::new(0),
            snapshot_at: Mutex::new(snapshot_at),
            repairs: Mutex::new(Vec::new()),
            _warmer: warmer,
            dir,
        };
        shared.vectors.start_building();
        let engine = Self {
            shared: Arc::new(shared),
        };
        Ok((engine, keyword_opened, vectors_opened))
    }

    /// Runs blocking `f` with a handle to this engine on tokio's blocking pool.
    pub(crate) async fn blocking<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&SearchEngine) -> Result<T> + Send + 'static,
    {
        let engine = self.clone();
        run_blocking(move || f(&engine)).await
    }

    /// The engine's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The engine's own store: the source of truth of an engine opened with
    /// [`open`](Self::open), the bookkeeping (a copy of the items, their vectors and keys)
    /// of one opened [`with_store`](Self::with_store).
    pub fn store(&self) -> &RedbStore {
        &self.store
    }

    /// The store given to [`with_store`](Self::with_store), if any.
    pub fn source(&self) -> Option<&Arc<dyn Store>> {
        self.source.as_ref()
    }

    /// The configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The embedder queries and documents go through.
    pub fn embedder(&self) -> &Arc<dyn Embedder> {
        &self.embedder
    }

    /// How many items are searchable.
    pub fn len(&self) -> usize {
        self.catalog.read().map_or(0, |c| c.len())
    }

    /// How many embedded chunks the items have in all (one per item that fits the
    /// embedder's window, more for longer items).
    pub fn chunk_count(&self) -> Result<usize> {
        self.vectors.len()
    }

    /// How many chunk vectors are searchable but not yet in the vector graph. A large batch
    /// (256 chunks or more) is searchable as soon as its write returns: its vectors are
    /// scanned exactly until a background thread, which starts once writes pause, has put
    /// them into the HNSW graph. Searches cost more while the backlog is large.
    pub fn graph_backlog(&self) -> Result<usize> {
        self.vectors.backlog_len()
    }

    /// Puts the whole graph backlog into the graph now, on the caller's thread (blocking;
    /// searches wait for at most one step of 256 chunks at a time), so that every search
    /// walks the graph: after a bulk load, before measuring query latency.
    pub fn finish_graph(&self) -> Result<()> {
        self.vectors.finish_graph()
    }

    /// Sets the vector graph's search beam on the open engine (at least 1; the default is
    /// [`EngineConfig::search_beam`](crate::EngineConfig::search_beam)): a wider beam finds
    /// more of the exact nearest neighbours in a large index and takes longer per search.
    /// Searches already running keep the beam they started with.
    pub fn set_search_beam(&self, beam: usize) {
        self.vectors.set_search_beam(beam);
    }

    /// The vector graph's search beam in use.
    pub fn search_beam(&self) -> usize {
        self.vectors.search_beam()
    }

    /// Whether no item is searchable.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Merges the keyword index into one segment, saves the vector graph, and rewrites item
    /// facts an earlier version stored as JSON in the compact form the catalog loads fastest
    /// from: what to call after a large import (a search then visits one segment instead of
    /// one per batch). Takes about as long as rewriting the keyword index (the vectors are
    /// saved beside the merge, on another thread); writes wait meanwhile, searches do not.
    /// [`bulk_load`](Self::bulk_load) calls it when it wrote at least half the items.
    pub fn compact(&self) -> Result<()> {
        let mut unsaved = self.writer.lock().map_err(|e| self.lock_err(e))?;
        let _writing = self.vectors.writing();
        let upgraded = self.store.upgrade_facts()?;
        if upgraded > 0 {
            tracing::info!(upgraded, "item facts rewritten in the compact form");
        }
        let (merged, saved) = std::thread::scope(|scope| {
            let merge = scope.spawn(|| self.keyword.compact());
            let saved = self.save(&mut unsaved);
            (joined(merge), saved)
        });
        merged.and(saved)
    }

    /// How many keyword index segments a search visits (a diagnostic: see
    /// [`compact`](Self::compact)).
    pub fn keyword_segments(&self) -> usize {
        self.keyword.segments()
    }

    /// Saves the vector graph so the next open has nothing to replay.
    pub fn flush(&self) -> Result<()> {
        self.shared.flush()
    }

    /// The derived indexes this engine found damaged (a file missing, torn or failing its
    /// checksum) or out of step with the store when it opened, and rebuilt from the store;
    /// empty after a clean open. Nothing the store holds is lost by a repair.
    pub fn repairs(&self) -> Vec<Repair> {
        self.repairs.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

/// What a scoped thread returned; its panic resumed in the caller.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Removes a damaged bookkeeping file and the indexes derived with it, to be rebuilt from
/// the source store.
fn remove_derived(dir: &Path, bookkeeping: &Path) -> Result<()> {
    let io = |path: PathBuf| move |source| Error::Io { path, source };
    std::fs::remove_file(bookkeeping).map_err(io(bookkeeping.to_path_buf()))?;
    for name in DERIVED {
        let path = dir.join(name);
        let removed = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else if path.exists() {
            std::fs::remove_file(&path)
        } else {
            Ok(())
        };
        removed.map_err(io(path))?;
    }
    Ok(())
}

/// Refuses to open an engine directory whose store (the source of truth) is missing or empty
/// while the indexes derived from it are there: creating a new, empty store over them would
/// silently drop every item, and the indexes cannot give them back (they hold no item
/// whole). The error names the store file; nothing in the directory is changed.
fn refuse_lost_store(dir: &Path) -> Result<()> {
    let store = dir.join(STORE_FILE);
    let len = match std::fs::metadata(&store) {
        Ok(meta) => Some(meta.len()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(Error::Io {
                path: store,
                source: e,
            })
        }
    };
    if len.is_some_and(|n| n > 0) {
        return Ok(());
    }
    let derived: Vec<&str> = DERIVED
        .into_iter()
        .filter(|f| dir.join(f).exists())
        .collect();
    if derived.is_empty() {
        return Ok(());
    }
    Err(Error::Storage {
        message: format!(
            "the store is {} but its indexes ({}) are there: the store is the source of \
             truth and cannot be rebuilt from them; restore {STORE_FILE} from a backup, or \
             remove the directory and index the notes again",
            if len.is_some() { "empty" } else { "missing" },
            derived.join(", ")
        ),
        path: store,
        source: None,
    })
}

/// Checks that the index in `dir` was built with the model `fingerprint` names (recording it
/// for a new index); with `reembed`, drops every vector instead and records the model.
fn check_model(store: &RedbStore, dir: &Path, fingerprint: &str, reembed: bool) -> Result<()> {
    let recorded = store.meta(MODEL_META)?;
    if reembed {
        store.reset_vectors(MODEL_META, fingerprint)?;
        for file in VECTOR_FILES {
            match std::fs::remove_file(dir.join(file)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::Io {
                        path: dir.join(file),
                        source: e,
                    })
                }
                _ => {}
            }
        }
        return Ok(());
    }
    match recorded {
        Some(m) if m == fingerprint => Ok(()),
        Some(m) => Err(Error::ModelMismatch {
            dir: dir.to_path_buf(),
            index_model: m,
            embedder_model: fingerprint.to_string(),
        }),
        // A new index, or one from a version that did not record its model.
        None => store.set_meta(MODEL_META, fingerprint),
    }
}

impl Shared {
    fn lock_err(&self, e: impl std::fmt::Display) -> Error {
        Error::Storage {
            path: self.dir.clone(),
            message: format!("a lock was poisoned by a panicking thread: {e}"),
            source: None,
        }
    }

    fn flush(&self) -> Result<()> {
        let mut unsaved = self.writer.lock().map_err(|e| self.lock_err(e))?;
        self.save(&mut unsaved)
    }

    /// Saves what is not saved of the vector index and the catalog snapshot (the caller
    /// holds the writer lock: `unsaved` is its guard's count), then prunes the change log of
    /// what every index and the snapshot hold.
    fn save(&self, unsaved: &mut usize) -> Result<()> {
        let vectors_saved_at = if *unsaved > 0 || self.vectors.graph_unsaved() {
            let seq = self.store.last_seq()?;
            self.vectors.save()?;
            self.store.write_counter(VECTOR_SEQ, seq)?;
            *unsaved = 0;
            Some(seq)
        } else {
            None
        };
        self.save_catalog()?;
        match vectors_saved_at {
            Some(seq) => {
                let applied = seq.min(self.keyword.applied_seq()?);
                self.store.prune_changes(applied)
            }
            None => Ok(()),
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // Best effort: whatever is not saved is replayed from the change log on open.
        if let Err(e) = self.flush() {
            tracing::warn!("saving the vector index on close failed: {e}");
        }
    }
}
