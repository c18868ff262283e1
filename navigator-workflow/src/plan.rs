//! Execution plans: topological levels and a Mermaid rendering of a workflow.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;

use crate::definition::{EndResult, Escalation, NodeKind};
use crate::validate::is_retry_edge;
use crate::workflow::Workflow;

/// A workflow laid out for display and planning.
///
/// `levels[k]` holds the nodes whose longest path from a source is `k` edges, retry edges
/// ignored (they point backwards by construction). Nodes of a level are sorted by id so the
/// plan is deterministic.
///
/// ```
/// # use navigator_workflow::{ExecutionPlan, Workflow, WorkflowDefinition};
/// let def = WorkflowDefinition::from_yaml(r#"
/// nodes:
///   start: { type: start }
///   work: { type: task, name: Work, maxRetries: 2 }
///   done: { type: end, result: success }
///   hitl: { type: end, result: blocked, escalation: hitl }
/// edges:
///   - { from: start, to: work }
///   - { from: work, to: done, on: passed }
///   - { from: work, to: work, on: failed }
///   - { from: work, to: hitl, on: max_retries_exceeded }
/// "#).unwrap();
/// let plan = ExecutionPlan::of(&Workflow::new("w", def).unwrap());
/// assert_eq!(plan.levels, vec![vec!["start"], vec!["work"], vec!["done", "hitl"]]);
/// assert!(plan.mermaid.starts_with("flowchart TD"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionPlan {
    /// The workflow id.
    pub workflow_id: String,
    /// Node ids by topological level.
    pub levels: Vec<Vec<String>>,
    /// The retry edges (`from`, `to`) left out of the levels.
    pub retry_edges: Vec<(String, String)>,
    /// A Mermaid `flowchart` of the whole graph; retry edges are dotted.
    pub mermaid: String,
}

impl ExecutionPlan {
    /// Lays out `workflow`.
    pub fn of(workflow: &Workflow) -> Self {
        let def = workflow.definition();
        let mut indegree: BTreeMap<&str, usize> =
            def.nodes.keys().map(|k| (k.as_str(), 0)).collect();
        let mut successors: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        let mut retry_edges = Vec::new();
        for edge in &def.edges {
            if is_retry_edge(def, edge) {
                retry_edges.push((edge.from.clone(), edge.to.clone()));
                continue;
            }
            successors
                .entry(edge.from.as_str())
                .or_default()
                .push(edge.to.as_str());
            *indegree.entry(edge.to.as_str()).or_default() += 1;
        }
        let mut level: BTreeMap<&str, usize> = BTreeMap::new();
        let mut queue: VecDeque<&str> = indegree
            .iter()
            .filter(|(_, d)| **d == 0)
            .map(|(k, _)| *k)
            .collect();
        for node in &queue {
            level.insert(node, 0);
        }
        while let Some(node) = queue.pop_front() {
            let here = level[node];
            for &succ in successors.get(node).into_iter().flatten() {
                let entry = level.entry(succ).or_insert(0);
                *entry = (*entry).max(here + 1);
                if let Some(d) = indegree.get_mut(succ) {
                    *d -= 1;
                    if *d == 0 {
                        queue.push_back(succ);
                    }
                }
            }
        }
        let depth = level.values().copied().max().map_or(0, |m| m + 1);
        let mut levels = vec![Vec::new(); depth];
        for (node, l) in level {
            levels[l].push(node.to_string());
        }
        ExecutionPlan {
            workflow_id: workflow.id().to_string(),
            levels,
            retry_edges,
            mermaid: mermaid(workflow),
        }
    }

    /// The level of `step`, if the step is in the plan.
    pub fn level_of(&self, step: &str) -> Option<usize> {
        self.levels.iter().position(|l| l.iter().any(|n| n == step))
    }
}

/// Renders the graph. Node ids become `n0, n1, …` because Mermaid reserves words such as
/// `end` — the very id most workflows use for their end node.
fn mermaid(workflow: &Workflow) -> String {
    let def = workflow.definition();
    let alias: BTreeMap<&str, String> = def
        .nodes
        .keys()
        .enumerate()
        .map(|(i, k)| (k.as_str(), format!("n{i}")))
        .collect();
    let mut out = String::from("flowchart TD\n");
    for (id, node) in &def.nodes {
        let label = escape(node.name.as_deref().unwrap_or(id));
        let a = &alias[id.as_str()];
        let line = match &node.kind {
            NodeKind::Start => format!("    {a}([\"{label}\"])\n"),
            NodeKind::Task(_) => format!("    {a}[\"{label}\"]\n"),
            NodeKind::Gate(_) => format!("    {a}{{\"{label}\"}}\n"),
            NodeKind::Subflow(s) => format!("    {a}[[\"{label} ({})\"]]\n", escape(&s.workflow)),
            NodeKind::End(end) => {
                let result = match end.result {
                    EndResult::Success => "success",
                    EndResult::Failure => "failure",
                    EndResult::Blocked => "blocked",
                    EndResult::Cancelled => "cancelled",
                };
                let escalation = match end.escalation {
                    Some(Escalation::Hitl) => ", hitl",
                    Some(Escalation::Alert) => ", alert",
                    Some(Escalation::Ticket) => ", ticket",
                    None => "",
                };
                format!("    {a}([\"{label}: {result}{escalation}\"])\n")
            }
        };
        out.push_str(&line);
    }
    for edge in &def.edges {
        let arrow = if is_retry_edge(def, edge) {
            "-.->"
        } else {
            "-->"
        };
        let text = match (&edge.on, &edge.label) {
            (Some(on), Some(label)) => Some(format!("{on}: {label}")),
            (Some(text), None) | (None, Some(text)) => Some(text.clone()),
            (None, None) => None,
        };
        let (from, to) = (&alias[edge.from.as_str()], &alias[edge.to.as_str()]);
        match text {
            Some(text) => {
                out.push_str(&format!("    {from} {arrow}|\"{}\"| {to}\n", escape(&text)))
            }
            None => out.push_str(&format!("    {from} {arrow} {to}\n")),
        }
    }
    out
}

/// Quoted Mermaid labels only break on `"`; Mermaid's entity syntax keeps it visible.
fn escape(text: &str) -> String {
    text.replace('"', "#quot;")
}
