//! The one error type of `navigator-core`; every trait in the crate returns it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Result alias used across navigator-core and by implementors of its traits.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in navigator-core or behind one of its traits.
///
/// Each variant says what was wrong and with which input (field, path, value).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A contract value broke a rule (range, emptiness, consistency).
    #[error("invalid `{field}`: {message}")]
    InvalidField {
        /// The camelCase JSON field name (or dotted path) that was wrong.
        field: String,
        /// What was wrong with it, including the offending value.
        message: String,
    },
    /// JSON (or another serialised form) could not be parsed into a contract type.
    #[error("invalid {type_name} at `{path}`: {message}")]
    Parse {
        /// The Rust type being parsed.
        type_name: &'static str,
        /// The path of the offending value, e.g. `results[0].relevanceScore`.
        path: String,
        /// The parser's message.
        message: String,
    },
    /// A file the caller pointed at (model, runtime, tokenizer, template) is missing or unreadable.
    #[error("cannot read {what} at {}: {reason}{}", path.display(), fix.as_deref().map(|f| format!(" (fix: {f})")).unwrap_or_default())]
    File {
        /// What the file is for ("ONNX Runtime library", "tokenizer.json", ...).
        what: String,
        /// The path that was tried.
        path: PathBuf,
        /// Why it failed.
        reason: String,
        /// How to fix it, when known.
        fix: Option<String>,
    },
    /// The embedding model failed to load or to run.
    #[error("embedding failed ({model}): {message}")]
    Embedding {
        /// The model id.
        model: String,
        /// What went wrong.
        message: String,
    },
    /// A record that was asked for by id does not exist.
    #[error("{kind} `{id}` not found")]
    NotFound {
        /// The kind of record ("item", "toc node", "grip").
        kind: &'static str,
        /// The id that was asked for.
        id: String,
    },
    /// A storage backend failed.
    #[error("store ({backend}): {message}")]
    Store {
        /// The backend ("memory", "redb", "postgres", ...).
        backend: &'static str,
        /// What went wrong.
        message: String,
    },
    /// A search backend failed.
    #[error("search ({backend}): {message}")]
    Search {
        /// The backend ("embedded", "postgres", ...).
        backend: &'static str,
        /// What went wrong.
        message: String,
    },
    /// An LLM call failed.
    #[error("llm ({provider}): {message}")]
    Llm {
        /// The provider ("anthropic", "openai", "scripted", ...).
        provider: String,
        /// What went wrong.
        message: String,
    },
    /// An LLM provider call failed: a typed kind, the HTTP status when there was one, and how
    /// many attempts were made (retries included).
    #[error("llm ({provider}): {kind}{} after {attempts} attempt(s): {message}", status.map(|s| format!(" (HTTP {s})")).unwrap_or_default())]
    LlmApi {
        /// The provider ("anthropic", "openai", "scripted", ...).
        provider: String,
        /// What kind of failure it was.
        kind: LlmErrorKind,
        /// The HTTP status, when the provider answered.
        status: Option<u16>,
        /// How long the provider asked to wait (`retry-after`), when it said.
        retry_after: Option<std::time::Duration>,
        /// Attempts made, the first one included.
        attempts: u32,
        /// The provider's own message (never the API key).
        message: String,
    },
    /// The model's answer did not parse or validate as the requested type, even after re-asking.
    #[error(
        "structured output `{type_name}` still invalid after {attempts} attempt(s): {message}"
    )]
    StructuredOutput {
        /// The Rust type asked for.
        type_name: &'static str,
        /// Attempts made, the first one included.
        attempts: u32,
        /// The last parse or validation error.
        message: String,
        /// The model's last answer, verbatim.
        last_output: String,
    },
    /// No price is known for a model, so its cost cannot be computed.
    #[error("no pricing for model `{model}` (add it with PricingTable::set)")]
    UnknownPricing {
        /// The model name that was looked up.
        model: String,
    },
    /// A call would take the spend past the budget.
    #[error("budget exceeded: spent ${spent_usd:.6} + next call up to ${projected_usd:.6} > budget ${budget_usd:.6}")]
    BudgetExceeded {
        /// The budget in USD.
        budget_usd: f64,
        /// Spent so far in USD.
        spent_usd: f64,
        /// The conservative projection of the next call in USD.
        projected_usd: f64,
    },
    /// A prompt template could not be found, parsed or rendered.
    #[error("template `{template}`: {message}")]
    Template {
        /// The template name (`butler`, `structured_output`, ...).
        template: String,
        /// The variable at fault, when one is.
        variable: Option<String>,
        /// What was wrong.
        message: String,
    },
    /// An agent was asked to move between lifecycle states in an order that is not allowed.
    #[error("agent `{agent}`: cannot go from {from} to {to}")]
    AgentTransition {
        /// The agent's name.
        agent: String,
        /// Its state.
        from: crate::agent_state::AgentState,
        /// The state it was asked to enter.
        to: crate::agent_state::AgentState,
    },
}

impl Error {
    /// Shorthand for [`Error::InvalidField`].
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidField {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The field or path this error names, if it names one.
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::InvalidField { field, .. } => Some(field),
            Self::Parse { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// Why a provider call failed, for callers that react differently (back off, fix the key, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LlmErrorKind {
    /// No answer within the configured timeout.
    Timeout,
    /// HTTP 429: too many requests or tokens.
    RateLimited,
    /// HTTP 5xx (or Anthropic's 529 overloaded).
    Server,
    /// HTTP 401/403: missing, wrong or unauthorised API key.
    Auth,
    /// Another HTTP 4xx: the request itself was wrong; retrying will not help.
    BadRequest,
    /// The connection could not be made or broke.
    Connection,
    /// The provider answered with a body that is not what its API documents.
    MalformedResponse,
}

impl LlmErrorKind {
    /// Whether the same request may succeed if sent again later.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            Self::Timeout | Self::RateLimited | Self::Server | Self::Connection
        )
    }
}

impl std::fmt::Display for LlmErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Timeout => "timeout",
            Self::RateLimited => "rate limited",
            Self::Server => "server error",
            Self::Auth => "authentication failed",
            Self::BadRequest => "bad request",
            Self::Connection => "connection failed",
            Self::MalformedResponse => "malformed response",
        })
    }
}
