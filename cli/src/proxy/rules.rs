//! How a proxied session behaves, shared by every transport and both directions: the
//! protocol, the session that records and checks, whether bad messages are refused, and the
//! framing and deadlines of the wire.

use std::time::Duration;

use agentwire_runtime::registry::Protocol;

use super::session::Session;
use super::split::Framing;

/// How one direction behaves.
#[derive(Clone, Copy)]
pub struct Rules<'a> {
    pub protocol: &'static dyn Protocol,
    pub session: &'a Session,
    /// The stream the traffic belongs to, in a network proxy (its session or connection);
    /// `None` over stdio, which carries one.
    pub stream: Option<&'a str>,
    pub enforce: bool,
    pub framing: Framing,
    pub max_frame_size: usize,
    /// A frame whose first byte came must be whole within this.
    pub frame_timeout: Duration,
    /// A write the other side does not take within this ends the session.
    pub write_timeout: Duration,
    /// A WebSocket connection that carries no message either way for this long is closed.
    pub idle_timeout: Duration,
}

/// The role on the other side of `from` (the first one that is not it).
pub fn other_role(p: &dyn Protocol, from: &str) -> &'static str {
    p.roles().iter().copied().find(|r| *r != from).unwrap_or("")
}
