//! End to end: spawn the MCP binary and speak newline-delimited JSON-RPC over its stdio.

mod mcp_support;

use mcp_support::initialized;
use serde_json::{json, Value};

const TOOLS: [&str; 15] = [
    "list_workflows",
    "load_workflow",
    "get_execution_plan",
    "load_task_tree",
    "get_next_tasks_from_tree",
    "advance_task",
    "get_task",
    "get_task_progress",
    "get_tasks_by_status",
    "get_pending_syncs",
    "confirm_sync",
    "confirm_sync_for_task",
    "claim_task",
    "release_task",
    "resume_task",
];

#[test]
fn tools_list_has_every_tool_with_schemas_and_hints() {
    let mut server = initialized();
    let reply = server.request("tools/list", json!({}));
    let tools = reply["result"]["tools"].as_array().expect("tool list");
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    let mut expected = TOOLS.to_vec();
    expected.sort();
    assert_eq!(names, expected);
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{}", tool["name"]);
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert_eq!(tool["outputSchema"]["type"], "object", "{}", tool["name"]);
        let hints = &tool["annotations"];
        let read_only = hints["readOnlyHint"].as_bool().expect("readOnlyHint");
        let name = tool["name"].as_str().unwrap();
        assert_eq!(
            read_only,
            name.starts_with("get_") || name == "list_workflows",
            "{name}"
        );
        assert!(hints["destructiveHint"].is_boolean() && hints["idempotentHint"].is_boolean());
    }
    // Page sizes declare the bounds their descriptions state.
    for (name, max) in [
        ("get_next_tasks_from_tree", 1000),
        ("get_tasks_by_status", 500),
        ("get_pending_syncs", 500),
    ] {
        let tool = tools.iter().find(|t| t["name"] == name).unwrap();
        let limit = &tool["inputSchema"]["properties"]["limit"];
        assert_eq!(
            (limit["minimum"].as_u64(), limit["maximum"].as_u64()),
            (Some(1), Some(max)),
            "{name}: {limit}"
        );
    }
    let advance = tools.iter().find(|t| t["name"] == "advance_task").unwrap();
    assert_eq!(
        advance["inputSchema"]["required"],
        json!(["taskId", "result"])
    );
}

#[test]
fn every_tool_over_stdio_through_the_seed_scenario() {
    let mut server = initialized();
    assert_eq!(server.ok("list_workflows", json!({}))["data"]["count"], 0);

    let ui: Value =
        serde_json::from_str(include_str!("data/workflows/ui-reconstruction.json")).unwrap();
    let loaded = server.ok(
        "load_workflow",
        json!({ "id": "ui-reconstruction", "definition": ui }),
    );
    assert_eq!(loaded["data"]["start"], "start");
    assert!(
        loaded.get("_sync_reminder").is_none(),
        "nothing pending yet"
    );
    let yaml = include_str!("data/workflows/research.yaml");
    server.ok(
        "load_workflow",
        json!({ "id": "research", "definition": yaml }),
    );
    assert_eq!(server.ok("list_workflows", json!({}))["data"]["count"], 2);

    let plan = server.ok(
        "get_execution_plan",
        json!({ "workflowId": "ui-reconstruction" }),
    );
    assert_eq!(
        plan["data"]["levels"],
        json!([["start"], ["analyze"], ["review"], ["end", "hitl"]])
    );
    assert!(plan["data"]["mermaid"]
        .as_str()
        .unwrap()
        .starts_with("flowchart TD"));

    let tasks: Value = serde_json::from_str(include_str!("data/tasks.json")).unwrap();
    let report = server.ok("load_task_tree", json!({ "tasks": tasks }));
    assert_eq!(report["data"]["loaded"], 5);

    let next = server.ok("get_next_tasks_from_tree", json!({ "limit": 1 }));
    assert_eq!(next["data"]["count"], 1);
    assert_eq!(next["data"]["tasks"][0]["id"], "task-001");

    let first = server.ok(
        "advance_task",
        json!({ "taskId": "task-001", "result": "passed" }),
    );
    assert_eq!(first["data"]["nextStep"], "analyze");
    let second = server.ok(
        "advance_task",
        json!({ "taskId": "task-001", "result": "passed", "output": "Analysis complete, found 5 components" }),
    );
    let data = &second["data"];
    assert_eq!(
        (data["success"].clone(), data["previousStep"].clone()),
        (json!(true), json!("analyze"))
    );
    assert_eq!(
        (data["nextStep"].clone(), data["action"].clone()),
        (json!("review"), json!("conditional"))
    );
    assert_eq!(data["task"]["status"], "PENDING");
    let reminder = &second["_sync_reminder"];
    assert_eq!(
        reminder["message"],
        "Mutations pending sync to primary store. Please persist and confirm."
    );
    assert_eq!(reminder["pending"].as_array().unwrap().len(), 2);
    assert_eq!(
        reminder["pending"][1],
        json!({ "id": data["syncId"], "taskId": "task-001" })
    );

    let retry = server.ok(
        "advance_task",
        json!({ "taskId": "task-001", "result": "failed" }),
    );
    assert_eq!(retry["data"]["action"], "retry");
    assert_eq!(
        (
            retry["data"]["retriesUsed"].clone(),
            retry["data"]["retriesRemaining"].clone()
        ),
        (json!(1), json!(2))
    );

    let task = server.ok("get_task", json!({ "taskId": "task-001" }));
    assert_eq!(task["data"]["currentStep"], "analyze");
    assert_eq!(task["data"]["stepRetries"], json!({ "review": 1 }));
    let progress = server.ok("get_task_progress", json!({ "taskId": "task-001" }));
    assert_eq!(progress["data"]["level"], 1);
    let by_status = server.ok("get_tasks_by_status", json!({}));
    assert_eq!(
        by_status["data"]["counts"],
        json!({ "PENDING": 4, "PAUSED": 1 })
    );
    let paused = server.ok("get_tasks_by_status", json!({ "status": "PAUSED" }));
    assert_eq!(paused["data"]["tasks"]["PAUSED"][0]["id"], "task-004");
    // Replies are paged (defect 6 of the reliability audit: unbounded lists per call).
    let first = server.ok("get_tasks_by_status", json!({ "limit": 3 }));
    assert_eq!(first["data"]["total"], 5);
    assert_eq!(first["data"]["nextOffset"], 3);
    assert_eq!(
        first["data"]["tasks"]["PENDING"].as_array().unwrap().len(),
        3
    );
    assert!(first["data"]["tasks"].get("PAUSED").is_none(), "{first}");
    assert_eq!(
        first["data"]["counts"]["PAUSED"], 1,
        "counts cover every task"
    );
    let rest = server.ok("get_tasks_by_status", json!({ "offset": 3, "limit": 3 }));
    assert_eq!(
        rest["data"]["tasks"]["PENDING"].as_array().unwrap().len(),
        1
    );
    assert_eq!(rest["data"]["tasks"]["PAUSED"][0]["id"], "task-004");
    assert_eq!(rest["data"]["nextOffset"], Value::Null);
    let (is_error, content) = server.call("get_tasks_by_status", json!({ "limit": 501 }));
    assert!(is_error);
    assert_eq!(content["error"]["code"], "invalid_argument");

    let pending = server.ok("get_pending_syncs", json!({}));
    assert_eq!(pending["data"]["count"], 3);
    let ids: Vec<Value> = pending["data"]["syncs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].clone())
        .collect();
    let confirmed = server.ok("confirm_sync", json!({ "syncIds": [ids[0], ids[1]] }));
    assert_eq!(confirmed["data"]["remaining"], 1);
    assert_eq!(
        confirmed["_sync_reminder"]["pending"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let rest = server.ok("confirm_sync_for_task", json!({ "taskId": "task-001" }));
    assert_eq!(rest["data"]["confirmed"], json!([ids[2]]));
    assert!(rest.get("_sync_reminder").is_none());
    assert_eq!(
        server.ok("get_pending_syncs", json!({ "taskId": "task-001" }))["data"]["count"],
        0
    );
}

#[test]
fn replacing_a_workflow_lists_the_tasks_its_new_definition_strands() {
    let mut server = initialized();
    let yaml = include_str!("data/workflows/research.yaml");
    let loaded = server.ok(
        "load_workflow",
        json!({ "id": "research", "definition": yaml }),
    );
    assert!(loaded["data"].get("strandedTasks").is_none(), "{loaded}");
    let task = json!([{ "id": "t1", "issueId": "I-1", "workflowType": "research", "priority": 1 }]);
    server.ok("load_task_tree", json!({ "tasks": task }));
    server.ok(
        "advance_task",
        json!({ "taskId": "t1", "result": "passed" }),
    );
    let changed = yaml.replace("gather", "collect");
    let loaded = server.ok(
        "load_workflow",
        json!({ "id": "research", "definition": changed }),
    );
    assert_eq!(
        loaded["data"]["strandedTasks"],
        json!([{ "taskId": "t1", "workflow": "research", "step": "gather", "workflowLoaded": true,
                 "reason": "workflow `research` has no step `gather`" }]),
        "{loaded}"
    );
}

#[test]
fn bad_arguments_get_clear_errors_and_the_server_keeps_serving() {
    let mut server = initialized();
    let cyclic = json!({
        "nodes": {
            "start": { "type": "start" },
            "a": { "type": "task", "name": "A" },
            "b": { "type": "task", "name": "B" },
            "end": { "type": "end", "result": "success" }
        },
        "edges": [
            { "from": "start", "to": "a" }, { "from": "a", "to": "b" },
            { "from": "b", "to": "a", "on": "failed" }, { "from": "b", "to": "end", "on": "passed" }
        ]
    });
    let (is_error, content) = server.call(
        "load_workflow",
        json!({ "id": "loop", "definition": cyclic }),
    );
    assert!(is_error);
    assert_eq!(content["error"]["code"], "cycle");
    assert_eq!(
        content["error"]["message"],
        "cycle that is not a retry loop: a -> b -> a"
    );

    let (is_error, content) = server.call("get_task", json!({ "taskId": "ghost" }));
    assert!(is_error);
    assert_eq!(content["error"]["code"], "unknown_task");
    let (is_error, content) = server.call("get_next_tasks_from_tree", json!({ "limit": 0 }));
    assert!(is_error);
    assert_eq!(content["error"]["code"], "invalid_argument");
    let (is_error, _) = server.call("confirm_sync", json!({ "syncIds": [] }));
    assert!(is_error);
    let (is_error, _) = server.call("advance_task", json!({ "taskId": "", "result": "passed" }));
    assert!(is_error);

    // Wrong shapes are rejected by the schema layer, naming the field, with the same
    // structured error as every other tool error (regression: they were text only).
    let reply = server.request(
        "tools/call",
        json!({ "name": "get_task", "arguments": { "task": "x" } }),
    );
    assert_eq!(reply["result"]["isError"], json!(true), "{reply}");
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("unknown field `task`, expected `taskId`"),
        "{reply}"
    );
    assert_eq!(
        reply["result"]["structuredContent"]["error"],
        json!({
            "code": "invalid_argument",
            "message": "invalid argument `arguments`: unknown field `task`, expected `taskId`"
        }),
        "{reply}"
    );
    let (is_error, content) = server.call("advance_task", json!({ "taskId": "x" }));
    assert!(is_error);
    assert_eq!(content["error"]["code"], "invalid_argument", "{content}");
    let message = content["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("missing field `result`"), "{content}");
    let (is_error, content) = server.call("advance_task", json!({}));
    assert!(is_error);
    assert_eq!(content["error"]["code"], "invalid_argument", "{content}");
    let (is_error, content) = server.call("get_next_tasks_from_tree", json!({ "limit": "ten" }));
    assert!(is_error);
    assert_eq!(content["error"]["code"], "invalid_argument", "{content}");
    let message = content["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("invalid type: string \"ten\""),
        "{content}"
    );
    // A tool without arguments refuses one, as the others refuse what they do not know.
    let (is_error, content) = server.call("list_workflows", json!({ "bogus": 1 }));
    assert!(is_error, "{content}");
    assert_eq!(content["error"]["code"], "invalid_argument", "{content}");
    // In a batch, the place: which field of which task (regression: no place was named).
    let (is_error, content) = server.call(
        "load_task_tree",
        json!({ "tasks": [
            { "id": "a", "workflowType": "w", "priority": 1 },
            { "id": "b", "workflowType": "w", "priority": "5" }
        ] }),
    );
    assert!(is_error);
    let message = content["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("at `tasks[1].priority`") && message.contains("invalid type"),
        "{content}"
    );

    // A malformed line is dropped; an unknown method and an unknown tool are JSON-RPC errors.
    server.send_line("{this is not json");
    let reply = server.request("no/such/method", json!({}));
    assert_eq!(reply["error"]["code"], -32601);
    let reply = server.request(
        "tools/call",
        json!({ "name": "no_such_tool", "arguments": {} }),
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`no_such_tool`") && message.contains("advance_task"),
        "the error names the tool asked for and the tools there are: {reply}"
    );
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
}
