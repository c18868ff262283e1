//! The one error type of `navigator-core`; every trait in the crate returns it.
//!
//! Errors keep their causes: the variants that wrap a library's failure hold it as their
//! [`source`](std::error::Error::source), and an error of another navigator crate crossing
//! into this one ([`Error::Backend`]) keeps both the original error and its [`ErrorKind`], so
//! a caller matches `err.kind()` without caring which crate or backend produced it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Result alias used across navigator-core and by implementors of its traits.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Any error, kept whole as the cause of another.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What kind of failure an error is, whichever crate or backend produced it: what a caller
/// decides on (fix the request, retry later, rebuild the index, ...).
///
/// ```
/// use navigator_core::{from_json, ErrorKind, SearchRequest};
/// let err = from_json::<SearchRequest>(r#"{"query": "x", "limit": 0}"#).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::BadRequest);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input was wrong (a field out of range, JSON that does not parse): fix the request.
    BadRequest,
    /// A record asked for by id does not exist.
    NotFound,
    /// A stored index or database is corrupt or unreadable: restore or rebuild it.
    CorruptIndex,
    /// The index was built with another embedding model (other dimensions) than the query's.
    ModelMismatch,
    /// A backend could not be reached or did not answer in time (connection refused, pool
    /// timeout, server shutting down): the same call may succeed later.
    Unavailable,
    /// Reading or writing a file failed.
    Io,
    /// An LLM call failed or its answer stayed invalid.
    Llm,
    /// A call would exceed the spending budget.
    Budget,
    /// Anything else (a bug, an unexpected backend answer).
    Other,
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::BadRequest => "bad request",
            Self::NotFound => "not found",
            Self::CorruptIndex => "corrupt or unreadable index",
            Self::ModelMismatch => "model mismatch",
            Self::Unavailable => "backend unavailable",
            Self::Io => "I/O error",
            Self::Llm => "LLM failure",
            Self::Budget => "budget exceeded",
            Self::Other => "other",
        })
    }
}

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
        /// Tokens over all attempts (they were spent even though nothing usable came back).
        usage: crate::usage::Usage,
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
    /// Reading or writing a file failed.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A stored index or database is corrupt or cannot be read.
    #[error("corrupt or unreadable {what} at {}: {source}", path.display())]
    CorruptIndex {
        /// What it is (`store`, `keyword index`, `vector index`, ...).
        what: String,
        /// Its file or directory.
        path: PathBuf,
        /// The reader's error.
        #[source]
        source: BoxError,
    },
    /// The index holds vectors of another model (other dimensions) than the query's.
    #[error("model mismatch: the index holds {index_dimensions}-d vectors{}, the query's model `{query_model}` gives {query_dimensions}-d", index_model.as_deref().map(|m| format!(" of `{m}`")).unwrap_or_default())]
    ModelMismatch {
        /// The model the index was built with, when it is known.
        index_model: Option<String>,
        /// The index's dimensions.
        index_dimensions: usize,
        /// The query's model.
        query_model: String,
        /// The query's dimensions.
        query_dimensions: usize,
    },
    /// A backend could not be reached or did not answer in time.
    #[error("{backend} unavailable ({operation}): {source}")]
    Unavailable {
        /// The backend (`postgres`, ...).
        backend: &'static str,
        /// What was being done.
        operation: String,
        /// The driver's or pool's error.
        #[source]
        source: BoxError,
    },
    /// An error of another navigator crate (a search backend, the Butler), kept whole as the
    /// source, with its kind.
    #[error("{backend}: {source}")]
    Backend {
        /// Who failed (`embedded`, `postgres`, `butler`, ...).
        backend: &'static str,
        /// What kind of failure it is.
        kind: ErrorKind,
        /// The original error (downcast it to the crate's own type for every detail).
        #[source]
        source: BoxError,
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

    /// What kind of failure this is (see [`ErrorKind`]).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::InvalidField { .. }
            | Self::Parse { .. }
            | Self::Template { .. }
            | Self::UnknownPricing { .. }
            | Self::AgentTransition { .. } => ErrorKind::BadRequest,
            Self::NotFound { .. } => ErrorKind::NotFound,
            Self::File { .. } | Self::Io { .. } => ErrorKind::Io,
            Self::CorruptIndex { .. } => ErrorKind::CorruptIndex,
            Self::ModelMismatch { .. } => ErrorKind::ModelMismatch,
            Self::Unavailable { .. } => ErrorKind::Unavailable,
            Self::Backend { kind, .. } => *kind,
            Self::Llm { .. } | Self::LlmApi { .. } | Self::StructuredOutput { .. } => {
                ErrorKind::Llm
            }
            Self::BudgetExceeded { .. } => ErrorKind::Budget,
            Self::Embedding { .. } | Self::Store { .. } | Self::Search { .. } => ErrorKind::Other,
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
