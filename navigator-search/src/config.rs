//! [`EngineConfig`]: the tuning shared by the embedded engine and the retrieval core (and so
//! by the PostgreSQL backend, which ranks through the same core).

use crate::clock::{Clock, SystemClock};
use crate::fusion::Calibration;
use std::sync::Arc;

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
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemClock),
            calibration: Calibration::default(),
            candidates: 100,
            min_similarity: 0.3,
            exact_scan_below: 2_000,
            embed_batch: 64,
            parallel_retrieval: std::thread::available_parallelism().is_ok_and(|n| n.get() > 1),
            chunk_tokens: 512,
            chunk_overlap: 32,
        }
    }
}
