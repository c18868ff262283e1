//! The [`Llm`] trait and the messages, usage and failure kinds it speaks in.

pub use crate::error::LlmErrorKind;
pub use crate::usage::Usage;
use crate::Result;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person (or the calling agent).
    User,
    /// The model.
    Assistant,
}

/// One turn of a conversation.
///
/// Tool use travels in two extra lists, the way Anthropic shapes it (OpenAI's wire format is
/// derived from it): an assistant turn may carry the [`ToolCall`]s the model made, and the user
/// turn after it the [`ToolResult`]s, one per call, in the same order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What was said (may be empty on a turn that only calls tools or returns results).
    pub content: String,
    /// Tools the model called on this (assistant) turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Results of the previous turn's tool calls, carried by this (user) turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_results: Vec<ToolResult>,
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
        }
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
        }
    }

    /// An assistant turn that calls tools (with whatever text came with the calls).
    pub fn tool_use(content: impl Into<String>, calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls: calls,
            ..Self::assistant(content)
        }
    }

    /// The user turn that hands back the results of the previous turn's calls.
    pub fn tool_results(results: Vec<ToolResult>) -> Self {
        Self {
            tool_results: results,
            ..Self::user("")
        }
    }

    /// The text a token counter should see: the content, each call's name and arguments and
    /// each result's content.
    pub fn token_text(&self) -> std::borrow::Cow<'_, str> {
        if self.tool_calls.is_empty() && self.tool_results.is_empty() {
            return std::borrow::Cow::Borrowed(&self.content);
        }
        let mut out = self.content.clone();
        for c in &self.tool_calls {
            out.push('\n');
            out.push_str(&c.name);
            out.push(' ');
            out.push_str(&c.arguments.to_string());
        }
        for r in &self.tool_results {
            out.push('\n');
            out.push_str(&r.content);
        }
        std::borrow::Cow::Owned(out)
    }
}

/// A tool the model may call: its name, what it does and the JSON Schema of its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolDefinition {
    /// Unique name (`[a-zA-Z0-9_-]{1,64}`: both providers restrict tool names to that).
    pub name: String,
    /// What it does and when to use it.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "type", content = "name")]
pub enum ToolChoice {
    /// The model decides (the default).
    #[default]
    Auto,
    /// The model must call some tool.
    Required,
    /// The model must not call tools (they stay in the prompt, so its prefix stays cached).
    None,
    /// The model must call this tool.
    Tool(String),
}

/// One call the model made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCall {
    /// The provider's id for the call; its result must quote it.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them. Arguments that were not valid JSON arrive as a
    /// JSON string holding the raw text, so schema validation reports them instead of the
    /// client failing.
    pub arguments: serde_json::Value,
}

impl ToolCall {
    /// A call whose arguments arrived as text (OpenAI's `function.arguments`, Anthropic's
    /// streamed `partial_json`): parsed when they are JSON, kept as a JSON string holding the
    /// raw text when not, and an empty object when there is no text (a call without arguments).
    #[cfg(any(feature = "anthropic", feature = "openai"))]
    pub(crate) fn from_raw_arguments(id: String, name: String, raw: &str) -> Self {
        let arguments = if raw.trim().is_empty() {
            serde_json::Value::Object(serde_json::Map::new())
        } else {
            serde_json::from_str(raw).unwrap_or_else(|_| serde_json::Value::String(raw.to_string()))
        };
        Self {
            id,
            name,
            arguments,
        }
    }
}

/// A streamed call being put together: its id and name come first, its arguments as text in
/// pieces.
#[cfg(any(feature = "anthropic", feature = "openai"))]
#[derive(Debug, Default)]
pub(crate) struct PartialToolCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: String,
}

#[cfg(any(feature = "anthropic", feature = "openai"))]
impl PartialToolCall {
    /// The finished call, its arguments parsed as [`ToolCall::from_raw_arguments`] does.
    pub(crate) fn finish(self) -> ToolCall {
        ToolCall::from_raw_arguments(self.id, self.name, &self.arguments)
    }
}

/// What a tool call gave back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolResult {
    /// The [`ToolCall::id`] this answers.
    pub call_id: String,
    /// The result (usually JSON text) or the error message.
    pub content: String,
    /// Whether the call failed (bad arguments, tool error); the model sees it and may retry.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

/// One block of the system prompt. Static blocks (persona, instructions, tool catalogs) are
/// marked `cache` so providers that support prompt caching reuse them across calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SystemBlock {
    /// The text.
    pub text: String,
    /// Whether the provider may cache this block (and everything before it).
    #[serde(default)]
    pub cache: bool,
}

impl SystemBlock {
    /// A block that changes per call.
    pub fn dynamic(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            cache: false,
        }
    }

    /// A block that is the same across calls and may be cached.
    pub fn cached(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            cache: true,
        }
    }
}

/// How the model should shape its answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum ResponseFormat {
    /// Free text.
    #[default]
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON matching this schema.
    JsonSchema {
        /// A name for the schema (providers require one).
        name: String,
        /// The JSON Schema.
        schema: serde_json::Value,
    },
}

/// A request to an [`Llm`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChatRequest {
    /// The system prompt, in blocks.
    pub system: Vec<SystemBlock>,
    /// The conversation so far, oldest first; the last is usually the user's.
    pub messages: Vec<Message>,
    /// Upper bound on generated tokens.
    pub max_tokens: u32,
    /// Sampling temperature (provider default when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Answer shape.
    #[serde(default)]
    pub response_format: ResponseFormat,
    /// Tools the model may call, in a stable order (they are part of the cached prefix).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDefinition>,
    /// Whether it must call one.
    #[serde(default)]
    pub tool_choice: ToolChoice,
}

impl ChatRequest {
    /// A request with one user message and a default output cap of 1024 tokens.
    pub fn new(user: impl Into<String>) -> Self {
        Self {
            messages: vec![Message::user(user)],
            max_tokens: 1024,
            ..Self::default()
        }
    }

    /// Appends a system block.
    pub fn with_system(mut self, block: SystemBlock) -> Self {
        self.system.push(block);
        self
    }

    /// Sets the output cap.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// Offers these tools.
    pub fn with_tools(mut self, tools: Vec<ToolDefinition>) -> Self {
        self.tools = tools;
        self
    }

    /// Sets the answer shape.
    pub fn with_format(mut self, format: ResponseFormat) -> Self {
        self.response_format = format;
        self
    }

    /// The whole system prompt as one string.
    pub fn system_text(&self) -> String {
        self.system
            .iter()
            .map(|b| b.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// What an [`Llm`] answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChatResponse {
    /// The generated text.
    pub text: String,
    /// Tokens consumed.
    pub usage: Usage,
    /// The model that answered.
    pub model: String,
    /// Why generation stopped, as the provider says it (`end_turn`, `stop`, `length`,
    /// `tool_use`, `tool_calls`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Tools the model called, in order (empty when it answered in text only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
}

/// A chat model.
///
/// Object-safe: agents hold an `Arc<dyn Llm>`. Providers (Anthropic, OpenAI-compatible) and
/// the test double that replays recorded responses implement it.
#[async_trait]
pub trait Llm: Send + Sync {
    /// The provider's name (`anthropic`, `openai`, ...), for errors and cost tables.
    fn provider(&self) -> &str;

    /// The model this client calls.
    fn model(&self) -> &str;

    /// Sends one request and returns the answer.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse>;

    /// Like [`chat`](Llm::chat), handing each piece of text to `on_text` as it arrives.
    ///
    /// Providers that stream override this; the default hands over the whole answer at once,
    /// so callers can use streaming with any `Llm`.
    async fn chat_stream(
        &self,
        request: &ChatRequest,
        on_text: &mut (dyn for<'s> FnMut(&'s str) + Send),
    ) -> Result<ChatResponse> {
        let response = self.chat(request).await?;
        on_text(&response.text);
        Ok(response)
    }
}

/// Forwards every method to the pointee, so `Arc<dyn Llm>` and `Box<dyn Llm>` are `Llm`s too
/// (and can be wrapped, e.g. in a `TrackedLlm`).
macro_rules! forward_llm {
    ($ptr:ident) => {
        #[async_trait]
        impl<L: Llm + ?Sized> Llm for $ptr<L> {
            fn provider(&self) -> &str {
                (**self).provider()
            }

            fn model(&self) -> &str {
                (**self).model()
            }

            async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
                (**self).chat(request).await
            }

            async fn chat_stream(
                &self,
                request: &ChatRequest,
                on_text: &mut (dyn for<'s> FnMut(&'s str) + Send),
            ) -> Result<ChatResponse> {
                (**self).chat_stream(request, on_text).await
            }
        }
    };
}

use std::sync::Arc;
forward_llm!(Arc);
forward_llm!(Box);
