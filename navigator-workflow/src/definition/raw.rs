//! The on-the-wire shape of a definition and its checked conversion to the typed one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{
    Edge, EndNode, EndResult, Escalation, Node, NodeKind, Stage, StepNode, SubflowNode,
    WorkflowDefinition, FAILED, MAX_RETRIES_EXCEEDED, PASSED,
};
use crate::error::{Error, Result};

pub(super) fn parse_error<E: std::fmt::Display>(
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
pub(super) struct RawDefinition {
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
    pub(super) fn into_definition(self) -> Result<WorkflowDefinition> {
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
