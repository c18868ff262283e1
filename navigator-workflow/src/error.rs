//! The crate's one error type.
//!
//! Every variant names the input that was wrong (node, edge, task, workflow, argument) so an
//! orchestrator — or the LLM behind it — can fix the call without guessing.

use crate::task::TaskStatus;

/// Everything that can go wrong when defining workflows, loading tasks or advancing them.
///
/// Errors never leave partial state behind: an operation that fails changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The definition text is not valid JSON/YAML or does not have the definition's shape.
    #[error("cannot parse workflow definition ({format}): {message}")]
    Parse {
        /// `json`, `yaml` or `value`.
        format: &'static str,
        /// The parser's message, including the path of the offending field.
        message: String,
    },
    /// A node's `type` is not one of the five node types.
    #[error("node `{node}`: unknown type `{value}` (expected start, end, task, gate or subflow)")]
    UnknownNodeType {
        /// Node id.
        node: String,
        /// The rejected `type` value.
        value: String,
    },
    /// A field the node type requires is absent.
    #[error("node `{node}`: missing required field `{field}`")]
    MissingField {
        /// Node id.
        node: String,
        /// Missing field name.
        field: &'static str,
    },
    /// A field is present but its value is not allowed (or the field is not allowed on this type).
    #[error("node `{node}`: invalid `{field}`: {reason}")]
    InvalidField {
        /// Node id.
        node: String,
        /// Offending field name.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The definition has no `start` node.
    #[error("workflow has no start node; exactly one is required")]
    MissingStart,
    /// The definition has more than one `start` node.
    #[error("workflow has {} start nodes ({}); exactly one is required", .nodes.len(), .nodes.join(", "))]
    DuplicateStart {
        /// Ids of all start nodes.
        nodes: Vec<String>,
    },
    /// An edge names a node that does not exist.
    #[error("edge #{index} ({from} -> {to}) references unknown node `{missing}`")]
    UnknownEdgeNode {
        /// Position of the edge in `edges`.
        index: usize,
        /// Edge source.
        from: String,
        /// Edge target.
        to: String,
        /// The id that matches no node.
        missing: String,
    },
    /// An end node has an outgoing edge.
    #[error("end node `{node}` has an outgoing edge (to `{to}`); end nodes are terminal")]
    EndHasOutgoing {
        /// The end node.
        node: String,
        /// Target of the offending edge.
        to: String,
    },
    /// An edge's `on` is a value its source node can never output.
    #[error("edge {from} -> {to}: node `{from}` never outputs `{on}` (it outputs: {})", .allowed.join(", "))]
    UnknownEdgeCondition {
        /// Edge source.
        from: String,
        /// Edge target.
        to: String,
        /// The rejected condition.
        on: String,
        /// What the node can output.
        allowed: Vec<String>,
    },
    /// Two edges leave a node under the same condition, so the route would be ambiguous.
    #[error("node `{node}` has more than one edge for {condition}")]
    AmbiguousEdges {
        /// Source node.
        node: String,
        /// `on: VALUE` or `the unconditional fallback`.
        condition: String,
    },
    /// A node can produce an output for which no edge (specific or fallback) exists.
    #[error("node `{node}` has no edge for output `{output}` (add `on: {output}` or an unconditional edge)")]
    UnroutedOutput {
        /// Source node.
        node: String,
        /// The output nobody routes.
        output: String,
    },
    /// Nodes that cannot be reached from the start node.
    #[error("nodes unreachable from start: {}", .nodes.join(", "))]
    Unreachable {
        /// The unreachable node ids.
        nodes: Vec<String>,
    },
    /// Nodes from which no end node can be reached.
    #[error("no path to an end node from: {}", .nodes.join(", "))]
    NoPathToEnd {
        /// The stuck node ids.
        nodes: Vec<String>,
    },
    /// A cycle that does not go through a retry edge (`on: failed` from a node with `maxRetries`).
    #[error("cycle that is not a retry loop: {}", .path.join(" -> "))]
    Cycle {
        /// The cycle, first node repeated at the end.
        path: Vec<String>,
    },
    /// An argument is empty, out of range or otherwise unusable.
    #[error("invalid argument `{argument}`: {reason}")]
    InvalidArgument {
        /// Argument name as the caller spells it.
        argument: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// No workflow with this id is loaded.
    #[error("unknown workflow `{id}` (load it with load_workflow first)")]
    UnknownWorkflow {
        /// The requested id.
        id: String,
    },
    /// No task with this id is in the tree.
    #[error("unknown task `{id}`")]
    UnknownTask {
        /// The requested id.
        id: String,
    },
    /// A task points at a step its workflow does not have.
    #[error("workflow `{workflow}` has no step `{step}`")]
    UnknownStep {
        /// Workflow id.
        workflow: String,
        /// The missing step.
        step: String,
    },
    /// The task's position no longer fits the loaded definitions: a subflow node it entered
    /// was changed, or its step is now an end ([`Navigator::stranded_tasks`]).
    ///
    /// [`Navigator::stranded_tasks`]: crate::Navigator::stranded_tasks
    #[error("task `{task}` cannot move: {reason} (load definitions it fits, as they were when it got there)")]
    Stranded {
        /// Task id.
        task: String,
        /// What does not fit.
        reason: String,
    },
    /// A task in a loaded tree is malformed.
    #[error("task #{index} (`{task}`): {reason}")]
    InvalidTask {
        /// Position of the task in the loaded array.
        index: usize,
        /// Its id (may be empty).
        task: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The reported result is not an output of the task's current step.
    #[error("task `{task}` at step `{step}`: result `{result}` is not an output of this step (expected one of: {})", .allowed.join(", "))]
    InvalidResult {
        /// Task id.
        task: String,
        /// Its current step.
        step: String,
        /// The rejected result.
        result: String,
        /// The step's outputs.
        allowed: Vec<String>,
    },
    /// The task is finished, escalated or paused and cannot be advanced.
    #[error("task `{task}` is {status} at step `{step}` and cannot be advanced")]
    TaskNotActive {
        /// Task id.
        task: String,
        /// Its status.
        status: TaskStatus,
        /// Its current step.
        step: String,
    },
    /// Entering a subflow would re-enter a workflow that is already running for this task.
    #[error("subflow `{node}` would re-enter workflow `{workflow}`, which is already on the task's stack")]
    SubflowRecursion {
        /// The subflow node.
        node: String,
        /// The workflow it names.
        workflow: String,
    },
    /// A workflow enters itself through its subflows, directly or through other workflows:
    /// a task would descend for ever.
    #[error("subflow cycle: {}", cycle.join(" -> "))]
    SubflowCycle {
        /// The workflows on the cycle, the first repeated at the end.
        cycle: Vec<String>,
    },
    /// Another agent holds a live claim on the task.
    #[error("task `{task}` is claimed by `{holder}` until {expires_at} ms since the epoch")]
    TaskClaimed {
        /// Task id.
        task: String,
        /// The agent holding the claim.
        holder: String,
        /// When the claim expires, milliseconds since the Unix epoch.
        expires_at: u64,
    },
    /// The agent does not hold a live claim on the task (to renew or release).
    #[error("task `{task}` is not claimed by `{agent}`")]
    NotClaimed {
        /// Task id.
        task: String,
        /// The agent that asked.
        agent: String,
    },
    /// A task is not in a status the operation accepts (resume takes `HITL` or `PAUSED`).
    #[error("task `{task}` is {status}; {reason}")]
    WrongStatus {
        /// Task id.
        task: String,
        /// Its status.
        status: TaskStatus,
        /// What the operation needs.
        reason: &'static str,
    },
    /// The state file could not be read, parsed or written.
    #[error("state file {path}: {message}")]
    State {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A step has no edge for an output. Validation rules this out; reported instead of panicking.
    #[error("workflow `{workflow}`: step `{step}` has no edge for `{output}`")]
    NoRoute {
        /// Workflow id.
        workflow: String,
        /// Step id.
        step: String,
        /// The output that found no edge.
        output: String,
    },
    /// The MCP transport failed (stdio closed mid-handshake, I/O error).
    #[cfg(feature = "mcp")]
    #[error("MCP transport failed: {message}")]
    Transport {
        /// The SDK's message.
        message: String,
    },
    /// A snapshot could not be read or written.
    #[error("invalid snapshot: {message}")]
    Snapshot {
        /// What is wrong with it.
        message: String,
    },
    /// A workflow definition file (or a directory of them) could not be read, parsed or
    /// loaded.
    #[error("{path}: {message}")]
    DefinitionFile {
        /// The file or directory.
        path: String,
        /// What went wrong, with the parser's or the validator's message.
        message: String,
    },
}

impl Error {
    /// A stable, machine-readable name for the error kind (`unknown_task`, `cycle`, …), used in
    /// MCP tool error payloads so clients can branch without parsing messages.
    ///
    /// ```
    /// use navigator_workflow::Error;
    /// assert_eq!(Error::MissingStart.code(), "missing_start");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            Error::Parse { .. } => "parse",
            Error::UnknownNodeType { .. } => "unknown_node_type",
            Error::MissingField { .. } => "missing_field",
            Error::InvalidField { .. } => "invalid_field",
            Error::MissingStart => "missing_start",
            Error::DuplicateStart { .. } => "duplicate_start",
            Error::UnknownEdgeNode { .. } => "unknown_edge_node",
            Error::EndHasOutgoing { .. } => "end_has_outgoing",
            Error::UnknownEdgeCondition { .. } => "unknown_edge_condition",
            Error::AmbiguousEdges { .. } => "ambiguous_edges",
            Error::UnroutedOutput { .. } => "unrouted_output",
            Error::Unreachable { .. } => "unreachable",
            Error::NoPathToEnd { .. } => "no_path_to_end",
            Error::Cycle { .. } => "cycle",
            Error::InvalidArgument { .. } => "invalid_argument",
            Error::UnknownWorkflow { .. } => "unknown_workflow",
            Error::UnknownTask { .. } => "unknown_task",
            Error::Stranded { .. } => "stranded",
            Error::UnknownStep { .. } => "unknown_step",
            Error::InvalidTask { .. } => "invalid_task",
            Error::InvalidResult { .. } => "invalid_result",
            Error::TaskNotActive { .. } => "task_not_active",
            Error::SubflowRecursion { .. } => "subflow_recursion",
            Error::NoRoute { .. } => "no_route",
            Error::SubflowCycle { .. } => "subflow_cycle",
            Error::TaskClaimed { .. } => "task_claimed",
            Error::NotClaimed { .. } => "not_claimed",
            Error::WrongStatus { .. } => "wrong_status",
            Error::State { .. } => "state",
            #[cfg(feature = "mcp")]
            Error::Transport { .. } => "transport",
            Error::Snapshot { .. } => "snapshot",
            Error::DefinitionFile { .. } => "definition_file",
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
