//! [`ConversationStore`]: a store role apart from the [`Store`](crate::Store) umbrella, for the
//! conversation history an agent keeps between calls, and the [`ConversationRecord`] it holds.
//!
//! It stands outside the umbrella on purpose: a store written before this role existed is
//! still a `Store`, and a backend that keeps conversations says so with one more `impl`.

use crate::para::checks;
use crate::{Error, Message, Result, Usage};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A conversation's persisted state: the window of turns kept verbatim and the digest of
/// what was dropped (the Butler's history policy decides both; the store keeps them).
///
/// Invariants (checked by [`ConversationRecord::validate`], which every [`ConversationStore`]
/// runs before writing): the id follows [`ConversationRecord::check_id`]; `costUsd` is finite
/// and not negative; `updatedAt` falls in [`SUPPORTED_YEARS`](crate::SUPPORTED_YEARS); no
/// string anywhere in the record holds a NUL character (PostgreSQL's `jsonb` cannot store
/// one, and every backend keeps the same rules). camelCase on the wire; the turns keep
/// [`Message`]'s own shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConversationRecord {
    /// The conversation's id, chosen by the caller.
    pub id: String,
    /// The turns kept verbatim, oldest first (tool calls and results included).
    pub turns: Vec<Message>,
    /// Summaries of the turns that were dropped from the window, oldest first.
    #[serde(default)]
    pub digest: Vec<String>,
    /// When the conversation last changed; [`ConversationStore::list_conversations`] orders
    /// by it.
    pub updated_at: DateTime<Utc>,
    /// Tokens spent over the whole conversation.
    #[serde(default)]
    pub usage: Usage,
    /// Dollars spent over the whole conversation.
    #[serde(default)]
    pub cost_usd: f64,
}

impl ConversationRecord {
    /// The longest id, in bytes.
    pub const MAX_ID_BYTES: usize = 256;

    /// Checks a conversation id: not empty, at most [`MAX_ID_BYTES`](Self::MAX_ID_BYTES)
    /// bytes, no control characters. Stores run it on every id they are given, so an id that
    /// could never be stored is the same [`Error::InvalidField`] on every backend.
    pub fn check_id(id: &str) -> Result<()> {
        let bad = |message: String| Err(Error::invalid("id", message));
        if id.is_empty() {
            return bad("a conversation id must not be empty".into());
        }
        if id.len() > Self::MAX_ID_BYTES {
            return bad(format!(
                "conversation id is {} bytes long; at most {} are allowed (starts {:?})",
                id.len(),
                Self::MAX_ID_BYTES,
                id.chars().take(40).collect::<String>()
            ));
        }
        if let Some(c) = id.chars().find(|c| c.is_control()) {
            return bad(format!(
                "conversation id {id:?} holds the control character {:?}",
                c
            ));
        }
        Ok(())
    }

    /// Checks the invariants listed on the type.
    pub fn validate(&self) -> Result<()> {
        Self::check_id(&self.id)?;
        if !self.cost_usd.is_finite() || self.cost_usd < 0.0 {
            return Err(Error::invalid(
                "costUsd",
                format!(
                    "conversation `{}` has cost {}; it must be a finite, non-negative number of dollars",
                    self.id, self.cost_usd
                ),
            ));
        }
        checks::check_date("updatedAt", self.updated_at)?;
        let json = serde_json::to_value(self)
            .map_err(|e| Error::invalid("turns", format!("conversation `{}`: {e}", self.id)))?;
        match nul_at(&json, String::new()) {
            Some(path) => Err(Error::invalid(
                path,
                format!(
                    "conversation `{}` holds a NUL character, which PostgreSQL cannot store",
                    self.id
                ),
            )),
            None => Ok(()),
        }
    }
}

/// The path of the first string (or object key) holding a NUL character, if any.
fn nul_at(value: &serde_json::Value, path: String) -> Option<String> {
    match value {
        serde_json::Value::String(s) => s.contains('\0').then_some(path),
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| nul_at(v, format!("{path}[{i}]"))),
        serde_json::Value::Object(fields) => fields.iter().find_map(|(k, v)| {
            let here = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            if k.contains('\0') {
                Some(here)
            } else {
                nul_at(v, here)
            }
        }),
        _ => None,
    }
}

/// The conversation role of a store: one [`ConversationRecord`] per conversation id.
///
/// Not part of the [`Store`](crate::Store) umbrella (see the module docs). Object-safe and
/// `Send + Sync`. Every write validates the record first ([`ConversationRecord::validate`]),
/// so an invalid record is an [`Error::InvalidField`] and writes nothing; every method but
/// [`list_conversations`](Self::list_conversations) checks its id
/// ([`ConversationRecord::check_id`]).
///
/// ```
/// # async fn demo() -> navigator_core::Result<()> {
/// use navigator_core::{ConversationRecord, ConversationStore, MemoryStore, Message};
/// let store = MemoryStore::new();
/// let record = ConversationRecord {
///     id: "chat-1".into(),
///     turns: vec![Message::user("Where is the Q4 report?")],
///     updated_at: chrono::Utc::now(),
///     ..ConversationRecord::default()
/// };
/// store.put_conversation(&record).await?;
/// assert_eq!(store.get_conversation("chat-1").await?, Some(record));
/// assert_eq!(store.list_conversations(10).await?[0].0, "chat-1");
/// # Ok(()) }
/// ```
#[async_trait]
pub trait ConversationStore: Send + Sync {
    /// Replaces the conversation's record (insert or overwrite), atomically and durably.
    async fn put_conversation(&self, record: &ConversationRecord) -> Result<()>;

    /// The record, if any.
    async fn get_conversation(&self, id: &str) -> Result<Option<ConversationRecord>>;

    /// Deletes it; whether it existed.
    async fn delete_conversation(&self, id: &str) -> Result<bool>;

    /// Ids and update times, newest first (equal times by id, ascending), at most `limit`.
    async fn list_conversations(&self, limit: usize) -> Result<Vec<(String, DateTime<Utc>)>>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolResult;

    fn record(id: &str) -> ConversationRecord {
        ConversationRecord {
            id: id.into(),
            ..ConversationRecord::default()
        }
    }

    #[test]
    fn ids_are_checked() {
        assert!(record("chat-1").validate().is_ok());
        assert!(record(&"x".repeat(256)).validate().is_ok());
        for bad in ["", "a\nb", "tab\there", &"x".repeat(257)] {
            let err = record(bad).validate().unwrap_err();
            assert_eq!(err.field(), Some("id"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn cost_must_be_finite_and_not_negative() {
        for bad in [f64::NAN, f64::INFINITY, -0.5] {
            let err = ConversationRecord {
                cost_usd: bad,
                ..record("c")
            }
            .validate()
            .unwrap_err();
            assert_eq!(err.field(), Some("costUsd"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_nul_character_is_named_by_its_path() {
        let with_nul = ConversationRecord {
            turns: vec![
                Message::user("hi"),
                Message::tool_results(vec![ToolResult {
                    call_id: "c1".into(),
                    content: "bin\0ary".into(),
                    is_error: false,
                }]),
            ],
            ..record("c")
        };
        let err = with_nul.validate().unwrap_err();
        assert_eq!(err.field(), Some("turns[1].tool_results[0].content"));
    }

    #[test]
    fn wire_shape_is_camel_case() {
        let json = serde_json::to_value(ConversationRecord {
            cost_usd: 0.25,
            ..record("c")
        })
        .unwrap();
        assert_eq!(json["costUsd"], 0.25);
        assert!(json.get("updatedAt").is_some());
    }
}
