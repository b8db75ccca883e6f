//! The close codes RFC 6455 names for a peer's broken input (section 7.4.1), so the peer learns
//! why its connection ended instead of seeing a bare close.

use tokio_tungstenite::tungstenite::Error;

/// A close frame's status code and reason.
pub(crate) type CloseReason = (u16, &'static str);

/// 1002: the peer broke the WebSocket protocol (bad opcode, unmasked client frame, ...).
pub const PROTOCOL_ERROR: u16 = 1002;
/// 1007: a text frame that is not UTF-8.
pub const INVALID_PAYLOAD: u16 = 1007;
/// 1009: a frame or message larger than the configured limit.
pub const MESSAGE_TOO_BIG: u16 = 1009;
/// 1000 with this reason: the peer sent nothing (not even a pong) for the idle timeout.
pub const IDLE: CloseReason = (1000, "idle timeout");

/// The close frame owed for a read error, or `None` when the socket itself failed.
pub(crate) fn for_error(error: &Error) -> Option<CloseReason> {
    match error {
        Error::Capacity(_) => Some((MESSAGE_TOO_BIG, "message too big")),
        Error::Utf8(_) => Some((INVALID_PAYLOAD, "text frame is not UTF-8")),
        Error::Protocol(_) => Some((PROTOCOL_ERROR, "protocol error")),
        _ => None,
    }
}

/// The same for axum's error, which wraps tungstenite's.
pub(crate) fn for_axum_error(error: &axum::Error) -> Option<CloseReason> {
    let inner = std::error::Error::source(error)?;
    inner.downcast_ref::<Error>().and_then(for_error)
}
