//! Edge rules of the engine, task loading, the task queue and the sync ledger.

use navigator_workflow::{
    Action, Error, Navigator, SubflowFrame, Task, TaskStatus, WorkflowDefinition,
};
use serde_json::{json, Value};

fn nav_with(workflows: &[(&str, Value)]) -> Navigator {
    let mut nav = Navigator::new();
    for (id, def) in workflows {
        nav.load_workflow(id, WorkflowDefinition::from_value(def.clone()).unwrap())
            .unwrap();
    }
    nav
}

fn task(id: &str, workflow: &str, priority: i64) -> Task {
    Task::new(id, format!("ISSUE-{id}"), workflow, priority)
}

/// start -> decide; decide's edges are given, pointing at the five end kinds.
fn router(edges: Value) -> Value {
    let mut all = vec![json!({ "from": "start", "to": "decide" })];
    all.extend(edges.as_array().unwrap().iter().cloned());
    json!({
        "nodes": {
            "start": { "type": "start" },
            "decide": { "type": "gate", "name": "Decide", "outputs": ["passed", "failed", "a", "b", "c", "d"] },
            "ok": { "type": "end", "result": "success" },
            "bad": { "type": "end", "result": "failure", "escalation": "alert" },
            "stop": { "type": "end", "result": "cancelled" },
            "wait": { "type": "end", "result": "blocked" },
            "human": { "type": "end", "result": "failure", "escalation": "hitl" }
        },
        "edges": all
    })
}

fn five_way() -> Navigator {
    nav_with(&[(
        "router",
        router(json!([
            { "from": "decide", "to": "ok" },
            { "from": "decide", "to": "bad", "on": "a" },
            { "from": "decide", "to": "stop", "on": "b" },
            { "from": "decide", "to": "wait", "on": "c" },
            { "from": "decide", "to": "human", "on": "d" }
        ])),
    )])
}

#[test]
fn specific_edges_win_over_the_fallback_whatever_their_order() {
    let mut nav = five_way();
    nav.load_tasks(
        vec![task("t1", "router", 0), task("t2", "router", 0)],
        false,
    )
    .unwrap();
    for id in ["t1", "t2"] {
        nav.advance(id, "passed", None).unwrap();
    }
    // The fallback is listed first, but `on: c` is more specific.
    assert_eq!(nav.advance("t1", "c", None).unwrap().next_step, "wait");
    assert_eq!(
        nav.advance("t2", "failed", None).unwrap().next_step,
        "ok",
        "no `on: failed`: fallback"
    );
}

#[test]
fn end_nodes_set_the_status() {
    let cases = [
        (
            "passed",
            "ok",
            TaskStatus::Completed,
            Action::Complete,
            None,
        ),
        (
            "a",
            "bad",
            TaskStatus::Failed,
            Action::Escalate,
            Some("alert_escalation"),
        ),
        ("b", "stop", TaskStatus::Failed, Action::Complete, None),
        ("c", "wait", TaskStatus::Paused, Action::Complete, None),
        (
            "d",
            "human",
            TaskStatus::Hitl,
            Action::Escalate,
            Some("hitl_escalation"),
        ),
    ];
    for (result, end, status, action, reason) in cases {
        let mut nav = five_way();
        nav.load_tasks(vec![task("t", "router", 0)], false).unwrap();
        nav.advance("t", "passed", None).unwrap();
        let out = nav.advance("t", result, None).unwrap();
        assert_eq!(
            (
                out.next_step.as_str(),
                out.task.status,
                out.action,
                out.reason
            ),
            (end, status, action, reason)
        );
        assert!(
            nav.next_tasks(5).is_empty(),
            "{result}: finished tasks leave the queue"
        );
        let err = nav.advance("t", "passed", None).unwrap_err();
        assert!(matches!(err, Error::TaskNotActive { .. }), "{err}");
    }
}

fn review(max_retries: u32) -> Value {
    json!({
        "nodes": {
            "start": { "type": "start" },
            "work": { "type": "task", "name": "Work" },
            "review": { "type": "gate", "name": "Review", "maxRetries": max_retries },
            "end": { "type": "end", "result": "success" },
            "hitl": { "type": "end", "result": "blocked", "escalation": "hitl" }
        },
        "edges": [
            { "from": "start", "to": "work" },
            { "from": "work", "to": "review" },
            { "from": "review", "to": "end", "on": "passed" },
            { "from": "review", "to": "work", "on": "failed" },
            { "from": "review", "to": "hitl", "on": "max_retries_exceeded" }
        ]
    })
}

#[test]
fn max_retries_one_escalates_on_the_first_failure() {
    let mut nav = nav_with(&[("review", review(1))]);
    nav.load_tasks(vec![task("t", "review", 0)], false).unwrap();
    nav.advance("t", "passed", None).unwrap();
    nav.advance("t", "passed", None).unwrap();
    let out = nav.advance("t", "failed", None).unwrap();
    assert_eq!(
        (out.action, out.next_step.as_str(), out.task.status),
        (Action::Escalate, "hitl", TaskStatus::Hitl)
    );
    assert_eq!(
        (out.retries_used, out.retries_remaining),
        (Some(1), Some(0))
    );
    assert_eq!(out.task.retry_count, 0, "an escalation is not a retry");
}

#[test]
fn a_pass_after_retries_completes_and_keeps_the_counts() {
    let mut nav = nav_with(&[("review", review(3))]);
    nav.load_tasks(vec![task("t", "review", 0)], false).unwrap();
    for result in ["passed", "passed", "failed", "passed"] {
        nav.advance("t", result, None).unwrap();
    }
    let done = nav.advance("t", "passed", None).unwrap();
    assert_eq!(done.task.status, TaskStatus::Completed);
    assert_eq!(
        (done.task.retry_count, done.task.step_retries["review"]),
        (1, 1)
    );
    assert_eq!(done.retries_used, None, "only failures report retry counts");
}

#[test]
fn rejected_advances_change_nothing() {
    let mut nav = nav_with(&[("review", review(3))]);
    nav.load_tasks(vec![task("t", "review", 0)], false).unwrap();
    let before = nav.snapshot();
    for (id, result) in [
        ("t", "failed"),
        ("t", "max_retries_exceeded"),
        ("t", "done"),
        ("ghost", "passed"),
    ] {
        let err = nav.advance(id, result, None).unwrap_err();
        assert!(
            matches!(err, Error::InvalidResult { .. } | Error::UnknownTask { .. }),
            "{err}"
        );
    }
    assert_eq!(nav.snapshot(), before);
    let err = nav.advance("t", "failed", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "task `t` at step `start`: result `failed` is not an output of this step (expected one of: passed)"
    );
}

#[test]
fn in_progress_tasks_advance_and_become_pending() {
    let mut nav = nav_with(&[("review", review(3))]);
    let mut t = task("t", "review", 0);
    t.status = TaskStatus::InProgress;
    nav.load_tasks(vec![t], false).unwrap();
    assert!(nav.next_tasks(1).is_empty());
    let out = nav.advance("t", "passed", None).unwrap();
    assert_eq!(out.task.status, TaskStatus::Pending);
    assert_eq!(nav.next_tasks(1)[0].id, "t");
}

fn parent() -> Value {
    json!({
        "nodes": {
            "start": { "type": "start" },
            "research": { "type": "subflow", "name": "Research", "workflow": "child" },
            "ship": { "type": "gate", "name": "Ship", "maxRetries": 3 },
            "end": { "type": "end", "result": "success" },
            "failed": { "type": "end", "result": "failure" },
            "hitl": { "type": "end", "result": "blocked", "escalation": "hitl" }
        },
        "edges": [
            { "from": "start", "to": "research" },
            { "from": "research", "to": "ship", "on": "passed" },
            { "from": "research", "to": "failed", "on": "failed" },
            { "from": "ship", "to": "end", "on": "passed" },
            { "from": "ship", "to": "research", "on": "failed" },
            { "from": "ship", "to": "hitl", "on": "max_retries_exceeded" }
        ]
    })
}

fn child(escalate: bool) -> Value {
    let exhausted = if escalate {
        json!({ "type": "end", "result": "blocked", "escalation": "hitl" })
    } else {
        json!({ "type": "end", "result": "failure" })
    };
    json!({
        "nodes": {
            "start": { "type": "start" },
            "check": { "type": "gate", "name": "Check", "maxRetries": 2 },
            "done": { "type": "end", "result": "success" },
            "exhausted": exhausted
        },
        "edges": [
            { "from": "start", "to": "check" },
            { "from": "check", "to": "done", "on": "passed" },
            { "from": "check", "to": "check", "on": "failed" },
            { "from": "check", "to": "exhausted", "on": "max_retries_exceeded" }
        ]
    })
}

#[test]
fn subflows_are_entered_and_return_with_their_outcome() {
    let mut nav = nav_with(&[("child", child(false)), ("parent", parent())]);
    nav.load_tasks(vec![task("t", "parent", 0)], false).unwrap();

    let enter = nav.advance("t", "passed", None).unwrap();
    assert_eq!(
        (
            enter.action,
            enter.workflow.as_str(),
            enter.next_step.as_str()
        ),
        (Action::EnterSubflow, "child", "start")
    );
    let frame = SubflowFrame {
        parent_workflow: "parent".into(),
        parent_step: "research".into(),
        workflow: "child".into(),
    };
    assert_eq!(enter.task.subflow_stack, vec![frame]);
    assert_eq!(enter.task.current_workflow(), "child");
    assert_eq!(nav.progress("t").unwrap().workflow, "child");

    nav.advance("t", "passed", None).unwrap();
    let retry = nav.advance("t", "failed", None).unwrap();
    assert_eq!(retry.action, Action::Retry);
    assert_eq!(
        retry.task.step_retries["child/check"], 1,
        "subflow steps are keyed by workflow"
    );

    let exit = nav.advance("t", "passed", None).unwrap();
    assert_eq!(
        (exit.action, exit.workflow.as_str(), exit.next_step.as_str()),
        (Action::ExitSubflow, "parent", "ship")
    );
    assert!(exit.task.subflow_stack.is_empty());

    // Shipping fails: back through the subflow, whose counters start afresh.
    let again = nav.advance("t", "failed", None).unwrap();
    assert_eq!(
        (
            again.action,
            again.next_step.as_str(),
            again.workflow.as_str()
        ),
        (Action::Retry, "start", "child")
    );
    assert!(!again.task.step_retries.contains_key("child/check"));
    assert_eq!(again.task.step_retries["ship"], 1);
}

#[test]
fn a_failed_subflow_takes_the_failed_route() {
    let mut nav = nav_with(&[("child", child(false)), ("parent", parent())]);
    nav.load_tasks(vec![task("t", "parent", 0)], false).unwrap();
    for result in ["passed", "passed", "failed"] {
        nav.advance("t", result, None).unwrap();
    }
    let out = nav.advance("t", "failed", None).unwrap();
    assert_eq!(
        (out.action, out.reason),
        (Action::Escalate, Some("max_retries_exceeded"))
    );
    assert_eq!(
        (
            out.workflow.as_str(),
            out.next_step.as_str(),
            out.task.status
        ),
        ("parent", "failed", TaskStatus::Failed)
    );
}

#[test]
fn hitl_inside_a_subflow_stops_the_task_there() {
    let mut nav = nav_with(&[("child", child(true)), ("parent", parent())]);
    nav.load_tasks(vec![task("t", "parent", 0)], false).unwrap();
    for result in ["passed", "passed", "failed"] {
        nav.advance("t", result, None).unwrap();
    }
    let out = nav.advance("t", "failed", None).unwrap();
    assert_eq!(
        (
            out.workflow.as_str(),
            out.next_step.as_str(),
            out.task.status
        ),
        ("child", "exhausted", TaskStatus::Hitl)
    );
    assert_eq!(
        out.task.subflow_stack.len(),
        1,
        "the stack shows where the human must look"
    );

    // The state survives a snapshot, stack included.
    let restored = Navigator::restore(nav.snapshot()).unwrap();
    assert_eq!(restored.task("t").unwrap(), nav.task("t").unwrap());
}

#[test]
fn unknown_and_recursive_subflows_are_errors_that_change_nothing() {
    let mut nav = nav_with(&[("parent", parent())]);
    nav.load_tasks(vec![task("t", "parent", 0)], false).unwrap();
    let err = nav.advance("t", "passed", None).unwrap_err();
    assert_eq!(err, Error::UnknownWorkflow { id: "child".into() });
    assert_eq!(nav.task("t").unwrap().current_step, "start");
    assert_eq!(nav.pending_syncs().count(), 0);

    // A workflow entering itself is refused when loaded (tests/subflow_cycles.rs), so the
    // engine's run-time recursion guard is never reached through the public API.
    let mut selfish = parent();
    selfish["nodes"]["research"]["workflow"] = json!("parent");
    let def = WorkflowDefinition::from_value(selfish).unwrap();
    let err = Navigator::new().load_workflow("parent", def).unwrap_err();
    assert_eq!(err.code(), "subflow_cycle");
}

#[test]
fn loading_is_all_or_nothing_with_precise_errors() {
    let mut nav = nav_with(&[("review", review(3))]);
    let mut at_end = task("e", "review", 0);
    at_end.current_step = "end".into();
    let mut bad_step = task("s", "review", 0);
    bad_step.current_step = "nowhere".into();
    let mut bad_stack = task("k", "review", 0);
    bad_stack.subflow_stack = vec![SubflowFrame {
        parent_workflow: "review".into(),
        parent_step: "work".into(),
        workflow: "review".into(),
    }];
    let cases = [
        (task(" ", "review", 0), "`id` must be non-empty"),
        (task("x", "nope", 0), "unknown workflowType `nope`"),
        (bad_step, "has no step `nowhere`"),
        (at_end, "sits on end node `end`"),
        (bad_stack, "does not match the loaded workflows"),
    ];
    for (bad, needle) in cases {
        let err = nav
            .load_tasks(vec![task("ok", "review", 0), bad], false)
            .unwrap_err();
        assert!(matches!(err, Error::InvalidTask { index: 1, .. }), "{err}");
        assert!(err.to_string().contains(needle), "{err}");
        assert!(nav.tree().is_empty(), "nothing loaded on error");
    }
    let err = nav
        .load_tasks(vec![task("a", "review", 0), task("a", "review", 1)], false)
        .unwrap_err();
    assert!(err.to_string().contains("duplicate"), "{err}");

    let mut done = task("done", "review", 0);
    (done.current_step, done.status) = ("end".into(), TaskStatus::Completed);
    nav.load_tasks(vec![done], false).unwrap();
}

#[test]
fn loading_upserts_or_replaces() {
    let mut nav = nav_with(&[("review", review(3))]);
    nav.load_tasks(vec![task("a", "review", 1), task("b", "review", 2)], false)
        .unwrap();
    let report = nav.load_tasks(vec![task("a", "review", 5)], false).unwrap();
    assert_eq!((report.loaded, report.total), (1, 2));
    assert_eq!(nav.next_tasks(1)[0].id, "a", "the reloaded priority counts");
    let report = nav.load_tasks(vec![task("c", "review", 0)], true).unwrap();
    assert_eq!(report.total, 1);
}

#[test]
fn queue_ties_break_by_age_then_id() {
    let mut nav = nav_with(&[("review", review(3))]);
    let mut tasks = vec![
        task("b", "review", 5),
        task("a", "review", 5),
        task("old", "review", 5),
        task("top", "review", 9),
    ];
    for t in &mut tasks {
        t.created_at = 2000;
    }
    tasks[2].created_at = 1000;
    nav.load_tasks(tasks, false).unwrap();
    let order: Vec<&str> = nav.next_tasks(10).iter().map(|t| t.id.as_str()).collect();
    assert_eq!(order, ["top", "old", "a", "b"]);
    assert_eq!(nav.next_tasks(0).len(), 0);
}

#[test]
fn sync_ids_are_never_reused_and_must_be_canonical() {
    let mut nav = nav_with(&[("review", review(3))]);
    nav.load_tasks(vec![task("t", "review", 0)], false).unwrap();
    let a = nav.advance("t", "passed", None).unwrap().sync_id;
    nav.confirm_sync(&[a.as_str()]);
    let b = nav.advance("t", "passed", None).unwrap().sync_id;
    assert_eq!((a.as_str(), b.as_str()), ("sync-0", "sync-1"));
    let outcome = nav.confirm_sync(&["sync-01", "sync-+1", "1", "sync-1"]);
    assert_eq!(outcome.confirmed, ["sync-1"]);
    assert_eq!(outcome.not_found, ["sync-01", "sync-+1", "1"]);
}

#[test]
fn progress_reports_levels() {
    let mut nav = nav_with(&[("review", review(3))]);
    nav.load_tasks(vec![task("t", "review", 0)], false).unwrap();
    assert_eq!(nav.progress("t").unwrap().percent_complete, 0);
    nav.advance("t", "passed", None).unwrap();
    let p = nav.progress("t").unwrap();
    assert_eq!((p.level, p.total_levels, p.percent_complete), (1, 4, 33));
    assert!(matches!(
        nav.progress("ghost"),
        Err(Error::UnknownTask { .. })
    ));
}

#[test]
fn snapshots_reject_bad_input() {
    let nav = nav_with(&[("review", review(3))]);
    let mut snap = nav.snapshot();
    snap.version = 99;
    assert!(matches!(
        Navigator::restore(snap),
        Err(Error::Snapshot { .. })
    ));
    let err = navigator_workflow::Snapshot::from_json("{}").unwrap_err();
    assert!(matches!(err, Error::Snapshot { .. }), "{err}");
}
