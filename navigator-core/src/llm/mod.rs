//! Talking to chat models: the [`Llm`] trait, real provider clients, schema-checked JSON output,
//! cost accounting and a scripted test double.
//!
//! - [`AnthropicClient`] (feature `anthropic`) and [`OpenAiClient`] (feature `openai`; OpenAI,
//!   Ollama, vLLM, llama.cpp server, LM Studio), both on by default. They share one HTTP layer:
//!   timeouts, retries with exponential backoff and jitter on timeouts, 429 and 5xx (a
//!   `retry-after` header wins over the backoff), and a typed [`Error::LlmApi`](crate::Error::LlmApi)
//!   whose [`LlmErrorKind`] tells a 4xx (fix the request or the key) from a transient failure.
//!   Both speak tool use: [`ToolDefinition`]s and a [`ToolChoice`] go out in each API's shape,
//!   the model's [`ToolCall`]s come back on the [`ChatResponse`] (streamed ones put together
//!   from their fragments) and [`ToolResult`]s go back on the next user [`Message`].
//! - [`Extractor`]: asks for JSON matching a Rust type, parses and validates it, re-asks with the
//!   error quoted, then gives up with [`Error::StructuredOutput`](crate::Error::StructuredOutput).
//! - [`PricingTable`], [`CostTracker`], [`TrackedLlm`]: dollars per call and in total, and a
//!   conservative projection of the next call so a budget is checked *before* spending.
//! - [`ScriptedLlm`]: replays a cassette of answers (text and/or tool calls) and faults, records
//!   every request.
//!
//! Why streaming is a callback (`on_text`) rather than a `Stream`: the callers (agents) want the
//! final [`ChatResponse`] with its usage either way, and a callback keeps [`Llm`] object-safe
//! without pulling a stream combinator crate into every implementor.

#[cfg(feature = "anthropic")]
mod anthropic;
mod cost;
#[cfg(feature = "http")]
mod credentials;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "openai")]
mod openai;
mod pricing;
mod scripted;
mod sse;
mod structured;
mod types;

#[cfg(feature = "anthropic")]
pub use anthropic::{AnthropicClient, AnthropicConfig};
pub use cost::{CostTracker, ModelSpend, Projection, TokenCounter, TrackedLlm, MAX_BPE_RUN};
#[cfg(feature = "http")]
pub use http::{ApiKey, HttpOptions, RetryPolicy};
#[cfg(feature = "openai")]
pub use openai::{MaxTokensField, OpenAiClient, OpenAiConfig};
pub use pricing::{Pricing, PricingTable, PRICES_AS_OF};
pub use scripted::{Cassette, Fault, Interaction, Matcher, Replay, ScriptedLlm};
pub use sse::{SseEvent, SseParser, MAX_EVENT_BYTES};
pub use structured::{Extracted, Extractor, JsonMode};
pub use types::{
    ChatRequest, ChatResponse, Llm, LlmErrorKind, Message, ResponseFormat, Role, SystemBlock,
    ToolCall, ToolChoice, ToolDefinition, ToolResult, Usage,
};
