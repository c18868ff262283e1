//! A validated workflow: a definition plus the routing table the engine walks.

use std::collections::HashMap;

use serde::Serialize;

use crate::definition::{Edge, Node, NodeKind, WorkflowDefinition};
use crate::error::{Error, Result};
use crate::validate::{validate, Routes};

/// A workflow definition that passed every validation rule, ready to route tasks.
///
/// The only way to get one is [`Workflow::new`], so every `Workflow` in the system is valid.
///
/// ```
/// use navigator_workflow::{Workflow, WorkflowDefinition};
///
/// let def = WorkflowDefinition::from_json(r#"{
///   "nodes": {
///     "start": { "type": "start" },
///     "review": { "type": "gate", "name": "Review", "maxRetries": 2 },
///     "done": { "type": "end", "result": "success" },
///     "hitl": { "type": "end", "result": "blocked", "escalation": "hitl" }
///   },
///   "edges": [
///     { "from": "start", "to": "review" },
///     { "from": "review", "to": "done", "on": "passed" },
///     { "from": "review", "to": "review", "on": "failed" },
///     { "from": "review", "to": "hitl", "on": "max_retries_exceeded" }
///   ]
/// }"#).unwrap();
/// let workflow = Workflow::new("review-only", def).unwrap();
/// assert_eq!(workflow.start(), "start");
/// assert_eq!(workflow.route("review", "passed").unwrap().to, "done");
/// ```
#[derive(Debug, Clone)]
pub struct Workflow {
    id: String,
    definition: WorkflowDefinition,
    start: String,
    routes: HashMap<String, Routes>,
}

/// What `list_workflows` reports about one workflow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowSummary {
    /// Workflow id.
    pub id: String,
    /// Human-readable name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Longer description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The start node id.
    pub start: String,
    /// Number of nodes.
    pub node_count: usize,
    /// Number of edges.
    pub edge_count: usize,
    /// Workflows this one enters through subflow nodes.
    pub subflows: Vec<String>,
}

impl Workflow {
    /// Validates `definition` and registers it under `id`.
    pub fn new(id: impl Into<String>, definition: WorkflowDefinition) -> Result<Self> {
        let id = id.into();
        if id.trim().is_empty() {
            return Err(Error::InvalidArgument {
                argument: "id",
                reason: "workflow id must be non-empty".into(),
            });
        }
        let (start, routes) = validate(&definition)?;
        let enters_itself = definition
            .nodes
            .values()
            .any(|n| matches!(&n.kind, NodeKind::Subflow(s) if s.workflow == id));
        if enters_itself {
            return Err(Error::SubflowCycle {
                cycle: vec![id.clone(), id],
            });
        }
        Ok(Workflow {
            id,
            definition,
            start,
            routes,
        })
    }

    /// The workflow id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The definition it was built from.
    pub fn definition(&self) -> &WorkflowDefinition {
        &self.definition
    }

    /// Id of the start node.
    pub fn start(&self) -> &str {
        &self.start
    }

    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.definition.nodes.get(id)
    }

    /// The edge a step takes for `output`: the edge with `on: output` if there is one,
    /// otherwise the unconditional fallback.
    pub fn route(&self, step: &str, output: &str) -> Option<&Edge> {
        let routes = self.routes.get(step)?;
        routes
            .conditional
            .iter()
            .map(|&i| &self.definition.edges[i])
            .find(|e| e.on.as_deref() == Some(output))
            .or_else(|| routes.fallback.map(|i| &self.definition.edges[i]))
    }

    /// The workflows this one enters through subflow nodes, sorted, without repeats.
    pub fn subflows(&self) -> Vec<String> {
        let mut subflows: Vec<String> = self
            .definition
            .nodes
            .values()
            .filter_map(|n| match &n.kind {
                NodeKind::Subflow(s) => Some(s.workflow.clone()),
                _ => None,
            })
            .collect();
        subflows.sort();
        subflows.dedup();
        subflows
    }

    /// A short description for listings.
    pub fn summary(&self) -> WorkflowSummary {
        let subflows = self.subflows();
        WorkflowSummary {
            id: self.id.clone(),
            name: self.definition.name.clone(),
            description: self.definition.description.clone(),
            start: self.start.clone(),
            node_count: self.definition.nodes.len(),
            edge_count: self.definition.edges.len(),
            subflows,
        }
    }
}
