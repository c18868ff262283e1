//! # navigator-core
//!
//! The shared vocabulary of the navigator crates and the traits they plug into each other
//! through.
//!
//! - **The PARA search contract** ([`SearchRequest`], [`SearchResult`], [`NavigatorResponse`],
//!   ...): the JSON shapes agents exchange, camelCase on the wire, validated on parse
//!   ([`from_json`] names the offending field) and on construction, with JSON Schema export
//!   ([`json_schema`]) for LLM structured output.
//! - **Traits**, object-safe and `Send + Sync` so `Arc<dyn Trait>` composes: [`Embedder`],
//!   [`Llm`], [`Store`], [`SearchService`].
//! - **Local embeddings** (feature `fastembed`, on by default): [`FastEmbedder`] runs any local
//!   ONNX model (BGE-M3 preset, MiniLM default) with ONNX Runtime loaded at run time.
//! - [`MemoryStore`]: an in-memory [`Store`].
//!
//! ```
//! use navigator_core::{from_json, NavigatorResponse, Action};
//! let r: NavigatorResponse = from_json(r#"{"action":"navigate",
//!   "navigationTarget":{"itemId":"proj_phoenix","itemType":"project","category":"project"}}"#)?;
//! assert_eq!(r.action(), Action::Navigate);
//! # Ok::<(), navigator_core::Error>(())
//! ```
#![deny(missing_docs)]

pub mod agent;
mod agent_state;
mod conversation;
pub mod embed;
mod embedder;
mod error;
mod json;
pub mod llm;
mod memory_store;
pub mod para;
mod search_service;
pub mod store;
pub mod templates;
pub mod text;
pub mod toc;
mod usage;

pub use agent::{
    Agent, AgentContext, AgentOutcome, AgentRegistry, AgentState, AgentTask, Lifecycle,
};
pub use conversation::{ConversationRecord, ConversationStore};
#[cfg(feature = "fastembed")]
pub use embed::FastEmbedder;
pub use embed::{EmbeddingPaths, ModelConfig, Pooling};
pub use embedder::{cosine, estimate_tokens, l2_normalize, Embedder};
pub use error::{BoxError, Error, ErrorKind, Result};
pub use json::{from_json, from_value, json_schema};
#[cfg(feature = "anthropic")]
pub use llm::{AnthropicClient, AnthropicConfig};
#[cfg(feature = "http")]
pub use llm::{ApiKey, HttpOptions, RetryPolicy};
pub use llm::{
    Cassette, ChatRequest, ChatResponse, CostTracker, Extracted, Extractor, Fault, Interaction,
    JsonMode, Llm, LlmErrorKind, Matcher, Message, ModelSpend, Pricing, PricingTable, Projection,
    Replay, ResponseFormat, Role, ScriptedLlm, SystemBlock, TokenCounter, ToolCall, ToolChoice,
    ToolDefinition, ToolResult, TrackedLlm, Usage,
};
#[cfg(feature = "openai")]
pub use llm::{MaxTokensField, OpenAiClient, OpenAiConfig};
pub use llm::{SseEvent, SseParser, MAX_EVENT_BYTES};
pub use memory_store::MemoryStore;
pub use para::*;
pub use search_service::{SearchPage, SearchService};
pub use store::{AccessCounts, ItemScan, ItemStore, Store, TocStore};
pub use templates::{Template, TemplateSet, TemplateSource, Vars};
pub use toc::{Grip, TocBullet, TocLevel, TocNode};
