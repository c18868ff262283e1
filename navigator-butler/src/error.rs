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
    /// A tool call's arguments broke the tool's JSON Schema (each violation with its JSON
    /// pointer); the tool did not run.
    #[error("tool `{tool}` got invalid arguments: {}", problems.join("; "))]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// What was wrong, one line each.
        problems: Vec<String>,
    },
    /// An MCP server's tool could not be reached or listed (the transport failed).
    #[error("MCP server `{server}`: {message}")]
    Mcp {
        /// The server's name.
        server: String,
        /// What failed.
        message: String,
    },
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
    /// An error from navigator-search (the Navigator sub-agent, the knowledge tools).
    #[error(transparent)]
    Search(#[from] navigator_search::Error),
    /// An error from navigator-context (the code context tool).
    #[error(transparent)]
    Context(#[from] navigator_context::Error),
}

impl ButlerError {
    /// What kind of failure this is, in the vocabulary every navigator crate shares (an
    /// error of the Navigator sub-agent keeps its own: an unreachable database stays
    /// [`ErrorKind::Unavailable`](navigator_core::ErrorKind::Unavailable)).
    pub fn kind(&self) -> navigator_core::ErrorKind {
        use navigator_core::ErrorKind;
        match self {
            Self::Invalid { .. }
            | Self::LabelledSet { .. }
            | Self::NotApproved { .. }
            | Self::InvalidArguments { .. } => ErrorKind::BadRequest,
            Self::NoAgent(_) | Self::UnknownTool(_) => ErrorKind::NotFound,
            Self::Mcp { .. } => ErrorKind::Unavailable,
            Self::Core(e) => e.kind(),
            Self::Search(e) => e.kind(),
            Self::Context(e) => e.kind(),
        }
    }

    /// Shorthand for [`ButlerError::Invalid`].
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl From<ButlerError> for navigator_core::Error {
    /// A core error comes back as it was, a search error as navigator-search converts it, any
    /// other whole as the source of [`navigator_core::Error::Backend`] (backend `butler`).
    fn from(e: ButlerError) -> Self {
        match e {
            ButlerError::Core(inner) => inner,
            ButlerError::Search(inner) => inner.into(),
            other => navigator_core::Error::Backend {
                backend: "butler",
                kind: other.kind(),
                source: Box::new(other),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_core::ErrorKind;
    use std::error::Error as _;

    #[test]
    fn kinds_survive_the_way_into_core() {
        let e: navigator_core::Error = ButlerError::NoAgent("scheduler".into()).into();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        let inner = e.source().unwrap().downcast_ref::<ButlerError>().unwrap();
        assert!(matches!(inner, ButlerError::NoAgent(name) if name == "scheduler"));

        let search = navigator_search::Error::Dimensions {
            expected: 384,
            got: 1024,
            model: "bge-m3".into(),
        };
        let e: navigator_core::Error = ButlerError::from(search).into();
        assert_eq!(e.kind(), ErrorKind::ModelMismatch);

        let e: navigator_core::Error =
            ButlerError::Core(navigator_core::Error::invalid("message", "empty")).into();
        assert_eq!(
            (e.kind(), e.field()),
            (ErrorKind::BadRequest, Some("message"))
        );
    }
}
