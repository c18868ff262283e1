//! Workflow definitions: the JSON/YAML shape an orchestrator loads.
//!
//! Parsing goes through a flat "raw" node so that every rule can be checked with the node id
//! in hand: serde's own errors for tagged enums would say "missing field `name`" without
//! saying which of twenty nodes lacks it. Graph-level rules (one start, reachability, cycles)
//! live in [`crate::validate`]; this module only checks what a single node or edge can get
//! wrong on its own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Result;

mod raw;

use raw::{parse_error, RawDefinition};

/// The output a step reports when it succeeded.
pub const PASSED: &str = "passed";
/// The output a step reports when it failed; with `maxRetries` it triggers a retry.
pub const FAILED: &str = "failed";
/// The condition the engine (never the orchestrator) raises once a step's retries are spent.
pub const MAX_RETRIES_EXCEEDED: &str = "max_retries_exceeded";

/// Start nodes only ever say "go on".
const START_OUTPUTS: [&str; 1] = [PASSED];
/// A subflow reports whether the workflow it ran ended in success.
const SUBFLOW_OUTPUTS: [&str; 2] = [PASSED, FAILED];

/// A workflow blueprint: nodes keyed by id, and the edges between them.
///
/// ```
/// use navigator_workflow::WorkflowDefinition;
///
/// let def = WorkflowDefinition::from_yaml(r#"
/// nodes:
///   start: { type: start }
///   work: { type: task, name: Do the work }
///   end: { type: end, result: success }
/// edges:
///   - { from: start, to: work }
///   - { from: work, to: end }
/// "#).unwrap();
/// assert_eq!(def.nodes.len(), 3);
/// assert_eq!(def.nodes["work"].outputs(), vec!["passed", "failed"]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawDefinition", into = "RawDefinition")]
pub struct WorkflowDefinition {
    /// Optional id carried inside the file; `load_workflow` takes the id as an argument instead.
    pub id: Option<String>,
    /// Human-readable name.
    pub name: Option<String>,
    /// Longer description.
    pub description: Option<String>,
    /// Nodes by id.
    pub nodes: BTreeMap<String, Node>,
    /// Directed edges. At most one per (source, condition), so their order never decides a route.
    pub edges: Vec<Edge>,
}

/// One node of a workflow graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Human-readable name (required for task and gate nodes).
    pub name: Option<String>,
    /// Longer description.
    pub description: Option<String>,
    /// What kind of node this is, with the kind's own properties.
    pub kind: NodeKind,
}

/// The five node types.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// The entry point (exactly one per workflow).
    Start,
    /// A terminal node.
    End(EndNode),
    /// An executable unit of work.
    Task(StepNode),
    /// A quality gate / review checkpoint.
    Gate(StepNode),
    /// Runs another workflow, then continues here with `passed` or `failed`.
    Subflow(SubflowNode),
}

/// Properties of an end node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndNode {
    /// How the workflow ended.
    pub result: EndResult,
    /// Who must be told.
    pub escalation: Option<Escalation>,
}

/// Properties shared by task and gate nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepNode {
    /// What the step can report (default `["passed", "failed"]`).
    pub outputs: Vec<String>,
    /// Failures tolerated at this step: the failure that brings the count to `maxRetries`
    /// takes the `max_retries_exceeded` route, earlier ones take the `failed` route as a retry.
    pub max_retries: Option<u32>,
    /// The agent type that performs the step.
    pub agent: Option<String>,
    /// The phase the step belongs to.
    pub stage: Option<Stage>,
}

/// Properties of a subflow node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubflowNode {
    /// Id of the workflow to run.
    pub workflow: String,
}

/// How a workflow ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EndResult {
    /// The work is done.
    Success,
    /// The work failed.
    Failure,
    /// The work cannot go on without outside help.
    Blocked,
    /// The work was abandoned.
    Cancelled,
}

/// Who an end node escalates to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Escalation {
    /// A human in the loop must take over; the task gets status `HITL`.
    Hitl,
    /// Raise an alert.
    Alert,
    /// File a ticket.
    Ticket,
}

/// The phase of work a step belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Deciding what to do.
    Planning,
    /// Doing it.
    Development,
    /// Checking it.
    Verification,
    /// Shipping it.
    Delivery,
}

/// A directed edge, optionally conditional on the source's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edge {
    /// Source node id.
    pub from: String,
    /// Target node id.
    pub to: String,
    /// The output that selects this edge; `None` makes it the fallback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl Node {
    /// The outputs this node can report (end nodes report none).
    pub fn outputs(&self) -> Vec<&str> {
        match &self.kind {
            NodeKind::Start => START_OUTPUTS.to_vec(),
            NodeKind::End(_) => Vec::new(),
            NodeKind::Task(step) | NodeKind::Gate(step) => {
                step.outputs.iter().map(String::as_str).collect()
            }
            NodeKind::Subflow(_) => SUBFLOW_OUTPUTS.to_vec(),
        }
    }

    /// Whether `value` is one of [`Node::outputs`]; allocation-free for the engine's hot path.
    pub fn can_output(&self, value: &str) -> bool {
        match &self.kind {
            NodeKind::Start => START_OUTPUTS.contains(&value),
            NodeKind::End(_) => false,
            NodeKind::Task(step) | NodeKind::Gate(step) => step.outputs.iter().any(|o| o == value),
            NodeKind::Subflow(_) => SUBFLOW_OUTPUTS.contains(&value),
        }
    }

    /// The step's `maxRetries`, if it is a task or gate that has one.
    pub fn max_retries(&self) -> Option<u32> {
        match &self.kind {
            NodeKind::Task(step) | NodeKind::Gate(step) => step.max_retries,
            _ => None,
        }
    }

    /// The `type` string of this node.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            NodeKind::Start => "start",
            NodeKind::End(_) => "end",
            NodeKind::Task(_) => "task",
            NodeKind::Gate(_) => "gate",
            NodeKind::Subflow(_) => "subflow",
        }
    }
}

impl WorkflowDefinition {
    /// Parses a definition from JSON text.
    pub fn from_json(text: &str) -> Result<Self> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut de = serde_json::Deserializer::from_str(text);
        let raw = serde_path_to_error::deserialize(&mut de).map_err(|e| parse_error("json", e))?;
        // Anything after the definition but whitespace is an error, not ignored.
        de.end().map_err(|e| crate::error::Error::Parse {
            format: "json",
            message: e.to_string(),
        })?;
        RawDefinition::into_definition(raw)
    }

    /// Parses a definition from YAML text (JSON is accepted too, being YAML).
    ///
    /// A leading byte-order mark is skipped; text that starts with `{` is read as JSON, so a
    /// JSON definition's error is JSON's (trailing characters, not "more than one document").
    pub fn from_yaml(text: &str) -> Result<Self> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.trim_start().starts_with('{') {
            return Self::from_json(text);
        }
        let de = serde_yaml::Deserializer::from_str(text);
        let raw = serde_path_to_error::deserialize(de).map_err(|e| parse_error("yaml", e))?;
        RawDefinition::into_definition(raw)
    }

    /// Converts an already-parsed JSON value, e.g. an MCP tool argument.
    pub fn from_value(value: serde_json::Value) -> Result<Self> {
        let raw = serde_path_to_error::deserialize(value).map_err(|e| parse_error("value", e))?;
        RawDefinition::into_definition(raw)
    }
}
