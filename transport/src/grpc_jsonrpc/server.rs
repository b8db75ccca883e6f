//! The serving end: an axum router answering JSON-RPC calls at the profile's path (and the
//! discovery document at its own), each call made on the gRPC service in process.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use serde_json::{Value, json};
use tonic::codegen::{Body as HttpBody, Service, StdError, http};
use tonic::server::NamedService;
use tonic::service::Routes;

use super::Profile;
use super::status::to_error;
use crate::grpc_json::{
    InProcess, ProfileError, Rpc, Schema, from_json, grpc_request, read_body, to_json,
};

/// What each request of the router shares.
struct Shared {
    service: Arc<dyn InProcess>,
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
    let schema = Schema::new(profile.service, profile.descriptors)?;
    let mut app = Router::new();
    if let (Some(d), Some(doc)) = (profile.discovery, discovery) {
        let ty = schema.message(d.message)?;
        let json = to_json(&ty, doc)
            .map_err(|e| ProfileError::Document(d.message.to_owned(), e))?
            .to_string();
        app = app.route(
            d.path,
            get(move || async move { ([(CONTENT_TYPE, "application/json")], json) }),
        );
    }
    let shared = Arc::new(Shared {
        service: Arc::new(service),
        schema,
        profile,
    });
    Ok(app.route(profile.path, post(endpoint).with_state(shared)))
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
async fn endpoint(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Body) -> Response {
    let bytes = match read_body(body).await {
        Ok(bytes) => bytes,
        Err(refusal) => return refusal.into_response(),
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
    let input = match from_json(&rpc.input, call.params) {
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

/// A unary rpc's answer: its result as ProtoJSON, or the error object of its status.
async fn unary(shared: &Shared, rpc: &Rpc, request: tonic::Request<Bytes>) -> Result<Value, Value> {
    let reply = match rpc.grpc_path() {
        Ok(path) => shared.service.unary(path, request).await,
        Err(status) => Err(status),
    };
    let reply = reply.map_err(|status| to_error(&status, shared.profile))?;
    to_json(&rpc.output, &reply)
        .map_err(|e| error(-32603, format!("the reply is not ProtoJSON: {e}")))
}

/// A server-streaming rpc's answer: an SSE stream with one JSON-RPC response per message,
/// ended by the error response of a failing status; a call refused before its first message
/// is answered with one JSON error response, as a unary call would be.
async fn streaming(
    shared: &Shared,
    rpc: &Rpc,
    id: Value,
    request: tonic::Request<Bytes>,
) -> Response {
    let updates = match rpc.grpc_path() {
        Ok(path) => shared.service.server_streaming(path, request).await,
        Err(status) => Err(status),
    };
    let updates = match updates {
        Ok(updates) => updates,
        Err(status) => return json_reply(&response(&id, Err(to_error(&status, shared.profile)))),
    };
    let (output, profile) = (rpc.output.clone(), shared.profile);
    let events = futures_util::stream::unfold(Some(updates), move |state| {
        let (id, output) = (id.clone(), output.clone());
        async move {
            let mut updates = state?;
            let (answer, more) = match updates.message().await {
                Ok(Some(bytes)) => match to_json(&output, &bytes) {
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
}
