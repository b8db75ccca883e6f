//! Why a message could not be sent on a stream.

use agentwire_runtime::machine::Violation;

/// A refused or failed send.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The sequence checker (enforce mode) refused the message; nothing was sent.
    #[error("sequence violation, not sent: {0}")]
    Violation(#[from] Violation),
    /// The message belongs to an optional feature the peer did not declare.
    #[error("the peer did not declare the `{0}` feature")]
    FeatureNotDeclared(&'static str),
    /// The peer already has a request in flight and takes one at a time.
    #[error("the peer is busy with request {0}")]
    Busy(String),
    /// The message failed validation and was not sent.
    #[error("invalid message, not sent: {0}")]
    Invalid(#[from] agentwire_runtime::Invalid),
    /// The stream has ended.
    #[error("the stream is closed")]
    Closed,
}

/// Why a client could not open and register its stream.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError<R: std::fmt::Debug> {
    /// The endpoint could not be reached.
    #[error("cannot reach the server: {0}")]
    Transport(#[from] tonic::transport::Error),
    /// The server ended the stream with a status instead of answering the registration.
    #[error("the server ended the stream: {0}")]
    Status(tonic::Status),
    /// The server refused the registration with the protocol's own answer.
    #[error("registration refused: {0:?}")]
    Rejected(R),
    /// The server's first message was not an answer to the registration.
    #[error("the server's first message answers no registration: {0}")]
    Unexpected(String),
    /// The registration itself could not be sent (invalid, or refused by the checker).
    #[error("registration not sent: {0}")]
    Send(#[from] SendError),
}
