//! The agent lifecycle: states, the transitions allowed between them, and a [`Lifecycle`]
//! that enforces them and lets others watch.

use crate::{Error, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

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

/// An agent's current state, changed only along allowed transitions, observable through
/// [`subscribe`](Self::subscribe).
///
/// ```
/// use navigator_core::{AgentState, Lifecycle};
/// let life = Lifecycle::new("butler");
/// let mut watch = life.subscribe();
/// life.transition(AgentState::Initializing)?;
/// assert_eq!(*watch.borrow_and_update(), AgentState::Initializing);
/// assert!(life.transition(AgentState::Completing).is_err()); // must process first
/// life.fail();
/// life.transition(AgentState::Idle)?;
/// # Ok::<(), navigator_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Lifecycle {
    agent: String,
    tx: watch::Sender<AgentState>,
}

impl Lifecycle {
    /// A lifecycle for the agent `agent`, starting `Idle`.
    pub fn new(agent: impl Into<String>) -> Self {
        Self {
            agent: agent.into(),
            tx: watch::Sender::new(AgentState::Idle),
        }
    }

    /// The current state.
    pub fn state(&self) -> AgentState {
        *self.tx.borrow()
    }

    /// Moves to `next`; [`Error::AgentTransition`] naming both states if that is not allowed
    /// (the state is then unchanged).
    pub fn transition(&self, next: AgentState) -> Result<()> {
        let mut refused = None;
        self.tx.send_if_modified(|state| {
            if state.can_transition_to(next) {
                *state = next;
                true
            } else {
                refused = Some(*state);
                false
            }
        });
        match refused {
            None => Ok(()),
            Some(from) => Err(Error::AgentTransition {
                agent: self.agent.clone(),
                from,
                to: next,
            }),
        }
    }

    /// Enters `Error` (allowed from anywhere; a no-op when already there).
    pub fn fail(&self) {
        self.tx.send_if_modified(|state| {
            let changed = *state != AgentState::Error;
            *state = AgentState::Error;
            changed
        });
    }

    /// A receiver that sees every later change (`changed().await`, `borrow()`).
    pub fn subscribe(&self) -> watch::Receiver<AgentState> {
        self.tx.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn happy_path_with_tool_user_and_delegation_round_trips() {
        use AgentState::*;
        let life = Lifecycle::new("butler");
        for s in [
            Initializing,
            LoadingContext,
            Processing,
            WaitingForTool,
            Processing,
            Delegating,
            Processing,
            WaitingForUser,
            Processing,
            Completing,
            Idle,
        ] {
            life.transition(s).unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(life.state(), Idle);
    }

    #[test]
    fn refused_transition_names_agent_and_states_and_keeps_the_state() {
        let life = Lifecycle::new("navigator");
        let err = life.transition(AgentState::Delegating).unwrap_err();
        assert_eq!(
            err.to_string(),
            "agent `navigator`: cannot go from idle to delegating"
        );
        assert_eq!(life.state(), AgentState::Idle);
    }

    #[test]
    fn every_state_can_fail_and_error_only_resets_to_idle() {
        for s in AgentState::ALL {
            assert_eq!(
                s.can_transition_to(AgentState::Error),
                s != AgentState::Error,
                "{s}"
            );
        }
        let from_error: Vec<_> = AgentState::ALL
            .into_iter()
            .filter(|&n| AgentState::Error.can_transition_to(n))
            .collect();
        assert_eq!(from_error, [AgentState::Idle]);
    }

    #[tokio::test]
    async fn subscribers_observe_changes_not_refusals() {
        let life = Lifecycle::new("a");
        let mut rx = life.subscribe();
        assert!(life.transition(AgentState::Completing).is_err());
        assert!(!rx.has_changed().unwrap());
        life.transition(AgentState::Initializing).unwrap();
        rx.changed().await.unwrap();
        assert_eq!(*rx.borrow_and_update(), AgentState::Initializing);
        life.fail();
        life.fail();
        rx.changed().await.unwrap();
        assert_eq!(*rx.borrow_and_update(), AgentState::Error);
        assert!(!rx.has_changed().unwrap());
    }

    #[test]
    fn serde_names_match_the_seed() {
        assert_eq!(
            serde_json::to_string(&AgentState::WaitingForTool).unwrap(),
            "\"waiting_for_tool\""
        );
        for s in AgentState::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
    }
}
