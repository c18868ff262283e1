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
use crate::task::TaskStatus;

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

/// Claims by task id. It knows leases only; the navigator checks task statuses.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClaimBook {
    claims: BTreeMap<String, Claim>,
}

impl ClaimBook {
    /// A book holding these claims (from a snapshot).
    pub(crate) fn from_claims(claims: impl IntoIterator<Item = Claim>) -> Self {
        ClaimBook {
            claims: claims.into_iter().map(|c| (c.task_id.clone(), c)).collect(),
        }
    }

    /// The live claim on `task_id` at `now`.
    pub(crate) fn live(&self, task_id: &str, now: u64) -> Option<&Claim> {
        self.claims.get(task_id).filter(|c| c.is_live(now))
    }

    /// Every live claim at `now`.
    pub(crate) fn all_live(&self, now: u64) -> impl Iterator<Item = &Claim> {
        self.claims.values().filter(move |c| c.is_live(now))
    }

    /// Fails when someone other than `agent` holds a live claim on the task.
    pub(crate) fn check(&self, task_id: &str, agent: Option<&str>, now: u64) -> Result<()> {
        match self.live(task_id, now) {
            Some(c) if Some(c.agent.as_str()) != agent => Err(Error::TaskClaimed {
                task: task_id.to_string(),
                holder: c.agent.clone(),
                expires_at: c.expires_at,
            }),
            _ => Ok(()),
        }
    }

    /// Takes or renews `agent`'s lease (clamped to [`MIN_LEASE_MS`]..=[`MAX_LEASE_MS`]).
    pub(crate) fn take(
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
        self.check(task_id, Some(agent), now)?;
        let claim = Claim {
            task_id: task_id.to_string(),
            agent: agent.to_string(),
            expires_at: now.saturating_add(lease_ms.clamp(MIN_LEASE_MS, MAX_LEASE_MS)),
        };
        self.claims.insert(task_id.to_string(), claim.clone());
        Ok(claim)
    }

    /// Ends `agent`'s claim on `task_id` (an expired one too).
    pub(crate) fn release(&mut self, task_id: &str, agent: &str) -> Result<Claim> {
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

    /// Drops expired claims and those `keep` refuses (tasks that no longer move).
    pub(crate) fn prune(&mut self, now: u64, keep: impl Fn(&str) -> bool) {
        self.claims.retain(|id, c| c.is_live(now) && keep(id));
    }
}

/// Statuses a human-escalated or paused task can be resumed from.
pub(crate) fn resumable(status: TaskStatus) -> bool {
    matches!(status, TaskStatus::Hitl | TaskStatus::Paused)
}
