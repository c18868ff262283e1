//! [`Navigator`]: the in-memory state an orchestrator talks to — workflow store, task tree
//! and sync ledger — and the operations behind the MCP tools.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use crate::claims::{resumable, Claim, ClaimBook};
use crate::definition::NodeKind;
use crate::definition::WorkflowDefinition;
use crate::engine::{apply, decide, Action, AdvanceOutcome};
use crate::error::{Error, Result};
use crate::plan::ExecutionPlan;
use crate::sync::{SyncConfirmation, SyncLedger, SyncRecord, SyncReminder};
use crate::task::{now_millis, Task, TaskStatus};
use crate::tree::TaskTree;
use crate::workflow::{Workflow, WorkflowSummary};

/// The workflow GPS.
///
/// ```
/// use navigator_workflow::{Action, Navigator, Task, TaskStatus, WorkflowDefinition};
///
/// let mut nav = Navigator::new();
/// nav.load_workflow("hello", WorkflowDefinition::from_yaml(r#"
/// nodes:
///   start: { type: start }
///   greet: { type: task, name: Say hello }
///   end: { type: end, result: success }
/// edges:
///   - { from: start, to: greet }
///   - { from: greet, to: end }
/// "#).unwrap()).unwrap();
/// nav.load_tasks(vec![Task::new("t1", "ISSUE-1", "hello", 5)], false).unwrap();
///
/// let first = nav.next_tasks(1)[0].id.clone();
/// nav.advance(&first, "passed", None).unwrap();                 // start -> greet
/// let done = nav.advance(&first, "passed", None).unwrap();     // greet -> end
/// assert_eq!(done.action, Action::Complete);
/// assert_eq!(done.task.status, TaskStatus::Completed);
/// assert_eq!(nav.pending_syncs().count(), 2);
/// nav.confirm_sync_for_task("t1").unwrap();
/// assert!(nav.sync_reminder().is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Navigator {
    workflows: BTreeMap<String, Workflow>,
    tree: TaskTree,
    ledger: SyncLedger,
    claims: ClaimBook,
}

/// What `load_task_tree` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadReport {
    /// Tasks loaded by this call.
    pub loaded: usize,
    /// Tasks in the tree afterwards.
    pub total: usize,
    /// Pending tasks in the tree afterwards.
    pub pending: usize,
}

/// How far a task is through its workflow.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskProgress {
    /// Task id.
    pub task_id: String,
    /// The workflow of the current step.
    pub workflow: String,
    /// Current step.
    pub current_step: String,
    /// Task status.
    pub status: TaskStatus,
    /// Execution-plan level of the current step (0 = start).
    pub level: usize,
    /// Number of levels in that workflow's plan.
    pub total_levels: usize,
    /// `level / (total_levels - 1)` as a percentage; 100 at any end node.
    pub percent_complete: u8,
    /// Retries taken in total.
    pub retry_count: u32,
    /// Failures counted per step.
    pub step_retries: BTreeMap<String, u32>,
    /// Subflow nesting, outermost first.
    pub subflow_stack: Vec<crate::task::SubflowFrame>,
}

/// A task that cannot move: its workflow (the one of its current step) is not loaded, or no
/// longer has its current step (a definition loaded again without it). `advance` refuses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StrandedTask {
    /// Task id.
    pub task_id: String,
    /// The workflow of its current step.
    pub workflow: String,
    /// Its current step.
    pub step: String,
    /// Whether that workflow is loaded at all (else only the step is missing).
    pub workflow_loaded: bool,
    /// What does not fit: the step missing, a subflow frame that no longer matches, a step
    /// that is now an end.
    pub reason: String,
}

impl Navigator {
    /// An empty navigator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Validates and stores a workflow, replacing one with the same id. Tasks already on the
    /// old definition keep their step; if the step no longer exists `advance` says so, and
    /// [`Navigator::stranded_tasks`] lists them.
    ///
    /// A workflow that would enter itself through subflows, directly or through workflows
    /// already loaded, is an [`Error::SubflowCycle`].
    pub fn load_workflow(
        &mut self,
        id: &str,
        definition: WorkflowDefinition,
    ) -> Result<WorkflowSummary> {
        let workflow = Workflow::new(id, definition)?;
        if let Some(cycle) = self.subflow_path(&workflow.subflows(), id) {
            let mut full = vec![id.to_string()];
            full.extend(cycle);
            return Err(Error::SubflowCycle { cycle: full });
        }
        let summary = workflow.summary();
        self.workflows.insert(id.to_string(), workflow);
        Ok(summary)
    }

    /// A path of subflow entries from one of `from` to `target` through the loaded workflows.
    fn subflow_path(&self, from: &[String], target: &str) -> Option<Vec<String>> {
        let mut stack: Vec<Vec<String>> = from.iter().map(|w| vec![w.clone()]).collect();
        let mut seen = HashSet::new();
        while let Some(path) = stack.pop() {
            let last = path.last()?;
            if last == target {
                return Some(path);
            }
            if !seen.insert(last.clone()) {
                continue;
            }
            if let Some(w) = self.workflows.get(last) {
                for next in w.subflows() {
                    let mut longer = path.clone();
                    longer.push(next);
                    stack.push(longer);
                }
            }
        }
        None
    }

    /// Every loaded workflow, by id.
    pub fn workflows(&self) -> impl Iterator<Item = &Workflow> {
        self.workflows.values()
    }

    /// The workflow with this id.
    pub fn workflow(&self, id: &str) -> Result<&Workflow> {
        self.workflows
            .get(id)
            .ok_or_else(|| Error::UnknownWorkflow { id: id.to_string() })
    }

    /// The execution plan of a workflow.
    pub fn execution_plan(&self, id: &str) -> Result<ExecutionPlan> {
        Ok(ExecutionPlan::of(self.workflow(id)?))
    }

    /// Loads tasks from the orchestrator: all or nothing. With `replace` the tree is emptied
    /// first; otherwise tasks are upserted by id. A task already in the tree that an agent
    /// holds a live claim on is not replaced, nor the tree emptied while it holds one
    /// ([`Error::TaskClaimed`]: release it first). Loading records no sync: the data comes
    /// from the primary store. Pending syncs survive a replace — they are still unpersisted.
    pub fn load_tasks(&mut self, tasks: Vec<Task>, replace: bool) -> Result<LoadReport> {
        self.load_tasks_as(tasks, replace, false)
    }

    /// [`load_tasks`](Self::load_tasks); with `keep_stranded` (restoring a snapshot) a task
    /// the loaded definitions no longer fit (its step or workflow gone, a subflow node it is
    /// inside changed, its step now an end) is kept as it was saved: stranded
    /// ([`stranded_tasks`](Self::stranded_tasks)) until definitions it fits are loaded.
    pub(crate) fn load_tasks_as(
        &mut self,
        tasks: Vec<Task>,
        replace: bool,
        keep_stranded: bool,
    ) -> Result<LoadReport> {
        let now = now_millis();
        let mut seen = HashSet::new();
        let mut prepared = Vec::with_capacity(tasks.len());
        for (index, mut task) in tasks.into_iter().enumerate() {
            let bad = |task: &Task, reason: String| Error::InvalidTask {
                index,
                task: task.id.clone(),
                reason,
            };
            if task.id.trim().is_empty() {
                return Err(bad(&task, "`id` must be non-empty".into()));
            }
            if !seen.insert(task.id.clone()) {
                return Err(bad(&task, "duplicate `id` in this batch".into()));
            }
            if !(keep_stranded && self.is_stranded(&task)) {
                self.check_position(&mut task).map_err(|e| bad(&task, e))?;
            }
            // Replacing a task an agent holds would reset the progress it is making under
            // the agent's hands: refused, all or nothing (restoring a snapshot replaces
            // nothing an agent holds).
            if !keep_stranded && self.tree.get(&task.id).is_some() {
                if let Some(claim) = self.claims.live(&task.id, now) {
                    return Err(Error::TaskClaimed {
                        task: task.id.clone(),
                        holder: claim.agent.clone(),
                        expires_at: claim.expires_at,
                    });
                }
            }
            if task.created_at == 0 {
                task.created_at = now;
            }
            if task.updated_at == 0 {
                task.updated_at = task.created_at;
            }
            prepared.push(task);
        }
        let loaded = prepared.len();
        if replace && !keep_stranded {
            // Emptying the tree would delete the tasks agents hold, and leave their claims.
            let held = self
                .claims
                .all_live(now)
                .find(|c| self.tree.get(&c.task_id).is_some());
            if let Some(claim) = held {
                return Err(Error::TaskClaimed {
                    task: claim.task_id.clone(),
                    holder: claim.agent.clone(),
                    expires_at: claim.expires_at,
                });
            }
        }
        if replace {
            self.tree.clear();
        }
        for task in prepared {
            self.tree.insert(task);
        }
        Ok(LoadReport {
            loaded,
            total: self.tree.len(),
            pending: self.tree.pending_len(),
        })
    }

    /// Why `task` (with a step, not ended) cannot move: its step, its workflow or a workflow
    /// of its subflow chain is not what the loaded definitions say (a step removed, an
    /// entered subflow node changed, a step now an end), or `None` when it can.
    fn stranded_why(&self, task: &Task) -> Option<String> {
        if task.current_step.is_empty()
            || matches!(task.status, TaskStatus::Completed | TaskStatus::Failed)
        {
            return None;
        }
        self.position_error(task, false).err()
    }

    fn is_stranded(&self, task: &Task) -> bool {
        self.stranded_why(task).is_some()
    }

    /// Checks that the task's workflow chain and step exist, filling in the start step.
    fn check_position(&self, task: &mut Task) -> std::result::Result<(), String> {
        let start = self.position_error(task, true)?;
        if task.current_step.is_empty() {
            if let Some(start) = start {
                task.current_step = start;
            }
        }
        Ok(())
    }

    /// Why `task`'s position does not fit the loaded workflows (its workflow chain, its step,
    /// an active task on an end node); with `fill`, a task without a step is checked at its
    /// workflow's start, which comes back.
    fn position_error(
        &self,
        task: &Task,
        fill: bool,
    ) -> std::result::Result<Option<String>, String> {
        let root = self.workflows.get(&task.workflow_type).ok_or_else(|| {
            format!(
                "unknown workflowType `{}` (load the workflow first)",
                task.workflow_type
            )
        })?;
        let mut current = root;
        for frame in &task.subflow_stack {
            let step = self
                .workflows
                .get(&frame.parent_workflow)
                .and_then(|w| w.node(&frame.parent_step));
            match step.map(|n| &n.kind) {
                Some(NodeKind::Subflow(s))
                    if s.workflow == frame.workflow && frame.parent_workflow == current.id() => {}
                _ => {
                    return Err(format!(
                        "subflowStack frame {}/{} -> {} does not match the loaded workflows",
                        frame.parent_workflow, frame.parent_step, frame.workflow
                    ))
                }
            }
            current = self
                .workflows
                .get(&frame.workflow)
                .ok_or_else(|| format!("unknown workflow `{}`", frame.workflow))?;
        }
        let filled = (fill && task.current_step.is_empty()).then(|| current.start().to_string());
        let step = filled.as_deref().unwrap_or(&task.current_step);
        let node = current
            .node(step)
            .ok_or_else(|| format!("workflow `{}` has no step `{step}`", current.id()))?;
        if matches!(node.kind, NodeKind::End(_)) && task.status.is_active() {
            return Err(format!("is {} but sits on end node `{step}`", task.status));
        }
        // A task never stops at a subflow node (it enters the subflow there): one loaded at
        // it would skip the whole subflow on its next result.
        if matches!(node.kind, NodeKind::Subflow(_)) && task.status.is_active() {
            return Err(format!(
                "is {} at subflow node `{step}`, which a task enters rather than stops at (load it at a step of the subflow, with its subflowStack, or at the step before)",
                task.status
            ));
        }
        Ok(filled)
    }

    /// The `n` highest-priority pending tasks (priority desc, then createdAt, then id) that
    /// no agent holds a live claim on.
    pub fn next_tasks(&self, n: usize) -> Vec<&Task> {
        let now = now_millis();
        // A stranded task cannot move (`advance_task` refuses it): offering it would hold
        // an agent that takes the first task at it for good.
        let free = |t: &&Task| self.claims.live(&t.id, now).is_none() && !self.is_stranded(t);
        self.tree.next(usize::MAX).filter(free).take(n).collect()
    }

    /// The task with this id.
    pub fn task(&self, id: &str) -> Result<&Task> {
        self.tree
            .get(id)
            .ok_or_else(|| Error::UnknownTask { id: id.to_string() })
    }

    /// Changes the task with this id in the tree (which keeps its queue in order) and
    /// returns it as changed.
    fn change_task(&mut self, id: &str, change: impl FnOnce(&mut Task)) -> Result<Task> {
        self.tree
            .update(id, |task| {
                change(task);
                task.clone()
            })
            .ok_or_else(|| Error::UnknownTask { id: id.to_string() })
    }

    /// The task tree.
    pub fn tree(&self) -> &TaskTree {
        &self.tree
    }

    /// Every task grouped by status.
    pub fn tasks_by_status(&self) -> BTreeMap<TaskStatus, Vec<&Task>> {
        self.tree.by_status()
    }

    /// Reports that the task's current step produced `result` and moves the task along the
    /// selected edge (see [`crate::engine`] for the rules). Records a sync.
    ///
    /// A task another agent holds a live claim on cannot be advanced this way: use
    /// [`advance_as`](Self::advance_as) with the holder's name.
    pub fn advance(
        &mut self,
        task_id: &str,
        result: &str,
        output: Option<Value>,
    ) -> Result<AdvanceOutcome> {
        self.advance_as(task_id, None, result, output)
    }

    /// [`advance`](Self::advance) on behalf of `agent`, which must hold the task's claim if
    /// the task has a live one.
    pub fn advance_as(
        &mut self,
        task_id: &str,
        agent: Option<&str>,
        result: &str,
        output: Option<Value>,
    ) -> Result<AdvanceOutcome> {
        let task = self.task(task_id)?;
        self.claims.check(task_id, agent, now_millis())?;
        // A step its workflow lacks is `UnknownStep` (from `decide`); any other misfit (an
        // entered subflow node changed, a step now an end) is said as such, not as a route
        // missing from the step.
        let step_exists = self
            .workflows
            .get(task.current_workflow())
            .is_some_and(|w| w.node(&task.current_step).is_some());
        if let (true, Some(reason)) = (step_exists, self.stranded_why(task)) {
            return Err(Error::Stranded {
                task: task_id.to_string(),
                reason,
            });
        }
        let transition = decide(&self.workflows, task, result)?;
        let now = now_millis();
        let record_output = output.clone();
        let task = self.change_task(task_id, |task| apply(task, &transition, output, now))?;
        let record = self.ledger.record(|id| SyncRecord {
            id,
            task_id: task_id.to_string(),
            action: transition.action,
            workflow: transition.workflow.clone(),
            previous_step: transition.previous_step.clone(),
            current_step: transition.step.clone(),
            status: transition.status,
            output: record_output,
            created_at: now,
        });
        let sync_id = record.id.clone();
        let tree = &self.tree;
        self.claims
            .prune(now, |id| tree.get(id).is_some_and(|t| t.status.is_active()));
        Ok(AdvanceOutcome {
            success: true,
            sync_id,
            previous_step: transition.previous_step,
            next_step: transition.step,
            workflow: transition.workflow,
            action: transition.action,
            retries_used: transition.retries.map(|r| r.0),
            retries_remaining: transition.retries.map(|r| r.1),
            reason: transition.reason,
            task,
        })
    }

    /// Hands a task that a human took over (`HITL`) or that is `PAUSED` back to the agents:
    /// it becomes `PENDING` at `step` of its current workflow (a step that is not an end
    /// node) with that step's failure count cleared, and a sync with action `resume` records
    /// who resumed it and why (`note`).
    pub fn resume_task(
        &mut self,
        task_id: &str,
        step: &str,
        note: Option<Value>,
    ) -> Result<AdvanceOutcome> {
        let task = self.task(task_id)?;
        if !resumable(task.status) {
            return Err(Error::WrongStatus {
                task: task_id.to_string(),
                status: task.status,
                reason: "only HITL or PAUSED tasks can be resumed",
            });
        }
        let workflow = self.workflow(task.current_workflow())?;
        match workflow.node(step).map(|n| &n.kind) {
            None => {
                return Err(Error::UnknownStep {
                    workflow: workflow.id().to_string(),
                    step: step.to_string(),
                })
            }
            Some(NodeKind::End(_)) => {
                return Err(Error::InvalidArgument {
                    argument: "step",
                    reason: format!("`{step}` is an end node; resume at a step that does work"),
                })
            }
            // A task enters a subflow where it reaches its node; resumed there, its next
            // result skipped the whole subflow.
            Some(NodeKind::Subflow(s)) => {
                return Err(Error::InvalidArgument {
                    argument: "step",
                    reason: format!(
                        "`{step}` enters subflow `{}`; resume at the step before it (its next result enters the subflow)",
                        s.workflow
                    ),
                })
            }
            Some(_) => {}
        }
        let (workflow_id, previous_step) = (workflow.id().to_string(), task.current_step.clone());
        let now = now_millis();
        let key = if task.subflow_stack.is_empty() {
            step.to_string()
        } else {
            format!("{workflow_id}/{step}")
        };
        let task = self.change_task(task_id, |task| {
            task.current_step = step.to_string();
            task.status = TaskStatus::Pending;
            task.step_retries.remove(&key);
            task.updated_at = now;
            if note.is_some() {
                task.last_output.clone_from(&note);
            }
        })?;
        let record = self.ledger.record(|id| SyncRecord {
            id,
            task_id: task_id.to_string(),
            action: Action::Resume,
            workflow: workflow_id.clone(),
            previous_step: previous_step.clone(),
            current_step: step.to_string(),
            status: TaskStatus::Pending,
            output: note,
            created_at: now,
        });
        Ok(AdvanceOutcome {
            success: true,
            sync_id: record.id.clone(),
            previous_step,
            next_step: step.to_string(),
            workflow: workflow_id,
            action: Action::Resume,
            retries_used: None,
            retries_remaining: None,
            reason: Some("human_resumed"),
            task,
        })
    }

    /// Claims `task_id` for `agent` for `lease_ms` (clamped to
    /// [`MIN_LEASE_MS`](crate::MIN_LEASE_MS)..=[`MAX_LEASE_MS`](crate::MAX_LEASE_MS));
    /// claiming a task the agent already holds renews the lease. Fails with
    /// [`Error::TaskClaimed`] while another agent's lease runs, and with
    /// [`Error::WrongStatus`] for a task that is not pending or in progress.
    pub fn claim_task(&mut self, task_id: &str, agent: &str, lease_ms: u64) -> Result<Claim> {
        let task = self.task(task_id)?;
        if !task.status.is_active() {
            return Err(Error::WrongStatus {
                task: task_id.to_string(),
                status: task.status,
                reason: "only PENDING or IN_PROGRESS tasks can be claimed",
            });
        }
        self.claims.take(task_id, agent, lease_ms, now_millis())
    }

    /// Ends `agent`'s claim on `task_id` (an expired one too). Fails with
    /// [`Error::NotClaimed`] when the agent holds none.
    pub fn release_claim(&mut self, task_id: &str, agent: &str) -> Result<Claim> {
        self.task(task_id)?;
        self.claims.release(task_id, agent)
    }

    /// The live claim on `task_id`, if any.
    pub fn claim(&self, task_id: &str) -> Option<&Claim> {
        self.claims.live(task_id, now_millis())
    }

    /// Every claim still held.
    pub fn claims(&self) -> impl Iterator<Item = &Claim> {
        self.claims.all_live(now_millis())
    }

    /// The tasks not yet ended (neither completed nor failed) that cannot move: see
    /// [`StrandedTask`]. Worth checking after loading workflows over a saved state, or loading
    /// a changed definition of a workflow with tasks on it.
    pub fn stranded_tasks(&self) -> Vec<StrandedTask> {
        self.tree
            .iter()
            .filter(|t| !matches!(t.status, TaskStatus::Completed | TaskStatus::Failed))
            .filter_map(|t| {
                let reason = self.stranded_why(t)?;
                let workflow = self.workflows.get(t.current_workflow());
                Some(StrandedTask {
                    reason,
                    task_id: t.id.clone(),
                    workflow: t.current_workflow().to_string(),
                    step: t.current_step.clone(),
                    workflow_loaded: workflow.is_some(),
                })
            })
            .collect()
    }

    /// The subflows the loaded workflows enter that are not loaded, as (workflow, missing
    /// subflow) pairs: a task reaching one fails to advance until it is loaded.
    pub fn missing_subflows(&self) -> Vec<(String, String)> {
        self.workflows
            .values()
            .flat_map(|w| {
                w.subflows()
                    .into_iter()
                    .filter(|s| !self.workflows.contains_key(s))
                    .map(|s| (w.id().to_string(), s))
            })
            .collect()
    }

    /// How far the task is through the workflow of its current step.
    pub fn progress(&self, task_id: &str) -> Result<TaskProgress> {
        let task = self.task(task_id)?;
        let workflow = self.workflow(task.current_workflow())?;
        let plan = ExecutionPlan::of(workflow);
        let total_levels = plan.levels.len();
        let at_end = matches!(
            workflow.node(&task.current_step).map(|n| &n.kind),
            Some(NodeKind::End(_))
        );
        let level = plan.level_of(&task.current_step).unwrap_or(0);
        let percent = if at_end {
            100
        } else {
            // Integer maths keeps the figure identical across platforms.
            (level * 100 / total_levels.saturating_sub(1).max(1)).min(100) as u8
        };
        Ok(TaskProgress {
            task_id: task.id.clone(),
            workflow: workflow.id().to_string(),
            current_step: task.current_step.clone(),
            status: task.status,
            level,
            total_levels,
            percent_complete: percent,
            retry_count: task.retry_count,
            step_retries: task.step_retries.clone(),
            subflow_stack: task.subflow_stack.clone(),
        })
    }

    /// Unconfirmed mutations, oldest first.
    pub fn pending_syncs(&self) -> impl Iterator<Item = &SyncRecord> {
        self.ledger.pending()
    }

    /// The sync ledger.
    pub fn ledger(&self) -> &SyncLedger {
        &self.ledger
    }

    /// The reminder to attach to mutating responses, if anything is pending.
    pub fn sync_reminder(&self) -> Option<SyncReminder> {
        self.ledger.reminder()
    }

    /// Confirms that the given syncs were persisted. Unknown ids are reported, not fatal.
    pub fn confirm_sync<S: AsRef<str>>(&mut self, ids: &[S]) -> SyncConfirmation {
        self.ledger.confirm(ids)
    }

    /// Confirms every pending sync of a task. Errors if the task is unknown and has nothing
    /// pending (a typo, most likely).
    pub fn confirm_sync_for_task(&mut self, task_id: &str) -> Result<SyncConfirmation> {
        let confirmation = self.ledger.confirm_task(task_id);
        if confirmation.confirmed.is_empty() && self.tree.get(task_id).is_none() {
            return Err(Error::UnknownTask {
                id: task_id.to_string(),
            });
        }
        Ok(confirmation)
    }

    pub(crate) fn parts(&self) -> (&BTreeMap<String, Workflow>, &TaskTree, &SyncLedger) {
        (&self.workflows, &self.tree, &self.ledger)
    }

    pub(crate) fn from_parts(
        workflows: BTreeMap<String, Workflow>,
        ledger: SyncLedger,
        claims: ClaimBook,
    ) -> Self {
        Navigator {
            workflows,
            tree: TaskTree::default(),
            ledger,
            claims,
        }
    }
}
