//! Snapshot/restore: navigator keeps state in memory by design, so an orchestrator that
//! wants to survive a restart saves a [`Snapshot`] and restores it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::claims::{Claim, ClaimBook};
use crate::definition::WorkflowDefinition;
use crate::error::{Error, Result};
use crate::navigator::Navigator;
use crate::sync::{SyncLedger, SyncRecord};
use crate::task::Task;
use crate::workflow::Workflow;

/// The current snapshot format. Version 2 added `claims`; version 1 snapshots still load.
pub const SNAPSHOT_VERSION: u32 = 2;

/// Everything a [`Navigator`] holds, in a stable, deterministic JSON shape (workflows and
/// tasks sorted by id, syncs oldest first).
///
/// ```
/// use navigator_workflow::{Navigator, Snapshot};
///
/// let nav = Navigator::new();
/// let json = nav.snapshot().to_json();
/// let restored = Navigator::restore(Snapshot::from_json(&json).unwrap()).unwrap();
/// assert_eq!(restored.snapshot(), nav.snapshot());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Snapshot {
    /// Format version ([`SNAPSHOT_VERSION`]).
    pub version: u32,
    /// Loaded workflows.
    pub workflows: Vec<StoredWorkflow>,
    /// Every task.
    pub tasks: Vec<Task>,
    /// Unconfirmed syncs.
    pub pending_syncs: Vec<SyncRecord>,
    /// The number the next sync id will carry, so ids are never reused across restarts.
    pub next_sync_id: u64,
    /// Live claims on tasks (absent in version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<Claim>,
}

/// A workflow in a snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredWorkflow {
    /// Workflow id.
    pub id: String,
    /// Its definition.
    pub definition: WorkflowDefinition,
}

impl Snapshot {
    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Parses JSON written by [`Snapshot::to_json`].
    pub fn from_json(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| Error::Snapshot {
            message: e.to_string(),
        })
    }
}

impl Navigator {
    /// Captures the whole state.
    pub fn snapshot(&self) -> Snapshot {
        let (workflows, tree, ledger) = self.parts();
        let mut tasks: Vec<Task> = tree.iter().cloned().collect();
        tasks.sort_by(|a, b| a.id.cmp(&b.id));
        Snapshot {
            version: SNAPSHOT_VERSION,
            workflows: workflows
                .values()
                .map(|w| StoredWorkflow {
                    id: w.id().to_string(),
                    definition: w.definition().clone(),
                })
                .collect(),
            tasks,
            pending_syncs: ledger.pending().cloned().collect(),
            next_sync_id: ledger.next_id(),
            claims: self.claims().cloned().collect(),
        }
    }

    /// Rebuilds a navigator, re-validating every workflow and task (a task stranded when the
    /// snapshot was taken is restored stranded: [`Navigator::stranded_tasks`]).
    pub fn restore(snapshot: Snapshot) -> Result<Navigator> {
        if !(1..=SNAPSHOT_VERSION).contains(&snapshot.version) {
            return Err(Error::Snapshot {
                message: format!(
                    "version {} is not supported (expected {SNAPSHOT_VERSION})",
                    snapshot.version
                ),
            });
        }
        let mut workflows = BTreeMap::new();
        for stored in snapshot.workflows {
            let workflow = Workflow::new(stored.id.clone(), stored.definition)?;
            if workflows.insert(stored.id.clone(), workflow).is_some() {
                return Err(Error::Snapshot {
                    message: format!("workflow `{}` appears twice", stored.id),
                });
            }
        }
        let ledger = SyncLedger::resume(snapshot.next_sync_id, snapshot.pending_syncs)
            .map_err(|message| Error::Snapshot { message })?;
        let claims = ClaimBook::from_claims(snapshot.claims);
        let mut navigator = Navigator::from_parts(workflows, ledger, claims);
        // A task stranded when the snapshot was taken (definitions it no longer fits loaded
        // over its workflow) is restored stranded, not refused: refusing it would refuse the
        // whole state, for good.
        navigator.load_tasks_as(snapshot.tasks, true, true)?;
        Ok(navigator)
    }
}
