//! [`ScriptedLlm`]: an [`Llm`] that replays a cassette, for tests and offline examples.
//!
//! Always compiled (it needs nothing beyond serde), so other crates' tests and examples use it
//! without a feature flag. A cassette is JSON:
//!
//! ```json
//! { "model": "claude-sonnet-4-5",
//!   "interactions": [
//!     { "text": "{\"intent\":\"direct_answer\",\"confidence\":0.95}",
//!       "usage": {"input_tokens": 812, "output_tokens": 21} },
//!     { "when": {"contains": "inbox"}, "text": "…", "repeat": true },
//!     { "tool_calls": [{"id": "call_1", "name": "search", "arguments": {"q": "inbox"}}] },
//!     { "fault": {"kind": "rate_limited", "retry_after_ms": 1000} } ] }
//! ```

use super::{ChatRequest, ChatResponse, Llm, LlmErrorKind, Role, ToolCall, Usage};
use crate::{Error, Result};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

const PROVIDER: &str = "scripted";

/// A recorded exchange list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cassette {
    /// The model the replies claim to come from (pricing looks it up).
    #[serde(default = "default_model")]
    pub model: String,
    /// The replies, in order.
    pub interactions: Vec<Interaction>,
}

fn default_model() -> String {
    PROVIDER.to_string()
}

/// One reply: text and/or tool calls with usage, or a fault.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Interaction {
    /// Only requests matching this get this reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Matcher>,
    /// The answer text (an answer has `text`, `tool_calls` or both; a fault has neither).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The tools the answer calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The failure to raise instead of answering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// Usage reported with the answer.
    #[serde(default)]
    pub usage: Usage,
    /// Stop reason reported with the answer (when absent: `tool_use` for an answer that calls
    /// tools, `end_turn` otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Keeps the reply for later requests instead of using it up.
    #[serde(default)]
    pub repeat: bool,
}

impl Interaction {
    /// A reply with `text` and no usage.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// A reply that calls these tools, with no text.
    pub fn calls(calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls: calls,
            ..Self::default()
        }
    }

    /// A fault.
    pub fn fault(fault: Fault) -> Self {
        Self {
            fault: Some(fault),
            ..Self::default()
        }
    }

    /// Sets the reported usage.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// Answers only requests matching `matcher`.
    pub fn when(mut self, matcher: Matcher) -> Self {
        self.when = Some(matcher);
        self
    }

    /// Keeps the reply for every later matching request.
    pub fn repeating(mut self) -> Self {
        self.repeat = true;
        self
    }
}

/// Which requests an interaction answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matcher {
    /// A substring of the last user message: of its text or of one of the tool results it
    /// carries (a turn that hands back results usually has no text of its own, so a reply to
    /// it is picked by what the tools returned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    /// A substring of the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_contains: Option<String>,
}

impl Matcher {
    /// Matches when the last user message (its text or a tool result it carries) contains `s`.
    pub fn contains(s: impl Into<String>) -> Self {
        Self {
            contains: Some(s.into()),
            system_contains: None,
        }
    }

    fn matches(&self, request: &ChatRequest) -> bool {
        let last_user = request.messages.iter().rev().find(|m| m.role == Role::User);
        self.contains.as_deref().is_none_or(|s| {
            last_user.is_some_and(|m| {
                m.content.contains(s) || m.tool_results.iter().any(|r| r.content.contains(s))
            })
        }) && self
            .system_contains
            .as_deref()
            .is_none_or(|s| request.system_text().contains(s))
    }
}

/// A failure to inject, shaped as the real clients report it ([`Error::LlmApi`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fault {
    /// The provider did not answer in time.
    Timeout,
    /// HTTP 429, optionally with `retry-after`.
    RateLimited {
        /// The wait the provider asked for, in milliseconds.
        #[serde(default)]
        retry_after_ms: Option<u64>,
    },
    /// An HTTP 5xx.
    Server {
        /// The status (500, 503, 529, ...).
        status: u16,
    },
    /// A body that is not the provider's JSON.
    MalformedBody,
}

impl Fault {
    fn into_error(self) -> Error {
        let (kind, status, retry_after, message) = match self {
            Fault::Timeout => (
                LlmErrorKind::Timeout,
                None,
                None,
                "scripted timeout".to_string(),
            ),
            Fault::RateLimited { retry_after_ms } => (
                LlmErrorKind::RateLimited,
                Some(429),
                retry_after_ms.map(Duration::from_millis),
                "scripted rate limit".to_string(),
            ),
            Fault::Server { status } => (
                LlmErrorKind::Server,
                Some(status),
                None,
                format!("scripted server error {status}"),
            ),
            Fault::MalformedBody => (
                LlmErrorKind::MalformedResponse,
                None,
                None,
                "scripted malformed body `{\"choices\": [`".to_string(),
            ),
        };
        Error::LlmApi {
            provider: PROVIDER.into(),
            kind,
            status,
            retry_after,
            attempts: 1,
            message,
        }
    }
}

/// How replies are picked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Replay {
    /// The next reply in order; a `when` on it must match or the call fails.
    #[default]
    InOrder,
    /// The first remaining reply whose `when` matches (no `when` matches anything).
    ByMatch,
}

#[derive(Debug, Default)]
struct State {
    remaining: Vec<Interaction>,
    requests: Vec<ChatRequest>,
}

/// Replays recorded answers and faults, and records every request for assertions.
///
/// ```
/// use navigator_core::{ChatRequest, Fault, Interaction, Llm, LlmErrorKind, ScriptedLlm};
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let llm = ScriptedLlm::from_texts("claude-haiku-4-5", ["first"])
///     .with(Interaction::fault(Fault::Timeout));
/// assert_eq!(llm.chat(&ChatRequest::new("a")).await?.text, "first");
/// let err = llm.chat(&ChatRequest::new("b")).await.unwrap_err();
/// assert!(matches!(err, navigator_core::Error::LlmApi { kind: LlmErrorKind::Timeout, .. }));
/// assert_eq!(llm.requests()[1].messages[0].content, "b");
/// # Ok::<(), navigator_core::Error>(()) }).unwrap();
/// ```
#[derive(Debug)]
pub struct ScriptedLlm {
    model: String,
    replay: Replay,
    state: Mutex<State>,
}

impl ScriptedLlm {
    /// Replays `cassette` in order; fails when an interaction is neither an answer (`text`
    /// and/or `tool_calls`) nor a `fault`, or both (the error names its index).
    pub fn new(cassette: Cassette) -> Result<Self> {
        for (i, it) in cassette.interactions.iter().enumerate() {
            let answers = it.text.is_some() || !it.tool_calls.is_empty();
            if answers == it.fault.is_some() {
                return Err(Error::invalid(
                    format!("interactions[{i}]"),
                    "needs either `text` and/or `tool_calls`, or a `fault` alone",
                ));
            }
        }
        Ok(Self {
            model: cassette.model,
            replay: Replay::InOrder,
            state: Mutex::new(State {
                remaining: cassette.interactions,
                requests: Vec::new(),
            }),
        })
    }

    /// Loads a cassette file (JSON).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::File {
            what: "LLM cassette".into(),
            path: path.to_path_buf(),
            reason: e.to_string(),
            fix: None,
        })?;
        let cassette: Cassette = crate::from_json(&text).map_err(|e| match e {
            Error::Parse {
                path: at, message, ..
            } => Error::File {
                what: "LLM cassette".into(),
                path: path.to_path_buf(),
                reason: format!("at `{at}`: {message}"),
                fix: None,
            },
            other => other,
        })?;
        Self::new(cassette)
    }

    /// Replays `texts` in order as answers of `model`.
    pub fn from_texts<S: Into<String>>(model: &str, texts: impl IntoIterator<Item = S>) -> Self {
        Self {
            model: model.to_string(),
            replay: Replay::InOrder,
            state: Mutex::new(State {
                remaining: texts.into_iter().map(Interaction::text).collect(),
                requests: Vec::new(),
            }),
        }
    }

    /// Picks replies this way.
    pub fn replay(mut self, replay: Replay) -> Self {
        self.replay = replay;
        self
    }

    /// Appends a reply.
    pub fn with(self, interaction: Interaction) -> Self {
        self.push(interaction);
        self
    }

    /// Appends a reply to a shared instance.
    pub fn push(&self, interaction: Interaction) {
        self.lock().remaining.push(interaction);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every request received, oldest first.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.lock().requests.clone()
    }

    /// Replies not used yet.
    pub fn remaining(&self) -> usize {
        self.lock().remaining.len()
    }

    fn pick(&self, state: &mut State, request: &ChatRequest) -> Result<Interaction> {
        let n = state.requests.len();
        let index = match self.replay {
            Replay::InOrder => match state.remaining.first() {
                Some(it) if it.when.as_ref().is_none_or(|m| m.matches(request)) => Some(0),
                Some(it) => {
                    return Err(self.error(format!(
                        "request #{n} does not match the next scripted reply's `when` {:?}",
                        it.when
                    )))
                }
                None => None,
            },
            Replay::ByMatch => state
                .remaining
                .iter()
                .position(|it| it.when.as_ref().is_none_or(|m| m.matches(request))),
        };
        let Some(i) = index else {
            let last = request
                .messages
                .last()
                .map(|m| m.token_text())
                .unwrap_or_default();
            return Err(self.error(format!(
                "no scripted reply left for request #{n} (last message: {:?})",
                super::structured::preview(&last)
            )));
        };
        Ok(if state.remaining[i].repeat {
            state.remaining[i].clone()
        } else {
            state.remaining.remove(i)
        })
    }

    fn error(&self, message: String) -> Error {
        Error::Llm {
            provider: PROVIDER.into(),
            message,
        }
    }
}

#[async_trait]
impl Llm for ScriptedLlm {
    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.model
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        let mut state = self.lock();
        let picked = self.pick(&mut state, request);
        state.requests.push(request.clone());
        let it = picked?;
        if let Some(fault) = it.fault {
            return Err(fault.into_error());
        }
        let stop_reason = it.stop_reason.unwrap_or_else(|| {
            if it.tool_calls.is_empty() {
                "end_turn".into()
            } else {
                "tool_use".into()
            }
        });
        Ok(ChatResponse {
            text: it.text.unwrap_or_default(),
            usage: it.usage,
            model: self.model.clone(),
            stop_reason: Some(stop_reason),
            tool_calls: it.tool_calls,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn by_match_picks_the_matching_reply_and_keeps_repeating_ones() {
        let llm = ScriptedLlm::from_texts("m", Vec::<String>::new())
            .replay(Replay::ByMatch)
            .with(Interaction::text("inbox!").when(Matcher::contains("inbox")))
            .with(
                Interaction::text("calendar")
                    .when(Matcher::contains("meeting"))
                    .repeating(),
            );
        block_on(async {
            assert_eq!(
                llm.chat(&ChatRequest::new("book a meeting"))
                    .await
                    .unwrap()
                    .text,
                "calendar"
            );
            assert_eq!(
                llm.chat(&ChatRequest::new("my inbox?")).await.unwrap().text,
                "inbox!"
            );
            assert_eq!(
                llm.chat(&ChatRequest::new("another meeting"))
                    .await
                    .unwrap()
                    .text,
                "calendar"
            );
            let err = llm
                .chat(&ChatRequest::new("inbox again"))
                .await
                .unwrap_err();
            assert!(
                err.to_string()
                    .contains("no scripted reply left for request #3"),
                "{err}"
            );
        });
        assert_eq!(llm.requests().len(), 4);
        assert_eq!(llm.remaining(), 1);
    }

    #[test]
    fn in_order_refuses_a_request_that_misses_the_next_when() {
        let llm = ScriptedLlm::from_texts("m", Vec::<String>::new())
            .with(Interaction::text("x").when(Matcher::contains("inbox")));
        let err = block_on(llm.chat(&ChatRequest::new("weather"))).unwrap_err();
        assert!(err.to_string().contains("does not match"), "{err}");
    }

    #[test]
    fn faults_become_typed_api_errors() {
        let llm = ScriptedLlm::from_texts("m", Vec::<String>::new())
            .with(Interaction::fault(Fault::RateLimited {
                retry_after_ms: Some(1500),
            }))
            .with(Interaction::fault(Fault::Server { status: 529 }))
            .with(Interaction::fault(Fault::MalformedBody));
        block_on(async {
            let e = llm.chat(&ChatRequest::new("a")).await.unwrap_err();
            assert!(
                matches!(e, Error::LlmApi { kind: LlmErrorKind::RateLimited, status: Some(429), retry_after: Some(d), .. } if d == Duration::from_millis(1500))
            );
            let e = llm.chat(&ChatRequest::new("a")).await.unwrap_err();
            assert!(matches!(
                e,
                Error::LlmApi {
                    kind: LlmErrorKind::Server,
                    status: Some(529),
                    ..
                }
            ));
            let e = llm.chat(&ChatRequest::new("a")).await.unwrap_err();
            assert!(matches!(
                e,
                Error::LlmApi {
                    kind: LlmErrorKind::MalformedResponse,
                    ..
                }
            ));
        });
    }

    #[test]
    fn interaction_with_both_text_and_fault_is_rejected_by_index() {
        let mut bad = Interaction::text("x");
        bad.fault = Some(Fault::Timeout);
        let err = ScriptedLlm::new(Cassette {
            model: "m".into(),
            interactions: vec![Interaction::text("ok"), bad],
        })
        .unwrap_err();
        assert_eq!(err.field(), Some("interactions[1]"));
    }

    fn call(id: &str, q: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "search".into(),
            arguments: serde_json::json!({"q": q}),
        }
    }

    #[test]
    fn tool_call_replies_carry_their_calls_and_a_tool_use_stop_reason() {
        let llm = ScriptedLlm::from_texts("m", Vec::<String>::new())
            .with(Interaction::calls(vec![
                call("c1", "inbox"),
                call("c2", "calendar"),
            ]))
            .with(Interaction {
                tool_calls: vec![call("c3", "notes")],
                stop_reason: Some("tool_calls".into()),
                ..Interaction::text("Searching.")
            })
            .with(Interaction::text("done"));
        block_on(async {
            let first = llm.chat(&ChatRequest::new("a")).await.unwrap();
            assert_eq!(first.text, "");
            assert_eq!(
                first.tool_calls,
                [call("c1", "inbox"), call("c2", "calendar")]
            );
            assert_eq!(first.stop_reason.as_deref(), Some("tool_use"));
            let second = llm.chat(&ChatRequest::new("a")).await.unwrap();
            assert_eq!(
                (second.text.as_str(), second.stop_reason.as_deref()),
                ("Searching.", Some("tool_calls"))
            );
            assert_eq!(second.tool_calls, [call("c3", "notes")]);
            let third = llm.chat(&ChatRequest::new("a")).await.unwrap();
            assert!(third.tool_calls.is_empty());
            assert_eq!(third.stop_reason.as_deref(), Some("end_turn"));
        });
    }

    #[test]
    fn contains_looks_into_the_tool_results_of_the_last_user_turn() {
        let llm = ScriptedLlm::from_texts("m", Vec::<String>::new())
            .replay(Replay::ByMatch)
            .with(Interaction::text("from the question").when(Matcher::contains("inbox")))
            .with(Interaction::text("from the result").when(Matcher::contains("3 unread")));
        let mut request = ChatRequest::new("what's in my inbox?");
        request
            .messages
            .push(crate::Message::tool_use("", vec![call("c1", "inbox")]));
        request
            .messages
            .push(crate::Message::tool_results(vec![crate::ToolResult {
                call_id: "c1".into(),
                content: "3 unread".into(),
                is_error: false,
            }]));
        let answer = block_on(llm.chat(&request)).unwrap();
        assert_eq!(answer.text, "from the result");
    }

    #[test]
    fn interaction_with_only_tool_calls_is_valid_but_calls_with_a_fault_are_not() {
        let mut bad = Interaction::calls(vec![call("c1", "x")]);
        bad.fault = Some(Fault::Timeout);
        let cassette = |interactions| Cassette {
            model: "m".into(),
            interactions,
        };
        assert!(
            ScriptedLlm::new(cassette(vec![Interaction::calls(vec![call("c1", "x")])])).is_ok()
        );
        let err = ScriptedLlm::new(cassette(vec![Interaction::text("ok"), bad])).unwrap_err();
        assert_eq!(err.field(), Some("interactions[1]"));
        assert!(err.to_string().contains("`tool_calls`"), "{err}");
        let err = ScriptedLlm::new(cassette(vec![Interaction::default()])).unwrap_err();
        assert_eq!(err.field(), Some("interactions[0]"));
    }
}
