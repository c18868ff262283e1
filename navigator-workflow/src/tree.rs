//! The task tree: every loaded task, with a priority queue over the pending ones.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::task::{Task, TaskStatus};

/// Queue order: higher priority first, then older, then smaller id — a total order, so
/// `next(n)` is the same for the same tasks no matter the load order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct QueueKey {
    priority: Reverse<i64>,
    created_at: u64,
    id: String,
}

impl QueueKey {
    fn of(task: &Task) -> Self {
        QueueKey {
            priority: Reverse(task.priority),
            created_at: task.created_at,
            id: task.id.clone(),
        }
    }
}

/// Tasks across all workflow types, queued by priority.
///
/// ```
/// use navigator_workflow::{Task, TaskTree};
///
/// let mut tree = TaskTree::default();
/// tree.insert(Task::new("low", "I-1", "research", 1));
/// tree.insert(Task::new("high", "I-2", "research", 9));
/// let next: Vec<&str> = tree.next(1).map(|t| t.id.as_str()).collect();
/// assert_eq!(next, ["high"]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct TaskTree {
    tasks: HashMap<String, Task>,
    pending: BTreeSet<QueueKey>,
}

impl TaskTree {
    /// Adds `task`, replacing any task with the same id.
    pub fn insert(&mut self, task: Task) {
        if let Some(old) = self.tasks.remove(&task.id) {
            self.unqueue(&old);
        }
        if task.status == TaskStatus::Pending {
            self.pending.insert(QueueKey::of(&task));
        }
        self.tasks.insert(task.id.clone(), task);
    }

    /// Removes every task.
    pub fn clear(&mut self) {
        self.tasks.clear();
        self.pending.clear();
    }

    /// The task with this id.
    pub fn get(&self, id: &str) -> Option<&Task> {
        self.tasks.get(id)
    }

    /// Changes a task through `change`, keeping the queue in step with its status and
    /// priority. Returns `None` if there is no such task.
    pub fn update<R>(&mut self, id: &str, change: impl FnOnce(&mut Task) -> R) -> Option<R> {
        let task = self.tasks.get_mut(id)?;
        let before = (task.status, task.priority, task.created_at);
        let was_queued = before.0 == TaskStatus::Pending;
        if was_queued {
            // The key must be built before `change` can alter priority or creation time.
            let key = QueueKey::of(task);
            let out = change(task);
            if (task.status, task.priority, task.created_at) != before {
                self.pending.remove(&key);
                if task.status == TaskStatus::Pending {
                    self.pending.insert(QueueKey::of(task));
                }
            }
            return Some(out);
        }
        let out = change(task);
        if task.status == TaskStatus::Pending {
            self.pending.insert(QueueKey::of(task));
        }
        Some(out)
    }

    /// The `n` highest-priority pending tasks, best first.
    pub fn next(&self, n: usize) -> impl Iterator<Item = &Task> {
        self.pending
            .iter()
            .take(n)
            .filter_map(|k| self.tasks.get(&k.id))
    }

    /// Every task grouped by status; within a group in queue order.
    pub fn by_status(&self) -> BTreeMap<TaskStatus, Vec<&Task>> {
        let mut groups: BTreeMap<TaskStatus, Vec<&Task>> = BTreeMap::new();
        for task in self.tasks.values() {
            groups.entry(task.status).or_default().push(task);
        }
        for group in groups.values_mut() {
            group.sort_by(|a, b| {
                (Reverse(a.priority), a.created_at, &a.id).cmp(&(
                    Reverse(b.priority),
                    b.created_at,
                    &b.id,
                ))
            });
        }
        groups
    }

    /// Every task, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &Task> {
        self.tasks.values()
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether the tree holds no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Number of pending tasks.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    fn unqueue(&mut self, task: &Task) {
        if task.status == TaskStatus::Pending {
            self.pending.remove(&QueueKey::of(task));
        }
    }
}
