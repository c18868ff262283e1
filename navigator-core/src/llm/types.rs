//! The [`Llm`] trait and the messages, usage and failure kinds it speaks in.

pub use crate::error::LlmErrorKind;
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub content: String,
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }
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

/// Tokens a call consumed, as the provider reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Usage {
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// Input tokens served from the prompt cache.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl Usage {
    /// All input tokens, cached or not.
    pub fn total_input(&self) -> u64 {
        self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
    }
}

impl std::ops::Add for Usage {
    type Output = Usage;

    fn add(self, o: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens + o.input_tokens,
            output_tokens: self.output_tokens + o.output_tokens,
            cache_read_tokens: self.cache_read_tokens + o.cache_read_tokens,
            cache_write_tokens: self.cache_write_tokens + o.cache_write_tokens,
        }
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        *self = *self + o;
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
    /// Why generation stopped, as the provider says it (`end_turn`, `stop`, `length`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
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
