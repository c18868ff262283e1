//! The PostgreSQL + pgvector backend (feature `postgres`): the same [`Store`] and
//! [`SearchService`] contracts as the embedded engine, on a server that many processes share.
//!
//! - [`PgStore`] keeps items, TOC nodes, grips and conversations
//!   ([`ConversationStore`](navigator_core::ConversationStore)) in tables of one PostgreSQL
//!   schema, created and upgraded by migrations versioned in code ([`MIGRATIONS`]). The items
//!   table carries a `tsvector` of each item's words (GIN index) and its parent and tags in
//!   the forms the filters compare, all computed by the library as the embedded engine
//!   computes them (see *Words, folders and tags*); their vectors are rows of
//!   `item_chunks`, one `vector(N)` per chunk of an item (HNSW index, cosine), replaced with
//!   their item in one transaction and deleted with it.
//! - [`PgSearchService`] answers [`SearchRequest`]s through the library's one retrieval core,
//!   the embedded engine's: the same plan (filter, candidate pool
//!   [`EngineConfig::candidates`]), the same similarity floor, fusion and calibration
//!   ([`Calibration`](crate::Calibration)), totals, paging and snippet rules, run in the
//!   library on the two candidate lists the server returns, so a relevance score means the
//!   same on both backends. The server does only what its indexes are for: a pgvector HNSW
//!   scan of chunk vectors (`ORDER BY embedding <=> q LIMIT 4 × pool` with `hnsw.ef_search`
//!   the larger of the pool and [`PgConfig::ef_search`] (each connection's own setting, so a
//!   walk with the default beam is one statement), relaxed-order iterative scans,
//!   filters joined through the items) and a GIN full-text lookup, the two on two pooled
//!   connections at once (a hybrid search waits for the slower one, not both); then, again
//!   side by side, the candidates' catalog facts (rows without body) and their chunks'
//!   cosines; and last the page's rows whole.
//! - Items are chunked as on the embedded engine: [`PgSearchService::upsert`] cuts a long
//!   item with the engine's chunker and embeds each chunk (reusing the stored vector of every
//!   chunk whose text is unchanged); a candidate item, found by the walk or by keywords, is
//!   scored over all its chunks' cosines with [`EngineConfig::chunk_rollup`], and a chunked
//!   result's snippet comes from its best chunk — the same rules, so the same scores and
//!   snippets, as the embedded engine.
//! - [`sync_from_engine`] copies an embedded index (items and all their stored chunk vectors)
//!   into PostgreSQL, idempotently.
//!
//! ## Owners
//!
//! Every table carries an `owner` column (migration 4) that leads its primary key, its unique
//! and foreign keys and its per-owner indexes: items by `(owner, id)` and `(owner, key)`, chunks
//! by `(owner, item_key, chunk)` referencing `items (owner, key)`, TOC nodes, grips and
//! conversations by `(owner, id)`. A handle works for one owner, [`PgConfig::owner`]
//! (`"default"` unless set): every statement it runs names that owner, and every join of items
//! and chunks is on `(owner, key)`. So handles with different owners on one schema see
//! disjoint knowledge bases, the same item id can exist under each, and the tables can be
//! distributed by owner on a distributed PostgreSQL such as Citus without a query leaving its
//! shard (`docs/scaling.md`). Rows written before migration 4 belong to `"default"`.
//!
//! ## Words, folders and tags
//!
//! The server's own word splitting differs from the embedded engine's (it keeps accents,
//! takes a run of Chinese or Japanese text for one word, compares a folder's bytes), so the
//! library computes what is compared (migration 5): an item's title, tags and body are
//! reduced to the embedded index's words before stemming — accents folded (`Málaga`, composed
//! or decomposed, is `malaga`; `Straße` is `strasse`), CJK runs cut into characters and
//! character pairs — and given to `to_tsvector('english', …)` joined by spaces; a query's
//! words are reduced the same way. The parent is kept composed (NFC) in `parent_key` and the
//! tags as [`TagFilter::normalize`](navigator_core::TagFilter::normalize) gives them in
//! `tag_keys`, and the filters compare those (a folder written decomposed is the folder a
//! person types). Migration 5 computes these for every existing row, in the library, once.
//!
//! ## Keyword ranking: PostgreSQL full-text, weighted by inverse document frequency
//!
//! The server ranks keyword matches as BM25 weighs words: for each query lexeme, `ts_rank`
//! over the items' `tsvector` (`english` configuration: stemming and stop-word removal;
//! weights title 1.0, tags 0.75, body 0.5 — the embedded engine's 2 : 1.5 : 1 — and length
//! normalisation 1, rank / (1 + ln(length))) times the lexeme's inverse document frequency
//! `ln(1 + (N − df + 0.5) / (df + 0.5))` (BM25's, as tantivy computes it), summed over the
//! lexemes. Query words are OR-ed, as in the embedded engine. The term-frequency part stays
//! `ts_rank`'s (no BM25 saturation), so the order can still differ from the embedded engine's.
//!
//! `ts_rank` is computed per row and GIN cannot order by it, so ranking every match of a
//! common word costs a row visit and a `tsvector` decode per match (122 ms p50 at 100k
//! items). The keyword query therefore ranks a bounded candidate set instead: every item of
//! each query word matching at most [`PgConfig::keyword_term_limit`] items (rare words: the
//! ones inverse document frequency puts first; words the table statistics,
//! `pg_stats.most_common_elems`, already show to be commoner are not fetched at all), plus
//! items matching every word and a pool's worth matching any. A common-words-only query
//! ranks the items that have all its words first. `totalResults` counts matches up to
//! [`PgConfig::count_limit`] and is a lower bound beyond (as search servers that cap hit
//! counting do). The document frequencies cost no extra scan: a rare word's is the number of
//! its items just fetched (exact, within the owner); a common word's comes from the table
//! statistics (frequency × `reltuples`, over all owners); a word in between gets the larger of
//! the term limit + 1 and the least frequency the statistics list.
//!
//! The summed values are on another scale than BM25's. Fusion's keyword signal,
//! `k = s / (s_best + 2 · terms)`, is not scale-free (the `2 · terms` damping assumes BM25's
//! scale), so the library feeds it `s = rank × `[`PgConfig::keyword_scale`]: a factor (10 by
//! default) chosen so that the keyword-mode scores of the sample knowledge base's 40 test
//! queries come out as close as possible to the embedded engine's (mean gap 0.057 at 10,
//! against 0.079 at 5 and 0.105 at 75; see `tests/pg_equivalence.rs`). `terms` is counted as
//! the embedded engine counts it. Vector similarity, recency, access frequency and the
//! exact-title boost are computed identically.
//!
//! ## Limits
//!
//! - Keyword candidates are bounded, not exhaustive: an item whose only matching words are
//!   common can miss the keyword list where the embedded engine (which scores every match)
//!   would rank it; `totalResults` is capped at [`PgConfig::count_limit`].
//! - Connections are unencrypted (`NoTls`): use loopback, a private network or a TLS proxy.
//! - Timestamps are kept to the microsecond; [`sync_from_engine`] copies items and vectors,
//!   not TOC nodes or grips.
//! - Migration 3 moved the vectors from `items.embedding` to `item_chunks` (each item's
//!   vector became its chunk 0, spanning the whole body) and dropped the column: a process
//!   of an older version cannot use a migrated schema. Those items are re-chunked when next
//!   written through [`PgSearchService::upsert`].
//! - Migration 4 replaced the keys with owner-led ones: a process of an older version cannot
//!   write to a migrated schema (its `ON CONFLICT (id)` names a key that no longer exists).
//! - Migration 5 made the `tsvector` a column the library writes: a process of an older version
//!   cannot insert into a migrated schema (the column is required), and an item it updates
//!   keeps the words, parent and tags it had until a current version writes it again.
//! - The keyword query's shortcut for common words reads the table statistics, which are the
//!   whole table's: with many owners in one table, a word common overall but rare for one
//!   owner is only found through that owner's items having all or any of the query words.
//! - With many owners in one table there is one HNSW graph for all of them. The planner
//!   walks it for an owner with a large share, skipping other owners' chunks (iterative
//!   scans), and reads a small owner's chunks through the key and sorts them exactly; in
//!   between, the walk passes over more chunks the smaller the owner's share. A distributed
//!   PostgreSQL gives each shard its own graph (see `docs/scaling.md`).
//!
//! ## Example
//!
//! ```no_run
//! # async fn demo() -> navigator_search::Result<()> {
//! use navigator_core::{FastEmbedder, SearchRequest, SearchService};
//! use navigator_search::pg::{PgConfig, PgSearchService, PgStore};
//! use navigator_search::EngineConfig;
//! use std::sync::Arc;
//! let store = PgStore::connect(PgConfig::new("postgres://user:pw@127.0.0.1:5432/kb")).await?;
//! let embedder = Arc::new(FastEmbedder::default_model()?);
//! let search = PgSearchService::new(store, embedder, EngineConfig::default())?;
//! let page = search.search(&SearchRequest::new("quarterly report")?).await?;
//! # Ok(()) }
//! ```
//!
//! [`Store`]: navigator_core::Store
//! [`SearchService`]: navigator_core::SearchService
//! [`SearchRequest`]: navigator_core::SearchRequest
//! [`EngineConfig::candidates`]: crate::EngineConfig::candidates
//! [`EngineConfig::chunk_rollup`]: crate::EngineConfig::chunk_rollup

mod chunks;
mod conversations;
mod fulltext;
mod lookup;
mod rows;
mod schema;
mod search;
mod sql_filter;
mod store;
mod sync;
mod vectors;
mod write;

pub use schema::MIGRATIONS;
pub use search::PgSearchService;
pub use store::PgStore;
pub use sync::{sync_from_engine, SyncReport};

use crate::Error;
use std::time::Duration;

/// How to reach and lay out the PostgreSQL backend.
#[derive(Debug, Clone, PartialEq)]
pub struct PgConfig {
    /// A libpq-style URL or key-value string (`postgres://user:pw@host:port/db`).
    pub url: String,
    /// The schema that holds navigator's tables (created when missing): one knowledge base
    /// per schema.
    pub schema: String,
    /// Embedding dimensions of the chunk vectors' `vector(N)` column (the model's; 384 for
    /// MiniLM).
    pub dimensions: usize,
    /// Connections in the pool.
    pub max_connections: usize,
    /// Limit on opening one connection.
    pub connect_timeout: Duration,
    /// Limit on waiting for a free connection from the pool.
    pub wait_timeout: Duration,
    /// Server-side limit on one statement (`statement_timeout`); 0 means none.
    pub statement_timeout: Duration,
    /// Factor from the IDF-weighted `ts_rank` to the BM25 scale fusion's keyword signal
    /// expects (see the module docs).
    pub keyword_scale: f64,
    /// A query word matching at most this many items brings all of them to the keyword
    /// ranking; commoner words only through items matching every query word or the pool
    /// (see the module docs). Bounds the per-row ranking work of a keyword search.
    pub keyword_term_limit: usize,
    /// The least HNSW search beam (`hnsw.ef_search`) of a vector search; searches use the
    /// larger of this and their candidate pool. 300 by default: on the 100k-item benchmark
    /// (`pg_bench`, index built with pgvector's defaults) recall@10 against an exact scan
    /// was 0.984 with 300 and 0.942 with 200, at the same search latency (a search's walk
    /// asks for four chunks per pooled item and scans past the beam anyway).
    pub ef_search: usize,
    /// `totalResults` of keyword and hybrid searches counts matches up to this many, and is
    /// a lower bound beyond (counting every match of a common word visits every row).
    pub count_limit: usize,
    /// Whose knowledge base this handle reads and writes: every row carries its owner and
    /// every statement is scoped to it, so handles with different owners on one schema see
    /// disjoint knowledge bases (the same item id can exist under each). It is also the
    /// distribution key of a distributed PostgreSQL (see `docs/scaling.md`). At most
    /// [`MAX_OWNER_CHARS`] characters, no control characters; [`DEFAULT_OWNER`] by default.
    pub owner: String,
}

/// The owner of a [`PgConfig`] that names none, and of every row written before owners
/// existed (migration 4).
pub const DEFAULT_OWNER: &str = "default";

/// The longest [`PgConfig::owner`], in characters.
pub const MAX_OWNER_CHARS: usize = 200;

/// The default [`PgConfig::keyword_scale`]: on the sample knowledge base, the IDF-weighted
/// `ts_rank` × 10 gives keyword scores closest to the embedded engine's BM25-based ones (see
/// the module docs).
pub const DEFAULT_KEYWORD_SCALE: f64 = 10.0;

impl PgConfig {
    /// Defaults for `url`: schema `navigator`, 384 dimensions, 16 connections, 10 s to
    /// connect, 30 s to wait for a connection, 30 s per statement.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            schema: "navigator".to_string(),
            dimensions: 384,
            max_connections: 16,
            connect_timeout: Duration::from_secs(10),
            wait_timeout: Duration::from_secs(30),
            statement_timeout: Duration::from_secs(30),
            keyword_scale: DEFAULT_KEYWORD_SCALE,
            keyword_term_limit: 100,
            ef_search: 300,
            count_limit: 500,
            owner: DEFAULT_OWNER.to_string(),
        }
    }

    /// Uses another schema (a lower-case SQL identifier: `[a-z_][a-z0-9_]*`, at most 63 bytes).
    pub fn schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = schema.into();
        self
    }

    /// Sets the embedding dimensions.
    pub fn dimensions(mut self, dimensions: usize) -> Self {
        self.dimensions = dimensions;
        self
    }

    /// Scopes the handle to `owner`'s knowledge base (see [`PgConfig::owner`]; checked when
    /// the store connects).
    ///
    /// ```
    /// use navigator_search::pg::PgConfig;
    /// let alice = PgConfig::new("postgres://user:pw@127.0.0.1/kb").owner("alice");
    /// assert_eq!(alice.owner, "alice");
    /// ```
    pub fn owner(mut self, owner: impl Into<String>) -> Self {
        self.owner = owner.into();
        self
    }

    /// Sets the pool size.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n;
        self
    }

    pub(crate) fn validate(&self) -> crate::Result<()> {
        let s = self.schema.as_str();
        let ok = !s.is_empty()
            && s.len() <= 63
            && s.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !ok {
            return Err(navigator_core::Error::invalid(
                "schema",
                format!(
                    "`{s}` is not a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most 63 bytes)"
                ),
            )
            .into());
        }
        if !(1..=16_000).contains(&self.dimensions) {
            return Err(navigator_core::Error::invalid(
                "dimensions",
                format!(
                    "{} is outside 1..=16000 (pgvector's limit)",
                    self.dimensions
                ),
            )
            .into());
        }
        let chars = self.owner.chars().count();
        let problem = if chars == 0 {
            Some("is empty".to_string())
        } else if chars > MAX_OWNER_CHARS {
            Some(format!(
                "has {chars} characters, more than {MAX_OWNER_CHARS}"
            ))
        } else if self.owner.chars().any(char::is_control) {
            Some(format!("{:?} has a control character", self.owner))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(navigator_core::Error::invalid("owner", problem).into());
        }
        if self.max_connections == 0 {
            return Err(
                navigator_core::Error::invalid("maxConnections", "must be at least 1").into(),
            );
        }
        if self.keyword_term_limit == 0 || self.count_limit == 0 {
            return Err(navigator_core::Error::invalid(
                "keywordTermLimit",
                "keyword_term_limit and count_limit must be at least 1",
            )
            .into());
        }
        if !(self.keyword_scale.is_finite() && self.keyword_scale > 0.0) {
            return Err(navigator_core::Error::invalid(
                "keywordScale",
                format!("{} is not a positive number", self.keyword_scale),
            )
            .into());
        }
        Ok(())
    }
}

/// Maps a driver error to [`Error::Postgres`], keeping the SQL state; a connection that
/// could not be made or was lost (no server answer, an I/O failure underneath) is
/// [`Error::Unavailable`] with the driver's error as its source.
pub(crate) fn pg_err(operation: &'static str) -> impl Fn(tokio_postgres::Error) -> Error {
    move |e| {
        if e.as_db_error().is_none() && (e.is_closed() || crate::error::caused_by_io(&e)) {
            return Error::Unavailable {
                backend: "postgres",
                operation,
                message: crate::error::chain_message(&e),
                source: Box::new(e),
            };
        }
        let code = e.code().map(|c| c.code().to_string());
        let message = match e.as_db_error() {
            Some(db) => match db.detail() {
                Some(d) => format!("{}: {d}", db.message()),
                None => db.message().to_string(),
            },
            None => e.to_string(),
        };
        Error::Postgres {
            operation,
            code,
            message,
        }
    }
}

/// Maps a pool error: a failed connect as [`pg_err`] does, a wait that timed out or a closed
/// pool as [`Error::Unavailable`] (with the pool's error as the source), the rest as
/// [`Error::Postgres`].
pub(crate) fn pool_err(e: deadpool_postgres::PoolError) -> Error {
    use deadpool_postgres::PoolError;
    match e {
        PoolError::Backend(e) => pg_err("connect")(e),
        e @ (PoolError::Timeout(_) | PoolError::Closed) => Error::Unavailable {
            backend: "postgres",
            operation: "connect",
            message: crate::error::chain_message(&e),
            source: Box::new(e),
        },
        other => Error::Postgres {
            operation: "connect",
            code: None,
            message: other.to_string(),
        },
    }
}
