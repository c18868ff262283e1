//! Exit codes, and how an error reaches the person at the terminal.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success |
//! | 1 | a search found nothing; `context` failed |
//! | 2 | bad command line (clap's own code, and `context`'s [`Usage`](crate::context::Usage)) |
//! | 3 | configuration: the data directory, the runtime or the model |
//! | 4 | the input: a folder or file that cannot be read |
//! | 5 | the index: store or index failure |
//! | 6 | the index is open in another process: a `navigator mcp` server, or an index run or watcher past the wait |

use std::process::ExitCode;

/// A failure with the exit code it maps to.
#[derive(Debug)]
pub struct Failure {
    /// The process exit code.
    pub code: u8,
    /// What to print.
    pub error: anyhow::Error,
}

/// Success, or a failure with its exit code.
pub type Outcome = Result<ExitCode, Failure>;

/// Exit code 1: the command worked and found nothing.
pub const NOTHING_FOUND: u8 = 1;
/// Exit code 1 for a failed `context` run.
pub const CONTEXT: u8 = 1;
/// Exit code 2: a request the command line spelled wrong (clap's own errors exit 2 too).
pub const USAGE: u8 = 2;
/// Exit code 3.
pub const CONFIG: u8 = 3;
/// Exit code 4.
pub const INPUT: u8 = 4;
/// Exit code 5.
pub const INDEX: u8 = 5;
/// Exit code 6: another process has the index open (a server, or a run longer than a
/// command waits).
pub const BUSY: u8 = 6;

impl Failure {
    /// A failure with `code`.
    pub fn new(code: u8, error: impl Into<anyhow::Error>) -> Self {
        Self {
            code,
            error: error.into(),
        }
    }
}

impl From<navigator_search::Error> for Failure {
    fn from(e: navigator_search::Error) -> Self {
        let code = match &e {
            navigator_search::Error::Ingest { .. } => INPUT,
            navigator_search::Error::Core(navigator_core::Error::File { .. })
            | navigator_search::Error::Core(navigator_core::Error::Embedding { .. })
            | navigator_search::Error::Dimensions { .. } => CONFIG,
            navigator_search::Error::Core(navigator_core::Error::InvalidField { .. }) => INPUT,
            _ => INDEX,
        };
        Self::new(code, e)
    }
}

impl From<navigator_core::Error> for Failure {
    fn from(e: navigator_core::Error) -> Self {
        navigator_search::Error::from(e).into()
    }
}

/// Prints a failure as one JSON object on stdout (`error`, `exit_code`), for `--json` runs;
/// [`report`] (or clap, for a bad command line) still prints it to stderr.
pub fn print_json(error: &str, code: impl Into<i64>) {
    let value = serde_json::json!({"error": error, "exit_code": code.into()});
    println!("{value:#}");
}

/// Prints a failure to stderr and turns the outcome into the process exit code.
pub fn report(outcome: Outcome) -> ExitCode {
    match outcome {
        Ok(code) => code,
        Err(f) => {
            eprintln!("error: {:#}", f.error);
            ExitCode::from(f.code)
        }
    }
}
