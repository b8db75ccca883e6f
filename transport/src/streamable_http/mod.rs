//! The Streamable HTTP transport, server on axum and client on reqwest, protocol-agnostic: it
//! moves JSON-RPC message texts between HTTP and a JSON-RPC engine, which sits behind
//! [`Service`] (server) or reads [`Client`]'s receiver. What differs between protocols (the
//! path, the session and version header names, the accepted versions, the request that opens
//! a session) is a [`Profile`] the protocol's spec declares; a generated skeleton holds it as
//! `STREAMABLE_HTTP`.
//!
//! One endpoint: POST carries one client message (202 for a notification or response; a
//! request is answered with `application/json` when its response is the first message the
//! engine sends for it, else with a `text/event-stream` carrying the related messages and
//! then the response); GET opens the session's server-to-client stream; DELETE ends the
//! session. The session header is assigned with the answer to the opening request and
//! required after it; the version header is checked when sent; `Origin` and `Host` are checked against
//! allow-lists (loopback by default) against DNS rebinding. SSE events carry ids
//! `<stream>/<seq>`; a stream whose connection breaks is kept with its last events, and a GET
//! with `Last-Event-ID` replays what followed and goes on (the client does this by itself
//! for a POST stream that breaks before its response).
//!
//! With the `streamable-http` feature:
//!
//! ```no_run
//! use agentwire_transport::streamable_http::{
//!     self, Kind, Outgoing, Profile, ServerConfig, SessionPipe,
//! };
//! # async fn run() -> std::io::Result<()> {
//! // What a spec declares; a generated skeleton's `STREAMABLE_HTTP` is one.
//! const PROFILE: Profile = Profile {
//!     path: "/rpc",
//!     session_header: "Example-Session-Id",
//!     version_header: "Example-Protocol-Version",
//!     versions: &["2025-01-01"],
//!     opens_with: "initialize",
//!     version_member: "protocolVersion",
//!     priming_since: None,
//!     version_source: None,
//!     unsupported_code: streamable_http::DEFAULT_UNSUPPORTED_CODE,
//!     mirror: &[],
//!     mirror_since: None,
//!     mirror_base64: None,
//!     mismatch_code: streamable_http::DEFAULT_MISMATCH_CODE,
//!     sealed_state: None,
//!     error_status: &[],
//! };
//! // Loopback only: a local server must not listen on every interface.
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! let service = |mut pipe: SessionPipe| {
//!     tokio::spawn(async move {
//!         while let Some(message) = pipe.inbound.recv().await {
//!             // A real service hands `message` to a JSON-RPC engine (see
//!             // `SessionPipe::bridge`); this one answers every request with `{}`.
//!             if let Ok(Kind::Request { id, .. }) = streamable_http::classify(&message.text) {
//!                 let answer = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {}});
//!                 let _ = pipe.outbound.send(Outgoing::unrelated(answer.to_string())).await;
//!             }
//!         }
//!     });
//! };
//! let server = streamable_http::serve(listener, service, ServerConfig::new(PROFILE))?;
//! server.wait().await
//! # }
//! ```

mod profile;
pub use profile::{DEFAULT_MISMATCH_CODE, DEFAULT_UNSUPPORTED_CODE, Mirror, Profile, SealedState};
#[cfg(feature = "streamable-http")]
pub use sealing::SharedSealer;

// The profile is always here (generated skeletons name it); the server and client need the
// `streamable-http` feature.
#[cfg(feature = "streamable-http")]
mod alone;
#[cfg(feature = "streamable-http")]
mod auth;
#[cfg(feature = "streamable-http")]
mod body;
#[cfg(feature = "streamable-http")]
mod bridge;
#[cfg(feature = "streamable-http")]
mod client;
#[cfg(feature = "streamable-http")]
mod config;
#[cfg(feature = "streamable-http")]
mod error;
#[cfg(feature = "streamable-http")]
mod message;
#[cfg(feature = "streamable-http")]
mod mirror;
#[cfg(feature = "streamable-http")]
mod negotiate;
#[cfg(feature = "streamable-http")]
mod sealing;
#[cfg(feature = "streamable-http")]
mod server;
#[cfg(feature = "streamable-http")]
mod service;
#[cfg(feature = "streamable-http")]
mod session;
// The SSE framing is shared with the JSON-RPC binding of gRPC services (`grpc_jsonrpc`).
pub mod sse;
#[cfg(feature = "streamable-http")]
mod stream;

#[cfg(feature = "streamable-http")]
pub use auth::{Authorizer, BoxFuture, SharedAuthorizer};
#[cfg(feature = "streamable-http")]
pub use client::{Client, ClientConfig, DeriveHeaders, Received};
#[cfg(feature = "streamable-http")]
pub use config::{Hosts, Limits, Origins, ServerConfig};
#[cfg(feature = "streamable-http")]
pub use error::ClientError;
#[cfg(feature = "streamable-http")]
pub use message::{Kind, NotAMessage, check_members, classify, error_answer, error_body};
#[cfg(feature = "streamable-http")]
pub use negotiate::{Era, negotiate};
#[cfg(feature = "streamable-http")]
pub use server::{router, serve, serve_wrapped};
#[cfg(feature = "streamable-http")]
pub use service::{Delivered, Outgoing, Service, SessionPipe};
#[cfg(feature = "streamable-http")]
pub use session::TIMED_OUT;
