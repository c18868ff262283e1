//! The agent lifecycle: a [`Lifecycle`] enforces the transitions between [`AgentState`]s and
//! lets others watch.

pub use crate::agent_state::AgentState;
use crate::{Error, Result};
use tokio::sync::watch;

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
