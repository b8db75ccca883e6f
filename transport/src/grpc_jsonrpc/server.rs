//! The serving end: an axum router answering JSON-RPC calls at the profile's path (and the
//! discovery document at its own), each call made on the gRPC service in process.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use serde_json::{Value, json};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::codegen::{Body as HttpBody, Service, StdError, http};
use tonic::metadata::MetadataMap;
use tonic::server::NamedService;
use tonic::service::Routes;

use super::codec::RawCodec;
use super::schema::{self, Rpc, Schema};
use super::status::to_error;
use super::{Profile, ProfileError};

/// The largest request body read, in bytes (gRPC's default message limit).
const MAX_BODY: usize = 4 * 1024 * 1024;
/// How long a peer may take to send its request body.
const READ_LIMIT: Duration = Duration::from_secs(30);
/// HTTP headers that describe the HTTP exchange itself, not the call: not passed on as
/// metadata (gRPC sets its own), nor are `grpc-` headers or binary (`-bin`) ones.
const NOT_METADATA: &[&str] = &[
    "content-type",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "host",
    "te",
    "accept",
    "accept-encoding",
    "expect",
];

/// What each request of the router shares.
struct Shared<S> {
    service: S,
    schema: Schema,
    profile: &'static Profile,
}

/// The JSON-RPC endpoint of `profile` calling `service` (the gRPC service, in process), and
/// the discovery document (`discovery`, the protobuf encoding of its message) when the
/// profile declares one.
pub fn router<S, B>(
    service: S,
    profile: &'static Profile,
    discovery: Option<&[u8]>,
) -> Result<Router, ProfileError>
where
    S: Service<http::Request<tonic::body::Body>, Response = http::Response<B>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<StdError> + Send,
{
    let schema = Schema::new(profile)?;
    let mut app = Router::new();
    if let (Some(d), Some(doc)) = (profile.discovery, discovery) {
        let ty = schema.message(d.message)?;
        let json = schema::to_json(&ty, doc)
            .map_err(|e| ProfileError::Document(d.message.to_owned(), e))?
            .to_string();
        app = app.route(
            d.path,
            get(move || async move { ([(CONTENT_TYPE, "application/json")], json) }),
        );
    }
    let shared = Arc::new(Shared {
        service,
        schema,
        profile,
    });
    Ok(app.route(profile.path, post(endpoint::<S, B>).with_state(shared)))
}

/// [`router`] with the gRPC service itself mounted beside it: both bindings (and the
/// discovery document) for tonic's server, which serves HTTP/1.1 too when built with
/// `accept_http1(true)`.
pub fn routes<S, B>(
    service: S,
    profile: &'static Profile,
    discovery: Option<&[u8]>,
) -> Result<Routes, ProfileError>
where
    S: Service<http::Request<tonic::body::Body>, Response = http::Response<B>, Error = Infallible>
        + NamedService
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<StdError> + Send,
    http::Response<B>: IntoResponse,
{
    let app = router(service.clone(), profile, discovery)?;
    Ok(Routes::from(app).add_service(service))
}

/// One call as the request states it.
struct Call {
    id: Option<Value>,
    method: String,
    params: Value,
}

/// A JSON-RPC error object.
fn error(code: i64, message: impl Into<String>) -> Value {
    json!({"code": code, "message": message.into()})
}

/// The response to the call `id` with a result or an error object.
fn response(id: &Value, answer: Result<Value, Value>) -> Value {
    match answer {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
    }
}

fn json_reply(body: &Value) -> Response {
    ([(CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// The call a request object states, or the id to answer and the error (JSON-RPC 2.0's
/// invalid request and invalid params).
fn read_call(request: Value) -> Result<Call, (Value, Value)> {
    let Value::Object(mut request) = request else {
        let msg = "a request is one JSON object (batches are not served)";
        return Err((Value::Null, error(-32600, msg)));
    };
    let id = request.remove("id");
    let answer_to = match &id {
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => id.clone(),
        None => Value::Null,
        Some(_) => {
            let msg = "`id` is a string, a number or null";
            return Err((Value::Null, error(-32600, msg)));
        }
    };
    if request.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((answer_to, error(-32600, "`jsonrpc` must be \"2.0\"")));
    }
    let Some(Value::String(method)) = request.remove("method") else {
        return Err((answer_to, error(-32600, "`method` must be a string")));
    };
    let params = match request.remove("params") {
        None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
        Some(p @ Value::Object(_)) => p,
        Some(_) => {
            let msg = "Invalid parameters: `params` must be an object";
            return Err((answer_to, error(-32602, msg)));
        }
    };
    Ok(Call { id, method, params })
}

/// The POST handler: reads the body within its limits, then answers the call.
async fn endpoint<S, B>(
    State(shared): State<Arc<Shared<S>>>,
    headers: HeaderMap,
    body: Body,
) -> Response
where
    S: Service<http::Request<tonic::body::Body>, Response = http::Response<B>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<StdError> + Send,
{
    let bytes = match tokio::time::timeout(READ_LIMIT, axum::body::to_bytes(body, MAX_BODY)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => {
            let msg = format!("the request body could not be read (at most {MAX_BODY} bytes): {e}");
            return (StatusCode::PAYLOAD_TOO_LARGE, msg).into_response();
        }
        Err(_) => {
            return (
                StatusCode::REQUEST_TIMEOUT,
                "the request body came too slowly",
            )
                .into_response();
        }
    };
    let request: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            let answer = Err(error(-32700, format!("Invalid JSON payload: {e}")));
            return json_reply(&response(&Value::Null, answer));
        }
    };
    let call = match read_call(request) {
        Ok(call) => call,
        Err((id, e)) => return json_reply(&response(&id, Err(e))),
    };
    // A notification asks for no answer; every method of a service answers, so none runs.
    let Some(id) = call.id.clone() else {
        return StatusCode::NO_CONTENT.into_response();
    };
    let Some(rpc) = shared.schema.rpc(&call.method) else {
        let msg = format!("Method not found: `{}`", call.method);
        return json_reply(&response(&id, Err(error(-32601, msg))));
    };
    let input = match schema::from_json(&rpc.input, call.params) {
        Ok(bytes) => bytes,
        Err(e) => {
            let msg = format!("Invalid parameters: {e}");
            return json_reply(&response(&id, Err(error(-32602, msg))));
        }
    };
    let request = grpc_request(input, headers);
    if rpc.server_streaming {
        streaming(&shared, &rpc, id, request).await
    } else {
        json_reply(&response(&id, unary(&shared, &rpc, request).await))
    }
}

/// The call's metadata: its HTTP headers, less those about the HTTP exchange.
fn grpc_request(message: Bytes, mut headers: HeaderMap) -> tonic::Request<Bytes> {
    let names: Vec<_> = headers.keys().cloned().collect();
    for name in names {
        let n = name.as_str();
        if NOT_METADATA.contains(&n) || n.starts_with("grpc-") || n.ends_with("-bin") {
            headers.remove(&name);
        }
    }
    let mut request = tonic::Request::new(message);
    *request.metadata_mut() = MetadataMap::from_headers(headers);
    request
}

/// The path of `rpc`, as tonic's client takes it.
fn path_of(rpc: &Rpc) -> Result<PathAndQuery, Value> {
    PathAndQuery::try_from(rpc.path.as_str())
        .map_err(|e| error(-32603, format!("rpc path `{}`: {e}", rpc.path)))
}

/// A unary rpc's answer: its result as ProtoJSON, or the error object of its status.
async fn unary<S, B>(
    shared: &Shared<S>,
    rpc: &Rpc,
    request: tonic::Request<Bytes>,
) -> Result<Value, Value>
where
    S: Service<http::Request<tonic::body::Body>, Response = http::Response<B>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<StdError> + Send,
{
    let path = path_of(rpc)?;
    let mut grpc = tonic::client::Grpc::new(shared.service.clone());
    let answer = grpc.unary(request, path, RawCodec).await;
    let reply = answer.map_err(|status| to_error(&status, shared.profile))?;
    schema::to_json(&rpc.output, reply.get_ref())
        .map_err(|e| error(-32603, format!("the reply is not ProtoJSON: {e}")))
}

/// A server-streaming rpc's answer: an SSE stream with one JSON-RPC response per message,
/// ended by the error response of a failing status; a call refused before its first message
/// is answered with one JSON error response, as a unary call would be.
async fn streaming<S, B>(
    shared: &Shared<S>,
    rpc: &Rpc,
    id: Value,
    request: tonic::Request<Bytes>,
) -> Response
where
    S: Service<http::Request<tonic::body::Body>, Response = http::Response<B>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<StdError> + Send,
{
    let path = match path_of(rpc) {
        Ok(path) => path,
        Err(e) => return json_reply(&response(&id, Err(e))),
    };
    let mut grpc = tonic::client::Grpc::new(shared.service.clone());
    let updates = match grpc.server_streaming(request, path, RawCodec).await {
        Ok(updates) => updates.into_inner(),
        Err(status) => return json_reply(&response(&id, Err(to_error(&status, shared.profile)))),
    };
    let (output, profile) = (rpc.output.clone(), shared.profile);
    let events = futures_util::stream::unfold(Some(updates), move |state| {
        let (id, output) = (id.clone(), output.clone());
        async move {
            let mut updates = state?;
            let (answer, more) = match updates.message().await {
                Ok(Some(bytes)) => match schema::to_json(&output, &bytes) {
                    Ok(v) => (Ok(v), true),
                    Err(e) => (
                        Err(error(-32603, format!("the reply is not ProtoJSON: {e}"))),
                        false,
                    ),
                },
                Ok(None) => return None,
                Err(status) => (Err(to_error(&status, profile)), false),
            };
            let event =
                crate::streamable_http::sse::event(None, &response(&id, answer).to_string());
            Some((Ok::<_, Infallible>(event), more.then_some(updates)))
        }
    });
    let mut reply = Response::new(Body::from_stream(events));
    let headers = reply.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(CACHE_CONTROL, http::HeaderValue::from_static("no-store"));
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_as_json_rpc_2_0_states_them() {
        let call = read_call(json!({"jsonrpc": "2.0", "id": 7, "method": "M"}))
            .ok()
            .unwrap();
        assert_eq!(
            (call.id, call.method.as_str(), call.params),
            (Some(json!(7)), "M", json!({}))
        );
        let bad = |v: Value| read_call(v).err().map(|(id, e)| (id, e["code"].clone()));
        assert_eq!(bad(json!([1])), Some((Value::Null, json!(-32600))));
        assert_eq!(
            bad(json!({"jsonrpc": "2.0", "id": {}, "method": "M"})),
            Some((Value::Null, json!(-32600)))
        );
        assert_eq!(
            bad(json!({"jsonrpc": "1.0", "id": "a", "method": "M"})),
            Some((json!("a"), json!(-32600)))
        );
        assert_eq!(
            bad(json!({"jsonrpc": "2.0", "id": "a", "method": 3})),
            Some((json!("a"), json!(-32600)))
        );
        assert_eq!(
            bad(json!({"jsonrpc": "2.0", "id": "a", "method": "M", "params": [1]})),
            Some((json!("a"), json!(-32602)))
        );
        let note = read_call(json!({"jsonrpc": "2.0", "method": "M"}))
            .ok()
            .unwrap();
        assert!(note.id.is_none());
    }

    #[test]
    fn headers_about_the_http_exchange_are_not_metadata() {
        let mut headers = HeaderMap::new();
        for (k, v) in [
            ("content-type", "application/json"),
            ("demo-version", "1.0"),
            ("grpc-timeout", "1S"),
            ("x-bin", "AA=="),
            ("authorization", "Bearer t"),
        ] {
            headers.insert(k, v.parse().unwrap());
        }
        let request = grpc_request(Bytes::new(), headers);
        let mut kept: Vec<_> = request
            .metadata()
            .clone()
            .into_headers()
            .keys()
            .map(|k| k.to_string())
            .collect();
        kept.sort();
        assert_eq!(kept, ["authorization", "demo-version"]);
    }
}
