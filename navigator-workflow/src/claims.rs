//! Claims: which agent is working on a task, for how long.
//!
//! A claim is a lease: an agent takes it for a while, renews it while it works, releases it
//! when done, and loses it when it expires (an agent that crashed holds nothing for ever).
//! While a live claim exists no other agent can claim or advance the task, and
//! `next_tasks` skips it, so two agents never work on one task. Claims are coordination
//! state, not mutations of the task: they record no sync.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::navigator::Navigator;
use crate::task::{now_millis, TaskStatus};

/// The shortest lease granted, in milliseconds.
pub const MIN_LEASE_MS: u64 = 1_000;
/// The longest lease granted, in milliseconds (one day).
pub const MAX_LEASE_MS: u64 = 86_400_000;

/// One agent's lease on one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Claim {
    /// The task.
    pub task_id: String,
    /// The agent holding it.
    pub agent: String,
    /// When the lease ends, milliseconds since the Unix epoch.
    pub expires_at: u64,
}

impl Claim {
    /// Whether the lease still runs at `now`.
    pub fn is_live(&self, now: u64) -> bool {
        now < self.expires_at
    }
}

/// Claims by task id.
pub(crate) type Claims = BTreeMap<String, Claim>;

impl Navigator {
    /// Claims `task_id` for `agent` for `lease_ms` (clamped to
    /// [`MIN_LEASE_MS`]..=[`MAX_LEASE_MS`]); claiming a task the agent already holds renews
    /// the lease. Fails with [`Error::TaskClaimed`] while another agent's lease runs, and
    /// with [`Error::WrongStatus`] for a task that is not pending or in progress.
    pub fn claim_task(&mut self, task_id: &str, agent: &str, lease_ms: u64) -> Result<Claim> {
        self.claim_task_at(task_id, agent, lease_ms, now_millis())
    }

    pub(crate) fn claim_task_at(
        &mut self,
        task_id: &str,
        agent: &str,
        lease_ms: u64,
        now: u64,
    ) -> Result<Claim> {
        if agent.trim().is_empty() {
            return Err(Error::InvalidArgument {
                argument: "agent",
                reason: "must be a non-empty string".into(),
            });
        }
        let task = self.task(task_id)?;
        if !task.status.is_active() {
            return Err(Error::WrongStatus {
                task: task_id.to_string(),
                status: task.status,
                reason: "only PENDING or IN_PROGRESS tasks can be claimed",
            });
        }
        self.check_claim_at(task_id, Some(agent), now)?;
        let claim = Claim {
            task_id: task_id.to_string(),
            agent: agent.to_string(),
            expires_at: now.saturating_add(lease_ms.clamp(MIN_LEASE_MS, MAX_LEASE_MS)),
        };
        self.claims.insert(task_id.to_string(), claim.clone());
        Ok(claim)
    }

    /// Ends `agent`'s claim on `task_id` (an expired one too). Fails with
    /// [`Error::NotClaimed`] when the agent holds none.
    pub fn release_claim(&mut self, task_id: &str, agent: &str) -> Result<Claim> {
        if self.claims.get(task_id).is_some_and(|c| c.agent == agent) {
            if let Some(claim) = self.claims.remove(task_id) {
                return Ok(claim);
            }
        }
        Err(Error::NotClaimed {
            task: task_id.to_string(),
            agent: agent.to_string(),
        })
    }

    /// The live claim on `task_id`, if any.
    pub fn claim(&self, task_id: &str) -> Option<&Claim> {
        let now = now_millis();
        self.claims.get(task_id).filter(|c| c.is_live(now))
    }

    /// Every claim still held (expired ones are dropped on the next change).
    pub fn claims(&self) -> impl Iterator<Item = &Claim> {
        let now = now_millis();
        self.claims.values().filter(move |c| c.is_live(now))
    }

    /// Fails when someone other than `agent` holds a live claim on the task.
    pub(crate) fn check_claim_at(
        &self,
        task_id: &str,
        agent: Option<&str>,
        now: u64,
    ) -> Result<()> {
        match self.claims.get(task_id) {
            Some(c) if c.is_live(now) && Some(c.agent.as_str()) != agent => {
                Err(Error::TaskClaimed {
                    task: task_id.to_string(),
                    holder: c.agent.clone(),
                    expires_at: c.expires_at,
                })
            }
            _ => Ok(()),
        }
    }

    /// Drops expired claims and claims on tasks that no longer move.
    pub(crate) fn prune_claims(&mut self, now: u64) {
        let tree = &self.tree;
        self.claims
            .retain(|id, c| c.is_live(now) && tree.get(id).is_some_and(|t| t.status.is_active()));
    }
}

/// Statuses a human-escalated or paused task can be resumed from.
pub(crate) fn resumable(status: TaskStatus) -> bool {
    matches!(status, TaskStatus::Hitl | TaskStatus::Paused)
}
