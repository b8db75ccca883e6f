//! Why sending a message or completing a call failed, each with the rule that was broken.

use std::time::Duration;

use agentwire_runtime::Invalid;
use agentwire_runtime::jsonrpc::RpcError;
use agentwire_runtime::machine::Violation;

/// Why an outbound message was not sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SendError {
    /// The message breaks its spec's constraints (pointers under `/params`).
    #[error("invalid message: {0}")]
    Invalid(Invalid),
    /// The sequence checker refused it (enforce mode).
    #[error("out of sequence: {0}")]
    Violation(Violation),
    /// The connection is shut down or gone.
    #[error("connection closed")]
    Closed,
}

/// Why a request did not produce a result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    #[error(transparent)]
    Send(#[from] SendError),
    /// The peer answered with an error response.
    #[error("error response {}: {}", .0.code, .0.message)]
    Rpc(RpcError),
    /// The peer's result does not decode or breaks its type's constraints.
    #[error("invalid result: {0}")]
    InvalidResult(Invalid),
    /// The sequence checker refused the response (enforce mode).
    #[error("response out of sequence: {0}")]
    Violation(Violation),
    /// Too many requests already wait for an answer on this connection.
    #[error("more than {0} requests outstanding")]
    TooManyOutstanding(usize),
    /// No answer within the configured request timeout.
    #[error("no response within {0:?}")]
    Timeout(Duration),
    /// The call was cancelled ([`super::Peer::cancel`]).
    #[error("cancelled")]
    Cancelled,
    /// The connection ended before the answer came.
    #[error("connection closed before the response")]
    Closed,
}
