//! The client's typed errors, each naming the rule that failed.

use std::time::Duration;

/// Why a client operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    #[error("invalid endpoint URL {url:?}: {reason}")]
    Url { url: String, reason: String },
    #[error("bad Streamable HTTP profile: {0}")]
    Profile(String),
    #[error("refusing to send a body that is not one JSON-RPC message: {rule}")]
    Invalid { rule: String },
    #[error("HTTP request failed: {0}")]
    Http(String),
    #[error("the server did not {what} within {after:?}")]
    Timeout { what: &'static str, after: Duration },
    #[error("the server no longer knows this session (HTTP 404): open a new one")]
    SessionExpired,
    #[error(
        "the server refused the credentials (HTTP {status}) and none could be obtained: {reason}"
    )]
    Unauthorized { status: u16, reason: String },
    #[error("the server answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    #[error(
        "unexpected Content-Type {0:?}: a POST answer is application/json or text/event-stream"
    )]
    ContentType(String),
    #[error("the server sent a message over the {0}-byte limit")]
    TooLarge(usize),
    #[error("the server sent something that is not one JSON-RPC message: {rule}")]
    BadMessage { rule: String },
}
