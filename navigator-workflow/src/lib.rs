//! # navigator-workflow
//!
//! A workflow "GPS": DAG workflow definitions, a priority task tree, edge evaluation with
//! per-step retries and human escalation, sync tracking, and an MCP server. Navigator tells an
//! orchestrator where to go next; it does not drive.
#![deny(missing_docs)]
