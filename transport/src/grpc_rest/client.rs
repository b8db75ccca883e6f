//! The calling end: an rpc called on the HTTP+JSON binding with a typed request, sent by
//! the first of its rules whose path variables the request fills, answered with the typed
//! reply (or, for a server-streaming rpc, the stream of them), each message checked by the
//! spec's validators both ways; an error body read back as its status and details.

use std::marker::PhantomData;
use std::sync::Arc;

use reqwest::Method;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::Profile;
use super::rules::{Route, Routes};
use super::transcode::outgoing;
use crate::grpc::Checked;
use crate::grpc_json::ProfileError;
use crate::grpc_json::{
    CallError, Events, REPLY_LIMIT, Schema, http_client, read_all, to_json, typed,
};

/// A client of one HTTP+JSON interface.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    routes: Arc<Routes>,
    profile: &'static Profile,
    headers: HeaderMap,
}

impl Client {
    /// A client of the interface at `base` (scheme, authority and any path prefix).
    pub fn new(base: &str, profile: &'static Profile) -> Result<Self, ProfileError> {
        let schema = Schema::new(profile.service, profile.descriptors)?;
        Ok(Client {
            http: http_client(),
            base: base.trim_end_matches('/').to_owned(),
            routes: Arc::new(Routes::new(profile, &schema)?),
            profile,
            headers: HeaderMap::new(),
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

    /// Sends `request` on the first rule of `rpc` it fits; the response once its headers
    /// arrived, with the rule.
    async fn send<Req: prost::Message + Checked>(
        &self,
        rpc: &str,
        request: &Req,
        accept: &str,
    ) -> Result<(reqwest::Response, &Route), CallError> {
        request.check().map_err(CallError::Invalid)?;
        let rules = self.routes.of_rpc(rpc);
        let first = rules
            .first()
            .ok_or_else(|| CallError::NoMethod(rpc.to_owned()))?;
        let json = to_json(&first.rpc.input, &request.encode_to_vec())
            .map_err(|e| CallError::Reply(format!("the request type is not the rpc's: {e}")))?;
        // Of the rules the request fills, the one binding the most of its fields in the
        // path (a tenant's, when it names one), else the first written.
        let mut chosen: Option<(&Route, _)> = None;
        for r in rules {
            let Some(o) = outgoing(r, &json) else {
                continue;
            };
            let binds = r.template.variables().len();
            if chosen
                .as_ref()
                .is_none_or(|(c, _)| binds > c.template.variables().len())
            {
                chosen = Some((r, o));
            }
        }
        let (route, out) = chosen.ok_or_else(|| {
            CallError::NoMethod(format!("{rpc} (the request fills no rule's path)"))
        })?;
        let method = Method::from_bytes(route.rule.method.as_bytes())
            .map_err(|e| CallError::NoMethod(format!("{rpc}: {e}")))?;
        let mut call = self
            .http
            .request(method, format!("{}{}", self.base, out.target))
            .headers(self.headers.clone())
            .header(ACCEPT, accept);
        if let Some(body) = out.body {
            call = call
                .header(CONTENT_TYPE, self.profile.media_type)
                .body(body.to_string());
        }
        let response = tokio::time::timeout(REPLY_LIMIT, call.send())
            .await
            .map_err(|_| CallError::Timeout(REPLY_LIMIT))?
            .map_err(|e| CallError::Http(e.to_string()))?;
        if !response.status().is_success() {
            let http = response.status().as_u16();
            let body = read_all(response).await?;
            return Err(status_error(http, &body));
        }
        Ok((response, route))
    }

    /// Calls the unary rpc `rpc` with `request`.
    pub async fn call<Req, Res>(&self, rpc: &str, request: &Req) -> Result<Res, CallError>
    where
        Req: prost::Message + Checked,
        Res: prost::Message + Default + Checked,
    {
        let (response, route) = self.send(rpc, request, self.profile.media_type).await?;
        if route.rpc.server_streaming {
            return Err(CallError::NoMethod(format!(
                "{rpc} (it streams: `stream` it)"
            )));
        }
        let bytes = read_all(response).await?;
        let json: Value = if bytes.is_empty() {
            Value::Object(Default::default())
        } else {
            serde_json::from_slice(&bytes)
                .map_err(|e| CallError::Reply(format!("not JSON: {e}")))?
        };
        typed(&route.rpc.output, wrap(route, json))
    }

    /// Calls the server-streaming rpc `rpc` with `request`: its replies, as they come.
    pub async fn stream<Req, Res>(
        &self,
        rpc: &str,
        request: &Req,
    ) -> Result<Updates<Res>, CallError>
    where
        Req: prost::Message + Checked,
        Res: prost::Message + Default + Checked,
    {
        let (response, route) = self.send(rpc, request, "text/event-stream").await?;
        if !route.rpc.server_streaming {
            return Err(CallError::NoMethod(format!(
                "{rpc} (it is unary: `call` it)"
            )));
        }
        Ok(Updates {
            events: Events::new(response),
            route: Box::new(route.clone()),
            done: false,
            _reply: PhantomData,
        })
    }
}

/// A reply that is a rule's `response_body` field, put back in its message.
fn wrap(route: &Route, json: Value) -> Value {
    let field = route.rule.response_body;
    match route.rpc.output.get_field_by_name(field) {
        Some(f) if !field.is_empty() => serde_json::json!({ f.json_name(): json }),
        _ => json,
    }
}

/// An error answer: its `google.rpc.Status` JSON, or what the body was when it is not one.
fn status_error(http: u16, body: &[u8]) -> CallError {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    match parsed.and_then(|mut v| v.get_mut("error").map(Value::take)) {
        Some(error) if error.is_object() => CallError::Status {
            // An `error` event carries no HTTP status of its own: its body's code is one.
            http: match http {
                0 => error["code"]
                    .as_u64()
                    .and_then(|c| u16::try_from(c).ok())
                    .unwrap_or(0),
                _ => http,
            },
            message: error["message"].as_str().unwrap_or_default().to_owned(),
            error,
        },
        _ => CallError::Http(format!(
            "status {http}: {}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        )),
    }
}

/// The replies of a server-streaming call, as its SSE stream delivers them.
#[derive(Debug)]
pub struct Updates<Res> {
    events: Events,
    /// Boxed: a compiled rule is large beside the rest of the stream.
    route: Box<Route>,
    done: bool,
    _reply: PhantomData<fn() -> Res>,
}

impl<Res: prost::Message + Default + Checked> Updates<Res> {
    /// The next reply; an error (an `error` event, or a reply that does not fit) ends the
    /// stream; `None` once it has ended.
    pub async fn next(&mut self) -> Option<Result<Res, CallError>> {
        if self.done {
            return None;
        }
        let answer = match self.events.next().await? {
            Ok(event) if event.name == "error" => Err(status_error(0, event.data.as_bytes())),
            Ok(event) => serde_json::from_str(&event.data)
                .map_err(|e| CallError::Reply(format!("an event is not JSON: {e}")))
                .and_then(|json| typed(&self.route.rpc.output, wrap(&self.route, json))),
            Err(e) => Err(e),
        };
        self.done = answer.is_err();
        Some(answer)
    }
}
