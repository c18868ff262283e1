//! Properties: random valid workflows and random results always terminate at an end node
//! (or in HITL) within a computable bound, and the sync ledger never loses a record.

use std::collections::BTreeSet;

use navigator_workflow::{
    ExecutionPlan, Navigator, NodeKind, Task, TaskStatus, Workflow, WorkflowDefinition,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// One step of a generated workflow.
#[derive(Debug, Clone)]
struct Step {
    gate: bool,
    max_retries: Option<u32>,
    /// Picks the `failed` target (a retry target when the step has retries).
    fail_pick: u8,
    /// Picks the escalation target.
    escalate_pick: u8,
}

fn step() -> impl Strategy<Value = Step> {
    (
        any::<bool>(),
        prop::option::of(1u32..4),
        any::<u8>(),
        any::<u8>(),
    )
        .prop_map(|(gate, max_retries, fail_pick, escalate_pick)| Step {
            gate,
            max_retries,
            fail_pick,
            escalate_pick,
        })
}

const ENDS: [&str; 3] = ["done", "failed", "hitl"];

/// A chain s0..sN (passed goes forward) whose failures go anywhere forward, or back as
/// retries when the step has `maxRetries`. Valid by construction.
fn workflow(steps: &[Step]) -> Value {
    let n = steps.len();
    let name = |i: usize| {
        if i < n {
            format!("s{i}")
        } else {
            "done".to_string()
        }
    };
    let mut nodes =
        json!({ "start": { "type": "start" }, "done": { "type": "end", "result": "success" } });
    let mut edges = vec![json!({ "from": "start", "to": "s0" })];
    for (i, s) in steps.iter().enumerate() {
        let mut node =
            json!({ "type": if s.gate { "gate" } else { "task" }, "name": format!("Step {i}") });
        if let Some(m) = s.max_retries {
            node["maxRetries"] = json!(m);
        }
        nodes[name(i)] = node;
        edges.push(json!({ "from": name(i), "to": name(i + 1), "on": "passed" }));
        // Forward targets: later steps or any end node.
        let forward: Vec<String> = (i + 1..n)
            .map(name)
            .chain(ENDS.iter().map(|e| e.to_string()))
            .collect();
        let fail_to = match s.max_retries {
            Some(_) => name(usize::from(s.fail_pick) % (i + 1)),
            None => forward[usize::from(s.fail_pick) % forward.len()].clone(),
        };
        edges.push(json!({ "from": name(i), "to": fail_to, "on": "failed" }));
        if s.max_retries.is_some() {
            let to = forward[usize::from(s.escalate_pick) % forward.len()].clone();
            edges.push(json!({ "from": name(i), "to": to, "on": "max_retries_exceeded" }));
        }
    }
    // Only end nodes something points at, or validation rightly calls them unreachable.
    let targets: BTreeSet<&str> = edges.iter().filter_map(|e| e["to"].as_str()).collect();
    if targets.contains("failed") {
        nodes["failed"] = json!({ "type": "end", "result": "failure" });
    }
    if targets.contains("hitl") {
        nodes["hitl"] = json!({ "type": "end", "result": "blocked", "escalation": "hitl" });
    }
    json!({ "nodes": nodes, "edges": edges })
}

/// Wraps workflow `child` in a parent that runs it as a subflow.
fn parent() -> Value {
    json!({
        "nodes": {
            "start": { "type": "start" },
            "sub": { "type": "subflow", "workflow": "child" },
            "done": { "type": "end", "result": "success" },
            "failed": { "type": "end", "result": "failure" }
        },
        "edges": [
            { "from": "start", "to": "sub" },
            { "from": "sub", "to": "done", "on": "passed" },
            { "from": "sub", "to": "failed", "on": "failed" }
        ]
    })
}

/// Advances that can happen before any task must have finished: between two retries a
/// task walks at most every node once, and retries are bounded by the sum of maxRetries.
fn bound(steps: &[Step]) -> usize {
    let retries: u32 = steps.iter().filter_map(|s| s.max_retries).sum();
    (steps.len() + 4) * (retries as usize + 1) + 4
}

fn navigator(steps: &[Step]) -> Navigator {
    let mut nav = Navigator::new();
    let child =
        WorkflowDefinition::from_value(workflow(steps)).expect("generated definitions parse");
    nav.load_workflow("child", child)
        .expect("generated definitions are valid");
    nav.load_workflow("parent", WorkflowDefinition::from_value(parent()).unwrap())
        .unwrap();
    nav
}

fn at_end(nav: &Navigator, task: &Task) -> bool {
    let workflow = nav.workflow(task.current_workflow()).unwrap();
    matches!(
        workflow.node(&task.current_step).map(|n| &n.kind),
        Some(NodeKind::End(_))
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_workflows_terminate_within_the_bound(
        steps in prop::collection::vec(step(), 1..10),
        results in prop::collection::vec(any::<bool>(), 1..64),
        root_is_parent in any::<bool>(),
    ) {
        let mut nav = navigator(&steps);
        let root = if root_is_parent { "parent" } else { "child" };
        nav.load_tasks(vec![Task::new("t", "I-1", root, 0)], false).unwrap();
        let limit = 2 * bound(&steps);
        let mut advances = 0;
        let mut results = results.iter().cycle();
        while nav.task("t").unwrap().status.is_active() {
            prop_assert!(advances < limit, "no end after {} advances", advances);
            let task = nav.task("t").unwrap();
            let node = nav.workflow(task.current_workflow()).unwrap().node(&task.current_step).unwrap();
            let result = if node.can_output("failed") && *results.next().unwrap() { "failed" } else { "passed" };
            nav.advance("t", result, None).unwrap();
            advances += 1;
        }
        let task = nav.task("t").unwrap();
        prop_assert!(at_end(&nav, task), "stopped off an end node at {}", task.current_step);
        prop_assert!(matches!(task.status, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Hitl));
        prop_assert_eq!(task.status == TaskStatus::Hitl, task.current_step == "hitl");
        prop_assert_eq!(nav.pending_syncs().count(), advances);
    }

    #[test]
    fn the_sync_ledger_never_loses_a_record(
        steps in prop::collection::vec(step(), 1..8),
        tasks in 1usize..6,
        script in prop::collection::vec((any::<u8>(), any::<bool>(), any::<u8>()), 1..120),
    ) {
        let mut nav = navigator(&steps);
        let ids: Vec<String> = (0..tasks).map(|i| format!("t{i}")).collect();
        let roots = ids.iter().enumerate().map(|(i, id)| {
            Task::new(id.clone(), "I", if i % 2 == 0 { "child" } else { "parent" }, i as i64)
        });
        nav.load_tasks(roots.collect(), false).unwrap();
        let mut model: BTreeSet<String> = BTreeSet::new();
        let mut issued: BTreeSet<String> = BTreeSet::new();
        for (pick, fail, action) in script {
            let id = &ids[usize::from(pick) % ids.len()];
            match action % 8 {
                0 => {
                    // Confirm the oldest pending record plus an id that was never issued.
                    let first: Vec<String> = model.iter().take(1).cloned().collect();
                    let mut ask = first.clone();
                    ask.push("sync-999999".into());
                    let outcome = nav.confirm_sync(&ask);
                    prop_assert_eq!(&outcome.confirmed, &first);
                    model.retain(|s| !first.contains(s));
                }
                1 => {
                    let outcome = nav.confirm_sync_for_task(id).unwrap();
                    for s in &outcome.confirmed {
                        prop_assert!(model.remove(s), "confirmed {} twice", s);
                    }
                }
                2 => {
                    nav = Navigator::restore(nav.snapshot()).unwrap();
                }
                _ => {
                    let task = nav.task(id).unwrap();
                    if !task.status.is_active() {
                        continue;
                    }
                    let node = nav.workflow(task.current_workflow()).unwrap().node(&task.current_step).unwrap();
                    let result = if fail && node.can_output("failed") { "failed" } else { "passed" };
                    let sync = nav.advance(id, result, None).unwrap().sync_id;
                    prop_assert!(issued.insert(sync.clone()), "sync id {} reused", sync);
                    model.insert(sync);
                }
            }
            let pending: BTreeSet<String> = nav.pending_syncs().map(|s| s.id.clone()).collect();
            prop_assert_eq!(&pending, &model);
            let reminder = nav.sync_reminder();
            prop_assert_eq!(reminder.as_ref().map_or(0, |r| r.count), model.len());
            prop_assert_eq!(
                reminder.map_or(0, |r| r.pending.len()),
                model.len().min(navigator_workflow::REMINDER_PAGE)
            );
        }
    }

    #[test]
    fn arbitrary_text_never_panics_the_parser(text in ".{0,400}") {
        let parsed = [WorkflowDefinition::from_json(&text), WorkflowDefinition::from_yaml(&text)];
        for def in parsed.into_iter().flatten() {
            let _ = Workflow::new("w", def);
        }
    }

    #[test]
    fn mutated_definitions_are_accepted_or_rejected_but_never_panic(
        steps in prop::collection::vec(step(), 1..6),
        drop_edge in any::<u8>(),
        retarget in any::<(u8, u8)>(),
    ) {
        let mut def = workflow(&steps);
        let edges = def["edges"].as_array_mut().unwrap();
        let n = edges.len();
        edges.remove(usize::from(drop_edge) % n);
        let names = ["start", "s0", "s1", "done", "hitl", "ghost"];
        let m = edges.len();
        if m > 0 {
            edges[usize::from(retarget.0) % m]["to"] = json!(names[usize::from(retarget.1) % names.len()]);
        }
        if let Ok(def) = WorkflowDefinition::from_value(def) {
            let nodes = def.nodes.len();
            if let Ok(workflow) = Workflow::new("w", def) {
                let plan = ExecutionPlan::of(&workflow);
                prop_assert_eq!(plan.levels.iter().map(Vec::len).sum::<usize>(), nodes);
                // Whatever survives validation is runnable: every output has a route.
                for (id, node) in &workflow.definition().nodes {
                    for output in node.outputs() {
                        prop_assert!(workflow.route(id, output).is_some(), "{} has no route for {}", id, output);
                    }
                }
            }
        }
    }
}
