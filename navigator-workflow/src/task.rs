//! Tasks: the runtime work items an orchestrator loads and navigator advances.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a task stands.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TaskStatus {
    /// Waiting for the orchestrator to execute its current step.
    #[default]
    Pending,
    /// The orchestrator is executing its current step.
    InProgress,
    /// Reached a success end node.
    Completed,
    /// Reached a failure or cancelled end node.
    Failed,
    /// Reached an end node with `escalation: hitl`: a human must take over.
    Hitl,
    /// Reached a blocked end node, or paused by the orchestrator.
    Paused,
}

impl TaskStatus {
    /// All statuses, in display order.
    pub const ALL: [TaskStatus; 6] = [
        TaskStatus::Pending,
        TaskStatus::InProgress,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Hitl,
        TaskStatus::Paused,
    ];

    /// Whether `advance` accepts a task in this status.
    pub fn is_active(self) -> bool {
        matches!(self, TaskStatus::Pending | TaskStatus::InProgress)
    }

    /// The wire name (`PENDING`, `IN_PROGRESS`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "PENDING",
            TaskStatus::InProgress => "IN_PROGRESS",
            TaskStatus::Completed => "COMPLETED",
            TaskStatus::Failed => "FAILED",
            TaskStatus::Hitl => "HITL",
            TaskStatus::Paused => "PAUSED",
        }
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One level of subflow nesting: the task entered `workflow` from `parentStep` of
/// `parentWorkflow`, and returns there when `workflow` ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubflowFrame {
    /// The workflow that contains the subflow node.
    pub parent_workflow: String,
    /// The subflow node, where the task resumes.
    pub parent_step: String,
    /// The workflow entered.
    pub workflow: String,
}

/// A unit of work moving through a workflow.
///
/// Optional fields get defaults when loaded: `currentStep` the workflow's start node,
/// `status` `PENDING`, `priority` 0, timestamps the load time.
///
/// ```
/// use navigator_workflow::{Task, TaskStatus};
///
/// let task: Task = serde_json::from_str(r#"{
///   "id": "task-001", "issueId": "ISSUE-042", "workflowType": "ui-reconstruction",
///   "priority": 100, "context": { "targetUrl": "https://example.com" }
/// }"#).unwrap();
/// assert_eq!(task.status, TaskStatus::Pending);
/// assert_eq!(task.current_step, "");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Task {
    /// Unique task id.
    pub id: String,
    /// The issue/ticket this task belongs to.
    #[serde(default)]
    pub issue_id: String,
    /// Id of the workflow the task follows.
    pub workflow_type: String,
    /// The step the task is at (inside the innermost subflow when `subflowStack` is not empty).
    #[serde(default)]
    pub current_step: String,
    /// Higher is more important.
    #[serde(default)]
    pub priority: i64,
    /// Where the task stands.
    #[serde(default)]
    pub status: TaskStatus,
    /// Retries taken across all steps.
    #[serde(default)]
    pub retry_count: u32,
    /// Task-specific data; navigator stores it and never reads it.
    #[serde(default)]
    pub context: Map<String, Value>,
    /// Failures counted per step (steps inside subflows are keyed `workflow/step`).
    #[serde(default)]
    pub step_retries: BTreeMap<String, u32>,
    /// Creation time, milliseconds since the Unix epoch.
    #[serde(default)]
    pub created_at: u64,
    /// Last change, milliseconds since the Unix epoch.
    #[serde(default)]
    pub updated_at: u64,
    /// The output reported with the last `advance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_output: Option<Value>,
    /// Subflows the task is inside, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subflow_stack: Vec<SubflowFrame>,
}

impl Task {
    /// A pending task at the start of `workflow_type` (the step is filled in when loaded).
    ///
    /// ```
    /// use navigator_workflow::Task;
    /// let task = Task::new("t1", "ISSUE-1", "research", 10);
    /// assert_eq!(task.priority, 10);
    /// ```
    pub fn new(
        id: impl Into<String>,
        issue_id: impl Into<String>,
        workflow_type: impl Into<String>,
        priority: i64,
    ) -> Self {
        Task {
            id: id.into(),
            issue_id: issue_id.into(),
            workflow_type: workflow_type.into(),
            current_step: String::new(),
            priority,
            status: TaskStatus::Pending,
            retry_count: 0,
            context: Map::new(),
            step_retries: BTreeMap::new(),
            created_at: 0,
            updated_at: 0,
            last_output: None,
            subflow_stack: Vec::new(),
        }
    }

    /// The workflow `currentStep` belongs to: the innermost subflow's, or `workflowType`.
    ///
    /// ```
    /// use navigator_workflow::Task;
    /// assert_eq!(Task::new("t1", "I-1", "research", 0).current_workflow(), "research");
    /// ```
    pub fn current_workflow(&self) -> &str {
        self.subflow_stack
            .last()
            .map_or(&self.workflow_type, |f| &f.workflow)
    }
}

/// Milliseconds since the Unix epoch; a clock before 1970 reads as 0 rather than failing.
pub(crate) fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
