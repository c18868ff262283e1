//! The sync ledger: mutations navigator made that the orchestrator has not yet persisted.
//!
//! Navigator is not a source of truth. Every change it makes on its own (advancing a task)
//! is recorded here until the orchestrator confirms it wrote the change to its primary store;
//! until then every mutating response carries a reminder.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::Action;
use crate::task::TaskStatus;

/// The message every reminder carries.
pub const SYNC_MESSAGE: &str =
    "Mutations pending sync to primary store. Please persist and confirm.";

const ID_PREFIX: &str = "sync-";

/// How many pending syncs a reminder lists; the rest are counted and paged with
/// `get_pending_syncs` (an orchestrator that fell behind by 10,000 syncs got 760 KB with
/// every reply).
pub const REMINDER_PAGE: usize = 20;

/// One unconfirmed mutation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SyncRecord {
    /// `sync-N`, unique for the lifetime of the ledger (and its snapshots).
    pub id: String,
    /// The task that changed.
    pub task_id: String,
    /// What the engine did.
    pub action: Action,
    /// The workflow of `currentStep`.
    pub workflow: String,
    /// Step before the change.
    pub previous_step: String,
    /// Step after the change.
    pub current_step: String,
    /// Status after the change.
    pub status: TaskStatus,
    /// The output the orchestrator reported, so it reaches the primary store too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// When the change happened, milliseconds since the Unix epoch.
    pub created_at: u64,
}

/// A pending sync as reminders list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingSync {
    /// Sync id.
    pub id: String,
    /// Task id.
    pub task_id: String,
}

/// The `_sync_reminder` attached to mutating responses: how many syncs are pending and the
/// oldest [`REMINDER_PAGE`] of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncReminder {
    /// What to do.
    pub message: &'static str,
    /// How many syncs are pending in all.
    pub count: usize,
    /// The oldest pending syncs, at most [`REMINDER_PAGE`].
    pub pending: Vec<PendingSync>,
    /// Whether more are pending than listed (page with `get_pending_syncs`).
    pub truncated: bool,
}

/// What a confirmation did.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncConfirmation {
    /// Ids removed from the ledger.
    pub confirmed: Vec<String>,
    /// Ids that were not pending (unknown or already confirmed); confirming is idempotent.
    pub not_found: Vec<String>,
    /// Syncs still pending afterwards.
    pub remaining: usize,
}

/// Pending mutations, oldest first.
#[derive(Debug, Clone, Default)]
pub struct SyncLedger {
    next: u64,
    pending: BTreeMap<u64, SyncRecord>,
}

impl SyncLedger {
    /// A ledger whose next id is `sync-{next}` (used when restoring a snapshot).
    pub(crate) fn resume(next: u64, records: Vec<SyncRecord>) -> Result<Self, String> {
        let mut ledger = SyncLedger {
            next,
            pending: BTreeMap::new(),
        };
        for record in records {
            let n =
                parse_id(&record.id).ok_or_else(|| format!("malformed sync id `{}`", record.id))?;
            if n >= next {
                return Err(format!(
                    "sync id `{}` is not below nextSyncId {next}",
                    record.id
                ));
            }
            if ledger.pending.insert(n, record).is_some() {
                return Err(format!("sync id `sync-{n}` appears twice"));
            }
        }
        Ok(ledger)
    }

    /// Records a mutation; `make` receives the new id.
    pub(crate) fn record(&mut self, make: impl FnOnce(String) -> SyncRecord) -> &SyncRecord {
        let n = self.next;
        self.next += 1;
        self.pending
            .entry(n)
            .or_insert_with(|| make(format!("{ID_PREFIX}{n}")))
    }

    /// The number the next sync id will carry.
    pub fn next_id(&self) -> u64 {
        self.next
    }

    /// Pending records, oldest first.
    pub fn pending(&self) -> impl Iterator<Item = &SyncRecord> {
        self.pending.values()
    }

    /// Number of pending records.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Confirms the given ids.
    pub fn confirm<S: AsRef<str>>(&mut self, ids: &[S]) -> SyncConfirmation {
        let mut outcome = SyncConfirmation::default();
        for id in ids {
            let id = id.as_ref();
            match parse_id(id).and_then(|n| self.pending.remove(&n)) {
                Some(record) => outcome.confirmed.push(record.id),
                None => outcome.not_found.push(id.to_string()),
            }
        }
        outcome.remaining = self.pending.len();
        outcome
    }

    /// Confirms every pending record of one task.
    pub fn confirm_task(&mut self, task_id: &str) -> SyncConfirmation {
        let mut confirmed = Vec::new();
        self.pending.retain(|_, r| {
            let keep = r.task_id != task_id;
            if !keep {
                confirmed.push(r.id.clone());
            }
            keep
        });
        SyncConfirmation {
            confirmed,
            not_found: Vec::new(),
            remaining: self.pending.len(),
        }
    }

    /// The reminder for mutating responses, or `None` when everything is confirmed.
    pub fn reminder(&self) -> Option<SyncReminder> {
        (!self.pending.is_empty()).then(|| SyncReminder {
            message: SYNC_MESSAGE,
            count: self.pending.len(),
            truncated: self.pending.len() > REMINDER_PAGE,
            pending: self
                .pending
                .values()
                .take(REMINDER_PAGE)
                .map(|r| PendingSync {
                    id: r.id.clone(),
                    task_id: r.task_id.clone(),
                })
                .collect(),
        })
    }
}

/// The number in a canonical `sync-N` id; `sync-01` or `sync-+1` name nothing.
fn parse_id(id: &str) -> Option<u64> {
    let n: u64 = id.strip_prefix(ID_PREFIX)?.parse().ok()?;
    (id.len() == ID_PREFIX.len() + n.to_string().len()).then_some(n)
}
