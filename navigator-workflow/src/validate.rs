//! Graph-level validation of a [`WorkflowDefinition`].
//!
//! The rules, checked in this order so the first error is the most fundamental one:
//! exactly one start; edges only between known nodes; end nodes are terminal; every `on` is
//! something the source can output; at most one edge per (source, condition); no cycle
//! except through retry edges; every node reachable from start; every node can reach an
//! end; every output has a route.
//!
//! Requiring a route for every output (instead of failing at run time) is what lets the
//! engine promise that `advance` with a valid result always lands somewhere, and together
//! with "cycles only through retry edges" that every task terminates.

use std::collections::{BTreeSet, HashMap, VecDeque};

use crate::definition::{Edge, NodeKind, WorkflowDefinition, FAILED, MAX_RETRIES_EXCEEDED};
use crate::error::{Error, Result};

/// Where each node's edges lead, conditional ones first: that order *is* the specificity rule.
#[derive(Debug, Clone, Default)]
pub(crate) struct Routes {
    /// Index into `edges` of each edge with an `on`, in definition order.
    pub(crate) conditional: Vec<usize>,
    /// Index of the edge without `on`, if any.
    pub(crate) fallback: Option<usize>,
}

/// Whether `edge` is a retry edge: `on: failed` out of a node that has `maxRetries`. Only
/// these may close a cycle, and execution plans ignore them.
pub(crate) fn is_retry_edge(def: &WorkflowDefinition, edge: &Edge) -> bool {
    edge.on.as_deref() == Some(FAILED)
        && def
            .nodes
            .get(&edge.from)
            .and_then(|n| n.max_retries())
            .is_some()
}

/// Checks every rule and returns the start node id and the routing table.
pub(crate) fn validate(def: &WorkflowDefinition) -> Result<(String, HashMap<String, Routes>)> {
    let start = single_start(def)?;
    check_edges(def)?;
    let routes = build_routes(def)?;
    check_cycles(def)?;
    check_reachability(def, &start)?;
    check_routed_outputs(def, &routes)?;
    Ok((start, routes))
}

fn single_start(def: &WorkflowDefinition) -> Result<String> {
    let starts: Vec<String> = def
        .nodes
        .iter()
        .filter(|(_, n)| matches!(n.kind, NodeKind::Start))
        .map(|(id, _)| id.clone())
        .collect();
    match starts.len() {
        0 => Err(Error::MissingStart),
        1 => Ok(starts.into_iter().next().unwrap_or_default()),
        _ => Err(Error::DuplicateStart { nodes: starts }),
    }
}

fn check_edges(def: &WorkflowDefinition) -> Result<()> {
    for (index, edge) in def.edges.iter().enumerate() {
        for endpoint in [&edge.from, &edge.to] {
            if !def.nodes.contains_key(endpoint) {
                return Err(Error::UnknownEdgeNode {
                    index,
                    from: edge.from.clone(),
                    to: edge.to.clone(),
                    missing: endpoint.clone(),
                });
            }
        }
        let source = &def.nodes[&edge.from];
        if matches!(source.kind, NodeKind::End(_)) {
            return Err(Error::EndHasOutgoing {
                node: edge.from.clone(),
                to: edge.to.clone(),
            });
        }
        if let Some(on) = &edge.on {
            let escalation = on == MAX_RETRIES_EXCEEDED && source.max_retries().is_some();
            if !source.can_output(on) && !escalation {
                let mut allowed: Vec<String> =
                    source.outputs().iter().map(|o| o.to_string()).collect();
                if source.max_retries().is_some() {
                    allowed.push(MAX_RETRIES_EXCEEDED.to_string());
                }
                return Err(Error::UnknownEdgeCondition {
                    from: edge.from.clone(),
                    to: edge.to.clone(),
                    on: on.clone(),
                    allowed,
                });
            }
        }
    }
    Ok(())
}

fn build_routes(def: &WorkflowDefinition) -> Result<HashMap<String, Routes>> {
    let mut routes: HashMap<String, Routes> = HashMap::new();
    for (index, edge) in def.edges.iter().enumerate() {
        let entry = routes.entry(edge.from.clone()).or_default();
        let clash = match &edge.on {
            Some(on) => entry
                .conditional
                .iter()
                .any(|&i| def.edges[i].on.as_ref() == Some(on))
                .then(|| format!("`on: {on}`")),
            None => entry
                .fallback
                .is_some()
                .then(|| "the unconditional fallback".to_string()),
        };
        if let Some(condition) = clash {
            return Err(Error::AmbiguousEdges {
                node: edge.from.clone(),
                condition,
            });
        }
        match edge.on {
            Some(_) => entry.conditional.push(index),
            None => entry.fallback = Some(index),
        }
    }
    Ok(routes)
}

fn check_routed_outputs(def: &WorkflowDefinition, routes: &HashMap<String, Routes>) -> Result<()> {
    for (id, node) in &def.nodes {
        let mut outputs = node.outputs();
        if node.max_retries().is_some() {
            outputs.push(MAX_RETRIES_EXCEEDED);
        }
        let node_routes = routes.get(id);
        for output in outputs {
            let routed = node_routes.is_some_and(|r| {
                r.fallback.is_some()
                    || r.conditional
                        .iter()
                        .any(|&i| def.edges[i].on.as_deref() == Some(output))
            });
            if !routed {
                return Err(Error::UnroutedOutput {
                    node: id.clone(),
                    output: output.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// Iterative DFS (fuzzed inputs can be long chains) over the graph without retry edges.
fn check_cycles(def: &WorkflowDefinition) -> Result<()> {
    let mut successors: HashMap<&str, Vec<&str>> = HashMap::new();
    for edge in def.edges.iter().filter(|e| !is_retry_edge(def, e)) {
        successors
            .entry(edge.from.as_str())
            .or_default()
            .push(edge.to.as_str());
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Unseen,
        OnPath,
        Done,
    }
    let mut marks: HashMap<&str, Mark> = def
        .nodes
        .keys()
        .map(|k| (k.as_str(), Mark::Unseen))
        .collect();
    for root in def.nodes.keys() {
        if marks[root.as_str()] != Mark::Unseen {
            continue;
        }
        let mut path: Vec<(&str, usize)> = vec![(root.as_str(), 0)];
        marks.insert(root.as_str(), Mark::OnPath);
        while let Some((node, next)) = path.last_mut() {
            let node = *node;
            let succ = successors.get(node).map(Vec::as_slice).unwrap_or(&[]);
            let Some(&target) = succ.get(*next) else {
                marks.insert(node, Mark::Done);
                path.pop();
                continue;
            };
            *next += 1;
            match marks[target] {
                Mark::OnPath => {
                    let from = path.iter().position(|(n, _)| *n == target).unwrap_or(0);
                    let mut cycle: Vec<String> =
                        path[from..].iter().map(|(n, _)| n.to_string()).collect();
                    cycle.push(target.to_string());
                    return Err(Error::Cycle { path: cycle });
                }
                Mark::Unseen => {
                    marks.insert(target, Mark::OnPath);
                    path.push((target, 0));
                }
                Mark::Done => {}
            }
        }
    }
    Ok(())
}

fn check_reachability(def: &WorkflowDefinition, start: &str) -> Result<()> {
    let forward = flood(def, [start], |e| (e.from.as_str(), e.to.as_str()));
    let unreachable: Vec<String> = def
        .nodes
        .keys()
        .filter(|k| !forward.contains(k.as_str()))
        .cloned()
        .collect();
    if !unreachable.is_empty() {
        return Err(Error::Unreachable { nodes: unreachable });
    }
    let ends = def
        .nodes
        .iter()
        .filter(|(_, n)| matches!(n.kind, NodeKind::End(_)))
        .map(|(k, _)| k.as_str());
    let backward = flood(def, ends, |e| (e.to.as_str(), e.from.as_str()));
    let stuck: Vec<String> = def
        .nodes
        .keys()
        .filter(|k| !backward.contains(k.as_str()))
        .cloned()
        .collect();
    if !stuck.is_empty() {
        return Err(Error::NoPathToEnd { nodes: stuck });
    }
    Ok(())
}

/// Breadth-first flood from `seeds` along edges oriented by `direction` (from, to).
fn flood<'a>(
    def: &'a WorkflowDefinition,
    seeds: impl IntoIterator<Item = &'a str>,
    direction: impl Fn(&'a Edge) -> (&'a str, &'a str),
) -> BTreeSet<&'a str> {
    let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
    for edge in &def.edges {
        let (a, b) = direction(edge);
        next.entry(a).or_default().push(b);
    }
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut queue: VecDeque<&str> = VecDeque::new();
    for seed in seeds {
        if seen.insert(seed) {
            queue.push_back(seed);
        }
    }
    while let Some(node) = queue.pop_front() {
        for &succ in next.get(node).into_iter().flatten() {
            if seen.insert(succ) {
                queue.push_back(succ);
            }
        }
    }
    seen
}
