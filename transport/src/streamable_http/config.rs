//! The server's settings: the protocol's [`Profile`] (which has no default), limits with
//! safe defaults and the Origin and Host policy.

use std::time::Duration;

use super::profile::Profile;
pub use crate::origin::{Hosts, Origins};

/// Every size, count and time limit of the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest POST body; a larger one gets 413 (from `Content-Length` alone when declared).
    pub max_body_bytes: usize,
    /// Live sessions; an `initialize` that would open one more gets 503.
    pub max_sessions: usize,
    /// Live sessions one client (peer address, IPv6 by /64: [`crate::budget`]) may hold; an
    /// `initialize` that would open one more for it gets 429, so one client cannot take every
    /// session and renew them for as long as it likes. Behind a proxy, raise it to
    /// `max_sessions`.
    pub max_sessions_per_client: usize,
    /// A session that sees no request and has no open stream for this long is ended.
    pub idle_timeout: Duration,
    /// Deadline for reading one request's header, and for a keep-alive connection to start
    /// its next request.
    pub header_timeout: Duration,
    /// Deadline for reading one request's body.
    pub body_timeout: Duration,
    /// HTTP connections open at once; one more is closed on accept.
    pub max_connections: usize,
    /// Messages queued for one session's GET stream while none is open (or while it is
    /// slow); past this each new message is dropped (the queued ones stay, in order), with a
    /// rate-limited warning that counts the drops ([`crate::throttle`]).
    pub max_queued: usize,
    /// Requests of one session waiting for their answers; one more gets 429.
    pub max_in_flight: usize,
    /// How long the engine may stay silent on a request (no response, no message related to
    /// it) before the transport answers it itself with error [`TIMED_OUT`] carrying its id
    /// and frees its in-flight slot; the engine's late answer is then dropped. Without it, an
    /// engine that never answers would hold the client's POST and the slot for ever.
    ///
    /// [`TIMED_OUT`]: super::TIMED_OUT
    pub answer_timeout: Duration,
    /// Interval between keep-alive comments on an idle SSE stream.
    pub keep_alive: Duration,
    /// Events each SSE stream keeps after writing them, for replay to a client resuming
    /// with `Last-Event-ID` (events written to a connection that broke may be lost).
    pub replay_events: usize,
    /// POST streams of one session whose connection went away before their response,
    /// kept for resumption; past this the oldest is dropped.
    pub max_parked_streams: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: 4 * 1024 * 1024,
            max_sessions: 1024,
            max_sessions_per_client: 64,
            idle_timeout: Duration::from_secs(30 * 60),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_connections: 1024,
            max_queued: 1024,
            max_in_flight: 256,
            answer_timeout: Duration::from_secs(5 * 60),
            keep_alive: Duration::from_secs(15),
            replay_events: 64,
            max_parked_streams: 16,
        }
    }
}

/// How the server behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The protocol's path, header names and versions: what its spec declares.
    pub profile: Profile,
    pub limits: Limits,
    /// Accepted `Origin` headers; another gets 403. The default follows the bound address
    /// (loopback pages on a loopback server, none otherwise): see [`crate::origin`].
    pub origins: Origins,
    /// Accepted `Host` headers; another gets 403. A request without one (HTTP/1.0) passes.
    /// The default follows the bound address (loopback names on a loopback server).
    pub hosts: Hosts,
    /// Whether GET opens the session's server-to-client stream; `false` answers GET with 405.
    pub standalone_stream: bool,
    /// The `retry` (reconnection delay) of the priming event that opens a POST's SSE stream
    /// for clients of the profile's `priming_since` version or later; `None` sends the
    /// priming event without one.
    pub retry: Option<Duration>,
    /// How long a request's answer may take to be sent as one `application/json` body; a
    /// slower one is answered with an SSE stream (keep-alives, then the response), so that
    /// a long call does not look like a dead connection to the client.
    pub json_wait: Duration,
    /// When set, every request must carry `Authorization: Bearer <token>`; others get 401.
    /// `None` (the default) asks for nothing: fine on loopback, not on a network.
    pub token: Option<String>,
    /// Seals the state handlers answer with and opens what retries give back, in the
    /// members the profile names (`Profile::sealed_state`); every instance given the same
    /// key continues the others' flows. `None` (the default): state goes as the handler
    /// wrote it, so a handler that trusts it must protect it itself.
    pub sealer: Option<super::SharedSealer>,
    /// Headers the application expects on each message beyond those the profile mirrors:
    /// values its own declarations tie to members of the message (a parameter it declared
    /// mirrored into a header, say). Where the profile mirrors headers, a request lacking
    /// one, or whose header says another value once decoded, is refused with 400 and the
    /// profile's mismatch code before any handler sees it.
    pub expected: Option<super::DeriveHeaders>,
}

impl ServerConfig {
    /// The settings of a server of `profile` (a generated skeleton's `STREAMABLE_HTTP`), every
    /// other one at its safe default.
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            limits: Limits::default(),
            origins: Origins::ByAddress,
            hosts: Hosts::ByAddress,
            standalone_stream: true,
            retry: Some(Duration::from_secs(1)),
            json_wait: Duration::from_secs(5),
            token: None,
            sealer: None,
            expected: None,
        }
    }
}
