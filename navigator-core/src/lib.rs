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
//! assert_eq!(r.action, Action::Navigate);
//! # Ok::<(), navigator_core::Error>(())
//! ```
#![deny(missing_docs)]

pub mod embed;
mod embedder;
mod error;
mod json;
mod llm;
mod memory_store;
pub mod para;
mod search_service;
mod store;
pub mod toc;

pub use embed::{EmbeddingPaths, ModelConfig, Pooling};
#[cfg(feature = "fastembed")]
pub use embed::FastEmbedder;
pub use embedder::{cosine, l2_normalize, Embedder};
pub use error::{Error, Result};
pub use json::{from_json, from_value, json_schema};
pub use llm::{ChatRequest, ChatResponse, Llm, Message, ResponseFormat, Role, SystemBlock, Usage};
pub use memory_store::MemoryStore;
pub use para::*;
pub use search_service::{SearchPage, SearchService};
pub use store::{ItemScan, Store};
pub use toc::{Grip, TocBullet, TocLevel, TocNode};
