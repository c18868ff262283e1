//! # navigator-workflow
//!
//! A workflow "GPS": DAG workflow definitions, a priority task tree, edge evaluation with
//! per-step retries and human escalation, sync tracking, and an MCP server. Navigator tells an
//! orchestrator where to go next; it does not drive.
//!
//! The orchestrator owns persistence and execution. It
//! 1. loads workflow definitions ([`WorkflowDefinition`], validated into a [`Workflow`]),
//! 2. loads a tree of [`Task`]s and asks for the highest-priority pending ones,
//! 3. executes a step itself and reports the result with [`Navigator::advance`], which
//!    evaluates the edges ([`engine`] documents the rules) and says where the task goes,
//! 4. persists what changed and confirms it: every change navigator makes is a
//!    [`SyncRecord`] until confirmed, and mutating responses carry a [`SyncReminder`].
//!
//! Data flows one way: definition → [`validate`](Workflow::new) → [`Workflow`] → engine
//! decides → [`Navigator`] applies and records. The [`mcp`] module (feature `mcp`, on by
//! default) exposes the same operations as MCP tools over stdio.
//!
//! ```
//! use navigator_workflow::{Action, Navigator, Task, TaskStatus, WorkflowDefinition};
//!
//! let mut nav = Navigator::new();
//! let def = WorkflowDefinition::from_json(r#"{
//!   "nodes": {
//!     "start": { "type": "start" },
//!     "analyze": { "type": "task", "name": "Analyze Components" },
//!     "review": { "type": "gate", "name": "Review Analysis", "maxRetries": 3 },
//!     "end": { "type": "end", "result": "success" },
//!     "hitl": { "type": "end", "result": "blocked", "escalation": "hitl" }
//!   },
//!   "edges": [
//!     { "from": "start", "to": "analyze" },
//!     { "from": "analyze", "to": "review" },
//!     { "from": "review", "to": "analyze", "on": "failed" },
//!     { "from": "review", "to": "hitl", "on": "max_retries_exceeded" },
//!     { "from": "review", "to": "end", "on": "passed" }
//!   ]
//! }"#).unwrap();
//! nav.load_workflow("ui-reconstruction", def).unwrap();
//! nav.load_tasks(vec![Task::new("task-001", "ISSUE-042", "ui-reconstruction", 100)], false).unwrap();
//!
//! nav.advance("task-001", "passed", None).unwrap(); // start -> analyze
//! nav.advance("task-001", "passed", None).unwrap(); // analyze -> review
//! let retry = nav.advance("task-001", "failed", None).unwrap();
//! assert_eq!((retry.action, retry.next_step.as_str()), (Action::Retry, "analyze"));
//! assert_eq!((retry.retries_used, retry.retries_remaining), (Some(1), Some(2)));
//! ```
#![deny(missing_docs)]

mod claims;
mod definition;
pub mod engine;
mod error;
mod files;
#[cfg(feature = "mcp")]
pub mod mcp;
mod navigator;
mod plan;
mod snapshot;
mod sync;
mod task;
mod tree;
mod validate;
mod workflow;

pub use claims::{Claim, MAX_LEASE_MS, MIN_LEASE_MS};
pub use definition::{
    Edge, EndNode, EndResult, Escalation, Node, NodeKind, Stage, StepNode, SubflowNode,
    WorkflowDefinition, FAILED, MAX_RETRIES_EXCEEDED, PASSED,
};
pub use engine::{Action, AdvanceOutcome};
pub use error::{Error, Result};
pub use navigator::{LoadReport, Navigator, StrandedTask, TaskProgress};
pub use plan::ExecutionPlan;
pub use snapshot::{Snapshot, StoredWorkflow, SNAPSHOT_VERSION};
pub use sync::{
    PendingSync, SyncConfirmation, SyncLedger, SyncRecord, SyncReminder, REMINDER_PAGE,
    SYNC_MESSAGE,
};
pub use task::{SubflowFrame, Task, TaskStatus};
pub use tree::TaskTree;
pub use workflow::{Workflow, WorkflowSummary};
