//! Blocking work (tantivy, usearch, redb, tokenizers) kept off the async executor.

use crate::Result;

/// Runs blocking `f` on tokio's blocking pool when called inside a runtime (so the executor
/// thread stays free), else right here. A panic in `f` is resumed in the caller.
pub(crate) async fn run_blocking<T, F>(f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => match handle.spawn_blocking(f).await {
            Ok(out) => out,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(navigator_core::Error::Search {
                backend: "embedded",
                message: format!("the blocking task was cancelled (runtime shutting down): {e}"),
            }
            .into()),
        },
        Err(_) => f(),
    }
}
