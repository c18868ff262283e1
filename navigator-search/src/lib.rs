//! # navigator-search
//!
//! PARA hybrid search for navigator: an embedded engine ([`SearchEngine`]) that keeps items
//! in an on-disk store ([`RedbStore`], the source of truth) and derives a BM25 keyword index
//! (tantivy) and an HNSW vector index (usearch) from it; the Navigator search agent
//! ([`NavigatorAgent`]); and the index-free table-of-contents search over a time hierarchy
//! ([`toc`]).
//!
//! ## Data flow
//!
//! request → validate → retrieve (keyword top-N and vector top-N, both filtered) → fuse →
//! rank → page → snippets, in one retrieval core that the embedded engine and the PostgreSQL
//! backend share (each only supplies the candidates). Writes go to the store first (one redb
//! transaction, durable on return), then to the vector and keyword indexes; each index records
//! the last store write it applied, and opening the engine replays the store's change log past
//! that point, so a crash at any moment loses nothing that was acknowledged. Over any other
//! [`Store`](navigator_core::Store) ([`SearchEngine::with_store`]) the engine keeps that log
//! in its own directory and reconciles it with the store on open.
//!
//! ## Scoring
//!
//! The two candidate lists (at most [`EngineConfig::candidates`] each) are merged by
//! reciprocal rank fusion, `rrf(d) = Σ 1 / (60 + rank(d))`, which decides the candidate set
//! and breaks ties. Each candidate then gets a **calibrated relevance** in `[0, 1]` from
//! signals that depend only on the item and the query (never on the other results), so the
//! same input always scores the same:
//!
//! - vector `v = clamp((cos − 0.15) / (0.75 − 0.15), 0, 1)`: cosine similarity of query and
//!   item embeddings, mapped from what unrelated and near-identical texts reach with a
//!   MiniLM-class model (computed exactly for keyword-only candidates);
//! - keyword `k = bm25 / (bm25_best + 1 · terms)`: BM25 over one combined field (title ×2,
//!   tags ×2, body ×1, English stemming) relative to the query's best match, damped when even
//!   the best match is weak (`terms` = analysed query terms); 0 when the keyword index did not
//!   match;
//! - recency `r = 0.5^(days since update / 90)`;
//! - access frequency `a = min(1, ln(1 + accesses) / ln(101))`;
//! - exact-match boost `b`: +0.2 when the query equals the title, +0.1 when the title contains
//!   the whole query.
//!
//! | mode | relevance |
//! |---|---|
//! | `hybrid` (default) | `min(1, m + g·(0.2·r + 0.1·a) + b)` with `m = 0.4·v + 0.3·k`, `g = m / 0.7` |
//! | `semantic` | `min(1, v + b)` |
//! | `keyword` | `min(1, k + b)` |
//!
//! In hybrid mode recency and access frequency keep their weights but are scaled by the match
//! strength `g ∈ [0, 1]`: they order items that match the query and cannot lift a fresh,
//! popular item that does not (additive signals alone ranked last week's unrelated project
//! above the contact a query described). The maximum is still 1.
//!
//! Results are sorted by relevance, then RRF, then key. Vector candidates below
//! [`EngineConfig::min_similarity`] are not results, which is what lets a nonsense query come
//! back empty; a folder, which embeds its name alone, needs
//! [`EngineConfig::min_folder_similarity`]. All constants live in [`Calibration`].
//!
//! ## Features
//!
//! `engine` (default) is everything above: the embedded engine, [`RedbStore`] and the
//! Navigator agent, with tantivy, usearch and redb. Without it (`default-features = false`)
//! the crate is the index-free [`toc`] search alone, which needs none of them.
//!
//! ## PostgreSQL
//!
//! With the feature `postgres`, [`pg`] offers the same [`Store`](navigator_core::Store) and
//! [`SearchService`](navigator_core::SearchService) on PostgreSQL + pgvector, ranked by the same
//! fusion and calibration (keyword ranking by PostgreSQL full-text instead of BM25: see
//! [`pg`]).
#![deny(missing_docs)]

#[cfg(feature = "engine")]
mod agent;
#[cfg(feature = "engine")]
mod blocking;
#[cfg(feature = "engine")]
mod catalog;
#[cfg(feature = "engine")]
mod chunk;
#[cfg(feature = "engine")]
mod chunk_embed;
mod clock;
#[cfg(feature = "engine")]
mod config;
#[cfg(feature = "engine")]
mod engine;
mod error;
#[cfg(feature = "engine")]
mod filter;
#[cfg(feature = "engine")]
mod fusion;
#[cfg(feature = "engine")]
pub mod ingest;
#[cfg(feature = "engine")]
mod keyword;
#[cfg(feature = "engine")]
mod merges;
#[cfg(feature = "engine")]
mod opened;
#[cfg(feature = "engine")]
mod passages;
#[cfg(feature = "postgres")]
pub mod pg;
#[cfg(feature = "engine")]
mod retrieval;
#[cfg(feature = "engine")]
mod snippet;
#[cfg(feature = "engine")]
mod stems;
#[cfg(feature = "engine")]
mod store;
#[cfg(all(test, feature = "engine"))]
mod test_embedder;
pub mod toc;
#[cfg(feature = "engine")]
mod vector;
#[cfg(feature = "engine")]
mod warm;
#[cfg(feature = "engine")]
mod words;

#[cfg(feature = "engine")]
pub use agent::{
    did_you_mean, NavigatorAgent, QueryUnderstanding, UnderstoodQuery, NAVIGATOR_TEMPLATE,
};
#[cfg(feature = "engine")]
pub use chunk::{text_hash, ChunkVector, ItemVectors};
pub use clock::{Clock, FixedClock, SystemClock};
#[cfg(feature = "engine")]
pub use config::{ChunkRollup, EngineConfig, VectorReads};
#[cfg(feature = "engine")]
pub use engine::{Progress, SearchEngine};
pub use error::{Error, Result};
#[cfg(feature = "engine")]
pub use fusion::{Calibration, RRF_K};
#[cfg(feature = "engine")]
pub use opened::Repair;
#[cfg(feature = "engine")]
pub use snippet::MAX_SNIPPET_CHARS;
#[cfg(feature = "engine")]
pub use store::RedbStore;
