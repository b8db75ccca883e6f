//! An MCP server on the generated skeleton that offers the fixtures the official conformance
//! suite (`@modelcontextprotocol/conformance`) calls by name, in both eras on one endpoint:
//! sessions of 2025-11-25 (and 2025-06-18, 2025-03-26) opened by `initialize`, and
//! 2026-07-28's requests served each on its own (`agentwire_examples::mcp_fixtures`).
//! `tests/tests/mcp_conformance.rs` runs the suite against it.
//!
//! `cargo run --example mcp_conformance_server -- [ADDR]` serves Streamable HTTP at
//! `http://ADDR/mcp` (default 127.0.0.1:8766), printing `listening on <url>` as its first
//! stdout line, until `quit`, the end of its input or Ctrl-C. Input-required state is sealed
//! under `$MCP_SEAL_KEY` (32 bytes or more; instances given the same key continue each
//! other's flows), or a random key of this process's own.

use agentwire_examples::mcp_fixtures;
use agentwire_protocols::skeletons::mcp::STREAMABLE_HTTP;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    agentwire_examples::init_logging();
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8766".to_owned());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let handle = mcp_fixtures::serve(listener, &mcp_fixtures::seal_key()?)?;
    let url = format!("http://{}{}", handle.local_addr(), STREAMABLE_HTTP.path);
    println!("listening on {url}");
    tracing::info!("{}", agentwire_examples::STOP_HINT);
    agentwire_examples::wait_for_stop().await;
    handle.shutdown().await
}
