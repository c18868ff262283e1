//! The MCP server under hostile conditions, over the real binary's stdio: broken JSON lines,
//! unknown methods, input that ends with requests in flight, 10,000 pending syncs, `kill -9`
//! mid-run with a state file, two agents after one task, and a task escalated to a human
//! handed back.

mod mcp_support;

use std::ffi::OsStr;
use std::path::Path;

use mcp_support::{initialize, Server, Stdin};
use navigator_workflow::{Navigator, Task, WorkflowDefinition};
use serde_json::{json, Value};

const FLOW: &str = r#"
nodes:
  start: { type: start }
  work: { type: task, name: Work }
  review: { type: gate, name: Review, maxRetries: 1 }
  done: { type: end, result: success }
  human: { type: end, result: blocked, escalation: hitl }
edges:
  - { from: start, to: work }
  - { from: work, to: review }
  - { from: review, to: done, on: passed }
  - { from: review, to: work, on: failed }
  - { from: review, to: human, on: max_retries_exceeded }
"#;

fn with_state(path: &Path) -> Server {
    initialize(Server::spawn_with(&[
        OsStr::new("--state"),
        path.as_os_str(),
    ]))
}

fn load_flow_and_tasks(server: &mut Server, n: usize) {
    server.ok("load_workflow", json!({ "id": "flow", "definition": FLOW }));
    let tasks: Vec<Value> = (0..n)
        .map(|i| json!({ "id": format!("t{i}"), "workflowType": "flow", "priority": i }))
        .collect();
    server.ok("load_task_tree", json!({ "tasks": tasks }));
}

#[test]
fn unparsable_line_gets_a_json_rpc_parse_error_and_the_server_keeps_serving() {
    let mut server = mcp_support::initialized();
    // The id of the request it was meant to be, so the client's call fails instead of
    // waiting; `null` when the line names none.
    server.send_line("{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": ");
    let reply = server.next_message();
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert_eq!(reply["id"], 7);
    server.send_line("{\"jsonrpc\": \"2.0\", \"method\": ");
    let reply = server.next_message();
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert_eq!(reply["id"], Value::Null);

    let unknown = server.request("navigator/teleport", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");

    let listed = server.request("tools/list", json!({}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
}

/// The handshake and then `calls` as `tools/call` requests with ids 2, 3, …, one per line.
fn session_lines(calls: &[(&str, Value)]) -> String {
    let mut lines = vec![
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": { "name": "eof", "version": "0" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    ];
    for (id, (tool, arguments)) in (2u64..).zip(calls) {
        lines.push(json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments } }));
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The ids of the replies, in the order they came.
fn reply_ids(messages: &[Value]) -> Vec<u64> {
    messages.iter().filter_map(|m| m["id"].as_u64()).collect()
}

#[test]
fn every_request_read_before_the_end_of_input_is_answered() {
    // Regression: the process exited as soon as rmcp saw the end of its input, cancelling the
    // task that copies replies to stdout, so the last replies were lost at random.
    let workflows = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/workflows");
    let tasks: Vec<Value> = (0..4)
        .map(|i| json!({ "id": format!("t{i}"), "workflowType": "flow" }))
        .collect();
    let mut calls = vec![
        ("list_workflows", json!({})),
        ("load_workflow", json!({ "id": "flow", "definition": FLOW })),
        ("load_task_tree", json!({ "tasks": tasks })),
    ];
    for i in 0..4 {
        calls.push((
            "advance_task",
            json!({ "taskId": format!("t{i}"), "result": "passed" }),
        ));
    }
    calls.push(("get_pending_syncs", json!({})));
    let input = session_lines(&calls);
    let expected: Vec<u64> = (1..=calls.len() as u64 + 1).collect();
    for run in 0..10 {
        let stdin = [Stdin::File, Stdin::Pipe][run % 2];
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state.json");
        let args = [
            OsStr::new("--state"),
            state.as_os_str(),
            workflows.as_os_str(),
        ];
        let (messages, status) = mcp_support::run_to_end(&args, &input, stdin);
        assert!(status.success(), "run {run} ({stdin:?}): {status}");
        let mut ids = reply_ids(&messages);
        ids.sort_unstable();
        assert_eq!(ids, expected, "run {run} ({stdin:?}): {messages:?}");
        assert!(
            messages.iter().all(|m| m["result"].is_object()),
            "run {run} ({stdin:?}): {messages:?}"
        );
    }
}

#[test]
fn a_last_request_without_its_newline_is_answered() {
    let mut input = session_lines(&[("list_workflows", json!({}))]);
    input.push_str(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    for stdin in [Stdin::File, Stdin::Pipe] {
        let (messages, status) = mcp_support::run_to_end(&[], &input, stdin);
        assert!(status.success(), "{stdin:?}: {status}");
        assert_eq!(reply_ids(&messages), [1, 2, 3], "{stdin:?}: {messages:?}");
        assert_eq!(messages[2]["result"], json!({}), "{stdin:?}");
    }
}

#[test]
fn pending_syncs_are_paged_and_replies_stay_bounded_with_10k_syncs() {
    // 10,000 unconfirmed syncs, prepared in-process and handed over as the state file.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let mut nav = Navigator::new();
    nav.load_workflow("flow", WorkflowDefinition::from_yaml(FLOW).unwrap())
        .unwrap();
    let tasks = (0..10_001)
        .map(|i| Task::new(format!("t{i}"), "I", "flow", 0))
        .collect();
    nav.load_tasks(tasks, false).unwrap();
    for i in 0..10_000 {
        nav.advance(&format!("t{i}"), "passed", None).unwrap();
    }
    std::fs::write(&state, nav.snapshot().to_json()).unwrap();

    let mut server = with_state(&state);
    let reply = server.request(
        "tools/call",
        json!({ "name": "advance_task", "arguments": { "taskId": "t10000", "result": "passed" } }),
    );
    let size = reply.to_string().len();
    assert!(size < 16 * 1024, "advance_task replied {size} bytes");
    let reminder = &reply["result"]["structuredContent"]["_sync_reminder"];
    assert_eq!(reminder["count"], 10_001);
    assert_eq!(reminder["pending"].as_array().unwrap().len(), 20);
    assert_eq!(reminder["truncated"], true);

    let mut seen = std::collections::BTreeSet::new();
    let mut offset = Some(0u64);
    while let Some(at) = offset {
        let page = server.ok("get_pending_syncs", json!({ "offset": at, "limit": 500 }));
        let data = &page["data"];
        assert_eq!(data["total"], 10_001);
        for sync in data["syncs"].as_array().unwrap() {
            assert!(seen.insert(sync["id"].as_str().unwrap().to_string()));
        }
        offset = data["nextOffset"].as_u64();
    }
    assert_eq!(seen.len(), 10_001);
    let (is_error, content) = server.call("get_pending_syncs", json!({ "limit": 100_000 }));
    assert!(is_error, "{content}");
}

#[test]
fn kill_9_mid_run_with_a_state_file_loses_no_acknowledged_change() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let mut server = with_state(&state);
    load_flow_and_tasks(&mut server, 40);
    drop(server); // SIGKILL right after the last acknowledged call

    let mut acknowledged: Vec<(String, String)> = Vec::new(); // (sync id, task id)
    for round in 0..5u64 {
        let mut server = with_state(&state);
        // Everything acknowledged before the last kill is there.
        let page = server.ok("get_pending_syncs", json!({ "limit": 500 }));
        let pending: Vec<&str> = page["data"]["syncs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap())
            .collect();
        for (sync, task) in &acknowledged {
            assert!(
                pending.contains(&sync.as_str()),
                "round {round}: acknowledged {sync} of {task} lost"
            );
        }
        // A burst of requests without waiting; the kill lands while some are in flight.
        let base = 1000 * (round + 1);
        for k in 0..8u64 {
            let task = format!("t{}", round * 8 + k);
            let body = json!({ "jsonrpc": "2.0", "id": base + k, "method": "tools/call",
                "params": { "name": "advance_task", "arguments": { "taskId": task, "result": "passed" } } });
            server.send_line(&body.to_string());
        }
        for k in 0..(3 + round) {
            let reply = server.response(base + k);
            let data = &reply["result"]["structuredContent"]["data"];
            assert_eq!(data["nextStep"], "work", "{reply}");
            acknowledged.push((
                data["syncId"].as_str().unwrap().to_string(),
                data["task"]["id"].as_str().unwrap().to_string(),
            ));
        }
        server.child.kill().unwrap(); // SIGKILL on Unix
        let _ = server.child.wait();
    }
    let mut server = with_state(&state);
    let page = server.ok("get_pending_syncs", json!({ "limit": 500 }));
    let total = page["data"]["total"].as_u64().unwrap() as usize;
    assert!(total >= acknowledged.len());
    for (_, task) in &acknowledged {
        let got = server.ok("get_task", json!({ "taskId": task }));
        assert_eq!(got["data"]["currentStep"], "work", "{task}");
    }
}

#[test]
fn claims_keep_two_agents_off_one_task_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let mut server = with_state(&state);
    load_flow_and_tasks(&mut server, 2);
    // t1 has the higher priority.
    let claim = server.ok("claim_task", json!({ "taskId": "t1", "agent": "a" }));
    assert_eq!(claim["data"]["agent"], "a");
    drop(server);

    let mut server = with_state(&state);
    let (is_error, content) = server.call("claim_task", json!({ "taskId": "t1", "agent": "b" }));
    assert!(is_error);
    assert_eq!(content["error"]["code"], "task_claimed", "{content}");
    let next = server.ok("get_next_tasks_from_tree", json!({ "limit": 5 }));
    let ids: Vec<&str> = next["data"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["t0"], "the claimed task is not offered");
    let (is_error, content) = server.call(
        "advance_task",
        json!({ "taskId": "t1", "agent": "b", "result": "passed" }),
    );
    assert!(is_error, "{content}");
    let (is_error, _) = server.call(
        "advance_task",
        json!({ "taskId": "t1", "result": "passed" }),
    );
    assert!(
        is_error,
        "an anonymous advance of a claimed task is refused"
    );
    server.ok(
        "advance_task",
        json!({ "taskId": "t1", "agent": "a", "result": "passed" }),
    );
    // The orchestrator cannot reload a task an agent holds: its progress would be reset
    // under the agent's hands (regression: it went back to `start`, the claim kept).
    let (is_error, content) = server.call(
        "load_task_tree",
        json!({ "tasks": [{ "id": "t1", "workflowType": "flow" }, { "id": "t9", "workflowType": "flow" }] }),
    );
    assert!(is_error);
    assert_eq!(content["error"]["code"], "task_claimed", "{content}");
    let task = server.ok("get_task", json!({ "taskId": "t1" }));
    assert_eq!(task["data"]["currentStep"], "work", "{task}");
    let (is_error, content) = server.call("get_task", json!({ "taskId": "t9" }));
    assert!(is_error, "all or nothing: {content}");
    // Unknown tasks are said to be unknown.
    for (tool, arguments) in [
        ("release_task", json!({ "taskId": "nope", "agent": "a" })),
        ("get_pending_syncs", json!({ "taskId": "nope" })),
    ] {
        let (is_error, content) = server.call(tool, arguments);
        assert!(is_error, "{tool}");
        assert_eq!(
            content["error"]["code"], "unknown_task",
            "{tool}: {content}"
        );
    }
    // Renew, release, then the other agent may take it.
    server.ok(
        "claim_task",
        json!({ "taskId": "t1", "agent": "a", "leaseMs": 60000 }),
    );
    let (is_error, content) = server.call("release_task", json!({ "taskId": "t1", "agent": "b" }));
    assert_eq!(
        (is_error, content["error"]["code"].clone()),
        (true, json!("not_claimed"))
    );
    server.ok("release_task", json!({ "taskId": "t1", "agent": "a" }));
    server.ok("claim_task", json!({ "taskId": "t1", "agent": "b" }));
}

#[test]
fn a_task_escalated_to_a_human_is_resumed_through_a_tool() {
    let mut server = mcp_support::initialized();
    load_flow_and_tasks(&mut server, 1);
    for result in ["passed", "passed", "failed"] {
        server.ok("advance_task", json!({ "taskId": "t0", "result": result }));
    }
    let task = server.ok("get_task", json!({ "taskId": "t0" }));
    assert_eq!(task["data"]["status"], "HITL", "{task}");
    let (is_error, content) = server.call("resume_task", json!({ "taskId": "t0", "step": "done" }));
    assert!(is_error, "resuming at an end node is refused: {content}");
    let resumed = server.ok(
        "resume_task",
        json!({ "taskId": "t0", "step": "review", "note": { "by": "alice", "why": "fixed by hand" } }),
    );
    assert_eq!(resumed["data"]["action"], "resume");
    assert_eq!(resumed["data"]["task"]["status"], "PENDING");
    assert_eq!(resumed["data"]["task"]["stepRetries"], json!({}));
    let done = server.ok(
        "advance_task",
        json!({ "taskId": "t0", "result": "passed" }),
    );
    assert_eq!(done["data"]["task"]["status"], "COMPLETED");
    let (is_error, content) = server.call("resume_task", json!({ "taskId": "t0", "step": "work" }));
    assert_eq!(
        (is_error, content["error"]["code"].clone()),
        (true, json!("wrong_status"))
    );
}

/// `FLOW` without its `work` step: a task at `work` is stranded by it.
const FLOW_WITHOUT_WORK: &str = r#"
nodes:
  start: { type: start }
  review: { type: gate, name: Review }
  done: { type: end, result: success }
edges:
  - { from: start, to: review }
  - { from: review, to: done, on: passed }
  - { from: review, to: done, on: failed }
"#;

#[test]
fn a_task_stranded_when_the_state_was_saved_loads_again_and_the_old_definition_frees_it() {
    // Regression: the state file then refused to load at every start ("workflow flow has no
    // step work"), whatever definitions were given.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let mut server = with_state(&state);
    load_flow_and_tasks(&mut server, 1);
    server.ok(
        "advance_task",
        json!({ "taskId": "t0", "result": "passed" }),
    );
    let loaded = server.ok(
        "load_workflow",
        json!({ "id": "flow", "definition": FLOW_WITHOUT_WORK }),
    );
    assert_eq!(
        loaded["data"]["strandedTasks"][0]["taskId"], "t0",
        "{loaded}"
    );
    drop(server);

    let mut server = with_state(&state);
    let task = server.ok("get_task", json!({ "taskId": "t0" }));
    assert_eq!(task["data"]["currentStep"], "work", "{task}");
    let (failed, refused) = server.call(
        "advance_task",
        json!({ "taskId": "t0", "result": "passed" }),
    );
    assert!(failed, "a stranded task must not move: {refused}");
    server.ok("load_workflow", json!({ "id": "flow", "definition": FLOW }));
    let moved = server.ok(
        "advance_task",
        json!({ "taskId": "t0", "result": "passed" }),
    );
    assert_eq!(moved["data"]["nextStep"], "review", "{moved}");
}

#[test]
fn a_change_the_state_file_cannot_keep_is_not_made() {
    // Regression: the call answered a `state` error, yet the task had moved in memory (and
    // was saved with the next change that could be written).
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("kept");
    std::fs::create_dir(&folder).unwrap();
    let state = folder.join("state.json");
    let mut server = with_state(&state);
    load_flow_and_tasks(&mut server, 1);
    let moved_away = dir.path().join("moved");
    std::fs::rename(&folder, &moved_away).unwrap();
    for _ in 0..3 {
        let (failed, reply) = server.call(
            "advance_task",
            json!({ "taskId": "t0", "result": "passed" }),
        );
        assert!(failed, "{reply}");
        assert_eq!(reply["error"]["code"], "state", "{reply}");
    }
    let task = server.ok("get_task", json!({ "taskId": "t0" }));
    assert_eq!(task["data"]["currentStep"], "start", "{task}");
    let syncs = server.ok("get_pending_syncs", json!({}));
    assert_eq!(syncs["data"]["total"], 0, "{syncs}");

    std::fs::rename(&moved_away, &folder).unwrap();
    let moved = server.ok(
        "advance_task",
        json!({ "taskId": "t0", "result": "passed" }),
    );
    assert_eq!(
        moved["data"]["nextStep"], "work",
        "one step, not four: {moved}"
    );
}

#[test]
fn a_second_server_on_one_state_file_is_refused_while_the_first_runs() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let mut first = with_state(&state);
    load_flow_and_tasks(&mut first, 1);
    let second = std::process::Command::new(env!("CARGO_BIN_EXE_navigator-workflow-mcp"))
        .arg("--state")
        .arg(&state)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!second.status.success());
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains("in use by another server")
            && stderr.contains(&first.child.id().to_string()),
        "{stderr}"
    );
    // The first one's state is untouched and it keeps serving.
    first.ok(
        "advance_task",
        json!({ "taskId": "t0", "result": "passed" }),
    );
    drop(first);
    // Once it has stopped, the file is free.
    let mut again = with_state(&state);
    let task = again.ok("get_task", json!({ "taskId": "t0" }));
    assert_eq!(task["data"]["currentStep"], "work", "{task}");
}

#[test]
fn requests_sent_back_to_back_run_in_the_order_they_were_sent() {
    let mut server = mcp_support::initialized();
    load_flow_and_tasks(&mut server, 30);
    // Three results per task, sent without waiting: passed (start → work), passed (work →
    // review), failed (review's one retry spent: to the human); in any other order a task
    // ends elsewhere, or with another last output.
    let mut id = 5000u64;
    let mut sent = Vec::new();
    for i in 0..30 {
        for (k, result) in ["passed", "passed", "failed"].into_iter().enumerate() {
            id += 1;
            sent.push(id);
            let body = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": "advance_task", "arguments": {
                    "taskId": format!("t{i}"), "result": result, "output": { "k": k } } } });
            server.send_line(&body.to_string());
        }
    }
    for id in sent {
        let reply = server.response(id);
        assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
    }
    for i in 0..30 {
        let task = server.ok("get_task", json!({ "taskId": format!("t{i}") }));
        assert_eq!(task["data"]["currentStep"], "human", "t{i}: {task}");
        assert_eq!(
            task["data"]["lastOutput"],
            json!({ "k": 2 }),
            "t{i}: {task}"
        );
    }
}

const PARENT: &str = r#"
nodes:
  start: { type: start }
  inner: { type: subflow, workflow: child }
  done: { type: end, result: success }
  failed: { type: end, result: failure }
edges:
  - { from: start, to: inner }
  - { from: inner, to: done, on: passed }
  - { from: inner, to: failed, on: failed }
"#;

const CHILD: &str = r#"
nodes:
  start: { type: start }
  check: { type: task, name: Check }
  ok: { type: end, result: success }
edges:
  - { from: start, to: check }
  - { from: check, to: ok }
"#;

/// `PARENT` with its subflow node made a task: a task inside `child` no longer fits.
const PARENT_WITHOUT_SUBFLOW: &str = r#"
nodes:
  start: { type: start }
  inner: { type: task, name: Inner }
  done: { type: end, result: success }
edges:
  - { from: start, to: inner }
  - { from: inner, to: done }
"#;

/// `FLOW` with `work` made an end: an active task at `work` no longer fits.
const FLOW_WORK_ENDS: &str = r#"
nodes:
  start: { type: start }
  work: { type: end, result: success }
edges:
  - { from: start, to: work }
"#;

#[test]
fn a_task_a_changed_subflow_node_or_a_new_end_strands_is_reported_skipped_and_still_loads() {
    // Regression: either change left the state file unloadable at every later start, with
    // no task reported stranded, the task still offered, and "no route" on advance.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let mut server = with_state(&state);
    server.ok(
        "load_workflow",
        json!({ "id": "child", "definition": CHILD }),
    );
    server.ok(
        "load_workflow",
        json!({ "id": "parent", "definition": PARENT }),
    );
    load_flow_and_tasks(&mut server, 1);
    server.ok(
        "load_task_tree",
        json!({ "tasks": [{ "id": "p0", "workflowType": "parent", "priority": 9 }] }),
    );
    // Into `child` (at its start, as a task starts at its workflow's), then to `check`.
    for _ in 0..2 {
        server.ok(
            "advance_task",
            json!({ "taskId": "p0", "result": "passed" }),
        );
    }
    server.ok(
        "advance_task",
        json!({ "taskId": "t0", "result": "passed" }),
    );
    let inside = server.ok("get_task", json!({ "taskId": "p0" }));
    assert_eq!(inside["data"]["currentStep"], "check", "{inside}");
    // A task never stops at a subflow node: one loaded there would skip the subflow.
    let (failed, refused) = server.call(
        "load_task_tree",
        json!({ "tasks": [{ "id": "p1", "workflowType": "parent", "currentStep": "inner" }] }),
    );
    assert!(failed, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("subflow node `inner`"), "{refused}");

    let changed = server.ok(
        "load_workflow",
        json!({ "id": "parent", "definition": PARENT_WITHOUT_SUBFLOW }),
    );
    assert_eq!(
        changed["data"]["strandedTasks"][0]["taskId"], "p0",
        "{changed}"
    );
    let changed = server.ok(
        "load_workflow",
        json!({ "id": "flow", "definition": FLOW_WORK_ENDS }),
    );
    assert_eq!(
        changed["data"]["strandedTasks"][0]["taskId"], "t0",
        "{changed}"
    );
    let next = server.ok("get_next_tasks_from_tree", json!({ "limit": 5 }));
    assert_eq!(
        next["data"]["count"], 0,
        "stranded tasks are not offered: {next}"
    );
    let (failed, refused) = server.call(
        "advance_task",
        json!({ "taskId": "p0", "result": "passed" }),
    );
    assert!(failed);
    assert_eq!(refused["error"]["code"], "stranded", "{refused}");
    drop(server);

    // The state loads, the tasks still stranded; the old definitions free them.
    let mut server = with_state(&state);
    server.ok(
        "load_workflow",
        json!({ "id": "parent", "definition": PARENT }),
    );
    server.ok("load_workflow", json!({ "id": "flow", "definition": FLOW }));
    let moved = server.ok(
        "advance_task",
        json!({ "taskId": "p0", "result": "passed" }),
    );
    // `check` to the child's end, out to the parent's `done`.
    assert_eq!(moved["data"]["nextStep"], "done", "{moved}");
    let moved = server.ok(
        "advance_task",
        json!({ "taskId": "t0", "result": "passed" }),
    );
    assert_eq!(moved["data"]["nextStep"], "review", "{moved}");
}

#[test]
fn emptying_the_tree_is_refused_while_an_agent_holds_a_task() {
    let mut server = mcp_support::initialized();
    load_flow_and_tasks(&mut server, 2);
    server.ok("claim_task", json!({ "taskId": "t0", "agent": "alice" }));
    let (failed, refused) = server.call(
        "load_task_tree",
        json!({ "tasks": [{ "id": "t9", "workflowType": "flow" }], "replace": true }),
    );
    assert!(failed);
    assert_eq!(refused["error"]["code"], "task_claimed", "{refused}");
    server.ok("get_task", json!({ "taskId": "t0" }));
    server.ok("release_task", json!({ "taskId": "t0", "agent": "alice" }));
    server.ok(
        "load_task_tree",
        json!({ "tasks": [{ "id": "t9", "workflowType": "flow" }], "replace": true }),
    );
}

#[cfg(unix)]
#[test]
fn a_state_file_reached_through_a_link_is_one_file_and_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let link = dir.path().join("link.json");
    let mut server = with_state(&state);
    load_flow_and_tasks(&mut server, 1);
    drop(server);
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::symlink(&state, &link).unwrap();

    let mut through_link = with_state(&link);
    through_link.ok(
        "advance_task",
        json!({ "taskId": "t0", "result": "passed" }),
    );
    // Written through to the file; the link stays a link; the permissions stay.
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(saved["tasks"][0]["currentStep"], "work", "{saved}");
    let mode = std::fs::metadata(&state).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // One file, one server: the file's own path is refused while the link's server runs.
    let second = std::process::Command::new(env!("CARGO_BIN_EXE_navigator-workflow-mcp"))
        .arg("--state")
        .arg(&state)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!second.status.success());
    assert!(String::from_utf8_lossy(&second.stderr).contains("in use by another server"));
}
