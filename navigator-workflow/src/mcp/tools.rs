//! The tools: one method each, with its hints. Every mutating tool persists the state (when
//! the server has a state file) before it answers.

use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};

use super::args::{
    AdvanceTaskArgs, ClaimTaskArgs, ConfirmSyncArgs, LoadTaskTreeArgs, LoadWorkflowArgs,
    NextTasksArgs, NoArgs, PendingSyncsArgs, ReleaseTaskArgs, ResumeTaskArgs, TaskIdArgs,
    TasksByStatusArgs, WorkflowIdArgs,
};
use super::{envelope_schema, fail, non_empty, respond, run, NavigatorServer};
use crate::definition::WorkflowDefinition;
use crate::error::Error;

/// The most tasks one `get_next_tasks_from_tree` call returns.
const MAX_LIMIT: u32 = 1000;
/// The default and largest page of `get_pending_syncs` and `get_tasks_by_status`.
const PAGE: u32 = 100;
const MAX_PAGE: u32 = 500;
/// The lease `claim_task` grants when none is asked for (five minutes).
const DEFAULT_LEASE_MS: u64 = 300_000;

#[tool_router]
impl NavigatorServer {
    #[tool(
        description = "List all loaded workflow definitions (id, name, start node, node/edge counts, subflows).",
        output_schema = envelope_schema(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_workflows(&self, Parameters(_): Parameters<NoArgs>) -> CallToolResult {
        let nav = self.lock();
        let workflows: Vec<_> = nav.workflows().map(|w| w.summary()).collect();
        respond(
            json!({ "count": workflows.len(), "workflows": workflows }),
            None,
        )
    }

    #[tool(
        description = "Load (or replace) a workflow definition: a DAG of start/task/gate/subflow/end nodes and edges {from, to, on?, label?}. The definition is validated and precise errors are returned. Replacing one lists as `strandedTasks` the unfinished tasks whose current step the new definition lacks (advance_task refuses them until a definition with that step is loaded again).",
        output_schema = envelope_schema(),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
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
            // Listed: the stranded tasks on this workflow, and those this load stranded
            // elsewhere (a task inside a subflow the workflow no longer enters).
            let (stranded_before, nav) = self.change(|nav| {
                let before: std::collections::HashSet<String> = nav
                    .stranded_tasks()
                    .into_iter()
                    .map(|t| t.task_id)
                    .collect();
                nav.load_workflow(&args.id, definition)
                    .map(|summary| (before, summary))
            })?;
            let (before, summary) = stranded_before;
            let stranded: Vec<_> = nav
                .stranded_tasks()
                .into_iter()
                .filter(|t| t.workflow == args.id || !before.contains(&t.task_id))
                .collect();
            let mut data = serde_json::to_value(summary).unwrap_or_default();
            if let (false, Some(map)) = (stranded.is_empty(), data.as_object_mut()) {
                map.insert("strandedTasks".into(), json!(stranded));
            }
            Ok(respond(data, Some(&nav)))
        })
    }

    #[tool(
        description = "Get a workflow's topologically sorted execution levels (retry edges ignored) and a Mermaid flowchart.",
        output_schema = envelope_schema(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
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
        description = "Load tasks from the orchestrator into the priority tree (upsert by id; replace=true empties the tree first). All or nothing; a task an agent holds a live claim on is not replaced (task_claimed: release it first).",
        output_schema = envelope_schema(),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn load_task_tree(
        &self,
        Parameters(args): Parameters<LoadTaskTreeArgs>,
    ) -> CallToolResult {
        run(|| {
            let (report, nav) = self.change(|nav| nav.load_tasks(args.tasks, args.replace))?;
            Ok(respond(report, Some(&nav)))
        })
    }

    #[tool(
        description = "Get the N highest-priority PENDING tasks (priority desc, then oldest, then id).",
        output_schema = envelope_schema(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
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
        description = "Report the result of the task's current step; navigator evaluates the edges (conditional before fallback, per-step retries, escalation) and moves the task. Persist the change, then confirm its sync.",
        output_schema = envelope_schema(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn advance_task(&self, Parameters(args): Parameters<AdvanceTaskArgs>) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            non_empty("result", &args.result)?;
            let (outcome, nav) = self.change(|nav| {
                nav.advance_as(
                    &args.task_id,
                    args.agent.as_deref(),
                    &args.result,
                    args.output,
                )
            })?;
            Ok(respond(outcome, Some(&nav)))
        })
    }

    #[tool(description = "Get one task by id.",
        output_schema = envelope_schema(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_task(&self, Parameters(args): Parameters<TaskIdArgs>) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            Ok(respond(self.lock().task(&args.task_id)?, None))
        })
    }

    #[tool(
        description = "Get how far a task is through its workflow: level, percent complete, retries.",
        output_schema = envelope_schema(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_task_progress(&self, Parameters(args): Parameters<TaskIdArgs>) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            Ok(respond(self.lock().progress(&args.task_id)?, None))
        })
    }

    #[tool(
        description = "Get tasks grouped by status (PENDING, IN_PROGRESS, COMPLETED, FAILED, HITL, PAUSED), or of one status, one page at a time: counts cover every task; tasks holds the page (by status, then tree order; offset, limit up to 500; nextOffset when more remain).",
        output_schema = envelope_schema(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_tasks_by_status(
        &self,
        Parameters(args): Parameters<TasksByStatusArgs>,
    ) -> CallToolResult {
        run(|| {
            let limit = page_limit(args.limit)?;
            let offset = usize::try_from(args.offset.unwrap_or(0)).unwrap_or(usize::MAX);
            let nav = self.lock();
            let mut groups = nav.tasks_by_status();
            // The counts cover every task, whatever status the page is of.
            let counts: serde_json::Map<String, Value> = groups
                .iter()
                .map(|(status, tasks)| (status.to_string(), json!(tasks.len())))
                .collect();
            if let Some(only) = args.status {
                groups.retain(|status, _| *status == only);
            }
            let total: usize = groups.values().map(Vec::len).sum();
            // The page of the listing, kept grouped: skip `offset` tasks in status order.
            let mut page: serde_json::Map<String, Value> = serde_json::Map::new();
            let (mut skip, mut room) = (offset, limit as usize);
            for (status, tasks) in &groups {
                let taken: Vec<_> = tasks.iter().skip(skip).take(room).collect();
                skip = skip.saturating_sub(tasks.len());
                room -= taken.len();
                if !taken.is_empty() {
                    page.insert(status.to_string(), json!(taken));
                }
            }
            let next = offset.saturating_add(limit as usize - room);
            Ok(respond(
                json!({
                    "counts": counts,
                    "total": total,
                    "offset": offset,
                    "nextOffset": (next < total).then_some(next),
                    "tasks": page,
                }),
                None,
            ))
        })
    }

    #[tool(
        description = "List mutations awaiting sync confirmation, oldest first, one page at a time (offset, limit up to 500; nextOffset when more remain), optionally for one task. Confirming syncs shortens the list: after confirm_sync, read again from offset 0 (the syncs after the confirmed ones have moved up).",
        output_schema = envelope_schema(),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn get_pending_syncs(
        &self,
        Parameters(args): Parameters<PendingSyncsArgs>,
    ) -> CallToolResult {
        run(|| {
            let limit = page_limit(args.limit)?;
            let offset = usize::try_from(args.offset.unwrap_or(0)).unwrap_or(usize::MAX);
            let nav = self.lock();
            // A task that is not in the tree, with no sync pending, is a mistaken id (a task
            // replaced away may still have syncs pending).
            if let Some(id) = &args.task_id {
                if nav.task(id).is_err() && !nav.pending_syncs().any(|s| &s.task_id == id) {
                    nav.task(id)?;
                }
            }
            let matching = || {
                nav.pending_syncs()
                    .filter(|s| args.task_id.as_deref().is_none_or(|id| s.task_id == id))
            };
            let total = match args.task_id {
                Some(_) => matching().count(),
                None => nav.ledger().len(),
            };
            let syncs: Vec<_> = matching().skip(offset).take(limit as usize).collect();
            let next = offset.saturating_add(syncs.len());
            Ok(respond(
                json!({
                    "count": syncs.len(),
                    "total": total,
                    "offset": offset,
                    "nextOffset": (next < total).then_some(next),
                    "syncs": syncs,
                }),
                None,
            ))
        })
    }

    #[tool(
        description = "Confirm that mutations were persisted to the primary store. Unknown or already confirmed ids are reported in notFound.",
        output_schema = envelope_schema(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn confirm_sync(&self, Parameters(args): Parameters<ConfirmSyncArgs>) -> CallToolResult {
        run(|| {
            if args.sync_ids.is_empty() {
                return Err(Error::InvalidArgument {
                    argument: "syncIds",
                    reason: "must list at least one sync id".into(),
                });
            }
            let (confirmation, nav) = self.change(|nav| Ok(nav.confirm_sync(&args.sync_ids)))?;
            Ok(respond(confirmation, Some(&nav)))
        })
    }

    #[tool(description = "Confirm every pending sync of one task.",
        output_schema = envelope_schema(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn confirm_sync_for_task(
        &self,
        Parameters(args): Parameters<TaskIdArgs>,
    ) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            let (confirmation, nav) =
                self.change(|nav| nav.confirm_sync_for_task(&args.task_id))?;
            Ok(respond(confirmation, Some(&nav)))
        })
    }

    #[tool(
        description = "Claim a PENDING or IN_PROGRESS task for an agent with a lease (leaseMs, default 300000). While the lease runs no other agent can claim or advance it and get_next_tasks_from_tree skips it. Claim again before it ends to renew; release_task when done.",
        output_schema = envelope_schema(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn claim_task(&self, Parameters(args): Parameters<ClaimTaskArgs>) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            non_empty("agent", &args.agent)?;
            let lease = args.lease_ms.unwrap_or(DEFAULT_LEASE_MS);
            if !(crate::MIN_LEASE_MS..=crate::MAX_LEASE_MS).contains(&lease) {
                return Err(Error::InvalidArgument {
                    argument: "leaseMs",
                    reason: format!(
                        "must be {}..={}, got {lease}",
                        crate::MIN_LEASE_MS,
                        crate::MAX_LEASE_MS
                    ),
                });
            }
            let (claim, _nav) =
                self.change(|nav| nav.claim_task(&args.task_id, &args.agent, lease))?;
            Ok(respond(claim, None))
        })
    }

    #[tool(
        description = "Release an agent's claim on a task so other agents can take it.",
        output_schema = envelope_schema(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn release_task(&self, Parameters(args): Parameters<ReleaseTaskArgs>) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            let (claim, _nav) = self.change(|nav| nav.release_claim(&args.task_id, &args.agent))?;
            Ok(respond(json!({ "released": claim }), None))
        })
    }

    #[tool(
        description = "Hand a task that escalated to a human (HITL) or is PAUSED back to the agents: it becomes PENDING at the given step of its current workflow, that step's failure count cleared. Records a sync with action resume.",
        output_schema = envelope_schema(),
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn resume_task(&self, Parameters(args): Parameters<ResumeTaskArgs>) -> CallToolResult {
        run(|| {
            non_empty("taskId", &args.task_id)?;
            non_empty("step", &args.step)?;
            let (outcome, nav) =
                self.change(|nav| nav.resume_task(&args.task_id, &args.step, args.note))?;
            Ok(respond(outcome, Some(&nav)))
        })
    }
}

#[tool_handler(
    name = "navigator-workflow",
    instructions = "Workflow GPS: load workflows and a task tree, ask for the next tasks, execute a step yourself, report its result with advance_task, persist the change and confirm the sync. Claim a task (claim_task) before working on it and release it after; resume_task hands a HITL task back. Page pending syncs with get_pending_syncs."
)]
impl ServerHandler for NavigatorServer {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let router = Self::tool_router();
        if !router.has_route(&request.name) {
            return Err(super::unknown_tool(&request.name, &router));
        }
        let located = argument_location(&request.name, request.arguments.as_ref());
        let context = ToolCallContext::new(self, request, context);
        let response = router.call(context).await?;
        Ok(structure_argument_error(response, located))
    }
}

/// Where in a tool's arguments they stop fitting its input (`tasks[0].priority`), with what
/// is wrong there; `None` when they fit (or the tool takes none). rmcp's own message names no
/// place ("invalid type: string \"5\", expected i64"), which in a batch of tasks leaves the
/// caller guessing which field of which task.
fn argument_location(tool: &str, arguments: Option<&rmcp::model::JsonObject>) -> Option<String> {
    fn at<T: serde::de::DeserializeOwned>(value: Value) -> Option<String> {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Ok(_) => None,
            Err(e) => {
                let path = e.path().to_string();
                let inner = e.inner().to_string();
                // A top-level field the message names already (`unknown field `task``) needs
                // no place.
                let named = !path.contains(['.', '[']) && inner.contains(&format!("`{path}`"));
                Some(match path.as_str() {
                    "." => inner,
                    _ if named => inner,
                    _ => format!("at `{path}`: {inner}"),
                })
            }
        }
    }
    let value = Value::Object(arguments.cloned().unwrap_or_default());
    match tool {
        "list_workflows" => at::<NoArgs>(value),
        "load_workflow" => at::<LoadWorkflowArgs>(value),
        "get_execution_plan" => at::<WorkflowIdArgs>(value),
        "load_task_tree" => at::<LoadTaskTreeArgs>(value),
        "get_next_tasks_from_tree" => at::<NextTasksArgs>(value),
        "advance_task" => at::<AdvanceTaskArgs>(value),
        "get_task" | "get_task_progress" | "confirm_sync_for_task" => at::<TaskIdArgs>(value),
        "get_tasks_by_status" => at::<TasksByStatusArgs>(value),
        "get_pending_syncs" => at::<PendingSyncsArgs>(value),
        "confirm_sync" => at::<ConfirmSyncArgs>(value),
        "claim_task" => at::<ClaimTaskArgs>(value),
        "release_task" => at::<ReleaseTaskArgs>(value),
        "resume_task" => at::<ResumeTaskArgs>(value),
        _ => None,
    }
}

/// rmcp answers arguments that do not fit a tool's input schema (a missing or unknown field,
/// a wrong type) with a text-only tool error; give it the `{ error: { code, message } }`
/// structured content every other tool error has and every `outputSchema` declares. Only
/// those errors lack structured content: every tool body answers through `respond`/`fail`.
/// `located` is [`argument_location`]'s account of the same error, preferred where it has one.
fn structure_argument_error(
    response: CallToolResponse,
    located: Option<String>,
) -> CallToolResponse {
    let CallToolResponse::Complete(result) = response else {
        return response;
    };
    if result.is_error != Some(true) || result.structured_content.is_some() {
        return CallToolResponse::Complete(result);
    }
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect();
    let text = text.join("\n");
    let reason = text
        .strip_prefix("failed to deserialize parameters:")
        .unwrap_or(&text)
        .trim();
    let error = Error::InvalidArgument {
        argument: "arguments",
        reason: located.unwrap_or_else(|| reason.to_string()),
    };
    CallToolResponse::Complete(fail(error).with_meta(result.meta))
}

/// A page size asked for (default [`PAGE`]), checked to be 1..=[`MAX_PAGE`].
fn page_limit(limit: Option<u32>) -> Result<u32, Error> {
    let limit = limit.unwrap_or(PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(Error::InvalidArgument {
            argument: "limit",
            reason: format!("must be 1..={MAX_PAGE}, got {limit}"),
        });
    }
    Ok(limit)
}
