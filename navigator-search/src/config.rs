//! [`EngineConfig`]: the tuning shared by the embedded engine and the retrieval core (and so
//! by the PostgreSQL backend, which ranks through the same core).

use crate::clock::{Clock, SystemClock};
use crate::fusion::Calibration;
use std::sync::Arc;

/// [`EngineConfig::graph_degree`]'s default. 32 instead of 16 (`examples/graph_params.rs` in
/// navigator-eval, the bench's synthetic vectors): at a million items recall@10 at beam 160
/// rose from 0.62 to 0.85, and 0.98 needs beam 480 instead of over 1,280; at 100k it went
/// from 0.996 to 1.000 for 12 % more build time, 5 % more search time and 40 % more graph
/// memory.
pub(crate) const DEFAULT_GRAPH_DEGREE: usize = 32;

/// Tuning of a [`SearchEngine`](crate::SearchEngine); [`Default`] fits a personal knowledge base with a MiniLM-class
/// model.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Where "now" comes from (recency scoring).
    pub clock: Arc<dyn Clock>,
    /// The relevance formula's weights and constants.
    pub calibration: Calibration,
    /// How many candidates each retriever contributes before fusion (at least
    /// `offset + limit` are always fetched).
    pub candidates: usize,
    /// Vector hits below this cosine similarity are not results (they are what unrelated
    /// text reaches; without a floor every query would "find" something).
    pub min_similarity: f32,
    /// ... and below this one for a folder (an item whose id ends in `/`): a folder embeds its
    /// name alone, a word or two whose vector sits near many unrelated short queries (with
    /// MiniLM, "zanzibar" reaches 0.34 and "banana" 0.37 to a folder named "Kitchen", while
    /// "someone who builds kitchens" reaches 0.67). Never below
    /// [`min_similarity`](Self::min_similarity).
    pub min_folder_similarity: f32,
    /// When a filter leaves at most this many items, vector search scans them exactly
    /// instead of walking the filtered graph (exact, and faster for small sets).
    pub exact_scan_below: usize,
    /// Texts per embedding call when indexing.
    pub embed_batch: usize,
    /// In hybrid mode, hand the keyword search to a second thread (one per engine) while the
    /// vector search runs on the caller's; the caller takes it back if that thread has not
    /// started it by then. Lower latency on a multi-core machine; turn off to keep each search
    /// on one thread.
    pub parallel_retrieval: bool,
    /// Most tokens per embedded chunk of a long item: the embedder's window
    /// ([`Embedder::max_input_tokens`](navigator_core::Embedder::max_input_tokens)) capped at
    /// this (a window of thousands of tokens makes passages too coarse to find).
    pub chunk_tokens: usize,
    /// Tokens a further chunk of a long section repeats from the one before it.
    pub chunk_overlap: usize,
    /// How a chunked item's similarity comes from its chunks'.
    pub chunk_rollup: ChunkRollup,
    /// How many candidates the vector graph's walk collects per search (usearch's
    /// expansion), all re-ranked by their exact vectors. 400 finds all of the exact top 10
    /// at 100k items and 0.977–0.99 of it at a million (synthetic vectors, graph degree 32,
    /// two builds; 0.959–0.975 at 320, 0.888 at 160); larger indexes need a wider beam for the
    /// same recall, at a cost in time per search that grows with it (docs/benchmarks.md
    /// measures both at 1M). Also settable on an open engine
    /// ([`SearchEngine::set_search_beam`](crate::SearchEngine::set_search_beam)).
    pub search_beam: usize,
    /// Neighbours each node of a new vector graph links to (HNSW's `M`; its base layer keeps
    /// twice as many; at least 2). A denser graph finds more of the exact nearest neighbours
    /// at the same beam in a large index, for build time and memory: 32 against 16 raised
    /// recall@10 at a million synthetic items from 0.62 to 0.85 at beam 160, and cost 12 %
    /// more build time and 5 % more search time at 100k (docs/benchmarks.md). Read when an
    /// index is created or rebuilt from nothing; a saved graph keeps the degree it was built
    /// with.
    pub graph_degree: usize,
    /// How searches read the saved exact vectors that re-rank the graph's candidates: by
    /// default mapped while the table is small and one positioned read each once it is large
    /// ([`VectorReads::Auto`]), which keeps a large table out of the process's resident
    /// memory. Read when the engine opens.
    pub vector_reads: VectorReads,
    /// After an open that found its vector files whole, read them through once on a
    /// background thread (the graph first, then the exact vectors), so the page cache holds
    /// them before searches have to fault them in one page at a time: the first searches
    /// after a restart run at the speed of later ones within seconds (docs/benchmarks.md
    /// measures it at a million items). Skipped when the files would take more than half the
    /// memory Linux says is available. Nothing stays in the process's memory.
    pub warm_vector_files: bool,
}

/// How searches read the exact vectors of an index's saved table (`chunks.f32`, 1.5 GB at a
/// million 384-d vectors), which re-rank every walk's candidates. Vectors written since the
/// last open are in memory either way. Measured at a million items in docs/benchmarks.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorReads {
    /// Mapped while the table's file is at most `map_up_to` bytes, positioned reads above:
    /// the fastest reads while the whole table fits in a modest share of memory, and a
    /// resident size that does not grow with the table past it. The default, with
    /// [`VectorReads::DEFAULT_MAP_UP_TO`] (512 MiB: about 340k 384-d vectors or 130k 1024-d
    /// ones).
    Auto {
        /// The largest table file, in bytes, that is mapped.
        map_up_to: u64,
    },
    /// The table is memory-mapped (on Unix; elsewhere it is read into memory when the
    /// engine opens) and a search uses the vectors where they are. Fastest. The pages a
    /// search touches stay mapped and count in the process's resident size: after a few
    /// thousand searches of a million-item index, most of the table (2.75 GB resident
    /// against 1.3 GB read by position, docs/benchmarks.md). They are clean file pages,
    /// which the kernel takes back under memory pressure.
    Mapped,
    /// Each vector a search re-ranks is copied out of the file by a positioned read
    /// (`pread`): the process's resident size stays at its heap and the graph, whatever
    /// the number of searches, for a system call per candidate (the operating system's page
    /// cache still serves the reads): 0.4 ms more a hybrid query at 100k items, up to 0.8 ms
    /// at a million.
    Positioned,
}

impl VectorReads {
    /// The largest table [`VectorReads::Auto`] maps by default: 512 MiB.
    pub const DEFAULT_MAP_UP_TO: u64 = 512 << 20;

    /// How a table file of `file_len` bytes is read: [`Mapped`](Self::Mapped) or
    /// [`Positioned`](Self::Positioned), never `Auto`.
    pub fn for_table_of(self, file_len: u64) -> Self {
        match self {
            Self::Auto { map_up_to } if file_len <= map_up_to => Self::Mapped,
            Self::Auto { .. } => Self::Positioned,
            fixed => fixed,
        }
    }
}

impl Default for VectorReads {
    fn default() -> Self {
        Self::Auto {
            map_up_to: Self::DEFAULT_MAP_UP_TO,
        }
    }
}

/// How a chunked item's similarity to a query comes from its chunks' similarities (an item
/// of one chunk has that chunk's under every rule). Compared on scifact-long and SciFact in
/// docs/benchmarks.md; [`Max`](Self::Max) is the default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ChunkRollup {
    /// The best chunk's: a note is as relevant as its most relevant passage.
    Max,
    /// The mean of the best `k` chunks (of all of them when it has fewer).
    TopMean(usize),
    /// `(1 - w) × best + w × mean of all chunks`: rewards notes that are about the query
    /// throughout.
    MaxWithMean(f32),
}

impl ChunkRollup {
    /// The item's similarity from its chunks' (`None` for no chunks). Reorders `sims`.
    pub(crate) fn roll_up(self, sims: &mut [f32]) -> Option<f32> {
        if sims.is_empty() {
            return None;
        }
        sims.sort_unstable_by(|a, b| b.total_cmp(a));
        let mean = |s: &[f32]| s.iter().sum::<f32>() / s.len() as f32;
        Some(match self {
            Self::Max => sims[0],
            Self::TopMean(k) => mean(&sims[..k.clamp(1, sims.len())]),
            Self::MaxWithMean(w) => (1.0 - w) * sims[0] + w * mean(sims),
        })
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemClock),
            calibration: Calibration::default(),
            candidates: 100,
            min_similarity: 0.3,
            min_folder_similarity: 0.5,
            exact_scan_below: 2_000,
            embed_batch: 64,
            parallel_retrieval: std::thread::available_parallelism().is_ok_and(|n| n.get() > 1),
            chunk_tokens: 512,
            chunk_overlap: 32,
            chunk_rollup: ChunkRollup::Max,
            search_beam: 400,
            graph_degree: DEFAULT_GRAPH_DEGREE,
            vector_reads: VectorReads::default(),
            warm_vector_files: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ChunkRollup;

    #[test]
    fn roll_ups_of_chunk_similarities() {
        let sims = [0.2f32, 0.8, 0.5];
        let roll = |r: ChunkRollup| r.roll_up(&mut sims.clone()).unwrap();
        assert_eq!(roll(ChunkRollup::Max), 0.8);
        assert!((roll(ChunkRollup::TopMean(2)) - 0.65).abs() < 1e-6);
        assert!((roll(ChunkRollup::TopMean(9)) - 0.5).abs() < 1e-6);
        assert!((roll(ChunkRollup::MaxWithMean(0.5)) - 0.65).abs() < 1e-6);
        assert_eq!(ChunkRollup::Max.roll_up(&mut []), None);
        // One chunk: every rule gives that chunk's similarity.
        for r in [
            ChunkRollup::Max,
            ChunkRollup::TopMean(3),
            ChunkRollup::MaxWithMean(0.3),
        ] {
            assert!((r.roll_up(&mut [0.4]).unwrap() - 0.4).abs() < 1e-6);
        }
    }
}
