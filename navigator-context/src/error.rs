//! The one error type of `navigator-context`.

use std::path::PathBuf;

/// Result alias used across navigator-context.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while mapping a repository, reading a Flight Plan or exploring.
///
/// Each variant names the input that was wrong: the path, the plan line, the field.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The repository root is missing or not a directory.
    #[error("repository root {} {reason}", path.display())]
    NotARepository {
        /// The root that was given.
        path: PathBuf,
        /// What is wrong with it: it does not exist, is a file, or cannot be read.
        reason: String,
    },
    /// A Flight Plan is not valid YAML or breaks one of its rules.
    #[error("invalid flight plan{}: {}{message}", line.map(|l| format!(" (line {l})")).unwrap_or_default(), if field.is_empty() { String::new() } else { format!("{field}: ") })]
    FlightPlan {
        /// 1-based line in the YAML text, when known.
        line: Option<usize>,
        /// The field or rule path that was wrong (`rules[2].path`, `token_budget`, ...);
        /// empty when the YAML itself is malformed.
        field: String,
        /// What was wrong, including the offending value.
        message: String,
    },
    /// A path points outside the repository root (`..`, absolute, or an escaping symlink).
    #[error("path `{path}` is outside the repository root")]
    OutsideRoot {
        /// The offending path as given.
        path: String,
    },
    /// The tokenizer could not be loaded.
    #[error("tokenizer `{name}`: {message}")]
    Tokenizer {
        /// The encoding name.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// A budget or option given to the explorer is unusable.
    #[error("invalid `{field}`: {message}")]
    InvalidOption {
        /// The option name.
        field: String,
        /// What was wrong, including the value.
        message: String,
    },
    /// The policy's answer could not be understood or applied.
    #[error("policy `{policy}` at step {step}: {message}")]
    Policy {
        /// The policy name.
        policy: String,
        /// The explorer step.
        step: usize,
        /// What went wrong.
        message: String,
    },
    /// The repository changed since a Flight Plan was pinned; replay with refit to fit the
    /// plan to the new contents.
    #[error("the repository changed since the flight plan was made ({}); replay with refit (`navigator context --replay PLAN --refit [REPO]`) to fit it again", crate::replay::Drift::describe_parts(changed, deleted, left_out, added, recounted))]
    PlanDrift {
        /// Files shown with content whose content changed.
        changed: Vec<String>,
        /// Pinned files that are gone.
        deleted: Vec<String>,
        /// Pinned files still there that the scan now leaves out, with the reason
        /// (unreadable, binary, a symlink leaving the root).
        left_out: Vec<(String, String)>,
        /// Files the plan now shows that it did not.
        added: Vec<String>,
        /// Collapsed directories whose file count changed: (directory, pinned, now). Files
        /// added to or removed from a collapsed directory are named in `added` and `deleted`
        /// only where that is certain (a line that is new, or the pinned commit's tree).
        recounted: Vec<(String, usize, usize)>,
    },
    /// A context would exceed its token budget.
    #[error("the context takes {tokens} tokens, over its budget of {budget}")]
    OverBudget {
        /// Tokens of the rendered context.
        tokens: usize,
        /// The plan's budget.
        budget: usize,
    },
    /// git could not read a repository's history (not a repository, unknown revision, git
    /// missing).
    #[error("git history of {}: {message}", dir.display())]
    Git {
        /// The directory git was run in.
        dir: PathBuf,
        /// What git or the system said.
        message: String,
    },
    /// A navigator-core component (LLM client, embedder) failed.
    #[error(transparent)]
    Core(#[from] navigator_core::Error),
}

impl Error {
    /// What kind of failure this is, in the vocabulary every navigator crate shares.
    pub fn kind(&self) -> navigator_core::ErrorKind {
        use navigator_core::ErrorKind;
        match self {
            Self::NotARepository { .. } | Self::Git { .. } => ErrorKind::Io,
            Self::FlightPlan { .. } | Self::OutsideRoot { .. } | Self::InvalidOption { .. } => {
                ErrorKind::BadRequest
            }
            // The plan no longer fits the repository as it is: replay with refit, or re-plan.
            Self::PlanDrift { .. } => ErrorKind::BadRequest,
            Self::OverBudget { .. } => ErrorKind::Budget,
            Self::Tokenizer { .. } | Self::Policy { .. } => ErrorKind::Other,
            Self::Core(e) => e.kind(),
        }
    }
}

impl From<Error> for navigator_core::Error {
    /// A core error comes back as it was; any other keeps its kind and stays whole as the
    /// source of [`navigator_core::Error::Backend`] (backend `context`).
    fn from(e: Error) -> Self {
        match e {
            Error::Core(inner) => inner,
            other => navigator_core::Error::Backend {
                backend: "context",
                kind: other.kind(),
                source: Box::new(other),
            },
        }
    }
}

impl Error {
    pub(crate) fn plan(
        line: Option<usize>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::FlightPlan {
            line,
            field: field.into(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod kind_tests {
    use super::*;
    use navigator_core::ErrorKind;
    use std::error::Error as _;

    #[test]
    fn kinds_survive_the_way_into_core() {
        let e: navigator_core::Error = Error::OutsideRoot {
            path: "../etc/passwd".into(),
        }
        .into();
        assert_eq!(e.kind(), ErrorKind::BadRequest);
        let inner = e.source().unwrap().downcast_ref::<Error>().unwrap();
        assert!(matches!(inner, Error::OutsideRoot { path } if path == "../etc/passwd"));
        let e: navigator_core::Error = Error::Core(navigator_core::Error::NotFound {
            kind: "item",
            id: "x".into(),
        })
        .into();
        assert_eq!(e.kind(), ErrorKind::NotFound);
    }
}
