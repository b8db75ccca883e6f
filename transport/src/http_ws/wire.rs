//! The seam between this machinery and a protocol's generated types: what the agent server
//! needs to decode, build, encode and sequence-check, without naming the types itself.

use agentwire_runtime::Invalid;
use agentwire_runtime::machine::Violation;

use crate::store::external_agents::LogRole;

/// What an inbound WebSocket frame asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// Attach this connection to a session (already trimmed by [`Wire::frame`]).
    Hello {
        session_id: &'a str,
    },
    UserMessage {
        text: &'a str,
    },
}

/// Why a WebSocket frame was refused (the protocol's `WsErrorCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WsError {
    InvalidMessage,
    HelloRequired,
    InvalidSessionId,
    SessionNotFound,
}

/// Why an HTTP request was refused (the protocol's `ApiErrorCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiError {
    InvalidRequest,
    InvalidSessionId,
    AgentNotFound,
    SessionAgentMismatch,
    SessionNotFound,
    EmptyMessage,
    PayloadTooLarge,
}

/// A decoded, validated create request, its session id trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateRequest {
    pub agent_id: String,
    pub session_id: Option<String>,
}

/// Binds the agent server to one protocol's generated types. Every `observe_*` feeds the
/// checker one message of the server's trace; a `prime` tells a checker about a session
/// that exists from before it started (an earlier connection or server run).
pub trait Wire: Send + Sync + 'static {
    type Inbound: Send + Sync + 'static;
    type Outbound: Clone + Send + Sync + 'static;
    type Payload: Send + Sync + 'static;
    type Checker: Send + 'static;

    fn new_checker(max_instances: usize) -> Self::Checker;

    /// Decodes and validates one WebSocket text frame from the web UI.
    fn decode_frame(text: &str) -> Result<Self::Inbound, Invalid>;
    fn frame(msg: &Self::Inbound) -> Frame<'_>;
    fn encode(msg: &Self::Outbound) -> String;
    fn session_ready(session_id: &str, agent_id: &str) -> Self::Outbound;
    fn chat_message(
        session_id: &str,
        role: LogRole,
        text: &str,
        created_at: &str,
    ) -> Self::Outbound;
    fn ws_error(code: WsError, message: &str) -> Self::Outbound;

    /// Decodes and validates a create body.
    fn decode_create(body: &str) -> Result<CreateRequest, Invalid>;
    /// Trims and validates a session id taken from a path.
    fn session_id(raw: &str) -> Result<String, Invalid>;
    fn create_reply(session_id: &str, agent_id: &str, created_at: &str) -> String;
    fn api_error(code: ApiError, message: &str) -> String;
    fn ok_reply() -> String;
    fn payload(
        session_id: &str,
        agent_id: &str,
        callback_url: &str,
        text: &str,
        created_at: &str,
    ) -> Self::Payload;
    fn encode_payload(payload: &Self::Payload) -> String;

    /// Tells a checker the session exists (a create it did not see).
    fn prime(c: &mut Self::Checker, session_id: &str, agent_id: &str);
    /// Tells a checker a connection is attached to the session (a hello and session_ready
    /// it did not see), so the server-wide view of one session can check broadcasts.
    fn prime_connection(c: &mut Self::Checker, session_id: &str, agent_id: &str);
    fn observe_in(c: &mut Self::Checker, msg: &Self::Inbound) -> Result<(), Violation>;
    fn observe_out(c: &mut Self::Checker, msg: &Self::Outbound) -> Result<(), Violation>;
    fn observe_create(
        c: &mut Self::Checker,
        agent_id: &str,
        session_id: &str,
        status: u16,
    ) -> Result<(), Violation>;
    fn observe_forward(
        c: &mut Self::Checker,
        payload: &Self::Payload,
        status: Option<u16>,
    ) -> Result<(), Violation>;
    fn observe_inject(
        c: &mut Self::Checker,
        session_id: &str,
        text: &str,
        status: u16,
    ) -> Result<(), Violation>;
}
