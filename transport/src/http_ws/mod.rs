//! HTTP + WebSocket session engine: a server that creates, attaches to and revives sessions
//! over one HTTP route, attaches WebSocket clients with a hello, stores and broadcasts their
//! input, forwards it to the session owner's URL (timeout, no retries), and appends what
//! comes back on a callback route; plus the clients of those routes and of the WebSocket.
//!
//! Which route, kind and field plays each part is the protocol's `sessions:` section, handed
//! over by generated code as a [`Layout`]; the protocol's decoders and sequence checker come
//! through the [`Binding`] trait. A generated HTTP + WebSocket skeleton is one such binding.

mod client;
mod clock;
mod engine;
mod expiry;
mod forward;
pub mod guard;
mod hub;
mod layout;
mod limits;
mod relay;
mod routes;
mod serve;
mod server;
mod session_client;
mod socket;

pub use client::{ClientError, HttpReply, WsClient, bearer_client, post, request};
pub use clock::Clock;
pub use engine::{Engine, fill, get_path, set_path};
pub use forward::{ForwardError, Forwarder};
pub use guard::Guard;
pub use layout::{ApiError, Binding, Layout, LogRole, RouteLayout, WsError};
pub use limits::Limits;
pub use routes::{axum_path, method_router};
#[cfg(feature = "streamable-http")]
pub(crate) use serve::serve_router_checked;
pub use serve::{ServerHandle, serve_router, serve_router_guarded};
pub use server::{Endpoints, Owner, ServerConfig, ServerError, SessionServer};
pub use session_client::SessionClient;
