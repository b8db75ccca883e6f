//! The calling end: a JSON-RPC call of a profile's rpc with a typed request, answered with
//! the typed reply (or, for a server-streaming rpc, the stream of them), each message
//! checked by the spec's validators both ways; and the discovery document, fetched.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use agentwire_runtime::Invalid;
use prost_reflect::MessageDescriptor;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::schema::{self, Schema};
use super::status::reason_in;
use super::{Profile, ProfileError};
use crate::grpc::Checked;
use crate::streamable_http::sse::{Event, Parser};

/// The largest reply (or stream event) read, in bytes.
const MAX_REPLY: usize = 4 * 1024 * 1024;
/// How long a server may take to answer a call, or to send a stream's next event.
const REPLY_LIMIT: Duration = Duration::from_secs(60);

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The request breaks the spec; it was not sent.
    #[error("invalid request, not sent: {0}")]
    Invalid(Invalid),
    /// The profile's service has no rpc the binding serves under this name.
    #[error("no method `{0}` in the service")]
    NoMethod(String),
    /// The server could not be reached, or answered outside JSON-RPC (an HTTP error).
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
    /// The reply is not a JSON-RPC response to the call, or not the rpc's ProtoJSON.
    #[error("the reply is not an answer to the call: {0}")]
    Reply(String),
    /// The reply breaks the spec.
    #[error("invalid reply: {0}")]
    InvalidReply(Invalid),
}

impl CallError {
    /// The `ErrorInfo.reason` of a JSON-RPC error's `data` in `domain`, if any.
    pub fn reason(&self, domain: &str) -> Option<String> {
        match self {
            CallError::Rpc { error, .. } => reason_in(error, domain),
            _ => None,
        }
    }
}

/// A JSON-RPC client of one endpoint.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    url: String,
    schema: Arc<Schema>,
    headers: HeaderMap,
    next_id: Arc<AtomicU64>,
}

impl Client {
    /// A client of the endpoint at `url` (the profile's path included), sending the
    /// profile's newest version in its version header, if it has one.
    pub fn new(url: &str, profile: &'static Profile) -> Result<Self, ProfileError> {
        let mut headers = HeaderMap::new();
        if let Some(v) = profile.version {
            let name = HeaderName::try_from(v.header).ok();
            let value = v
                .supported
                .first()
                .and_then(|s| HeaderValue::try_from(*s).ok());
            if let (Some(name), Some(value)) = (name, value) {
                headers.insert(name, value);
            }
        }
        Ok(Client {
            http: http_client(),
            url: url.to_owned(),
            schema: Arc::new(Schema::new(profile)?),
            headers,
            next_id: Arc::new(AtomicU64::new(1)),
        })
    }

    /// The same client sending `value` in header `name` with every call (`None` takes a
    /// header away).
    pub fn with_header(mut self, name: HeaderName, value: Option<HeaderValue>) -> Self {
        match value {
            Some(v) => self.headers.insert(name, v),
            None => self.headers.remove(name),
        };
        self
    }

    /// The request body of `method` with `request`, and the rpc's reply type.
    fn body<Req: prost::Message + Checked>(
        &self,
        method: &str,
        request: &Req,
    ) -> Result<(u64, Value, MessageDescriptor, bool), CallError> {
        request.check().map_err(CallError::Invalid)?;
        let rpc = self
            .schema
            .rpc(method)
            .ok_or_else(|| CallError::NoMethod(method.to_owned()))?;
        let params = schema::to_json(&rpc.input, &request.encode_to_vec())
            .map_err(|e| CallError::Reply(format!("the request type is not the rpc's: {e}")))?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        Ok((id, body, rpc.output, rpc.server_streaming))
    }

    /// POSTs `body`, accepting `accept`; the response once its headers arrived.
    async fn post(
        &self,
        body: &Value,
        accept: &'static str,
    ) -> Result<reqwest::Response, CallError> {
        let request = self
            .http
            .post(&self.url)
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, accept)
            .body(body.to_string());
        let response = tokio::time::timeout(REPLY_LIMIT, request.send())
            .await
            .map_err(|_| CallError::Timeout(REPLY_LIMIT))?
            .map_err(|e| CallError::Http(e.to_string()))?;
        if !response.status().is_success() {
            return Err(CallError::Http(format!("status {}", response.status())));
        }
        Ok(response)
    }

    /// Calls the unary rpc `method` with `request`.
    pub async fn call<Req, Res>(&self, method: &str, request: &Req) -> Result<Res, CallError>
    where
        Req: prost::Message + Checked,
        Res: prost::Message + Default + Checked,
    {
        let (id, body, output, streaming) = self.body(method, request)?;
        if streaming {
            return Err(CallError::NoMethod(format!(
                "{method} (it streams: `stream` it)"
            )));
        }
        let response = self.post(&body, "application/json").await?;
        let bytes = read_all(response).await?;
        let reply: Value = serde_json::from_slice(&bytes)
            .map_err(|e| CallError::Reply(format!("not JSON: {e}")))?;
        answer(reply, id, &output)
    }

    /// Calls the server-streaming rpc `method` with `request`: its replies, as they come.
    pub async fn stream<Req, Res>(
        &self,
        method: &str,
        request: &Req,
    ) -> Result<Updates<Res>, CallError>
    where
        Req: prost::Message + Checked,
        Res: prost::Message + Default + Checked,
    {
        let (id, body, output, streaming) = self.body(method, request)?;
        if !streaming {
            return Err(CallError::NoMethod(format!(
                "{method} (it is unary: `call` it)"
            )));
        }
        let response = self.post(&body, "text/event-stream").await?;
        let sse = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !sse {
            // Refused before its first message: one JSON-RPC response, an error.
            let bytes = read_all(response).await?;
            let reply: Value = serde_json::from_slice(&bytes)
                .map_err(|e| CallError::Reply(format!("not JSON: {e}")))?;
            answer::<Res>(reply, id, &output)?;
            return Err(CallError::Reply(
                "a stream answered with one result".to_owned(),
            ));
        }
        Ok(Updates {
            response,
            parser: Parser::new(MAX_REPLY),
            pending: VecDeque::new(),
            id,
            output,
            done: false,
            _reply: PhantomData,
        })
    }
}

/// The HTTP client: no redirects (a call goes where it was told), a connect deadline.
fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .build()
        .unwrap_or_default()
}

/// A response's body, within the size and time limits.
async fn read_all(mut response: reqwest::Response) -> Result<Vec<u8>, CallError> {
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

/// The typed result of the JSON-RPC response `reply` to call `id`, or its error.
fn answer<Res>(reply: Value, id: u64, output: &MessageDescriptor) -> Result<Res, CallError>
where
    Res: prost::Message + Default + Checked,
{
    let Value::Object(mut reply) = reply else {
        return Err(CallError::Reply("not a JSON object".to_owned()));
    };
    if reply.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(CallError::Reply("`jsonrpc` is not \"2.0\"".to_owned()));
    }
    let same_id = match reply.get("id") {
        Some(Value::Number(n)) => n.as_u64() == Some(id),
        Some(Value::String(s)) => s == &id.to_string(),
        // JSON-RPC answers an unreadable request with a null id.
        Some(Value::Null) => reply.contains_key("error"),
        _ => false,
    };
    if !same_id {
        return Err(CallError::Reply(format!(
            "the response is not to call {id}"
        )));
    }
    if let Some(error) = reply.remove("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        return Err(CallError::Rpc {
            code,
            message,
            error,
        });
    }
    let result = reply
        .remove("result")
        .ok_or_else(|| CallError::Reply("neither `result` nor `error`".to_owned()))?;
    typed(output, result)
}

/// `json` read as the message type `ty` into `M`, checked.
fn typed<M: prost::Message + Default + Checked>(
    ty: &MessageDescriptor,
    json: Value,
) -> Result<M, CallError> {
    let bytes = schema::from_json(ty, json)
        .map_err(|e| CallError::Reply(format!("not a `{}`: {e}", ty.full_name())))?;
    let message = M::decode(bytes).map_err(|e| CallError::Reply(e.to_string()))?;
    message.check().map_err(CallError::InvalidReply)?;
    Ok(message)
}

/// The replies of a server-streaming call, as its SSE stream delivers them.
#[derive(Debug)]
pub struct Updates<Res> {
    response: reqwest::Response,
    parser: Parser,
    pending: VecDeque<Event>,
    id: u64,
    output: MessageDescriptor,
    done: bool,
    _reply: PhantomData<fn() -> Res>,
}

impl<Res: prost::Message + Default + Checked> Updates<Res> {
    /// The next reply; an error ends the stream; `None` once it has ended.
    pub async fn next(&mut self) -> Option<Result<Res, CallError>> {
        while !self.done {
            if let Some(event) = self.pending.pop_front() {
                if event.data.is_empty() {
                    continue;
                }
                let reply = serde_json::from_str(&event.data)
                    .map_err(|e| CallError::Reply(format!("an event is not JSON: {e}")));
                let answer = reply.and_then(|r| answer(r, self.id, &self.output));
                self.done = answer.is_err();
                return Some(answer);
            }
            let chunk = match tokio::time::timeout(REPLY_LIMIT, self.response.chunk()).await {
                Ok(Ok(Some(chunk))) => chunk,
                Ok(Ok(None)) => break,
                Ok(Err(e)) => return self.fail(CallError::Http(e.to_string())),
                Err(_) => return self.fail(CallError::Timeout(REPLY_LIMIT)),
            };
            let mut events = Vec::new();
            if let Err(e) = self.parser.feed(&chunk, &mut events) {
                return self.fail(CallError::Reply(format!("an event is over {} bytes", e.0)));
            }
            self.pending.extend(events);
        }
        self.done = true;
        None
    }

    fn fail(&mut self, e: CallError) -> Option<Result<Res, CallError>> {
        self.done = true;
        Some(Err(e))
    }
}

/// The discovery document of `profile` at `base` (scheme and authority), read as `M`.
pub async fn discover<M>(base: &str, profile: &'static Profile) -> Result<M, CallError>
where
    M: prost::Message + Default + Checked,
{
    let Some(d) = profile.discovery else {
        return Err(CallError::NoMethod(
            "the profile has no discovery document".to_owned(),
        ));
    };
    let schema = Schema::new(profile).map_err(|e| CallError::Reply(e.to_string()))?;
    let ty = schema
        .message(d.message)
        .map_err(|e| CallError::Reply(e.to_string()))?;
    let url = format!("{}{}", base.trim_end_matches('/'), d.path);
    let response = tokio::time::timeout(REPLY_LIMIT, http_client().get(&url).send())
        .await
        .map_err(|_| CallError::Timeout(REPLY_LIMIT))?
        .map_err(|e| CallError::Http(e.to_string()))?;
    if !response.status().is_success() {
        return Err(CallError::Http(format!(
            "GET {url}: status {}",
            response.status()
        )));
    }
    let bytes = read_all(response).await?;
    let json: Value =
        serde_json::from_slice(&bytes).map_err(|e| CallError::Reply(format!("not JSON: {e}")))?;
    typed(&ty, json)
}
