//! The signals that end a proxy session cleanly (Ctrl-C, and SIGTERM on Unix), so the
//! recording ends at the last message, end-of-stream findings are reported and the report
//! file is written.

/// Resolves when the process is asked to stop; never when the signals cannot be watched.
pub async fn stop() {
    tokio::select! {
        () = ctrl_c() => {}
        () = terminate() => {}
    }
}

async fn ctrl_c() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

#[cfg(unix)]
async fn terminate() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            if term.recv().await.is_none() {
                std::future::pending::<()>().await;
            }
        }
        Err(_) => std::future::pending::<()>().await,
    }
}

#[cfg(not(unix))]
async fn terminate() {
    std::future::pending::<()>().await;
}
