//! Size, count and time limits of the agent server, with defaults safe for an exposed port.

use std::time::Duration;

/// Every limit the agent server enforces. The defaults suit a small deployment; raise them
/// deliberately.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest HTTP request body (create, callback); larger ones get 413.
    pub max_body_bytes: usize,
    /// Largest WebSocket text frame answered with an `error` frame instead of handled.
    /// Frames over four times this size close the connection (the WebSocket layer refuses
    /// to buffer them at all).
    pub max_frame_bytes: usize,
    /// WebSocket connections open at once; one more is refused with 503 before the upgrade.
    pub max_connections: usize,
    /// WebSocket connections of one client (peer address, IPv6 by /64) open at once; one
    /// more is refused with 429 before the upgrade. Behind a proxy, raise it to
    /// `max_connections`.
    pub max_connections_per_client: usize,
    /// Live (not deleted) sessions in the store; a create or revival that would add one
    /// more gets 503 (after idle sessions are expired, see `session_idle_timeout`).
    pub max_sessions: usize,
    /// Live sessions one client (peer address, IPv6 by /64: [`crate::budget`]) may have
    /// created or revived through this instance; one more gets 429. Behind a proxy, raise it
    /// to `max_sessions`.
    pub max_sessions_per_client: usize,
    /// A session with no activity (create, revival, input, callback, an attached WebSocket)
    /// for this long expires: it is marked deleted, its log kept, and its owner may revive
    /// it with a create. Checked a few times per period, and at once when a create finds
    /// the store full, so the cap counts sessions in use, also after a restart.
    pub session_idle_timeout: Duration,
    /// Outbound frames queued for one WebSocket client; a client that falls this far behind
    /// is disconnected rather than letting the server buffer without bound.
    pub max_queued_frames: usize,
    /// Timeout of one `POST inputUrl` (the protocol says 5 s, no retries).
    pub forward_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: 256 * 1024,
            max_frame_bytes: 64 * 1024,
            max_connections: 1024,
            max_connections_per_client: crate::ws::DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
            max_sessions: 10_000,
            max_sessions_per_client: 100,
            session_idle_timeout: Duration::from_secs(24 * 60 * 60),
            max_queued_frames: 1024,
            forward_timeout: Duration::from_secs(5),
        }
    }
}
