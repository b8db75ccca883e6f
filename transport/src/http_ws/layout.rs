//! The seam between the session engine and one protocol: a [`Layout`] (every name the
//! protocol's `sessions:` section declares, as static text) and a [`Binding`] (three calls
//! into the protocol's generated decoders and checker). Generated code provides both.

use agentwire_runtime::Invalid;
use agentwire_runtime::machine::Violation;
use serde_json::Value;

/// One HTTP route as the engine needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteLayout {
    pub name: &'static str,
    pub method: &'static str,
    /// The path template (`/a/:id/b`), or a configured URL placeholder (`{x.url}`).
    pub path: &'static str,
    /// The role that sends the request.
    pub from: &'static str,
    /// The JSON body's type; empty for a text body.
    pub body: &'static str,
    /// The type of the success body the engine answers with; empty when it answers none.
    pub reply: &'static str,
}

/// What a protocol's `sessions:` section says, in the form generated code can write as a
/// `static`. Field paths are dotted JSON keys; templates are JSON text whose `$...` strings
/// the engine fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub server: &'static str,
    pub client: &'static str,
    pub websocket: &'static str,
    /// The union of the client's WebSocket frames, its discriminator, and the server's.
    pub inbound: &'static str,
    pub inbound_tag: &'static str,
    pub outbound: &'static str,
    /// The session id's type, and whether its rules trim it first.
    pub session_type: &'static str,
    pub trim_session: bool,
    pub create: RouteLayout,
    pub create_owner: &'static str,
    pub create_session: &'static str,
    pub create_reply: &'static str,
    pub hello_kind: &'static str,
    pub hello_session: &'static str,
    pub hello_answer: &'static str,
    pub input_kind: &'static str,
    pub input_text: &'static str,
    pub forward: RouteLayout,
    pub payload: &'static str,
    pub callback: RouteLayout,
    pub callback_session: &'static str,
    pub callback_reply: &'static str,
    pub broadcast: &'static str,
    pub refusal: &'static str,
    /// The HTTP error body's type and template.
    pub error_type: &'static str,
    pub error_body: &'static str,
    /// Owner definitions: id, forward URL and callback base paths.
    pub owner_id: &'static str,
    pub owner_forward_url: &'static str,
    pub owner_callback_base: &'static str,
    /// Engine word -> protocol value, where they differ.
    pub words: &'static [(&'static str, &'static str)],
}

impl Layout {
    /// The protocol's value for an engine word (an error code, a log role).
    pub fn word(&self, engine: &'static str) -> &'static str {
        self.words
            .iter()
            .find(|(w, _)| *w == engine)
            .map_or(engine, |(_, v)| *v)
    }
}

/// Binds the engine to one protocol's generated code.
pub trait Binding: Send + Sync + 'static {
    /// The generated `machine::Checker`.
    type Checker: Send + 'static;

    const LAYOUT: &'static Layout;

    fn new_checker(max_instances: usize) -> Self::Checker;

    /// Decodes and validates `json` as the type named `type_name`; its JSON as re-encoded
    /// by the typed code.
    fn decode(type_name: &str, json: &str) -> Result<Value, Invalid>;

    /// Feeds the checker one trace entry sent by `from` (`{"message": ...}` or
    /// `{"http": {...}}`). An entry the protocol cannot decode is a bug of the caller's;
    /// implementations log it.
    fn observe(c: &mut Self::Checker, from: &str, entry: &Value) -> Result<(), Violation>;
}

/// Why a WebSocket frame was refused (engine words; the protocol names them in `words`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WsError {
    InvalidMessage,
    HelloRequired,
    InvalidSessionId,
    SessionNotFound,
}

impl WsError {
    pub fn word(self) -> &'static str {
        match self {
            WsError::InvalidMessage => "invalid_message",
            WsError::HelloRequired => "hello_required",
            WsError::InvalidSessionId => "invalid_session_id",
            WsError::SessionNotFound => "session_not_found",
        }
    }
}

/// Why an HTTP request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiError {
    InvalidRequest,
    InvalidSessionId,
    OwnerNotFound,
    SessionOwnerMismatch,
    SessionNotFound,
    EmptyMessage,
    PayloadTooLarge,
}

impl ApiError {
    pub fn word(self) -> &'static str {
        match self {
            ApiError::InvalidRequest => "invalid_request",
            ApiError::InvalidSessionId => "invalid_session_id",
            ApiError::OwnerNotFound => "owner_not_found",
            ApiError::SessionOwnerMismatch => "session_owner_mismatch",
            ApiError::SessionNotFound => "session_not_found",
            ApiError::EmptyMessage => "empty_message",
            ApiError::PayloadTooLarge => "payload_too_large",
        }
    }
}

/// Who a conversation entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogRole {
    User,
    Assistant,
    /// A line the server wrote itself, e.g. a failed forward.
    Error,
}

impl LogRole {
    pub fn word(self) -> &'static str {
        match self {
            LogRole::User => "user",
            LogRole::Assistant => "assistant",
            LogRole::Error => "error",
        }
    }
}
