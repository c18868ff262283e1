//! The one error type of `navigator-search`.

/// Result alias of navigator-search.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in navigator-search.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An error from navigator-core: contract validation, the store, the embedder, the LLM.
    #[error(transparent)]
    Core(#[from] navigator_core::Error),
    /// The table-of-contents search was asked something it cannot answer (unknown node,
    /// malformed node id, bad input), with what was wrong.
    #[error("toc: {0}")]
    Toc(String),
}

impl From<Error> for navigator_core::Error {
    /// Lets the crate implement navigator-core's traits, which return navigator-core errors.
    fn from(e: Error) -> Self {
        match e {
            Error::Core(inner) => inner,
            other => navigator_core::Error::Search {
                backend: "embedded",
                message: other.to_string(),
            },
        }
    }
}
