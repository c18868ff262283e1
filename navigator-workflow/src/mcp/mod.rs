//! The MCP server: navigator's operations as tools over stdio, built on the official `rmcp`
//! SDK.
//!
//! Every successful call answers `{ "data": ..., "_sync_reminder"?: { message, pending } }`
//! (the reminder on mutating calls while anything is unconfirmed). Arguments of the wrong
//! shape are JSON-RPC `invalid_params` errors; arguments of the right shape that name
//! unknown things, or break a rule, are tool errors (`isError: true`) whose structured
//! content is `{ "error": { "code", "message" } }`, so the calling model sees what to fix.
//!
//! ```no_run
//! # async fn run() -> navigator_workflow::Result<()> {
//! navigator_workflow::mcp::serve_stdio(navigator_workflow::Navigator::new()).await?;
//! # Ok(()) }
//! ```

mod args;

use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde::Serialize;
use serde_json::{json, Value};

use crate::definition::WorkflowDefinition;
use crate::error::Error;
use crate::navigator::Navigator;

pub use args::{
    AdvanceTaskArgs, ConfirmSyncArgs, LoadTaskTreeArgs, LoadWorkflowArgs, NextTasksArgs,
    PendingSyncsArgs, TaskIdArgs, TasksByStatusArgs, WorkflowIdArgs,
};

/// The most tasks one `get_next_tasks_from_tree` call returns.
const MAX_LIMIT: u32 = 1000;

/// An MCP server around a shared [`Navigator`].
#[derive(Debug, Clone)]
pub struct NavigatorServer {
    state: Arc<Mutex<Navigator>>,
}

/// Serves `navigator` over stdin/stdout until the client disconnects.
///
/// When both streams are pipes — how MCP clients launch servers — they are driven by the
/// async reactor instead of tokio's blocking pool, which cuts a round trip roughly in
/// three; anything else (a terminal, a file) falls back to plain stdio.
pub async fn serve_stdio(navigator: Navigator) -> Result<(), Error> {
    let transport = |e: &dyn std::fmt::Display| Error::Transport {
        message: e.to_string(),
    };
    let service = NavigatorServer::new(navigator)
        .serve(rmcp::transport::stdio_pipes())
        .await
        .map_err(|e| transport(&e))?;
    service.waiting().await.map_err(|e| transport(&e))?;
    Ok(())
}

impl NavigatorServer {
    /// Wraps a navigator (possibly pre-loaded with workflows or restored from a snapshot).
    pub fn new(navigator: Navigator) -> Self {
        NavigatorServer {
            state: Arc::new(Mutex::new(navigator)),
        }
    }

    /// The shared state, e.g. to snapshot it.
    pub fn navigator(&self) -> Arc<Mutex<Navigator>> {
        Arc::clone(&self.state)
    }

    fn lock(&self) -> MutexGuard<'_, Navigator> {
        // Navigator operations never panic midway, so a poisoned lock still guards
        // consistent state.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// `{ data }`, plus the reminder when the call mutated state.
fn respond(data: impl Serialize, navigator: Option<&Navigator>) -> CallToolResult {
    let mut body = json!({ "data": data });
    if let Some(reminder) = navigator.and_then(Navigator::sync_reminder) {
        body["_sync_reminder"] = json!(reminder);
    }
    CallToolResult::structured(body)
}

fn fail(error: Error) -> CallToolResult {
    CallToolResult::structured_error(
        json!({ "error": { "code": error.code(), "message": error.to_string() } }),
    )
}

fn non_empty(argument: &'static str, value: &str) -> Result<(), Error> {
    if value.trim().is_empty() {
        return Err(Error::InvalidArgument {
            argument,
            reason: "must be a non-empty string".into(),
        });
    }
    Ok(())
}

/// Runs a tool body, turning its error into a tool error result.
fn run(body: impl FnOnce() -> Result<CallToolResult, Error>) -> CallToolResult {
    body().unwrap_or_else(fail)
}

#[tool_router]
impl NavigatorServer {
    #[tool(
        description = "List all loaded workflow definitions (id, name, start node, node/edge counts, subflows)."
    )]
    async fn list_workflows(&self) -> CallToolResult {
        let nav = self.lock();
        let workflows: Vec<_> = nav.workflows().map(|w| w.summary()).collect();
        respond(
            json!({ "count": workflows.len(), "workflows": workflows }),
            None,
        )
    }

    #[tool(
        description = "Load (or replace) a workflow definition: a DAG of start/task/gate/subflow/end nodes and edges {from, to, on?, label?}. The definition is validated and precise errors are returned."
    )]
    async fn load_workflow(
        &self,
        Parameters(args): Parameters<LoadWorkflowArgs>,
    ) -> CallToolResult {
        run(|| {
            non_empty("id", &args.id)?;
            let definition = match args.definition {
                Value::String(text) => WorkflowDefinition::from_yaml(&text)?,
                value => WorkflowDefinition::from_value(value)?,
            };
            let mut nav = self.lock();
            let summary = nav.load_workflow(&args.id, definition)?;
            Ok(respond(summary, Some(&nav)))
        })
    }

    #[tool(
        description = "Get a workflow's topologically sorted execution levels (retry edges ignored) and a Mermaid flowchart."
    )]
    async fn get_execution_plan(
        &self,
        Parameters(args): Parameters<WorkflowIdArgs>,
    ) -> CallToolResult {
        run(|| {
            non_empty("workflowId", &args.workflow_id)?;
            Ok(respond(
                self.lock().execution_plan(&args.workflow_id)?,
                None,
            ))
        })
    }

    #[tool(
        description = "Load tasks from the orchestrator into the priority tree (upsert by id; replace=true empties the tree first). All or nothing."
    )]
    async fn load_task_tree(
        &self,
        Parameters(args): Parameters<LoadTaskTreeArgs>,
    ) -> CallToolResult {
        run(|| {
            let mut nav = self.lock();
            let report = nav.load_tasks(args.tasks, args.replace)?;
            Ok(respond(report, Some(&nav)))
        })
    }

    #[tool(
        description = "Get the N highest-priority PENDING tasks (priority desc, then oldest, then id)."
    )]
    async fn get_next_tasks_from_tree(
        &self,
        Parameters(args): Parameters<NextTasksArgs>,
    ) -> CallToolResult {
        run(|| {
            let limit = args.limit.unwrap_or(1);
            if !(1..=MAX_LIMIT).contains(&limit) {
                return Err(Error::InvalidArgument {
                    argument: "limit",
                    reason: format!("must be 1..={MAX_LIMIT}, got {limit}"),
                });
            }
            let nav = self.lock();
            let tasks = nav.next_tasks(limit as usize);
            Ok(respond(
                json!({ "count": tasks.len(), "tasks": tasks }),
                None,
            ))
        })
    }

    #[tool(
        description = "Report the result of the task's current step; navigator evaluates the edges (conditional before fallback, per-step retries, escalation) and moves the task. Persist the change, then confirm its sync."
    )]
    async fn advance_task(&self, Parameters(args): Parameters<AdvanceTaskArgs>) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            non_empty("result", &args.result)?;
            let mut nav = self.lock();
            let outcome = nav.advance(&args.task_id, &args.result, args.output)?;
            Ok(respond(outcome, Some(&nav)))
        })
    }

    #[tool(description = "Get one task by id.")]
    async fn get_task(&self, Parameters(args): Parameters<TaskIdArgs>) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            Ok(respond(self.lock().task(&args.task_id)?, None))
        })
    }

    #[tool(
        description = "Get how far a task is through its workflow: level, percent complete, retries."
    )]
    async fn get_task_progress(&self, Parameters(args): Parameters<TaskIdArgs>) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            Ok(respond(self.lock().progress(&args.task_id)?, None))
        })
    }

    #[tool(
        description = "Get all tasks grouped by status (PENDING, IN_PROGRESS, COMPLETED, FAILED, HITL, PAUSED), or only one status."
    )]
    async fn get_tasks_by_status(
        &self,
        Parameters(args): Parameters<TasksByStatusArgs>,
    ) -> CallToolResult {
        let nav = self.lock();
        let mut groups = nav.tasks_by_status();
        if let Some(only) = args.status {
            groups.retain(|status, _| *status == only);
        }
        let counts: serde_json::Map<String, Value> = groups
            .iter()
            .map(|(status, tasks)| (status.to_string(), json!(tasks.len())))
            .collect();
        respond(json!({ "counts": counts, "tasks": groups }), None)
    }

    #[tool(description = "List mutations awaiting sync confirmation (optionally for one task).")]
    async fn get_pending_syncs(
        &self,
        Parameters(args): Parameters<PendingSyncsArgs>,
    ) -> CallToolResult {
        let nav = self.lock();
        let syncs: Vec<_> = nav
            .pending_syncs()
            .filter(|s| args.task_id.as_deref().is_none_or(|id| s.task_id == id))
            .collect();
        respond(json!({ "count": syncs.len(), "syncs": syncs }), None)
    }

    #[tool(
        description = "Confirm that mutations were persisted to the primary store. Unknown or already confirmed ids are reported in notFound."
    )]
    async fn confirm_sync(&self, Parameters(args): Parameters<ConfirmSyncArgs>) -> CallToolResult {
        run(|| {
            if args.sync_ids.is_empty() {
                return Err(Error::InvalidArgument {
                    argument: "syncIds",
                    reason: "must list at least one sync id".into(),
                });
            }
            let mut nav = self.lock();
            let confirmation = nav.confirm_sync(&args.sync_ids);
            Ok(respond(confirmation, Some(&nav)))
        })
    }

    #[tool(description = "Confirm every pending sync of one task.")]
    async fn confirm_sync_for_task(
        &self,
        Parameters(args): Parameters<TaskIdArgs>,
    ) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            let mut nav = self.lock();
            let confirmation = nav.confirm_sync_for_task(&args.task_id)?;
            Ok(respond(confirmation, Some(&nav)))
        })
    }
}

#[tool_handler(
    name = "navigator-workflow",
    instructions = "Workflow GPS: load workflows and a task tree, ask for the next tasks, execute a step yourself, report its result with advance_task, persist the change and confirm the sync. Navigator keeps state in memory only."
)]
impl ServerHandler for NavigatorServer {}
