//! `navigator workflow`: the workflow GPS served over MCP on stdio by the one command line,
//! with definitions loaded from files and the state kept in a file.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

const RESEARCH: &str = "../navigator-workflow/tests/data/workflows/research.yaml";

/// Runs `navigator workflow args` and sends `requests` (JSON-RPC messages) one at a time,
/// each after the reply to the one before (as a client waits for its answer), then closes
/// stdin; the replies in order, and the output once the server exited.
fn serve(args: &[&str], requests: &[Value]) -> (Output, Vec<Value>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_navigator"))
        .arg("workflow")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut replies = Vec::new();
    {
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        for r in requests {
            if writeln!(stdin, "{r}").is_err() {
                break;
            }
            if r.get("id").is_none() {
                continue;
            }
            let mut line = String::new();
            if stdout.read_line(&mut line).unwrap() == 0 {
                break;
            }
            replies.push(serde_json::from_str(&line).unwrap());
        }
    }
    (child.wait_with_output().unwrap(), replies)
}

fn session(calls: &[(&str, Value)]) -> Vec<Value> {
    let mut requests = vec![
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": { "name": "test", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    ];
    for (k, (name, arguments)) in calls.iter().enumerate() {
        requests.push(
            json!({ "jsonrpc": "2.0", "id": k + 1, "method": "tools/call",
            "params": { "name": name, "arguments": arguments } }),
        );
    }
    requests
}

/// The `structuredContent` of the reply to request `id`.
fn result(replies: &[Value], id: u64) -> &Value {
    let reply = replies.iter().find(|r| r["id"] == id).expect("a reply");
    &reply["result"]["structuredContent"]
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_workflow_gps_is_served_with_its_definitions_and_keeps_its_state() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let state = state.to_str().unwrap();
    let task = json!({ "tasks": [{ "id": "t1", "issueId": "I-1", "workflowType": "research",
        "priority": 10 }] });
    let (out, replies) = serve(
        &["--state", state, RESEARCH],
        &session(&[
            ("list_workflows", json!({})),
            ("load_task_tree", task),
            (
                "advance_task",
                json!({ "taskId": "t1", "result": "passed" }),
            ),
        ]),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = result(&replies, 1).to_string();
    assert!(listed.contains("\"research\""), "{listed}");
    let advanced = result(&replies, 3);
    assert!(advanced.to_string().contains("gather"), "{advanced}");
    // Served again on the state file alone: the task is where the first session left it.
    let (out, replies) = serve(
        &["--state", state],
        &session(&[("get_task", json!({ "taskId": "t1" }))]),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let task = result(&replies, 1).to_string();
    assert!(task.contains("gather"), "{task}");
}

#[test]
fn a_state_file_kept_in_the_definitions_folder_is_no_definition() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(RESEARCH, dir.path().join("research.yaml")).unwrap();
    let state = dir.path().join("state.json");
    let args = [
        "--state",
        state.to_str().unwrap(),
        dir.path().to_str().unwrap(),
    ];
    for _ in 0..2 {
        let (out, replies) = serve(&args, &session(&[("list_workflows", json!({}))]));
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(result(&replies, 1)["data"]["count"], 1, "{replies:?}");
    }
}

#[test]
fn input_that_ends_before_initialize_is_a_clean_end() {
    let (out, replies) = serve(&[RESEARCH], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(replies.is_empty());
    assert!(!stderr(&out).contains("error"), "{}", stderr(&out));
}

#[test]
fn a_definition_that_cannot_load_is_an_input_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.yaml");
    std::fs::write(&bad, "nodes: [not, a, map]\n").unwrap();
    for path in [bad.as_path(), Path::new("/definitely/not/here.yaml")] {
        let (out, replies) = serve(&[path.to_str().unwrap()], &session(&[]));
        assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(path.to_str().unwrap()),
            "{}",
            stderr(&out)
        );
        assert!(replies.is_empty(), "nothing is served: {replies:?}");
    }
    // A state file that is no state: input too, named.
    let state = dir.path().join("state.json");
    std::fs::write(&state, "{").unwrap();
    let (out, _) = serve(&["--state", state.to_str().unwrap()], &session(&[]));
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("state.json"), "{}", stderr(&out));
}

#[test]
fn a_task_a_changed_definition_strands_and_an_empty_folder_are_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let state = state.to_str().unwrap();
    let task = json!({ "tasks": [{ "id": "t1", "issueId": "I-1", "workflowType": "research",
        "priority": 10 }] });
    let (out, _) = serve(
        &["--state", state, RESEARCH],
        &session(&[
            ("load_task_tree", task),
            (
                "advance_task",
                json!({ "taskId": "t1", "result": "passed" }),
            ),
        ]),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("serving 1 workflow(s): research"),
        "{}",
        stderr(&out)
    );
    // The same workflow without its `gather` step, and a folder with no definitions.
    let changed = std::fs::read_to_string(RESEARCH)
        .unwrap()
        .replace("gather", "collect");
    let defs = dir.path().join("defs");
    std::fs::create_dir(&defs).unwrap();
    std::fs::write(defs.join("research.yaml"), changed).unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (out, replies) = serve(
        &[
            "--state",
            state,
            defs.to_str().unwrap(),
            empty.to_str().unwrap(),
        ],
        &session(&[(
            "advance_task",
            json!({ "taskId": "t1", "result": "passed" }),
        )]),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("task `t1` is at step `gather`, which workflow `research` no longer has"),
        "{said}"
    );
    assert!(said.contains("empty: no workflow definitions"), "{said}");
    assert_eq!(replies[1]["result"]["isError"], true, "{replies:?}");
}

/// A straight line of three steps: each `passed` moves a task one step on.
const LINE: &str = "nodes:\n  start: { type: start }\n  a: { type: task, name: A }\n  b: { type: task, name: B }\n  c: { type: task, name: C }\n  end: { type: end, result: success }\nedges:\n  - { from: start, to: a }\n  - { from: a, to: b }\n  - { from: b, to: c }\n  - { from: c, to: end }\n";

#[test]
fn requests_written_back_to_back_are_handled_in_the_order_they_were_written() {
    // Regression: on a multi-threaded runtime two requests sent together could run in either
    // order; a task's outputs then landed out of order (its last output not the last sent).
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("line.yaml");
    std::fs::write(&flow, LINE).unwrap();
    let state = dir.path().join("state.json");
    let tasks: Vec<Value> = (0..60)
        .map(|i| json!({ "id": format!("t{i}"), "workflowType": "line" }))
        .collect();
    let mut calls = vec![("load_task_tree", json!({ "tasks": tasks }))];
    for i in 0..60 {
        for k in 0..3 {
            calls.push((
                "advance_task",
                json!({ "taskId": format!("t{i}"), "result": "passed", "output": { "k": k } }),
            ));
        }
    }
    let input: String = session(&calls).iter().map(|r| format!("{r}\n")).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_navigator"))
        .args([
            "workflow",
            "--state",
            state.to_str().unwrap(),
            flow.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let replies: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies.len(), calls.len() + 1);
    assert!(replies
        .iter()
        .all(|r| r["result"]["isError"] != json!(true)));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    for task in saved["tasks"].as_array().unwrap() {
        assert_eq!(task["currentStep"], "c", "{task}");
        assert_eq!(task["lastOutput"], json!({ "k": 2 }), "{task}");
    }
}

#[test]
fn one_workflow_id_from_two_arguments_is_an_input_error() {
    // Regression: the one named last silently won.
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("a"), dir.path().join("b"));
    for folder in [&first, &second] {
        std::fs::create_dir(folder).unwrap();
        std::fs::write(folder.join("line.yaml"), LINE).unwrap();
    }
    // Hidden files are no definitions: an editor's copy is not a second `line`.
    std::fs::write(first.join(".line.yaml"), LINE).unwrap();
    let (out, _) = serve(&[first.to_str().unwrap()], &session(&[]));
    assert!(out.status.success(), "{}", stderr(&out));
    let (out, replies) = serve(
        &[first.to_str().unwrap(), second.to_str().unwrap()],
        &session(&[]),
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let message = stderr(&out);
    assert!(
        message.contains("`line`") && message.contains(first.to_str().unwrap()),
        "{message}"
    );
    assert!(replies.is_empty(), "nothing is served: {replies:?}");
}
