//! JSON-RPC 2.0 over LSP-style `Content-Length` or newline-delimited framing, for any byte
//! stream (stdio, TCP, pipes, in-memory duplex) or a message transport (HTTP): the framing
//! codecs, a connection peer with request/response correlation (both directions),
//! cancellation, progress and sequence checking, and a TCP accept loop with a connection limit.
//!
//! Protocol-agnostic: a generated skeleton names its message sets, framing, conventions and
//! checker through [`Side`] and [`Bound`], and routes to its handler traits through
//! [`Answers`] and [`Hears`]; the handle ([`Handle`]), the entry points ([`Server`],
//! `Handle::connect*`) and the dispatchers are this module's, shared by every skeleton.

mod call;
mod codec;
mod deadline;
mod ends;
pub(crate) mod era;
mod error;
mod handle;
#[cfg(feature = "streamable-http")]
mod http;
mod link;
mod listen;
mod negotiate;
mod newline;
mod peer;
pub mod probe;
mod sniff;
mod versions;

use std::time::Duration;

use agentwire_runtime::Validate;
use agentwire_runtime::framing::DEFAULT_MAX_FRAME_SIZE;
use agentwire_runtime::jsonrpc::codes;
use agentwire_runtime::machine::Limits;
use serde::Serialize;
use serde_json::value::RawValue;

pub use agentwire_runtime::jsonrpc::{CancelAnswer, CancelRule, Conventions, ProgressRule};
pub use call::Pending;
pub use codec::{ContentLengthCodec, FrameCodec, Framing};
pub use deadline::DEFAULT_FRAME_TIMEOUT;
pub use ends::{Answers, Connected, Hears, NoRequests, Server, Spawned};
pub use era::{Era, STREAM_PROBE_ID, StreamProbe, probe_stream};
pub use error::{CallError, SendError};
pub use handle::{Bound, Handle, Notifications};
#[cfg(feature = "streamable-http")]
pub use http::{HttpConnected, HttpSession, serve_versions_http};
pub use link::{Delivered, Outgoing};
pub use listen::{TcpServer, serve_tcp};
pub use negotiate::{
    Agreed, ConnectVersions, HANDSHAKE_ID, Opened, VersionError, connect_versions, spawn_versions,
};
pub use newline::NewlineCodec;
pub use peer::{
    Answer, Connection, Dispatch, Inbound, Incoming, MessageLink, Outbound, Peer, SERVER_BUSY,
    Side, Stats,
};
pub use tokio_util::sync::CancellationToken;
pub use versions::{Opening, ServeVersions, serve_versions, serve_versions_stdio};

use crate::check::CheckMode;

/// The error code of a request the sequence checker refuses in enforce mode, unless the
/// failed check declares its own (`code:` in `machine.yaml`). JSON-RPC's
/// "Invalid Request" (-32600) is the closest standard code: the request is well formed but
/// not acceptable now (LSP answers requests after `shutdown` the same way). The violation
/// itself travels in the error's `data`.
pub const SEQUENCE_VIOLATION: i64 = codes::INVALID_REQUEST;

/// How one connection behaves. Every limit has a safe default.
#[derive(Debug, Clone)]
pub struct Config {
    /// What the sequence checker does with a message out of order.
    pub mode: CheckMode,
    /// Longest frame body accepted, in bytes; a longer `Content-Length` is refused before
    /// any room is reserved for it. Default 16 MiB.
    pub max_frame_size: usize,
    /// Inbound requests handled at once; one more is answered with [`SERVER_BUSY`] at once.
    /// Default 1024 (as many as a client of this crate keeps outstanding).
    pub max_in_flight: usize,
    /// Outbound requests waiting for their answers; one more fails at once. Default 1024.
    pub max_outstanding: usize,
    /// Outbound frames queued for the writer; senders wait when it is full. Default 256.
    pub queue: usize,
    /// How long an outbound request waits for its answer; `None` waits as long as the
    /// connection lives. Default `None` (a chat prompt may legitimately run for minutes).
    pub request_timeout: Option<Duration>,
    /// The code of the error answering a request refused by the checker, unless the failed
    /// check declares its own (`code:` in `machine.yaml`).
    pub violation_code: i64,
    /// Live instances per checker machine.
    pub checker_limits: Limits,
    /// A frame whose first byte has arrived must be complete within this (give or take: the
    /// connection closes between one and two times it after the frame started), so a peer
    /// trickling a large body cannot hold its buffer forever. `None`: no limit. Default 30 s.
    pub frame_timeout: Option<Duration>,
    /// A connection that completes no frame for this long is closed (rounded up to whole
    /// `frame_timeout`s). Default `None`: an editor over stdio may be quiet for hours; set it
    /// for servers on a network.
    pub idle_timeout: Option<Duration>,
    /// Connections one client (peer address, IPv6 by /64: [`crate::budget`]) may hold open
    /// on a TCP server ([`serve_tcp`]); one more is accepted and closed at once, so one
    /// client cannot take every connection. Default 256; behind a proxy, raise it to the
    /// server's `max_connections`.
    pub max_connections_per_client: usize,
    /// How long a connecting side of a protocol with several versions waits for the answer
    /// to the handshake it opened with ([`connect_versions`]). Default 60 s.
    pub handshake_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            mode: CheckMode::Enforce,
            max_frame_size: DEFAULT_MAX_FRAME_SIZE,
            max_in_flight: 1024,
            max_outstanding: 1024,
            queue: 256,
            request_timeout: None,
            violation_code: SEQUENCE_VIOLATION,
            checker_limits: Limits::default(),
            frame_timeout: Some(DEFAULT_FRAME_TIMEOUT),
            idle_timeout: None,
            max_connections_per_client: crate::ws::DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
            handshake_timeout: Duration::from_secs(60),
        }
    }
}

/// Encodes a handler's typed result for the wire after validating it: a result that breaks
/// its own type's constraints is the handler's bug, answered with -32603 (internal error)
/// rather than sent malformed.
pub fn encode_result<T: Serialize + Validate>(
    result: Result<T, agentwire_runtime::jsonrpc::RpcError>,
) -> Result<Box<RawValue>, agentwire_runtime::jsonrpc::RpcError> {
    let value = result?;
    if let Err(invalid) = value.validate() {
        tracing::error!(error = %invalid, "handler returned an invalid result");
        return Err(internal_error(format!(
            "invalid result: {}",
            invalid.under("/result")
        )));
    }
    serde_json::value::to_raw_value(&value).map_err(|e| internal_error(e.to_string()))
}

/// The `null` result of a request whose spec result is `null`.
pub fn null_result(
    result: Result<(), agentwire_runtime::jsonrpc::RpcError>,
) -> Result<Box<RawValue>, agentwire_runtime::jsonrpc::RpcError> {
    result?;
    serde_json::value::to_raw_value(&()).map_err(|e| internal_error(e.to_string()))
}

fn internal_error(message: String) -> agentwire_runtime::jsonrpc::RpcError {
    agentwire_runtime::jsonrpc::RpcError {
        code: codes::INTERNAL_ERROR,
        message,
        data: None,
    }
}

/// The answer to a request the skeleton has no handler for.
pub fn no_handler(method: &str) -> agentwire_runtime::jsonrpc::RpcError {
    agentwire_runtime::jsonrpc::RpcError {
        code: codes::METHOD_NOT_FOUND,
        message: format!("no handler for `{method}` on this side"),
        data: None,
    }
}

/// The error of a typed call whose decoded result belongs to another method (a generated
/// client checks this instead of assuming it).
pub fn result_mismatch(method: &str) -> CallError {
    CallError::InvalidResult(agentwire_runtime::Invalid::one(
        agentwire_runtime::FieldError::new(
            "/result",
            agentwire_runtime::Rule::Type,
            format!("the result does not belong to `{method}`"),
        ),
    ))
}

/// Starts `command` with piped stdin and stdout (stderr inherited, for its logs), killed on
/// drop; returns the child and its stdout (to read from) and stdin (to write to).
pub fn spawn_child(
    mut command: tokio::process::Command,
) -> std::io::Result<(
    tokio::process::Child,
    tokio::process::ChildStdout,
    tokio::process::ChildStdin,
)> {
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(std::io::Error::other("child has no piped stdio"));
    };
    Ok((child, stdout, stdin))
}
