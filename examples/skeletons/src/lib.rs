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
