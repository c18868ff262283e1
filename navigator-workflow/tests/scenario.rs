//! The seed's documented scenario: ui-reconstruction and research workflows, a task tree,
//! a task driven through its whole workflow, sync tracking, and retry → HITL escalation.

use navigator_workflow::{
    Action, Error, Navigator, Snapshot, Task, TaskStatus, WorkflowDefinition,
};
use serde_json::json;

fn navigator() -> Navigator {
    let mut nav = Navigator::new();
    let ui = WorkflowDefinition::from_json(include_str!("data/workflows/ui-reconstruction.json"))
        .unwrap();
    let research =
        WorkflowDefinition::from_yaml(include_str!("data/workflows/research.yaml")).unwrap();
    nav.load_workflow("ui-reconstruction", ui).unwrap();
    nav.load_workflow("research", research).unwrap();
    let tasks: Vec<Task> = serde_json::from_str(include_str!("data/tasks.json")).unwrap();
    let report = nav.load_tasks(tasks, false).unwrap();
    assert_eq!((report.loaded, report.total, report.pending), (5, 5, 4));
    nav
}

fn ids(tasks: Vec<&Task>) -> Vec<&str> {
    tasks.into_iter().map(|t| t.id.as_str()).collect()
}

#[test]
fn workflows_are_listed_with_summaries() {
    let nav = navigator();
    let listed: Vec<_> = nav.workflows().map(|w| w.summary()).collect();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].id, "research");
    assert_eq!(listed[1].id, "ui-reconstruction");
    assert_eq!((listed[1].node_count, listed[1].edge_count), (5, 5));
    let plan = nav.execution_plan("ui-reconstruction").unwrap();
    assert_eq!(
        plan.levels,
        vec![
            vec!["start"],
            vec!["analyze"],
            vec!["review"],
            vec!["end", "hitl"]
        ]
    );
    assert_eq!(
        plan.retry_edges,
        vec![("review".to_string(), "analyze".to_string())]
    );
}

#[test]
fn next_tasks_follow_priority_then_age_then_id() {
    let nav = navigator();
    assert_eq!(ids(nav.next_tasks(1)), ["task-001"]);
    // task-004 has priority 100 but is PAUSED; task-003 is older than task-002.
    assert_eq!(
        ids(nav.next_tasks(10)),
        ["task-001", "task-003", "task-002", "task-005"]
    );
    assert_eq!(
        nav.task("task-003").unwrap().current_step,
        "start",
        "missing step defaults to start"
    );
}

#[test]
fn highest_priority_task_runs_the_whole_workflow_and_syncs_are_confirmed() {
    let mut nav = navigator();
    let id = nav.next_tasks(1)[0].id.clone();

    let first = nav.advance(&id, "passed", None).unwrap();
    assert_eq!(
        (first.previous_step.as_str(), first.next_step.as_str()),
        ("start", "analyze")
    );
    assert_eq!(first.action, Action::Conditional);

    let second = nav
        .advance(
            &id,
            "passed",
            Some(json!("Analysis complete, found 5 components")),
        )
        .unwrap();
    assert_eq!(
        (second.previous_step.as_str(), second.next_step.as_str()),
        ("analyze", "review")
    );
    assert_eq!(second.task.status, TaskStatus::Pending);
    assert_eq!(
        second.task.last_output,
        Some(json!("Analysis complete, found 5 components"))
    );
    assert_eq!(
        second.task.context["targetUrl"], "https://example.com",
        "context is kept"
    );

    let done = nav.advance(&id, "passed", None).unwrap();
    assert_eq!(done.next_step, "end");
    assert_eq!(done.action, Action::Complete);
    assert_eq!(done.task.status, TaskStatus::Completed);
    assert!(
        !ids(nav.next_tasks(10)).contains(&id.as_str()),
        "completed tasks leave the queue"
    );

    let pending: Vec<String> = nav.pending_syncs().map(|s| s.id.clone()).collect();
    assert_eq!(
        pending,
        [
            first.sync_id.clone(),
            second.sync_id.clone(),
            done.sync_id.clone()
        ]
    );
    let record = nav.pending_syncs().nth(1).unwrap();
    assert_eq!(
        record.output,
        Some(json!("Analysis complete, found 5 components"))
    );
    let reminder = nav.sync_reminder().unwrap();
    assert_eq!(reminder.pending.len(), 3);
    assert!(reminder.pending.iter().all(|p| p.task_id == id));

    let confirmed =
        nav.confirm_sync(&[first.sync_id.as_str(), second.sync_id.as_str(), "sync-999"]);
    assert_eq!(
        confirmed.confirmed,
        [first.sync_id.clone(), second.sync_id.clone()]
    );
    assert_eq!(confirmed.not_found, ["sync-999"]);
    assert_eq!(confirmed.remaining, 1);
    let again = nav.confirm_sync(&[first.sync_id.as_str()]);
    assert_eq!(
        again.not_found,
        vec![first.sync_id.clone()],
        "confirming twice is harmless"
    );

    let rest = nav.confirm_sync_for_task(&id).unwrap();
    assert_eq!(rest.confirmed, [done.sync_id]);
    assert!(nav.sync_reminder().is_none());
    assert!(matches!(
        nav.confirm_sync_for_task("nope"),
        Err(Error::UnknownTask { .. })
    ));

    let progress = nav.progress(&id).unwrap();
    assert_eq!(progress.percent_complete, 100);
}

#[test]
fn review_retries_twice_then_escalates_to_hitl_on_the_third_failure() {
    let mut nav = navigator();
    let id = "task-003";
    nav.advance(id, "passed", None).unwrap();
    let mut expected_remaining = 2;
    for attempt in 1..=2 {
        assert_eq!(nav.advance(id, "passed", None).unwrap().next_step, "review");
        let retry = nav
            .advance(id, "failed", Some(json!({ "issues": attempt })))
            .unwrap();
        assert_eq!(retry.action, Action::Retry);
        assert_eq!(
            (retry.previous_step.as_str(), retry.next_step.as_str()),
            ("review", "analyze")
        );
        assert_eq!(retry.retries_used, Some(attempt));
        assert_eq!(retry.retries_remaining, Some(expected_remaining));
        assert_eq!(retry.task.retry_count, attempt);
        expected_remaining -= 1;
    }
    nav.advance(id, "passed", None).unwrap();
    let progress = nav.progress(id).unwrap();
    assert_eq!(
        (
            progress.current_step.as_str(),
            progress.step_retries["review"]
        ),
        ("review", 2)
    );

    let escalated = nav.advance(id, "failed", None).unwrap();
    assert_eq!(escalated.action, Action::Escalate);
    assert_eq!(escalated.next_step, "hitl");
    assert_eq!(escalated.reason, Some("max_retries_exceeded"));
    assert_eq!(escalated.task.status, TaskStatus::Hitl);
    assert_eq!(escalated.task.step_retries["review"], 3);
    assert_eq!(escalated.task.retry_count, 2);

    let err = nav.advance(id, "passed", None).unwrap_err();
    assert!(
        matches!(
            err,
            Error::TaskNotActive {
                status: TaskStatus::Hitl,
                ..
            }
        ),
        "{err}"
    );
    let by_status = nav.tasks_by_status();
    assert_eq!(ids(by_status[&TaskStatus::Hitl].clone()), [id]);
    assert_eq!(nav.pending_syncs().filter(|s| s.task_id == id).count(), 7);
}

#[test]
fn research_task_recovers_after_one_failed_check() {
    let mut nav = navigator();
    let id = "task-002";
    for (result, step) in [
        ("passed", "gather"),
        ("passed", "summarize"),
        ("passed", "check"),
    ] {
        assert_eq!(nav.advance(id, result, None).unwrap().next_step, step);
    }
    assert_eq!(
        nav.advance(id, "failed", None).unwrap().action,
        Action::Retry
    );
    nav.advance(id, "passed", None).unwrap();
    let done = nav.advance(id, "passed", None).unwrap();
    assert_eq!(
        (done.next_step.as_str(), done.task.status),
        ("done", TaskStatus::Completed)
    );

    let err = nav.advance("task-005", "maybe", None).unwrap_err();
    assert!(matches!(err, Error::InvalidResult { .. }), "{err}");
    let err = nav.advance("task-004", "passed", None).unwrap_err();
    assert!(
        matches!(
            err,
            Error::TaskNotActive {
                status: TaskStatus::Paused,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn snapshot_restores_the_same_state_mid_workflow() {
    let mut nav = navigator();
    nav.advance("task-001", "passed", None).unwrap();
    nav.advance("task-003", "passed", None).unwrap();
    nav.advance("task-003", "passed", None).unwrap();
    nav.advance("task-003", "failed", None).unwrap();
    let snapshot = nav.snapshot();
    let mut restored =
        Navigator::restore(Snapshot::from_json(&snapshot.to_json()).unwrap()).unwrap();
    assert_eq!(restored.snapshot(), snapshot);

    let a = nav.advance("task-003", "passed", None).unwrap();
    let b = restored.advance("task-003", "passed", None).unwrap();
    assert_eq!(
        (a.sync_id, a.next_step),
        (b.sync_id, b.next_step),
        "sync ids continue after restore"
    );
    assert_eq!(ids(nav.next_tasks(10)), ids(restored.next_tasks(10)));
}
