//! Size and count limits of a gRPC skeleton, with defaults safe for an exposed port.

use std::time::Duration;

/// Limits of one gRPC endpoint (server or client side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcLimits {
    /// Largest encoded message accepted or sent, in bytes. tonic refuses a larger inbound
    /// message with `OUT_OF_RANGE` before decoding it.
    pub max_message_size: usize,
    /// Most streams (registered peers) alive at once; one more is refused with
    /// `RESOURCE_EXHAUSTED`.
    pub max_streams: usize,
    /// Most streams one client (one peer address, IPv6 by /64; see [`crate::budget`]) holds
    /// at once, registered or waiting for its hello, so one client cannot take every one of
    /// `max_streams`; one more is refused with `RESOURCE_EXHAUSTED`. Behind a proxy every
    /// peer has the proxy's address: raise it to `max_streams` there.
    pub max_streams_per_client: usize,
    /// Messages queued per stream towards the peer before a sender waits (back-pressure).
    pub outbound_buffer: usize,
    /// A stream on which the peer sent nothing for this long is closed with `UNAVAILABLE`;
    /// heartbeats count. `None` keeps quiet streams open forever.
    pub idle_timeout: Option<Duration>,
    /// How often a client sends a heartbeat.
    pub heartbeat_interval: Duration,
    /// Streams open at once that have not sent their hello yet. They have a budget of their
    /// own, so however many wait, a peer that says hello still finds one of `max_streams`.
    pub max_unregistered: usize,
    /// How long a new stream has to send its hello before it is closed with
    /// `DEADLINE_EXCEEDED` (and its place in `max_unregistered` freed).
    pub register_timeout: Duration,
}

impl Default for GrpcLimits {
    fn default() -> Self {
        Self {
            // tonic's own default; agent answers are text chunks, far below it.
            max_message_size: 4 * 1024 * 1024,
            max_streams: 1024,
            // A quarter of the global cap, as for WebSocket connections.
            max_streams_per_client: 256,
            outbound_buffer: 64,
            // Three missed heartbeats at the default interval.
            idle_timeout: Some(Duration::from_secs(90)),
            heartbeat_interval: Duration::from_secs(30),
            max_unregistered: super::unregistered::DEFAULT_MAX_UNREGISTERED,
            register_timeout: super::unregistered::DEFAULT_REGISTER_TIMEOUT,
        }
    }
}
