//! # navigator
//!
//! Lets AI agents *navigate* three things for the people they serve: a personal knowledge base
//! organised by PARA (Projects, Areas, Resources, Archives), a codebase, and a queue of work.
//!
//! This facade re-exports the crates of the family so an application depends on one crate:
//!
//! | module | crate | what it holds |
//! |---|---|---|
//! | [`core`] | `navigator-core` | the PARA contract, the `Embedder` / `Llm` / `Store` / `SearchService` traits, local embeddings |
//! | [`search`] | `navigator-search` | PARA hybrid search and the table-of-contents search |
//! | [`context`] | `navigator-context` | LLM context building from a repository map |
//! | [`workflow`] | `navigator-workflow` | the workflow "GPS": DAG definitions, task tree, sync tracking |
//! | [`butler`] | `navigator-butler` | the Butler: the orchestrator agent over the Navigator and specialist sub-agents |
#![deny(missing_docs)]

pub use navigator_butler as butler;
pub use navigator_context as context;
pub use navigator_core as core;
pub use navigator_search as search;
pub use navigator_workflow as workflow;

/// The README's code blocks, compiled as doctests so the documentation cannot rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
