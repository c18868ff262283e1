//! The one error type of `navigator-core`; every trait in the crate returns it.

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
