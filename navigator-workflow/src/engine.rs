//! The edge evaluator: given where a task is and what happened, where does it go?
//!
//! Evaluation is split in two so a failing `advance` changes nothing: `decide` works out
//! the whole transition against an immutable task, `apply` then writes it.
//!
//! Rules, in order:
//! 1. Only `PENDING`/`IN_PROGRESS` tasks move, and only with a result their step can output.
//! 2. A `failed` result at a step with `maxRetries` is counted for that step. Below the limit
//!    the `failed` route is taken as a **retry**; the failure that reaches the limit takes the
//!    `max_retries_exceeded` route instead and **escalates**.
//! 3. The edge with `on` equal to the outcome wins over the unconditional fallback.
//! 4. Landing on a subflow node enters the named workflow at its start. Landing on an end
//!    node inside a subflow returns to the subflow node, which continues with `passed` (the
//!    subflow ended in success) or `failed`, unless the end escalates to a human.
//! 5. Landing on an end node sets the status: `escalation: hitl` → `HITL`, otherwise
//!    success → `COMPLETED`, failure/cancelled → `FAILED`, blocked → `PAUSED`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::definition::{EndResult, Escalation, NodeKind, FAILED, MAX_RETRIES_EXCEEDED, PASSED};
use crate::error::{Error, Result};
use crate::task::{SubflowFrame, Task, TaskStatus};
use crate::workflow::Workflow;

/// What the engine did with an `advance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Followed the edge the result selected (the seed's name for an ordinary step).
    Conditional,
    /// Took the `failed` route of a step that still has retries left.
    Retry,
    /// Retries ran out, or the task reached an end node that escalates.
    Escalate,
    /// Reached an end node that does not escalate.
    Complete,
    /// Entered a subflow; the task is at the subflow's start node.
    EnterSubflow,
    /// Left a subflow and continued in the parent workflow.
    ExitSubflow,
    /// A person handed a `HITL` or `PAUSED` task back (`resume_task`).
    Resume,
}

/// The `data` of an `advance_task` response.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdvanceOutcome {
    /// Always `true`: failures are errors, not outcomes. Kept for the seed's response shape.
    pub success: bool,
    /// The step the task was at.
    pub previous_step: String,
    /// The step the task is at now.
    pub next_step: String,
    /// The workflow `nextStep` belongs to.
    pub workflow: String,
    /// What happened.
    pub action: Action,
    /// Failures counted at the step, when it has `maxRetries` and the result was `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries_used: Option<u32>,
    /// Retries left at the step (0 once escalated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries_remaining: Option<u32>,
    /// Why the task escalated (`max_retries_exceeded`, `hitl_escalation`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// The sync record of this mutation.
    pub sync_id: String,
    /// The task after the change.
    pub task: Task,
}

/// A decided, not yet applied, move of one task.
#[derive(Debug, Clone)]
pub(crate) struct Transition {
    pub(crate) previous_step: String,
    pub(crate) step: String,
    pub(crate) workflow: String,
    pub(crate) status: TaskStatus,
    pub(crate) stack: Vec<SubflowFrame>,
    pub(crate) action: Action,
    pub(crate) retries: Option<(u32, u32)>,
    pub(crate) reason: Option<&'static str>,
    /// `stepRetries` key and its new count.
    counter: Option<(String, u32)>,
    /// `stepRetries` key prefixes to clear: subflows entered start with fresh counters.
    resets: Vec<String>,
}

/// Works out where `task` goes when its current step reports `result`.
pub(crate) fn decide(
    workflows: &BTreeMap<String, Workflow>,
    task: &Task,
    result: &str,
) -> Result<Transition> {
    if !task.status.is_active() {
        return Err(Error::TaskNotActive {
            task: task.id.clone(),
            status: task.status,
            step: task.current_step.clone(),
        });
    }
    let workflow = lookup(workflows, task.current_workflow())?;
    let step = task.current_step.as_str();
    let node = workflow.node(step).ok_or_else(|| Error::UnknownStep {
        workflow: workflow.id().to_string(),
        step: step.to_string(),
    })?;
    if !node.can_output(result) {
        return Err(Error::InvalidResult {
            task: task.id.clone(),
            step: step.to_string(),
            result: result.to_string(),
            allowed: node.outputs().iter().map(|o| o.to_string()).collect(),
        });
    }

    let mut condition = result;
    let mut counter = None;
    let mut retries = None;
    let mut exceeded = false;
    if let (Some(max), true) = (node.max_retries(), result == FAILED) {
        let key = retry_key(task, step);
        let used = task
            .step_retries
            .get(&key)
            .copied()
            .unwrap_or(0)
            .saturating_add(1);
        exceeded = used >= max;
        if exceeded {
            condition = MAX_RETRIES_EXCEEDED;
        }
        retries = Some((used, max.saturating_sub(used)));
        counter = Some((key, used));
    }
    let edge = route(workflow, step, condition)?;

    let mut stack = task.subflow_stack.clone();
    let mut resets = Vec::new();
    let (mut here, mut target) = (workflow, edge.to.as_str());
    let (mut entered, mut exited) = (false, false);
    let (status, end_escalation) = loop {
        let node = here.node(target).ok_or_else(|| Error::UnknownStep {
            workflow: here.id().to_string(),
            step: target.to_string(),
        })?;
        match &node.kind {
            NodeKind::Subflow(sub) => {
                let recursive = sub.workflow == task.workflow_type
                    || stack.iter().any(|f| f.workflow == sub.workflow);
                if recursive {
                    return Err(Error::SubflowRecursion {
                        node: target.to_string(),
                        workflow: sub.workflow.clone(),
                    });
                }
                let inner = lookup(workflows, &sub.workflow)?;
                stack.push(SubflowFrame {
                    parent_workflow: here.id().to_string(),
                    parent_step: target.to_string(),
                    workflow: sub.workflow.clone(),
                });
                resets.push(format!("{}/", sub.workflow));
                entered = true;
                (here, target) = (inner, inner.start());
                break (TaskStatus::Pending, None);
            }
            NodeKind::End(end) if end.escalation == Some(Escalation::Hitl) => {
                break (TaskStatus::Hitl, end.escalation);
            }
            NodeKind::End(end) => {
                let Some(frame) = stack.pop() else {
                    let status = match end.result {
                        EndResult::Success => TaskStatus::Completed,
                        EndResult::Failure | EndResult::Cancelled => TaskStatus::Failed,
                        EndResult::Blocked => TaskStatus::Paused,
                    };
                    break (status, end.escalation);
                };
                let parent = lookup(workflows, &frame.parent_workflow)?;
                let output = if end.result == EndResult::Success {
                    PASSED
                } else {
                    FAILED
                };
                let edge = route(parent, &frame.parent_step, output)?;
                (here, target) = (parent, edge.to.as_str());
                exited = true;
            }
            _ => break (TaskStatus::Pending, None),
        }
    };

    let at_end = matches!(here.node(target).map(|n| &n.kind), Some(NodeKind::End(_)));
    let (action, reason) = if exceeded {
        (Action::Escalate, Some(MAX_RETRIES_EXCEEDED))
    } else if retries.is_some() {
        (Action::Retry, None)
    } else if let Some(escalation) = end_escalation {
        (Action::Escalate, Some(escalation_reason(escalation)))
    } else if at_end {
        (Action::Complete, None)
    } else if entered {
        (Action::EnterSubflow, None)
    } else if exited {
        (Action::ExitSubflow, None)
    } else {
        (Action::Conditional, None)
    };
    Ok(Transition {
        previous_step: step.to_string(),
        step: target.to_string(),
        workflow: here.id().to_string(),
        status,
        stack,
        action,
        retries,
        reason,
        counter,
        resets,
    })
}

/// Writes a decided transition into the task.
pub(crate) fn apply(task: &mut Task, transition: &Transition, output: Option<Value>, now: u64) {
    task.current_step.clone_from(&transition.step);
    task.status = transition.status;
    task.subflow_stack.clone_from(&transition.stack);
    if let Some((key, count)) = &transition.counter {
        task.step_retries.insert(key.clone(), *count);
    }
    if transition.action == Action::Retry {
        task.retry_count = task.retry_count.saturating_add(1);
    }
    for prefix in &transition.resets {
        task.step_retries
            .retain(|k, _| !k.starts_with(prefix.as_str()));
    }
    task.last_output = output;
    task.updated_at = now;
}

fn lookup<'a>(workflows: &'a BTreeMap<String, Workflow>, id: &str) -> Result<&'a Workflow> {
    workflows
        .get(id)
        .ok_or_else(|| Error::UnknownWorkflow { id: id.to_string() })
}

fn route<'a>(
    workflow: &'a Workflow,
    step: &str,
    output: &str,
) -> Result<&'a crate::definition::Edge> {
    workflow.route(step, output).ok_or_else(|| Error::NoRoute {
        workflow: workflow.id().to_string(),
        step: step.to_string(),
        output: output.to_string(),
    })
}

/// Steps inside subflows are keyed `workflow/step` so a subflow's gate and a parent step
/// with the same id keep separate counts.
fn retry_key(task: &Task, step: &str) -> String {
    if task.subflow_stack.is_empty() {
        step.to_string()
    } else {
        format!("{}/{step}", task.current_workflow())
    }
}

fn escalation_reason(escalation: Escalation) -> &'static str {
    match escalation {
        Escalation::Hitl => "hitl_escalation",
        Escalation::Alert => "alert_escalation",
        Escalation::Ticket => "ticket_escalation",
    }
}
