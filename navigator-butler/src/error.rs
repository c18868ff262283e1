//! The one error type of the Butler module tree.

/// Result alias for the Butler.
pub type Result<T, E = ButlerError> = std::result::Result<T, E>;

/// Everything that can go wrong in the Butler, its orchestrator, tool catalog and pre-router.
///
/// An invalid model answer is *not* an error: the Butler degrades it to `clarify`. These are
/// the failures a caller must act on (bad input, missing registration, a refused tool).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ButlerError {
    /// A value broke a rule of the Butler's contract (range, emptiness, consistency).
    #[error("invalid `{field}`: {message}")]
    Invalid {
        /// The camelCase field (or dotted path) that was wrong.
        field: String,
        /// What was wrong, with the offending value.
        message: String,
    },
    /// No sub-agent is registered for an intent or a name.
    #[error("no sub-agent registered for `{0}`")]
    NoAgent(String),
    /// A tool name that the catalog does not hold.
    #[error("tool `{0}` is not in the catalog")]
    UnknownTool(String),
    /// A write or destructive tool was called without an approval callback, or the callback
    /// refused.
    #[error("tool `{tool}` ({permission}) was not approved: {reason}")]
    NotApproved {
        /// The tool.
        tool: String,
        /// Its permission level.
        permission: super::permission::Permission,
        /// Why it was not run.
        reason: String,
    },
    /// A labelled utterance file line could not be read.
    #[error("labelled set line {line}: {message}")]
    LabelledSet {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// An error from navigator-core (templates, LLM, embedder, agents).
    #[error(transparent)]
    Core(#[from] navigator_core::Error),
    /// An error from navigator-search (the Navigator sub-agent).
    #[error(transparent)]
    Search(#[from] navigator_search::Error),
}

impl ButlerError {
    /// Shorthand for [`ButlerError::Invalid`].
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }
}
