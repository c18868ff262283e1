//! The tools the Butler's specialists run, each bound to a real function of the navigator
//! crates:
//!
//! - knowledge ([`knowledge_tools`]): `search_knowledge` through the Navigator search agent
//!   over any [`SearchService`](navigator_core::SearchService), `get_item` from an
//!   [`ItemStore`](navigator_core::ItemStore), `search_timeline` (the index-free TOC
//!   drill-down over a [`Store`](navigator_core::Store)) and `index_notes` (re-index a PARA
//!   folder into the embedded engine; a write tool, so it runs only when approved);
//! - code ([`CodeContextTool`]): `build_code_context`, the context explorer over one
//!   repository within a token budget;
//! - tasks ([`McpToolset`]): every tool of an MCP server — the workflow engine's own server in
//!   process ([`McpToolset::workflow`]), or any server started as a child process — with the
//!   server's schemas and its read-only / destructive hints as permissions.

mod code;
mod knowledge;
mod mcp;

pub use code::CodeContextTool;
pub use knowledge::{
    knowledge_tools, GetItemTool, IndexNotesTool, SearchKnowledgeTool, TimelineTool,
};
pub use mcp::McpToolset;

use super::tools::ToolSpec;
use super::{ButlerError, Permission, Result};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A spec whose schema is derived from the argument type.
fn spec<T: JsonSchema>(name: &str, description: &str, permission: Permission) -> ToolSpec {
    let mut schema = navigator_core::json_schema::<T>();
    // Both providers want a bare object schema; titles only add tokens.
    if let Some(o) = schema.as_object_mut() {
        o.remove("title");
        o.remove("$schema");
    }
    ToolSpec {
        name: name.into(),
        description: description.into(),
        schema,
        permission,
    }
}

/// Reads the arguments as `T`, or names what is wrong.
fn parse<T: DeserializeOwned>(tool: &str, arguments: Value) -> Result<T> {
    serde_json::from_value(arguments).map_err(|e| ButlerError::InvalidArguments {
        tool: tool.to_string(),
        problems: vec![e.to_string()],
    })
}
