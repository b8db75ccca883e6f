//! HTTP + WebSocket machinery for the external_agents protocol family: the agent server
//! (session create/attach, WS `/ws`, forwarding to `inputUrl`, callback injection), the
//! external system's `inputUrl` receiver and callback client, and a web UI WebSocket client.
//!
//! The behaviour the protocol fixes lives here; the typed messages, validators and checker
//! come from generated code through the [`Wire`] trait, which
//! `agentwire_protocols::skeletons::external_agents` implements.

mod client;
mod clock;
mod forward;
pub mod guard;
mod hub;
mod limits;
mod serve;
mod server;
mod socket;
mod wire;

pub use client::{ClientError, HttpReply, WsClient, post};
pub use clock::Clock;
pub use forward::{ForwardError, Forwarder};
pub use guard::Guard;
pub use limits::Limits;
pub use serve::{ServerHandle, serve_router, serve_router_guarded};
pub use server::{AgentEntry, AgentServer, AgentServerConfig, ExternalEndpoints, ServerError};
pub use wire::{ApiError, CreateRequest, Frame, Wire, WsError};
