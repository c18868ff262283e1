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
    /// The on-disk store (redb) failed: open, read, write or commit, with the database path.
    #[error("store at {}: {message}", path.display())]
    Storage {
        /// The database file.
        path: std::path::PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A derived index (tantivy keyword index or usearch vector index) failed, with its path.
    #[error("{index} index at {}: {message}", path.display())]
    Index {
        /// Which index: `keyword` or `vector`.
        index: &'static str,
        /// The index's file or directory.
        path: std::path::PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A stored record could not be decoded: the store is corrupt or was written by an
    /// incompatible version.
    #[error("corrupt {what} `{key}` in the store: {message}")]
    Corrupt {
        /// The kind of record (`item`, `vector`, `toc node`, ...).
        what: &'static str,
        /// Its key.
        key: String,
        /// What was wrong.
        message: String,
    },
    /// The embedder returned vectors of another length than the index was built for.
    #[error("embedding dimensions mismatch: the index holds {expected}-d vectors, {model} returned {got}")]
    Dimensions {
        /// The index's dimensions.
        expected: usize,
        /// The embedder's dimensions.
        got: usize,
        /// The embedder's model id.
        model: String,
    },
    /// A folder or file to ingest could not be read as a whole (missing, not a folder, not
    /// readable), with its path. Single bad files and rows inside it are skipped and
    /// reported instead (`ingest::IngestReport`).
    #[error("ingest {}: {message}", path.display())]
    Ingest {
        /// The folder or file.
        path: std::path::PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The table-of-contents search was asked something it cannot answer (unknown node,
    /// malformed node id, bad input), with what was wrong.
    #[error("toc: {0}")]
    Toc(String),
    /// PostgreSQL (feature `postgres`) failed: connecting, the pool, a statement or a
    /// transaction, with the SQL state the server reported (`23505`, `57014`, ...) when there
    /// is one.
    #[error("postgres {operation}: {message}{}", code.as_deref().map(|c| format!(" (SQLSTATE {c})")).unwrap_or_default())]
    Postgres {
        /// What was being done (`connect`, `put items`, `keyword search`, ...).
        operation: &'static str,
        /// The five-character SQL state, when the server sent one.
        code: Option<String>,
        /// What went wrong.
        message: String,
    },
}

impl From<Error> for navigator_core::Error {
    /// Lets the crate implement navigator-core's traits, which return navigator-core errors.
    fn from(e: Error) -> Self {
        match e {
            Error::Core(inner) => inner,
            e @ Error::Postgres { .. } => navigator_core::Error::Search {
                backend: "postgres",
                message: e.to_string(),
            },
            other => navigator_core::Error::Search {
                backend: "embedded",
                message: other.to_string(),
            },
        }
    }
}
