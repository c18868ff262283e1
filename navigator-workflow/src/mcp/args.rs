//! Tool arguments. Each struct is the JSON input schema of one tool; unknown fields are
//! rejected so a misspelt argument is an error instead of a silently ignored default.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::task::{Task, TaskStatus};

/// `load_workflow`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoadWorkflowArgs {
    /// Workflow id tasks refer to in `workflowType`.
    pub id: String,
    /// The definition: an object `{ nodes: { id: { type, ... } }, edges: [{ from, to, on?, label? }] }`,
    /// or the same as a JSON/YAML string. Node types: start, end (result: success | failure |
    /// blocked | cancelled, escalation?: hitl | alert | ticket), task and gate (name, outputs?,
    /// maxRetries?, agent?, stage?: planning | development | verification | delivery), subflow
    /// (workflow).
    pub definition: Value,
}

/// `get_execution_plan`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowIdArgs {
    /// The workflow id.
    pub workflow_id: String,
}

/// `load_task_tree`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoadTaskTreeArgs {
    /// Tasks to load (upserted by id). `currentStep` defaults to the workflow's start node.
    pub tasks: Vec<Task>,
    /// Empty the tree before loading (default false).
    #[serde(default)]
    pub replace: bool,
}

/// `get_next_tasks_from_tree`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NextTasksArgs {
    /// How many tasks to return, 1 to 1000 (default 1).
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: Option<u32>,
}

/// `advance_task`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdvanceTaskArgs {
    /// The task to advance.
    pub task_id: String,
    /// The agent reporting; required when the task is claimed (it must be the holder).
    #[serde(default)]
    pub agent: Option<String>,
    /// What the current step produced: one of its outputs (usually `passed` or `failed`).
    pub result: String,
    /// Anything the step produced; stored on the task and in the sync record.
    #[serde(default)]
    pub output: Option<Value>,
}

/// Tools that take one task id.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskIdArgs {
    /// The task id.
    pub task_id: String,
}

/// `get_tasks_by_status`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TasksByStatusArgs {
    /// Only this status (default: all, grouped).
    #[serde(default)]
    pub status: Option<TaskStatus>,
    /// How many tasks of the listing (by status, then in tree order) to skip (default 0).
    #[serde(default)]
    pub offset: Option<u64>,
    /// Page size, 1 to 500 (default 100).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u32>,
}

/// `get_pending_syncs`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PendingSyncsArgs {
    /// Only syncs of this task (default: all).
    #[serde(default)]
    pub task_id: Option<String>,
    /// How many of the oldest pending syncs to skip (default 0).
    #[serde(default)]
    pub offset: Option<u64>,
    /// Page size, 1 to 500 (default 100).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u32>,
}

/// `claim_task`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClaimTaskArgs {
    /// The task to claim.
    pub task_id: String,
    /// Who claims it (an agent name, unique per agent).
    pub agent: String,
    /// Lease length in milliseconds, 1000 to 86400000 (default 300000, five minutes).
    /// Claiming again before it ends renews it.
    #[serde(default)]
    #[schemars(range(min = 1000, max = 86400000))]
    pub lease_ms: Option<u64>,
}

/// `release_task`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReleaseTaskArgs {
    /// The claimed task.
    pub task_id: String,
    /// The agent holding the claim.
    pub agent: String,
}

/// `resume_task`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResumeTaskArgs {
    /// A task in status HITL or PAUSED.
    pub task_id: String,
    /// The step of the task's current workflow to resume at (not an end node).
    pub step: String,
    /// What the person decided; stored as the task's last output and in the sync record.
    #[serde(default)]
    pub note: Option<Value>,
}

/// `confirm_sync`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConfirmSyncArgs {
    /// Ids (`sync-N`) persisted to the primary store.
    pub sync_ids: Vec<String>,
}

/// A tool that takes no arguments (`list_workflows`): any argument is refused, as other
/// tools refuse the ones they do not know.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}
