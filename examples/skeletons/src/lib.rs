//! Runnable peers built on the generated skeletons; each lives in `examples/` and starts
//! with `cargo run --example <name>`. This library holds what they share.

/// Logs to stderr at `info` (or as `RUST_LOG` says), for the examples' `main`.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

/// The address a server example listens on: its first argument, else `$AGENTWIRE_ADDR`,
/// else `default`.
pub fn listen_addr(default: &str) -> String {
    std::env::args()
        .nth(1)
        .or_else(|| std::env::var("AGENTWIRE_ADDR").ok())
        .unwrap_or_else(|| default.to_owned())
}

/// Returns once `quit` is typed on stdin. Without a stdin (started in the background) it
/// never returns, so the example serves until it is killed.
pub async fn wait_for_quit() -> std::io::Result<()> {
    use tokio::io::AsyncBufReadExt as _;
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    loop {
        match lines.next_line().await? {
            Some(line) if line.trim() == "quit" => return Ok(()),
            Some(_) => {}
            None => std::future::pending::<()>().await,
        }
    }
}
