//! The calling end: a JSON-RPC call of a profile's rpc with a typed request, answered with
//! the typed reply (or, for a server-streaming rpc, the stream of them), each message
//! checked by the spec's validators both ways; and the discovery document, fetched.

use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use prost_reflect::MessageDescriptor;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::{Profile, ProfileError};
use crate::grpc::Checked;
use crate::grpc_json::{
    CallError, Events, REPLY_LIMIT, Schema, http_client, read_all, to_json, typed,
};

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
            schema: Arc::new(Schema::new(profile.service, profile.descriptors)?),
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
        let params = to_json(&rpc.input, &request.encode_to_vec())
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
            events: Events::new(response),
            id,
            output,
            done: false,
            _reply: PhantomData,
        })
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

/// The replies of a server-streaming call, as its SSE stream delivers them.
#[derive(Debug)]
pub struct Updates<Res> {
    events: Events,
    id: u64,
    output: MessageDescriptor,
    done: bool,
    _reply: PhantomData<fn() -> Res>,
}

impl<Res: prost::Message + Default + Checked> Updates<Res> {
    /// The next reply; an error ends the stream; `None` once it has ended.
    pub async fn next(&mut self) -> Option<Result<Res, CallError>> {
        if self.done {
            return None;
        }
        let answer = match self.events.next().await? {
            Ok(event) => serde_json::from_str(&event.data)
                .map_err(|e| CallError::Reply(format!("an event is not JSON: {e}")))
                .and_then(|r| answer(r, self.id, &self.output)),
            Err(e) => Err(e),
        };
        self.done = answer.is_err();
        Some(answer)
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
    let schema = Schema::new(profile.service, profile.descriptors)
        .map_err(|e| CallError::Reply(e.to_string()))?;
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
