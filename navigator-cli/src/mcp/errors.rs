//! Tool errors, and the JSON schemas every tool declares.
//!
//! A tool that fails answers a tool result with `isError: true`, never a JSON-RPC error and
//! never a dropped connection: the calling model reads the message and can fix its call. The
//! structured content is `{ "error": { "code", "message" } }`; the text content says the same
//! in one line. Codes are stable strings a client can match:
//!
//! | code | when |
//! |---|---|
//! | `bad_request` | arguments of the wrong shape or out of range (the message names the field) |
//! | `not_found` | an unknown id, path or TOC node |
//! | `outside_vault` | a path that is absolute, climbs out with `..` or leaves through a symlink |
//! | `busy` | another write (the start-up index run, or a re-index of notes changed outside the server) holds the index; retry |
//! | `not_configured` | the server was started without the vault or repository the tool needs |
//! | `plan_drift` | the repository changed since the Flight Plan was made (`refit: true` re-fits) |
//! | `budget` | a token or USD budget cannot be met |
//! | `llm`, `unavailable`, `index`, `io`, `internal` | the rest, by the library error's kind |

use navigator_core::ErrorKind;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// Why a tool call failed: a stable code and a message naming the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolError {
    /// One of the codes in the module docs.
    pub code: &'static str,
    /// What was wrong, with which input.
    pub message: String,
}

/// A tool body's result.
pub(crate) type ToolResult<T> = Result<T, ToolError>;

impl ToolError {
    pub(crate) fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new("bad_request", message)
    }

    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::new("not_found", message)
    }

    pub(crate) fn outside_vault(message: impl Into<String>) -> Self {
        Self::new("outside_vault", message)
    }

    pub(crate) fn io(what: &str, path: &std::path::Path, e: std::io::Error) -> Self {
        Self::new("io", format!("{what} {}: {e}", path.display()))
    }

    fn from_kind(kind: ErrorKind, message: String) -> Self {
        let code = match kind {
            ErrorKind::BadRequest => "bad_request",
            ErrorKind::NotFound => "not_found",
            ErrorKind::CorruptIndex | ErrorKind::ModelMismatch => "index",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Io => "io",
            ErrorKind::Llm => "llm",
            ErrorKind::Budget => "budget",
            _ => "internal",
        };
        Self::new(code, message)
    }
}

impl From<navigator_search::Error> for ToolError {
    fn from(e: navigator_search::Error) -> Self {
        Self::from_kind(e.kind(), e.to_string())
    }
}

impl From<navigator_core::Error> for ToolError {
    fn from(e: navigator_core::Error) -> Self {
        Self::from_kind(e.kind(), e.to_string())
    }
}

impl From<navigator_context::Error> for ToolError {
    fn from(e: navigator_context::Error) -> Self {
        if matches!(e, navigator_context::Error::PlanDrift { .. }) {
            return Self::new("plan_drift", e.to_string());
        }
        Self::from_kind(e.kind(), e.to_string())
    }
}

/// The tool result for `outcome`: the value as structured content, or the error envelope.
pub(crate) fn respond<T: Serialize>(outcome: ToolResult<T>) -> CallToolResult {
    match outcome.and_then(|v| {
        serde_json::to_value(v)
            .map_err(|e| ToolError::new("internal", format!("serialising the result: {e}")))
    }) {
        Ok(value) => CallToolResult::structured(value),
        Err(e) => fail(e),
    }
}

/// The error result: `isError: true`, the envelope as structured content, a one-line text.
pub(crate) fn fail(e: ToolError) -> CallToolResult {
    let mut result = CallToolResult::structured_error(
        json!({ "error": { "code": e.code, "message": e.message } }),
    );
    result.content = vec![ContentBlock::text(format!("{}: {}", e.code, e.message))];
    result
}

/// Parses a tool's arguments with field-path errors (`filters.dateRange.start: ...`), so a bad
/// argument is a tool error the model can act on, not a JSON-RPC error it never sees.
pub(crate) fn parse<T: DeserializeOwned>(arguments: JsonObject) -> ToolResult<T> {
    navigator_core::from_value(Value::Object(arguments))
        .map_err(|e| ToolError::bad_request(format!("invalid arguments: {e}")))
}

/// The `inputSchema` of arguments of type `T` (what `T` accepts).
pub(crate) fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_input::<T>().unwrap_or_else(|e| {
        // Our argument types are structs, so this does not happen; a tool with a wrong schema
        // still lists, and the tools/list test names it.
        tracing::error!("input schema of {}: {e}", std::any::type_name::<T>());
        Arc::new(JsonObject::new())
    })
}

/// The error envelope's schema.
fn error_envelope() -> Value {
    json!({
        "type": "object",
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "code": { "type": "string" },
                    "message": { "type": "string" }
                },
                "required": ["code", "message"]
            }
        },
        "required": ["error"]
    })
}

/// The `outputSchema` of a tool answering `T`: what `T` serialises to, or the error envelope.
/// The root is an object (as MCP requires) whose `anyOf` holds the two; `T`'s definitions
/// move to the root so its `$ref`s resolve.
pub(crate) fn output_schema<T: JsonSchema>() -> Arc<JsonObject> {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut success = match serde_json::to_value(generator.into_root_schema_for::<T>()) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    };
    let mut root = JsonObject::new();
    if let Some(version) = success.remove("$schema") {
        root.insert("$schema".into(), version);
    }
    if let Some(defs) = success.remove("$defs") {
        root.insert("$defs".into(), defs);
    }
    success.remove("title");
    root.insert("type".into(), json!("object"));
    root.insert(
        "anyOf".into(),
        json!([Value::Object(success), error_envelope()]),
    );
    Arc::new(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, JsonSchema, Serialize)]
    #[serde(deny_unknown_fields)]
    struct Args {
        limit: u32,
    }

    #[test]
    fn bad_arguments_are_bad_requests_naming_the_field() {
        let mut args = JsonObject::new();
        args.insert("limit".into(), json!("ten"));
        let e = parse::<Args>(args).unwrap_err();
        assert_eq!(e.code, "bad_request");
        assert!(e.message.contains("limit"), "{}", e.message);
        let mut args = JsonObject::new();
        args.insert("limt".into(), json!(3));
        assert!(parse::<Args>(args).unwrap_err().message.contains("limt"));
    }

    #[test]
    fn failures_carry_the_envelope_and_a_text() {
        let result = fail(ToolError::not_found("no item `x`"));
        assert_eq!(result.is_error, Some(true));
        let content = result.structured_content.unwrap();
        assert_eq!(content["error"]["code"], "not_found");
        assert_eq!(content["error"]["message"], "no item `x`");
    }

    #[test]
    fn output_schemas_are_objects_with_the_error_alternative() {
        let schema = output_schema::<navigator_core::NavigatorResponse>();
        assert_eq!(schema["type"], "object");
        let any = schema["anyOf"].as_array().unwrap();
        assert_eq!(any.len(), 2);
        assert!(
            schema.contains_key("$defs"),
            "definitions moved to the root"
        );
        assert_eq!(any[1]["required"], json!(["error"]));
    }
}
