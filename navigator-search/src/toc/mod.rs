//! Index-free table-of-contents search over a time hierarchy.
//!
//! Agents with a long-running memory summarise it into year → month → week → day → segment
//! nodes ([`TocNode`](navigator_core::TocNode)). This module finds things in that hierarchy
//! with no index and no embeddings, by drilling down — the layer that always works, and the
//! fallback when the keyword and vector indexes are unavailable.
//!
//! - [`term_overlap_score`]: the share of query terms (words of 3+ characters) a text
//!   contains, matched by word, case-insensitively ([`score`](self::QueryTerms) explains why
//!   words and not substrings).
//! - [`search_node`] searches one node's [`SearchField`]s; [`search_children`] ranks a node's
//!   children by the average of their match scores (the reasoning is in its docs).
//! - [`TocBuilder`] builds the hierarchy from timestamped [`SessionSummary`]s and writes it to
//!   a [`Store`](navigator_core::Store).
//! - [`navigate`] is the agent loop: time hint → start node → drill down → bullets with grip
//!   ids, recording the path and any fallback; [`expand_grips`] returns the evidence.
//!
//! Empty results always say why ([`EmptyReason`]).
//!
//! ```
//! use chrono::{TimeZone, Utc};
//! use navigator_core::MemoryStore;
//! use navigator_search::toc::{expand_grips, navigate, search_children, NavigateOptions, TocBuilder};
//!
//! # tokio_test_block(async {
//! let memory = r#"{"sessions": [{
//!   "id": "2026-01-27-auth", "title": "Auth review",
//!   "start_time": "2026-01-27T14:00:00Z", "end_time": "2026-01-27T15:00:00Z",
//!   "keywords": ["jwt", "auth"],
//!   "bullets": [{"text": "Decided: JWT access tokens live 15 minutes", "grips": [{
//!     "grip_id": "grip:auth:1", "excerpt": "let's cap access tokens at 15 minutes",
//!     "event_id_start": "evt:41", "event_id_end": "evt:44",
//!     "timestamp": "2026-01-27T14:20:00Z", "source": "session:2026-01-27-auth"}]}]
//! }]}"#;
//! let store = MemoryStore::new();
//! TocBuilder::from_json(memory)?
//!     .build(Utc.with_ymd_and_hms(2026, 2, 1, 0, 0, 0).unwrap())?
//!     .write_to(&store)
//!     .await?;
//!
//! let months = search_children(&store, "toc:year:2026", "JWT authentication", &[], 5).await?;
//! assert_eq!(months.hits[0].node.node_id, "toc:month:2026-01");
//!
//! let now = Utc.with_ymd_and_hms(2026, 2, 2, 9, 0, 0).unwrap();
//! let nav = navigate(&store, "what did we decide about JWT last month", now,
//!     &NavigateOptions::default()).await?;
//! assert_eq!(nav.start_node_id, "toc:month:2026-01");
//! assert_eq!(nav.findings[0].node_id, "toc:segment:2026-01-27-auth");
//! let evidence = expand_grips(&store, &nav.grip_ids()).await?;
//! assert!(evidence[0].excerpt.contains("15 minutes"));
//! # Ok::<(), navigator_search::Error>(())
//! # })?;
//! # fn tokio_test_block<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
//! # }
//! # Ok::<(), navigator_search::Error>(())
//! ```

mod builder;
mod calendar;
mod field;
mod navigate;
mod score;
mod search;
mod time_hint;

pub use builder::{SessionLog, SessionSummary, SummaryBullet, TocBuilder, TocTree};
pub use field::{SearchField, SearchMatch};
pub use navigate::{
    expand_grips, navigate, ChosenNode, Fallback, Finding, NavigateOptions, Navigation, PathStep,
    StepOutcome,
};
pub use score::{term_overlap_score, QueryTerms, MIN_TERM_CHARS, QUESTION_WORDS};
pub use search::{search_children, search_node, ChildHit, ChildSearch, EmptyReason, NodeSearch};
pub use time_hint::{parse_time_hint, HintedQuery, TimeHint};
