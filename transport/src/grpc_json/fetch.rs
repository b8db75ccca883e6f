//! The calling end's HTTP, shared by the JSON bindings' clients: a client that follows no
//! redirects, reads bounded in size and time, replies read as the rpc's type and checked,
//! the events of a Server-Sent Events reply, and why a call failed.

use std::collections::VecDeque;
use std::time::Duration;

use agentwire_runtime::Invalid;
use prost_reflect::MessageDescriptor;
use serde_json::Value;

use super::schema;
use super::status::reason_in_details;
use crate::grpc::Checked;
use crate::streamable_http::sse::{Event, Parser};

/// The largest reply (or stream event) read, in bytes.
pub const MAX_REPLY: usize = 4 * 1024 * 1024;
/// How long a server may take to answer a call, or to send a stream's next event.
pub const REPLY_LIMIT: Duration = Duration::from_secs(60);

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The request breaks the spec; it was not sent.
    #[error("invalid request, not sent: {0}")]
    Invalid(Invalid),
    /// The profile's service has no rpc the binding serves under this name.
    #[error("no method `{0}` in the service")]
    NoMethod(String),
    /// The server could not be reached, or answered outside the binding (an HTTP error).
    #[error("HTTP: {0}")]
    Http(String),
    /// The server took longer than the limit to answer.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// The server answered with a JSON-RPC error.
    #[error("error {code}: {message}")]
    Rpc {
        code: i64,
        message: String,
        /// The whole error object, `data` included.
        error: Value,
    },
    /// The server answered with an HTTP+JSON error: its HTTP status and `google.rpc.Status`.
    #[error("HTTP {http} {}: {message}", error["status"].as_str().unwrap_or_default())]
    Status {
        http: u16,
        message: String,
        /// The `error` member, `details` included.
        error: Value,
    },
    /// The reply is not an answer to the call, or not the rpc's ProtoJSON.
    #[error("the reply is not an answer to the call: {0}")]
    Reply(String),
    /// The reply breaks the spec.
    #[error("invalid reply: {0}")]
    InvalidReply(Invalid),
}

impl CallError {
    /// The `ErrorInfo.reason` in `domain` of the error's details (a JSON-RPC error's `data`,
    /// an HTTP+JSON error's `details`), if any.
    pub fn reason(&self, domain: &str) -> Option<String> {
        match self {
            CallError::Rpc { error, .. } => reason_in_details(error.get("data")?, domain),
            CallError::Status { error, .. } => reason_in_details(error.get("details")?, domain),
            _ => None,
        }
    }
}

/// The HTTP client: no redirects (a call goes where it was told), a connect deadline.
pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .build()
        .unwrap_or_default()
}

/// A response's body, within the size and time limits.
pub async fn read_all(mut response: reqwest::Response) -> Result<Vec<u8>, CallError> {
    let mut out = Vec::new();
    loop {
        let chunk = tokio::time::timeout(REPLY_LIMIT, response.chunk())
            .await
            .map_err(|_| CallError::Timeout(REPLY_LIMIT))?
            .map_err(|e| CallError::Http(e.to_string()))?;
        let Some(chunk) = chunk else { return Ok(out) };
        if out.len() + chunk.len() > MAX_REPLY {
            return Err(CallError::Reply(format!("over {MAX_REPLY} bytes")));
        }
        out.extend_from_slice(&chunk);
    }
}

/// `json` read as the message type `ty` into `M`, checked.
pub fn typed<M: prost::Message + Default + Checked>(
    ty: &MessageDescriptor,
    json: Value,
) -> Result<M, CallError> {
    let bytes = schema::from_json(ty, json)
        .map_err(|e| CallError::Reply(format!("not a `{}`: {e}", ty.full_name())))?;
    let message = M::decode(bytes).map_err(|e| CallError::Reply(e.to_string()))?;
    message.check().map_err(CallError::InvalidReply)?;
    Ok(message)
}

/// The events of a Server-Sent Events reply, as they come, each within the time and size
/// limits.
#[derive(Debug)]
pub struct Events {
    response: reqwest::Response,
    parser: Parser,
    pending: VecDeque<Event>,
}

impl Events {
    pub fn new(response: reqwest::Response) -> Self {
        Events {
            response,
            parser: Parser::new(MAX_REPLY),
            pending: VecDeque::new(),
        }
    }

    /// The next event with data; `None` once the stream has ended.
    pub async fn next(&mut self) -> Option<Result<Event, CallError>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                if event.data.is_empty() {
                    continue;
                }
                return Some(Ok(event));
            }
            let chunk = match tokio::time::timeout(REPLY_LIMIT, self.response.chunk()).await {
                Ok(Ok(Some(chunk))) => chunk,
                Ok(Ok(None)) => return None,
                Ok(Err(e)) => return Some(Err(CallError::Http(e.to_string()))),
                Err(_) => return Some(Err(CallError::Timeout(REPLY_LIMIT))),
            };
            let mut events = Vec::new();
            if let Err(e) = self.parser.feed(&chunk, &mut events) {
                let msg = format!("an event is over {} bytes", e.0);
                return Some(Err(CallError::Reply(msg)));
            }
            self.pending.extend(events);
        }
    }
}
