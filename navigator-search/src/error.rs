//! The one error type of `navigator-search`.
//!
//! Every variant that wraps a library's failure (redb, tantivy, usearch, PostgreSQL, the OS)
//! keeps it as its [`source`](std::error::Error::source); [`Error::kind`] says what kind of
//! failure it is, and the conversion into [`navigator_core::Error`] (what the
//! [`SearchService`](navigator_core::SearchService) methods return) keeps both the kind and the
//! whole error.

use navigator_core::{BoxError, ErrorKind};

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
        /// redb's error, when it reported one.
        #[source]
        source: Option<BoxError>,
    },
    /// The store is open elsewhere: in another process (an index run, a watcher, a server on
    /// the same data directory) or elsewhere in this one. One opener at a time; the same open
    /// succeeds once the other has closed it.
    #[error(
        "store at {}: it is already open, by another process (an index run, a watcher or a \
         server on the same data directory) or elsewhere in this one; one opener at a time",
        path.display()
    )]
    InUse {
        /// The database file.
        path: std::path::PathBuf,
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
        /// tantivy's or usearch's error, when it reported one.
        #[source]
        source: Option<BoxError>,
    },
    /// Reading or writing a file or directory of the engine failed.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
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
    /// The index was built with another embedding model than the one it was opened with:
    /// their vectors cannot be compared. Open it with its own model, or re-embed it with
    /// [`SearchEngine::reindex`](crate::SearchEngine::reindex).
    #[error(
        "the index in {} was built with {index_model}, not {embedder_model}: open it with its own model or re-embed it (`navigator reindex`)",
        dir.display()
    )]
    ModelMismatch {
        /// The engine directory.
        dir: std::path::PathBuf,
        /// The model the index records.
        index_model: String,
        /// The embedder it was opened with.
        embedder_model: String,
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
    /// A backend could not be reached or did not answer in time: PostgreSQL refused the
    /// connection, closed it, or the pool timed out waiting for one.
    #[error("{backend} unavailable ({operation}): {message}")]
    Unavailable {
        /// The backend (`postgres`).
        backend: &'static str,
        /// What was being done (`connect`, `keyword search`, ...).
        operation: &'static str,
        /// The whole chain of causes in one line (`error connecting to server: Connection
        /// refused (os error 111)`).
        message: String,
        /// The driver's or the pool's error.
        #[source]
        source: BoxError,
    },
}

impl Error {
    /// What kind of failure this is, in the vocabulary every navigator crate shares.
    ///
    /// A store or index that cannot be read is [`ErrorKind::CorruptIndex`] unless the
    /// operating system failed underneath ([`ErrorKind::Io`]).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Core(e) => e.kind(),
            Self::Storage { source, .. } | Self::Index { source, .. } => {
                match source.as_deref().is_some_and(|e| caused_by_io(e)) {
                    true => ErrorKind::Io,
                    false => ErrorKind::CorruptIndex,
                }
            }
            Self::Io { .. } => ErrorKind::Io,
            Self::InUse { .. } => ErrorKind::Unavailable,
            Self::Corrupt { .. } => ErrorKind::CorruptIndex,
            Self::Dimensions { .. } | Self::ModelMismatch { .. } => ErrorKind::ModelMismatch,
            Self::Toc(_) => ErrorKind::BadRequest,
            // The folder or file given to ingest: the caller's input.
            Self::Ingest { .. } => ErrorKind::BadRequest,
            Self::Postgres { code, .. } => postgres_kind(code.as_deref()),
            Self::Unavailable { .. } => ErrorKind::Unavailable,
        }
    }

    /// The backend this error comes from, as [`navigator_core::Error::Backend`] names it.
    fn backend(&self) -> &'static str {
        match self {
            Self::Postgres { .. } => "postgres",
            Self::Unavailable { backend, .. } => backend,
            _ => "embedded",
        }
    }
}

/// `e` and its causes in one line, each separated by `: ` (a driver's own message often
/// leaves the reason to its source).
#[cfg(feature = "postgres")]
pub(crate) fn chain_message(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut next = e.source();
    while let Some(cause) = next {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = cause.source();
    }
    parts.join(": ")
}

/// Whether an I/O error is anywhere in `e`'s chain (redb, tantivy, usearch and the
/// PostgreSQL driver wrap them).
pub(crate) fn caused_by_io(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(e) = next {
        if e.is::<std::io::Error>() {
            return true;
        }
        next = e.source();
    }
    false
}

/// The kind of a PostgreSQL error by its SQL state class: connection exceptions (`08`),
/// insufficient resources (`53`), operator intervention (`57`: shutdown, statement timeout)
/// are worth retrying; data (`22`), integrity (`23`) and syntax or access (`42`) errors are
/// the request's.
fn postgres_kind(code: Option<&str>) -> ErrorKind {
    match code.map(|c| c.get(..2).unwrap_or(c)) {
        Some("08" | "53" | "57") => ErrorKind::Unavailable,
        Some("22" | "23" | "42") => ErrorKind::BadRequest,
        _ => ErrorKind::Other,
    }
}

impl From<Error> for navigator_core::Error {
    /// Lets the crate implement navigator-core's traits, which return navigator-core errors:
    /// a core error comes back as it was; any other keeps its kind and stays whole as the
    /// source of [`navigator_core::Error::Backend`].
    fn from(e: Error) -> Self {
        match e {
            Error::Core(inner) => inner,
            other => navigator_core::Error::Backend {
                backend: other.backend(),
                kind: other.kind(),
                source: Box::new(other),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn conversion_into_core_keeps_the_kind_and_the_error() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let e = Error::Index {
            index: "keyword",
            path: "/kb/keyword".into(),
            message: "cannot open".into(),
            source: Some(Box::new(io)),
        };
        assert_eq!(e.kind(), ErrorKind::Io);
        let core: navigator_core::Error = e.into();
        assert_eq!(core.kind(), ErrorKind::Io);
        let inner = core.source().unwrap().downcast_ref::<Error>().unwrap();
        assert!(matches!(
            inner,
            Error::Index {
                index: "keyword",
                ..
            }
        ));
        let root = inner
            .source()
            .unwrap()
            .downcast_ref::<std::io::Error>()
            .unwrap();
        assert_eq!(root.kind(), std::io::ErrorKind::PermissionDenied);
    }

    #[test]
    fn core_errors_come_back_unwrapped() {
        let e = Error::Core(navigator_core::Error::invalid("limit", "0 is below 1"));
        let core: navigator_core::Error = e.into();
        assert_eq!(core.kind(), ErrorKind::BadRequest);
        assert_eq!(core.field(), Some("limit"));
    }

    #[test]
    fn postgres_states_have_kinds() {
        assert_eq!(postgres_kind(Some("08006")), ErrorKind::Unavailable);
        assert_eq!(postgres_kind(Some("57014")), ErrorKind::Unavailable);
        assert_eq!(postgres_kind(Some("23505")), ErrorKind::BadRequest);
        assert_eq!(postgres_kind(Some("XX000")), ErrorKind::Other);
        assert_eq!(postgres_kind(None), ErrorKind::Other);
        let dims = Error::Dimensions {
            expected: 384,
            got: 1024,
            model: "bge-m3".into(),
        };
        assert_eq!(dims.kind(), ErrorKind::ModelMismatch);
    }
}
