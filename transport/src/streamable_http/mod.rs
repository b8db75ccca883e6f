//! MCP's Streamable HTTP transport (spec versions 2025-03-26 to 2025-11-25), server on axum
//! and client on reqwest, protocol-agnostic: it moves JSON-RPC message texts between HTTP and
//! a JSON-RPC engine, which sits behind [`Service`] (server) or reads [`Client`]'s receiver.
//!
//! One endpoint: POST carries one client message (202 for a notification or response; a
//! request is answered with `application/json` when its response is the first message the
//! engine sends for it, else with a `text/event-stream` carrying the related messages and
//! then the response); GET opens the session's server-to-client stream; DELETE ends the
//! session. `Mcp-Session-Id` is assigned with the initialize answer and required after it;
//! `MCP-Protocol-Version` is checked when sent; `Origin` is checked against an allow-list
//! (loopback by default). SSE events carry no ids: resumption with `Last-Event-ID` is not
//! offered, so a broken stream loses what was in flight on it (the spec allows this).

mod body;
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
pub use message::{Kind, NotAMessage, classify, error_body};
pub use server::{INITIALIZE, SESSION_HEADER, VERSION_HEADER, router, serve};
pub use service::{Outgoing, Service, SessionPipe};
