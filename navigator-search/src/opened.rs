//! How the engine found its derived indexes on open: [`Opened`] per index, and the public
//! [`Repair`] report of each one it had to rebuild from the store.

use std::path::PathBuf;

/// How a derived index (keyword or vector) found its files on open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Opened {
    /// Its files were read and verified.
    Loaded,
    /// It had no files yet: a new index.
    New,
    /// Its files could not be used (the reason): it starts empty and is rebuilt from the
    /// store.
    Damaged(String),
}

/// The longest reason kept (a library's message may quote a whole damaged file).
const MAX_REASON_CHARS: usize = 300;

impl Opened {
    /// Damaged, for `why` (cut to a readable length).
    pub(crate) fn damaged(why: impl Into<String>) -> Self {
        let why = why.into();
        match why.char_indices().nth(MAX_REASON_CHARS) {
            Some((cut, _)) => Self::Damaged(format!("{}…", &why[..cut])),
            None => Self::Damaged(why),
        }
    }

    /// Whether the index starts empty (and so must be filled from the store).
    pub(crate) fn is_empty(&self) -> bool {
        !matches!(self, Self::Loaded)
    }
}

/// A derived index the engine found damaged or out of step with the store when it opened,
/// and rebuilt from the store ([`SearchEngine::repairs`](crate::SearchEngine::repairs)).
/// Nothing is lost by a repair — the store keeps every item and vector — but a caller may
/// want to log it or tell an operator that a file was damaged.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Repair {
    /// What was rebuilt: `keyword`, `vector`, `indexes` (both), or `bookkeeping` (the
    /// engine's copy of another store, [`SearchEngine::with_store`](crate::SearchEngine::with_store)).
    pub index: &'static str,
    /// Its file or directory.
    pub path: PathBuf,
    /// What was wrong with it.
    pub reason: String,
}

impl std::fmt::Display for Repair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} index at {}: {}; rebuilt from the store",
            self.index,
            self.path.display(),
            self.reason
        )
    }
}
