//! What an agent knows about the session it works in.

use super::AgentState;
use crate::{Message, Role};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The session an agent works in (the seed's `AgentContext`), passed to sub-agents on
/// delegation. camelCase on the wire.
///
/// ```
/// use navigator_core::AgentContext;
/// let mut ctx = AgentContext::new("sess-1", "user-7").with_preference("tone", "brief");
/// ctx.push_user("What's due this week?");
/// ctx.push_assistant("Two tasks: ...");
/// assert_eq!(ctx.recent(1)[0].content, "Two tasks: ...");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentContext {
    /// The conversation session.
    pub session_id: String,
    /// The user.
    pub user_id: String,
    /// The user's display name, for prompts (`{{user_name}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_name: Option<String>,
    /// The project the user is working in, by item id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_project: Option<String>,
    /// Contacts relevant to the request, by item id or name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relevant_contacts: Vec<String>,
    /// Learned or stated preferences (`tone` → `brief`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub user_preferences: BTreeMap<String, String>,
    /// The conversation so far, oldest first.
    #[serde(default)]
    pub history: Vec<Message>,
    /// The state of the agent holding this context.
    #[serde(default)]
    pub current_state: AgentState,
}

impl AgentContext {
    /// A fresh context for `session_id` and `user_id`.
    pub fn new(session_id: impl Into<String>, user_id: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
            user_id: user_id.into(),
            ..Self::default()
        }
    }

    /// Sets the user's display name.
    pub fn with_user_name(mut self, name: impl Into<String>) -> Self {
        self.user_name = Some(name.into());
        self
    }

    /// Adds a preference.
    pub fn with_preference(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.user_preferences.insert(key.into(), value.into());
        self
    }

    /// Appends a user turn to the history.
    pub fn push_user(&mut self, content: impl Into<String>) {
        self.history.push(Message::user(content));
    }

    /// Appends an assistant turn to the history.
    pub fn push_assistant(&mut self, content: impl Into<String>) {
        self.history.push(Message::assistant(content));
    }

    /// The last `n` turns, oldest first, starting at a user turn so a prompt built from
    /// them never opens with the assistant (Anthropic rejects that).
    pub fn recent(&self, n: usize) -> &[Message] {
        let mut start = self.history.len().saturating_sub(n);
        while start < self.history.len() && self.history[start].role != Role::User {
            start += 1;
        }
        if start == self.history.len() && n > 0 {
            start = self.history.len().saturating_sub(n);
        }
        &self.history[start..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_shape_is_camel_case_and_round_trips() {
        let mut ctx = AgentContext::new("s", "u").with_preference("tone", "brief");
        ctx.active_project = Some("proj_phoenix".into());
        ctx.push_user("hi");
        let v = serde_json::to_value(&ctx).unwrap();
        assert_eq!(v["sessionId"], "s");
        assert_eq!(v["activeProject"], "proj_phoenix");
        assert_eq!(v["userPreferences"]["tone"], "brief");
        assert_eq!(v["currentState"], "idle");
        let back: AgentContext = serde_json::from_value(v).unwrap();
        assert_eq!(back, ctx);
    }

    #[test]
    fn recent_starts_at_a_user_turn() {
        let mut ctx = AgentContext::new("s", "u");
        ctx.push_user("q1");
        ctx.push_assistant("a1");
        ctx.push_user("q2");
        ctx.push_assistant("a2");
        let contents = |m: &[Message]| m.iter().map(|m| m.content.clone()).collect::<Vec<_>>();
        assert_eq!(contents(ctx.recent(3)), ["q2", "a2"]);
        assert_eq!(contents(ctx.recent(4)), ["q1", "a1", "q2", "a2"]);
        assert_eq!(contents(ctx.recent(1)), ["a2"]);
        assert!(ctx.recent(0).is_empty());
    }
}
