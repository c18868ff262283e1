//! The agent lifecycle's states and the transitions allowed between them. Plain vocabulary,
//! below both the agents (`agent::Lifecycle` enforces the transitions) and the error type
//! (`Error::AgentTransition` names the two states).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where an agent is in handling a request (the seed's `AgentState`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AgentState {
    /// Waiting for work.
    #[default]
    Idle,
    /// Setting up for a request (templates, clients).
    Initializing,
    /// Gathering context (history, preferences, search).
    LoadingContext,
    /// Thinking: calling the model, deciding.
    Processing,
    /// A tool call is running.
    WaitingForTool,
    /// A question to the user is open.
    WaitingForUser,
    /// A sub-agent is working on part of the request.
    Delegating,
    /// Assembling the final answer.
    Completing,
    /// Failed; must be reset to `Idle`.
    Error,
}

impl AgentState {
    /// All states, in lifecycle order.
    pub const ALL: [AgentState; 9] = [
        Self::Idle,
        Self::Initializing,
        Self::LoadingContext,
        Self::Processing,
        Self::WaitingForTool,
        Self::WaitingForUser,
        Self::Delegating,
        Self::Completing,
        Self::Error,
    ];

    /// The wire name (`loading_context`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Idle => "idle",
            Self::Initializing => "initializing",
            Self::LoadingContext => "loading_context",
            Self::Processing => "processing",
            Self::WaitingForTool => "waiting_for_tool",
            Self::WaitingForUser => "waiting_for_user",
            Self::Delegating => "delegating",
            Self::Completing => "completing",
            Self::Error => "error",
        }
    }

    /// Whether an agent in this state may move to `next`.
    ///
    /// Any state may fail into `Error`; `Error` only resets to `Idle`. Work runs
    /// idle → initializing → (loading_context →) processing, leaves processing for a tool,
    /// the user or a sub-agent and comes back, and ends completing → idle. A question to the
    /// user may also end the turn (waiting_for_user → idle), and loading more context
    /// mid-task is allowed (processing → loading_context).
    pub fn can_transition_to(self, next: AgentState) -> bool {
        use AgentState::*;
        if next == Error {
            return self != Error;
        }
        matches!(
            (self, next),
            (Idle, Initializing)
                | (Initializing, LoadingContext | Processing)
                | (LoadingContext, Processing)
                | (
                    Processing,
                    LoadingContext | WaitingForTool | WaitingForUser | Delegating | Completing
                )
                | (WaitingForTool | WaitingForUser | Delegating, Processing)
                | (WaitingForUser, Idle)
                | (Completing, Idle)
                | (Error, Idle)
        )
    }
}

impl std::fmt::Display for AgentState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
