//! Stopping on Ctrl-C (SIGINT) or SIGTERM: the long-running commands (`index --watch`, `mcp
//! --http`) return normally, so the store is closed and the next open has nothing to recover,
//! instead of the process dying wherever the signal found it.

/// Completes at the first Ctrl-C, or SIGTERM on Unix. Create it once and keep polling the
/// same future (`tokio::pin!`): the handlers are installed at its first poll, and a signal
/// that arrives while the caller is busy elsewhere is kept until the next poll.
pub(crate) async fn shutdown() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            // Without a SIGTERM handler, Ctrl-C still stops cleanly.
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
