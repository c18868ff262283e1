//! One test per definition rule: each error names what is wrong and where.

use navigator_workflow::{Error, ExecutionPlan, Workflow, WorkflowDefinition};
use serde_json::{json, Value};

fn check(definition: Value) -> Result<Workflow, Error> {
    Workflow::new("w", WorkflowDefinition::from_value(definition)?)
}

fn err(definition: Value) -> Error {
    check(definition).expect_err("definition should be rejected")
}

/// start -> work -> end, with extra nodes/edges merged in.
fn base(extra_nodes: Value, extra_edges: Value) -> Value {
    let mut nodes = json!({
        "start": { "type": "start" },
        "work": { "type": "task", "name": "Work" },
        "end": { "type": "end", "result": "success" }
    });
    for (k, v) in extra_nodes.as_object().unwrap() {
        nodes[k] = v.clone();
    }
    let mut edges = vec![
        json!({ "from": "start", "to": "work" }),
        json!({ "from": "work", "to": "end" }),
    ];
    edges.extend(extra_edges.as_array().unwrap().iter().cloned());
    json!({ "nodes": nodes, "edges": edges })
}

#[test]
fn a_minimal_workflow_is_valid() {
    let w = check(base(json!({}), json!([]))).unwrap();
    assert_eq!(w.start(), "start");
    assert_eq!(
        w.route("work", "failed").unwrap().to,
        "end",
        "the fallback routes every output"
    );
}

#[test]
fn syntax_errors_are_parse_errors() {
    let e = WorkflowDefinition::from_json("{ nodes: ").unwrap_err();
    assert!(matches!(e, Error::Parse { format: "json", .. }), "{e}");
    let e = WorkflowDefinition::from_yaml("nodes: [unclosed").unwrap_err();
    assert!(matches!(e, Error::Parse { format: "yaml", .. }), "{e}");
}

#[test]
fn unknown_fields_are_reported_with_their_path() {
    let e = WorkflowDefinition::from_value(json!({
        "nodes": { "start": { "type": "start" }, "g": { "type": "gate", "name": "G", "maxRetry": 2 } },
        "edges": []
    }))
    .unwrap_err();
    let message = e.to_string();
    assert!(
        message.contains("nodes.g") && message.contains("maxRetry"),
        "{message}"
    );
    let e = WorkflowDefinition::from_value(json!({ "nodes": {}, "edgez": [] })).unwrap_err();
    assert!(e.to_string().contains("edgez"), "{e}");
    let e = WorkflowDefinition::from_value(
        json!({ "nodes": {}, "edges": [{ "from": "a", "to": "b", "when": "x" }] }),
    )
    .unwrap_err();
    assert!(e.to_string().contains("edges[0]"), "{e}");
}

#[test]
fn unknown_node_type() {
    let e = err(base(json!({ "x": { "type": "decision" } }), json!([])));
    assert_eq!(
        e,
        Error::UnknownNodeType {
            node: "x".into(),
            value: "decision".into()
        }
    );
}

#[test]
fn task_and_gate_need_a_name() {
    let e = err(base(json!({ "work": { "type": "task" } }), json!([])));
    assert_eq!(
        e,
        Error::MissingField {
            node: "work".into(),
            field: "name"
        }
    );
    let e = err(base(
        json!({ "work": { "type": "gate", "name": "  " } }),
        json!([]),
    ));
    assert_eq!(
        e,
        Error::MissingField {
            node: "work".into(),
            field: "name"
        }
    );
}

#[test]
fn end_needs_a_known_result() {
    let e = err(base(json!({ "end": { "type": "end" } }), json!([])));
    assert_eq!(
        e,
        Error::MissingField {
            node: "end".into(),
            field: "result"
        }
    );
    let e = err(base(
        json!({ "end": { "type": "end", "result": "won" } }),
        json!([]),
    ));
    assert!(
        matches!(e, Error::Parse { .. }) && e.to_string().contains("won"),
        "{e}"
    );
    let e = err(base(
        json!({ "end": { "type": "end", "result": "success", "escalation": "pager" } }),
        json!([]),
    ));
    assert!(e.to_string().contains("pager"), "{e}");
}

#[test]
fn fields_of_other_node_types_are_rejected() {
    let e = err(base(
        json!({ "end": { "type": "end", "result": "success", "maxRetries": 2 } }),
        json!([]),
    ));
    assert!(
        matches!(&e, Error::InvalidField { node, field: "maxRetries", .. } if node == "end"),
        "{e}"
    );
    let e = err(base(
        json!({ "start": { "type": "start", "agent": "x" } }),
        json!([]),
    ));
    assert!(
        matches!(e, Error::InvalidField { field: "agent", .. }),
        "{e}"
    );
    let e = err(base(
        json!({ "work": { "type": "task", "name": "W", "result": "success" } }),
        json!([]),
    ));
    assert!(
        matches!(
            e,
            Error::InvalidField {
                field: "result",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn outputs_must_be_distinct_non_empty_and_not_reserved() {
    for (outputs, needle) in [
        (json!([]), "at least one"),
        (json!(["ok", "ok"]), "twice"),
        (json!(["ok", ""]), "non-empty"),
        (json!(["ok", "max_retries_exceeded"]), "reserved"),
    ] {
        let e = err(base(
            json!({ "work": { "type": "task", "name": "W", "outputs": outputs } }),
            json!([]),
        ));
        assert!(
            matches!(
                e,
                Error::InvalidField {
                    field: "outputs",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains(needle), "{e}");
    }
}

#[test]
fn max_retries_must_be_positive_and_needs_a_failed_output() {
    let e = err(base(
        json!({ "work": { "type": "gate", "name": "W", "maxRetries": 0 } }),
        json!([]),
    ));
    assert!(
        matches!(
            e,
            Error::InvalidField {
                field: "maxRetries",
                ..
            }
        ),
        "{e}"
    );
    let gate = json!({ "type": "gate", "name": "W", "maxRetries": 2, "outputs": ["approved", "rejected"] });
    let e = err(base(json!({ "work": gate }), json!([])));
    assert!(e.to_string().contains("`failed` output"), "{e}");
}

#[test]
fn subflow_needs_a_workflow() {
    let e = err(base(json!({ "work": { "type": "subflow" } }), json!([])));
    assert_eq!(
        e,
        Error::MissingField {
            node: "work".into(),
            field: "workflow"
        }
    );
    let e = err(base(
        json!({ "work": { "type": "subflow", "workflow": "" } }),
        json!([]),
    ));
    assert!(
        matches!(
            e,
            Error::InvalidField {
                field: "workflow",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn node_ids_must_be_non_empty() {
    let e = err(base(
        json!({ "": { "type": "task", "name": "W" } }),
        json!([]),
    ));
    assert!(matches!(e, Error::InvalidField { field: "id", .. }), "{e}");
}

#[test]
fn missing_start() {
    let e = err(json!({ "nodes": { "end": { "type": "end", "result": "success" } }, "edges": [] }));
    assert_eq!(e, Error::MissingStart);
}

#[test]
fn duplicate_start() {
    let e = err(base(
        json!({ "again": { "type": "start" } }),
        json!([{ "from": "again", "to": "work" }]),
    ));
    assert_eq!(
        e,
        Error::DuplicateStart {
            nodes: vec!["again".into(), "start".into()]
        }
    );
    assert_eq!(
        e.to_string(),
        "workflow has 2 start nodes (again, start); exactly one is required"
    );
}

#[test]
fn duplicate_node_ids_are_rejected() {
    let yaml = "nodes:\n  a: { type: start }\n  a: { type: start }\n";
    let e = WorkflowDefinition::from_yaml(yaml).unwrap_err();
    assert!(e.to_string().contains("duplicate node id `a`"), "{e}");
    let json = r#"{"nodes": {"a": {"type": "start"}, "a": {"type": "start"}}}"#;
    let e = WorkflowDefinition::from_json(json).unwrap_err();
    assert!(e.to_string().contains("duplicate node id `a`"), "{e}");
}

#[test]
fn edges_to_unknown_nodes() {
    let e = err(base(
        json!({}),
        json!([{ "from": "work", "to": "nowhere", "on": "failed" }]),
    ));
    assert_eq!(
        e,
        Error::UnknownEdgeNode {
            index: 2,
            from: "work".into(),
            to: "nowhere".into(),
            missing: "nowhere".into()
        }
    );
    let e = err(base(json!({}), json!([{ "from": "ghost", "to": "end" }])));
    assert!(
        matches!(e, Error::UnknownEdgeNode { ref missing, .. } if missing == "ghost"),
        "{e}"
    );
}

#[test]
fn end_nodes_with_outgoing_edges() {
    let e = err(base(json!({}), json!([{ "from": "end", "to": "work" }])));
    assert_eq!(
        e,
        Error::EndHasOutgoing {
            node: "end".into(),
            to: "work".into()
        }
    );
}

#[test]
fn on_values_a_node_cannot_output() {
    let e = err(base(
        json!({}),
        json!([{ "from": "work", "to": "end", "on": "approved" }]),
    ));
    assert_eq!(
        e,
        Error::UnknownEdgeCondition {
            from: "work".into(),
            to: "end".into(),
            on: "approved".into(),
            allowed: vec!["passed".into(), "failed".into()],
        }
    );
    // max_retries_exceeded is only an output of steps with maxRetries.
    let e = err(base(
        json!({}),
        json!([{ "from": "work", "to": "end", "on": "max_retries_exceeded" }]),
    ));
    assert!(matches!(e, Error::UnknownEdgeCondition { .. }), "{e}");
    // Start nodes only output `passed`.
    let e = err(base(
        json!({}),
        json!([{ "from": "start", "to": "end", "on": "failed" }]),
    ));
    assert!(
        matches!(e, Error::UnknownEdgeCondition { ref from, .. } if from == "start"),
        "{e}"
    );
}

#[test]
fn custom_outputs_are_valid_conditions() {
    let def = json!({
        "nodes": {
            "start": { "type": "start" },
            "triage": { "type": "gate", "name": "Triage", "outputs": ["bug", "feature", "noise"] },
            "fix": { "type": "task", "name": "Fix" },
            "build": { "type": "task", "name": "Build" },
            "end": { "type": "end", "result": "success" },
            "drop": { "type": "end", "result": "cancelled" }
        },
        "edges": [
            { "from": "start", "to": "triage" },
            { "from": "triage", "to": "fix", "on": "bug" },
            { "from": "triage", "to": "build", "on": "feature" },
            { "from": "triage", "to": "drop", "on": "noise" },
            { "from": "fix", "to": "end" }, { "from": "build", "to": "end" }
        ]
    });
    let w = check(def).unwrap();
    assert_eq!(w.route("triage", "feature").unwrap().to, "build");
}

#[test]
fn two_edges_for_one_condition_are_ambiguous() {
    let e = err(base(
        json!({ "other": { "type": "end", "result": "failure" } }),
        json!([{ "from": "work", "to": "other" }]),
    ));
    assert_eq!(
        e,
        Error::AmbiguousEdges {
            node: "work".into(),
            condition: "the unconditional fallback".into()
        }
    );
    let e = err(base(
        json!({ "other": { "type": "end", "result": "failure" } }),
        json!([{ "from": "work", "to": "other", "on": "failed" }, { "from": "work", "to": "end", "on": "failed" }]),
    ));
    assert_eq!(
        e,
        Error::AmbiguousEdges {
            node: "work".into(),
            condition: "`on: failed`".into()
        }
    );
}

#[test]
fn every_output_needs_a_route() {
    let def = json!({
        "nodes": {
            "start": { "type": "start" },
            "review": { "type": "gate", "name": "Review" },
            "end": { "type": "end", "result": "success" }
        },
        "edges": [{ "from": "start", "to": "review" }, { "from": "review", "to": "end", "on": "passed" }]
    });
    assert_eq!(
        err(def),
        Error::UnroutedOutput {
            node: "review".into(),
            output: "failed".into()
        }
    );

    // A step with maxRetries needs somewhere to escalate to.
    let def = json!({
        "nodes": {
            "start": { "type": "start" },
            "review": { "type": "gate", "name": "Review", "maxRetries": 2 },
            "end": { "type": "end", "result": "success" }
        },
        "edges": [
            { "from": "start", "to": "review" },
            { "from": "review", "to": "end", "on": "passed" },
            { "from": "review", "to": "review", "on": "failed" }
        ]
    });
    assert_eq!(
        err(def),
        Error::UnroutedOutput {
            node: "review".into(),
            output: "max_retries_exceeded".into()
        }
    );
}

#[test]
fn cycles_that_are_not_retry_loops() {
    let def = json!({
        "nodes": {
            "start": { "type": "start" },
            "a": { "type": "task", "name": "A" },
            "b": { "type": "gate", "name": "B" },
            "end": { "type": "end", "result": "success" }
        },
        "edges": [
            { "from": "start", "to": "a" }, { "from": "a", "to": "b" },
            { "from": "b", "to": "a", "on": "failed" }, { "from": "b", "to": "end", "on": "passed" }
        ]
    });
    let e = err(def);
    assert_eq!(
        e,
        Error::Cycle {
            path: vec!["a".into(), "b".into(), "a".into()]
        }
    );
    assert_eq!(e.to_string(), "cycle that is not a retry loop: a -> b -> a");
}

#[test]
fn escalation_edges_cannot_close_a_cycle() {
    let def = json!({
        "nodes": {
            "start": { "type": "start" },
            "a": { "type": "task", "name": "A" },
            "b": { "type": "gate", "name": "B", "maxRetries": 2 },
            "end": { "type": "end", "result": "success" }
        },
        "edges": [
            { "from": "start", "to": "a" }, { "from": "a", "to": "b" },
            { "from": "b", "to": "a", "on": "failed" },
            { "from": "b", "to": "start", "on": "max_retries_exceeded" },
            { "from": "b", "to": "end", "on": "passed" }
        ]
    });
    assert!(matches!(err(def), Error::Cycle { .. }));
}

#[test]
fn retry_loops_are_allowed_and_left_out_of_the_plan() {
    let def = json!({
        "nodes": {
            "start": { "type": "start" },
            "a": { "type": "task", "name": "A" },
            "b": { "type": "gate", "name": "B \"quoted\"", "maxRetries": 2 },
            "end": { "type": "end", "result": "success" },
            "hitl": { "type": "end", "result": "blocked", "escalation": "hitl" }
        },
        "edges": [
            { "from": "start", "to": "a" }, { "from": "a", "to": "b" },
            { "from": "b", "to": "a", "on": "failed", "label": "again" },
            { "from": "b", "to": "hitl", "on": "max_retries_exceeded" },
            { "from": "b", "to": "end", "on": "passed" }
        ]
    });
    let plan = ExecutionPlan::of(&check(def).unwrap());
    assert_eq!(
        plan.levels,
        vec![vec!["start"], vec!["a"], vec!["b"], vec!["end", "hitl"]]
    );
    assert_eq!(plan.level_of("hitl"), Some(3));
    let m = &plan.mermaid;
    // Ids are aliased: `end` is a Mermaid keyword.
    assert!(m.contains("n0[\"A\"]"), "{m}");
    assert!(m.contains("n1{\"B #quot;quoted#quot;\"}"), "{m}");
    assert!(m.contains("n2([\"end: success\"])"), "{m}");
    assert!(m.contains("n3([\"hitl: blocked, hitl\"])"), "{m}");
    assert!(
        m.contains("n1 -.->|\"failed: again\"| n0"),
        "retry edges are dotted: {m}"
    );
    assert!(m.contains("n4 --> n0"), "{m}");
}

#[test]
fn unreachable_nodes() {
    let e = err(base(
        json!({ "orphan": { "type": "task", "name": "Orphan" } }),
        json!([{ "from": "orphan", "to": "end" }]),
    ));
    assert_eq!(
        e,
        Error::Unreachable {
            nodes: vec!["orphan".into()]
        }
    );
}

#[test]
fn nodes_without_a_path_to_an_end() {
    let def = json!({
        "nodes": {
            "start": { "type": "start" },
            "review": { "type": "gate", "name": "Review" },
            "dead": { "type": "task", "name": "Dead end" },
            "end": { "type": "end", "result": "success" }
        },
        "edges": [
            { "from": "start", "to": "review" },
            { "from": "review", "to": "end", "on": "passed" },
            { "from": "review", "to": "dead", "on": "failed" }
        ]
    });
    let e = err(def);
    assert_eq!(
        e,
        Error::NoPathToEnd {
            nodes: vec!["dead".into()]
        }
    );
    assert_eq!(e.to_string(), "no path to an end node from: dead");
}

#[test]
fn self_loops_are_cycles_unless_they_are_retries() {
    let looped = |on: Value| {
        json!({
            "nodes": {
                "start": { "type": "start" },
                "spin": { "type": "gate", "name": "Spin", "maxRetries": 2 },
                "end": { "type": "end", "result": "success" },
                "hitl": { "type": "end", "result": "blocked", "escalation": "hitl" }
            },
            "edges": [
                { "from": "start", "to": "spin" },
                { "from": "spin", "to": "spin", "on": on },
                { "from": "spin", "to": "end", "on": "passed" },
                { "from": "spin", "to": "hitl", "on": "max_retries_exceeded" }
            ]
        })
    };
    assert!(check(looped(json!("failed"))).is_ok());
    let mut bad = looped(json!("failed"));
    bad["edges"][1] = json!({ "from": "spin", "to": "spin" });
    assert_eq!(
        err(bad),
        Error::Cycle {
            path: vec!["spin".into(), "spin".into()]
        }
    );
}

#[test]
fn empty_workflow_id() {
    let def = WorkflowDefinition::from_value(base(json!({}), json!([]))).unwrap();
    let e = Workflow::new(" ", def).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { argument: "id", .. }),
        "{e}"
    );
}

#[test]
fn definitions_round_trip_through_json_and_yaml() {
    let text = include_str!("data/workflows/research.yaml");
    let def = WorkflowDefinition::from_yaml(text).unwrap();
    let json = serde_json::to_string(&def).unwrap();
    assert_eq!(WorkflowDefinition::from_json(&json).unwrap(), def);
    let yaml = serde_yaml::to_string(&def).unwrap();
    assert_eq!(WorkflowDefinition::from_yaml(&yaml).unwrap(), def);
}

#[test]
fn json_with_trailing_characters_is_refused_and_a_byte_order_mark_is_skipped() {
    let json = r#"{"nodes":{"s":{"type":"start"},"e":{"type":"end","result":"success"}},"edges":[{"from":"s","to":"e"}]}"#;
    assert!(WorkflowDefinition::from_json(json).is_ok());
    // Regression: `}}} ]]` after the definition was ignored.
    for text in [format!("{json}}}}} ]]"), format!("{json} x")] {
        let e = WorkflowDefinition::from_json(&text)
            .unwrap_err()
            .to_string();
        assert!(e.contains("trailing characters"), "{e}");
        // Through the YAML door (an MCP argument, a .yaml file) it is JSON's error too.
        let e = WorkflowDefinition::from_yaml(&text)
            .unwrap_err()
            .to_string();
        assert!(e.contains("trailing characters"), "{e}");
    }
    // Regression: a byte-order mark made a YAML file "more than one document".
    let yaml = "nodes:\n  s: { type: start }\n  e: { type: end, result: success }\nedges:\n  - { from: s, to: e }\n";
    assert!(WorkflowDefinition::from_yaml(&format!("\u{feff}{yaml}")).is_ok());
    assert!(WorkflowDefinition::from_json(&format!("\u{feff}{json}")).is_ok());
}
