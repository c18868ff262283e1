//! Agent plumbing shared by the Butler and the agents it delegates to: the lifecycle
//! ([`AgentState`], [`Lifecycle`]), the session context ([`AgentContext`]), the [`Agent`]
//! trait and a registry to delegate through ([`AgentRegistry`]).
//!
//! Delegation is by name through `Arc<dyn Agent>` so the Butler never depends on a concrete
//! sub-agent crate; the Navigator (navigator-search) is just one registered agent.

mod context;
mod state;

pub use context::AgentContext;
pub use state::{AgentState, Lifecycle};

use crate::{Error, Result, Usage};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A piece of work handed to an agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentTask {
    /// What to do, in words (usually the user's request or the Butler's rephrasing).
    pub instruction: String,
    /// Entities the delegator found relevant (names, ids).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relevant_entities: Vec<String>,
    /// Time constraints in words (`this week`, `before Friday`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_constraints: Option<String>,
    /// Structured arguments, agent-specific.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub arguments: serde_json::Value,
}

impl AgentTask {
    /// A task with only an instruction.
    pub fn new(instruction: impl Into<String>) -> Self {
        Self {
            instruction: instruction.into(),
            ..Self::default()
        }
    }
}

/// What an agent made of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentOutcome {
    /// The agent that answered.
    pub agent: String,
    /// The answer for the user, in words.
    pub response: String,
    /// Structured result (a `NavigatorResponse`, a draft, ...), agent-specific.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub data: serde_json::Value,
    /// The state the agent ended in (`idle` when done, `waiting_for_user` after a question).
    pub state: AgentState,
    /// Tokens the agent spent.
    #[serde(default)]
    pub usage: Usage,
}

/// An agent the Butler can delegate to.
///
/// Object-safe: registries hold `Arc<dyn Agent>`.
#[async_trait]
pub trait Agent: Send + Sync {
    /// A unique name (`navigator`, `triage`, `scheduler`, ...).
    fn name(&self) -> &str;

    /// One line on what the agent does, for the Butler's tool catalog.
    fn description(&self) -> &str;

    /// Handles `task` in the session `context`.
    async fn handle(&self, task: AgentTask, context: &AgentContext) -> Result<AgentOutcome>;
}

/// Agents by name.
///
/// ```
/// use navigator_core::{Agent, AgentContext, AgentOutcome, AgentRegistry, AgentState, AgentTask};
/// use std::sync::Arc;
/// struct Echo;
/// #[async_trait::async_trait]
/// impl Agent for Echo {
///     fn name(&self) -> &str { "echo" }
///     fn description(&self) -> &str { "repeats the instruction" }
///     async fn handle(&self, task: AgentTask, _: &AgentContext) -> navigator_core::Result<AgentOutcome> {
///         Ok(AgentOutcome { agent: "echo".into(), response: task.instruction,
///             data: serde_json::Value::Null, state: AgentState::Idle, usage: Default::default() })
///     }
/// }
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let agents = AgentRegistry::new().with(Arc::new(Echo));
/// let out = agents.delegate("echo", AgentTask::new("hi"), &AgentContext::new("s", "u")).await?;
/// assert_eq!(out.response, "hi");
/// assert!(agents.delegate("scheduler", AgentTask::new("x"), &AgentContext::new("s", "u")).await.is_err());
/// # Ok::<(), navigator_core::Error>(()) }).unwrap();
/// ```
#[derive(Clone, Default)]
pub struct AgentRegistry {
    agents: BTreeMap<String, Arc<dyn Agent>>,
}

impl std::fmt::Debug for AgentRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.agents.keys()).finish()
    }
}

impl AgentRegistry {
    /// No agents.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `agent` under its name, replacing one of the same name.
    pub fn with(mut self, agent: Arc<dyn Agent>) -> Self {
        self.register(agent);
        self
    }

    /// Registers `agent` under its name, replacing one of the same name.
    pub fn register(&mut self, agent: Arc<dyn Agent>) {
        self.agents.insert(agent.name().to_string(), agent);
    }

    /// The agent named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Agent>> {
        self.agents.get(name)
    }

    /// `(name, description)` of every agent, sorted by name: the Butler's catalog.
    pub fn catalog(&self) -> Vec<(&str, &str)> {
        self.agents
            .values()
            .map(|a| (a.name(), a.description()))
            .collect()
    }

    /// Hands `task` to the agent `name`; [`Error::NotFound`] (kind `agent`) if there is none.
    pub async fn delegate(
        &self,
        name: &str,
        task: AgentTask,
        context: &AgentContext,
    ) -> Result<AgentOutcome> {
        let agent = self.agents.get(name).ok_or_else(|| Error::NotFound {
            kind: "agent",
            id: name.to_string(),
        })?;
        agent.handle(task, context).await
    }
}
