//! Workflow definitions: the JSON/YAML shape an orchestrator loads.
//!
//! Parsing goes through a flat "raw" node so that every rule can be checked with the node id
//! in hand: serde's own errors for tagged enums would say "missing field `name`" without
//! saying which of twenty nodes lacks it. Graph-level rules (one start, reachability, cycles)
//! live in [`crate::validate`]; this module only checks what a single node or edge can get
//! wrong on its own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

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
    /// Directed edges, in definition order (the order breaks no ties: see [`crate::validate`]).
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
        let de = &mut serde_json::Deserializer::from_str(text);
        let raw = serde_path_to_error::deserialize(de).map_err(|e| parse_error("json", e))?;
        RawDefinition::into_definition(raw)
    }

    /// Parses a definition from YAML text (JSON is accepted too, being YAML).
    pub fn from_yaml(text: &str) -> Result<Self> {
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

fn parse_error<E: std::fmt::Display>(
    format: &'static str,
    e: serde_path_to_error::Error<E>,
) -> Error {
    let path = e.path().to_string();
    let message = if path == "." {
        e.inner().to_string()
    } else {
        format!("at `{path}`: {}", e.inner())
    };
    Error::Parse { format, message }
}

/// The on-the-wire shape of a definition.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDefinition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(deserialize_with = "unique_nodes")]
    nodes: BTreeMap<String, RawNode>,
    #[serde(default)]
    edges: Vec<Edge>,
}

/// Neither serde_json nor serde_yaml rejects a repeated map key — the last one silently
/// wins — so a copy-pasted node would replace its namesake without a word.
fn unique_nodes<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<BTreeMap<String, RawNode>, D::Error> {
    struct Nodes;
    impl<'de> serde::de::Visitor<'de> for Nodes {
        type Value = BTreeMap<String, RawNode>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of node id to node")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut nodes = BTreeMap::new();
            while let Some(id) = map.next_key::<String>()? {
                if nodes.contains_key(&id) {
                    return Err(serde::de::Error::custom(format!(
                        "duplicate node id `{id}`"
                    )));
                }
                let node = map.next_value()?;
                nodes.insert(id, node);
            }
            Ok(nodes)
        }
    }
    deserializer.deserialize_map(Nodes)
}

/// Every field any node type may carry; [`RawNode::into_node`] decides which are allowed.
#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawNode {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<EndResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    escalation: Option<Escalation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    outputs: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_retries: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stage: Option<Stage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    workflow: Option<String>,
}

impl RawDefinition {
    fn into_definition(self) -> Result<WorkflowDefinition> {
        let mut nodes = BTreeMap::new();
        for (id, raw) in self.nodes {
            if id.trim().is_empty() {
                return Err(Error::InvalidField {
                    node: id,
                    field: "id",
                    reason: "node ids must be non-empty".into(),
                });
            }
            let node = raw.into_node(&id)?;
            nodes.insert(id, node);
        }
        Ok(WorkflowDefinition {
            id: self.id,
            name: self.name,
            description: self.description,
            nodes,
            edges: self.edges,
        })
    }
}

impl TryFrom<RawDefinition> for WorkflowDefinition {
    type Error = Error;

    fn try_from(raw: RawDefinition) -> Result<Self> {
        raw.into_definition()
    }
}

impl From<WorkflowDefinition> for RawDefinition {
    fn from(def: WorkflowDefinition) -> Self {
        RawDefinition {
            id: def.id,
            name: def.name,
            description: def.description,
            nodes: def
                .nodes
                .into_iter()
                .map(|(id, node)| (id, RawNode::from(node)))
                .collect(),
            edges: def.edges,
        }
    }
}

impl From<Node> for RawNode {
    fn from(node: Node) -> Self {
        let mut raw = RawNode {
            kind: node.type_name().to_string(),
            name: node.name,
            description: node.description,
            ..RawNode::default()
        };
        match node.kind {
            NodeKind::Start => {}
            NodeKind::End(end) => {
                raw.result = Some(end.result);
                raw.escalation = end.escalation;
            }
            NodeKind::Task(step) | NodeKind::Gate(step) => {
                raw.outputs = Some(step.outputs);
                raw.max_retries = step.max_retries;
                raw.agent = step.agent;
                raw.stage = step.stage;
            }
            NodeKind::Subflow(sub) => raw.workflow = Some(sub.workflow),
        }
        raw
    }
}

impl RawNode {
    fn into_node(self, id: &str) -> Result<Node> {
        let kind = match self.kind.as_str() {
            "start" => {
                self.allow_only(id, &[])?;
                NodeKind::Start
            }
            "end" => {
                self.allow_only(id, &["result", "escalation"])?;
                let result = self.result.ok_or_else(|| missing(id, "result"))?;
                NodeKind::End(EndNode {
                    result,
                    escalation: self.escalation,
                })
            }
            "task" | "gate" => {
                self.allow_only(id, &["outputs", "maxRetries", "agent", "stage"])?;
                if self.name.as_deref().is_none_or(|n| n.trim().is_empty()) {
                    return Err(missing(id, "name"));
                }
                let step = self.step(id)?;
                if self.kind == "task" {
                    NodeKind::Task(step)
                } else {
                    NodeKind::Gate(step)
                }
            }
            "subflow" => {
                self.allow_only(id, &["workflow"])?;
                let workflow = self
                    .workflow
                    .clone()
                    .ok_or_else(|| missing(id, "workflow"))?;
                if workflow.trim().is_empty() {
                    return Err(invalid(id, "workflow", "must name a workflow id".into()));
                }
                NodeKind::Subflow(SubflowNode { workflow })
            }
            other => {
                return Err(Error::UnknownNodeType {
                    node: id.to_string(),
                    value: other.to_string(),
                })
            }
        };
        Ok(Node {
            name: self.name,
            description: self.description,
            kind,
        })
    }

    fn step(&self, id: &str) -> Result<StepNode> {
        let outputs = self
            .outputs
            .clone()
            .unwrap_or_else(|| vec![PASSED.to_string(), FAILED.to_string()]);
        if outputs.is_empty() {
            return Err(invalid(
                id,
                "outputs",
                "must list at least one output".into(),
            ));
        }
        for (i, output) in outputs.iter().enumerate() {
            if output.trim().is_empty() {
                return Err(invalid(
                    id,
                    "outputs",
                    "outputs must be non-empty strings".into(),
                ));
            }
            if output == MAX_RETRIES_EXCEEDED {
                return Err(invalid(
                    id,
                    "outputs",
                    format!("`{MAX_RETRIES_EXCEEDED}` is reserved for the engine"),
                ));
            }
            if outputs[..i].contains(output) {
                return Err(invalid(
                    id,
                    "outputs",
                    format!("`{output}` is listed twice"),
                ));
            }
        }
        if let Some(max) = self.max_retries {
            if max == 0 {
                return Err(invalid(id, "maxRetries", "must be at least 1".into()));
            }
            if !outputs.iter().any(|o| o == FAILED) {
                return Err(invalid(
                    id,
                    "maxRetries",
                    format!("retries need a `{FAILED}` output"),
                ));
            }
        }
        Ok(StepNode {
            outputs,
            max_retries: self.max_retries,
            agent: self.agent.clone(),
            stage: self.stage,
        })
    }

    /// Rejects fields that make no sense on this node type, so a typo'd type cannot silently
    /// drop configuration (an `end` with `maxRetries` was almost certainly meant as a gate).
    fn allow_only(&self, id: &str, allowed: &[&str]) -> Result<()> {
        let present = [
            ("result", self.result.is_some()),
            ("escalation", self.escalation.is_some()),
            ("outputs", self.outputs.is_some()),
            ("maxRetries", self.max_retries.is_some()),
            ("agent", self.agent.is_some()),
            ("stage", self.stage.is_some()),
            ("workflow", self.workflow.is_some()),
        ];
        match present
            .into_iter()
            .find(|(field, set)| *set && !allowed.contains(field))
        {
            Some((field, _)) => Err(invalid(
                id,
                field,
                format!("not allowed on a {} node", self.kind),
            )),
            None => Ok(()),
        }
    }
}

fn missing(node: &str, field: &'static str) -> Error {
    Error::MissingField {
        node: node.to_string(),
        field,
    }
}

fn invalid(node: &str, field: &'static str, reason: String) -> Error {
    Error::InvalidField {
        node: node.to_string(),
        field,
        reason,
    }
}
