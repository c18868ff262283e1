//! What a tool may do to the user's data: vocabulary below both the tool catalog (which gates
//! on it) and the error type (which names it when approval is refused).

use serde::{Deserialize, Serialize};

/// What a tool may do to the user's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    /// Only reads; runs without asking.
    Read,
    /// Creates or changes data; needs approval.
    Write,
    /// Deletes or sends irreversibly; needs approval.
    Destructive,
}

impl std::fmt::Display for Permission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Destructive => "destructive",
        })
    }
}
