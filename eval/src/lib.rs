//! # navigator-eval
//!
//! What measures navigator rather than what a user builds on: the evaluation programs in
//! `src/bin/` (retrieval quality on BEIR, code localisation, the Butler's pre-router,
//! PostgreSQL against the embedded engine), the workspace's benchmarks in the top-level
//! `benches/` (with the stacks they compare against: SQLite FTS5 + sqlite-vec, a raw ONNX
//! Runtime session), [`butler_conversations`] (the Butler end to end over multi-step
//! conversations with its real specialists), and [`layout`], the checks
//! that keep the workspace's shape true (no sibling modules importing each other, the
//! dependency arrows of `ARCHITECTURE.md`, the declared `rust-version`).
//!
//! Not published: it exists so the heavy comparison dependencies (rusqlite, sqlite-vec,
//! tokenizers, ...) stay out of every library crate's build.
#![deny(missing_docs)]

pub mod butler_conversations;
pub mod help;
pub mod layout;
pub mod synthetic;
