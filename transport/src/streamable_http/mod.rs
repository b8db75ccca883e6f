//! MCP's Streamable HTTP transport (spec versions 2025-03-26 to 2025-11-25), server on axum
//! and client on reqwest, protocol-agnostic: it moves JSON-RPC message texts between HTTP and
//! a JSON-RPC engine, which sits behind [`Service`] (server) or reads [`Client`]'s receiver.
//!
//! One endpoint: POST carries one client message (202 for a notification or response; a
//! request is answered with `application/json` when its response is the first message the
//! engine sends for it, else with a `text/event-stream` carrying the related messages and
//! then the response); GET opens the session's server-to-client stream; DELETE ends the
//! session. `Mcp-Session-Id` is assigned with the initialize answer and required after it;
//! `MCP-Protocol-Version` is checked when sent; `Origin` and `Host` are checked against
//! allow-lists (loopback by default) against DNS rebinding. SSE events carry ids
//! `<stream>/<seq>`; a stream whose connection breaks is kept with its last events, and a GET
//! with `Last-Event-ID` replays what followed and goes on (the client does this by itself
//! for a POST stream that breaks before its response).
//!
//! ```no_run
//! use agentwire_transport::streamable_http::{self, Kind, Outgoing, ServerConfig, SessionPipe};
//! # async fn run() -> std::io::Result<()> {
//! // Loopback only: a local MCP server must not listen on every interface.
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! let service = |mut pipe: SessionPipe| {
//!     tokio::spawn(async move {
//!         while let Some(message) = pipe.inbound.recv().await {
//!             // A real service hands `message` to a JSON-RPC engine (see
//!             // `SessionPipe::bridge`); this one answers every request with `{}`.
//!             if let Ok(Kind::Request { id, .. }) = streamable_http::classify(&message) {
//!                 let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}});
//!                 let _ = pipe.outbound.send(Outgoing::unrelated(answer.to_string())).await;
//!             }
//!         }
//!     });
//! };
//! let server = streamable_http::serve(listener, service, ServerConfig::default())?;
//! server.wait().await
//! # }
//! ```

mod body;
mod bridge;
mod client;
mod config;
mod error;
mod message;
mod server;
mod service;
mod session;
pub mod sse;
mod stream;

pub use client::{Client, ClientConfig, Received};
pub use config::{Hosts, Limits, Origins, PROTOCOL_VERSIONS, ServerConfig};
pub use error::ClientError;
pub use message::{Kind, NotAMessage, check_members, classify, error_answer, error_body};
pub use server::{INITIALIZE, SESSION_HEADER, VERSION_HEADER, router, serve};
pub use service::{Outgoing, Service, SessionPipe};
pub use session::TIMED_OUT;
