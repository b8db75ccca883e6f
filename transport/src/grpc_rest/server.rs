//! The serving end: a dispatcher answering every request its rules match (the fallback of
//! the other bindings' routes, since templates with verbs are not axum routes), each call
//! made on the gRPC service in process.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::Value;
use tonic::Status;
use tonic::codegen::{Body as HttpBody, Service, StdError, http};
use tonic::service::Routes as GrpcRoutes;

use super::Profile;
use super::rules::{Route, Routes};
use super::status::error_body;
use super::transcode::request_json;
use crate::grpc_json::{
    InProcess, ProfileError, Schema, from_json, grpc_request, read_body, to_json,
};
use crate::streamable_http::sse::{event, named_event};
use agentwire_runtime::path_template::percent_decode;

/// What each request of the dispatcher shares.
struct Shared {
    service: Arc<dyn InProcess>,
    routes: Routes,
    profile: &'static Profile,
}

/// The binding of `profile` calling `service` (the gRPC service, in process), as a router
/// that answers every path: what no rule matches gets the binding's 404.
pub fn router<S, B>(service: S, profile: &'static Profile) -> Result<Router, ProfileError>
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
    let shared = Arc::new(Shared {
        service: Arc::new(service),
        routes: Routes::new(profile, &schema)?,
        profile,
    });
    Ok(Router::new().fallback(dispatch).with_state(shared))
}

/// `routes` (the other bindings of the same service, on one port) with this binding
/// answering every request they do not route.
pub fn mount<S, B>(
    routes: GrpcRoutes,
    service: S,
    profile: &'static Profile,
) -> Result<GrpcRoutes, ProfileError>
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
    let rest = router(service, profile)?;
    Ok(GrpcRoutes::from(
        routes.into_axum_router().fallback_service(rest),
    ))
}

/// A JSON reply of the profile's media type.
fn json_reply(profile: &Profile, status: StatusCode, body: &Value) -> Response {
    let media = HeaderValue::from_str(profile.media_type)
        .unwrap_or(HeaderValue::from_static("application/json"));
    (status, [(CONTENT_TYPE, media)], body.to_string()).into_response()
}

fn refusal(profile: &Profile, status: &Status) -> Response {
    let (http, body) = error_body(status);
    json_reply(profile, http, &body)
}

/// Every request: the rule it matches, its request transcoded, the call made.
async fn dispatch(State(shared): State<Arc<Shared>>, request: Request<Body>) -> Response {
    let profile = shared.profile;
    let (parts, body) = request.into_parts();
    let path = parts.uri.path();
    let Some((route, bound)) = shared.routes.find(parts.method.as_str(), path) else {
        let msg = format!("no rpc is served at {} {path}", parts.method);
        return refusal(profile, &Status::not_found(msg));
    };
    let bytes = match read_body(body).await {
        Ok(bytes) => bytes,
        Err((status, msg)) => return (status, msg).into_response(),
    };
    let mut headers = parts.headers;
    let query = header_params(profile.version_param, parts.uri.query(), &mut headers);
    let input = request_json(route, bound, query.as_deref(), &bytes)
        .and_then(|json| from_json(&route.rpc.input, json));
    let input = match input {
        Ok(input) => input,
        Err(e) => {
            let msg = format!("invalid request: {e}");
            return refusal(profile, &Status::invalid_argument(msg));
        }
    };
    let request = grpc_request(input, headers);
    let path = match route.rpc.grpc_path() {
        Ok(path) => path,
        Err(status) => return refusal(profile, &status),
    };
    if route.rpc.server_streaming {
        match shared.service.server_streaming(path, request).await {
            Ok(updates) => stream(route, updates),
            Err(status) => refusal(profile, &status),
        }
    } else {
        match shared.service.unary(path, request).await {
            Ok(reply) => match reply_json(route, &reply) {
                Ok(json) => json_reply(profile, StatusCode::OK, &json),
                Err(status) => refusal(profile, &status),
            },
            Err(status) => refusal(profile, &status),
        }
    }
}

/// `query` without the parameter `name` (matched without regard to case, as header names
/// are), whose value becomes the header `name` when `headers` lack it; the query as it was
/// when `name` is empty or absent from it.
fn header_params(name: &str, query: Option<&str>, headers: &mut HeaderMap) -> Option<String> {
    let query = query?;
    if name.is_empty() {
        return Some(query.to_owned());
    }
    let mut kept = Vec::new();
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if !percent_decode(key).is_some_and(|k| k.eq_ignore_ascii_case(name)) {
            kept.push(pair);
            continue;
        }
        let header = HeaderName::from_bytes(name.as_bytes()).ok();
        let value = percent_decode(value).and_then(|v| HeaderValue::from_str(&v).ok());
        if let (Some(header), Some(value)) = (header, value)
            && !headers.contains_key(&header)
        {
            headers.insert(header, value);
        }
    }
    (!kept.is_empty()).then(|| kept.join("&"))
}

/// A reply as ProtoJSON, or the rule's `response_body` field of it.
fn reply_json(route: &Route, reply: &[u8]) -> Result<Value, Status> {
    let json = to_json(&route.rpc.output, reply)
        .map_err(|e| Status::internal(format!("the reply is not ProtoJSON: {e}")))?;
    let field = route.rule.response_body;
    if field.is_empty() {
        return Ok(json);
    }
    let json_name = route
        .rpc
        .output
        .get_field_by_name(field)
        .map(|f| f.json_name().to_owned())
        .unwrap_or_else(|| field.to_owned());
    Ok(json.get(&json_name).cloned().unwrap_or(Value::Null))
}

/// A server-streaming rpc's answer: one SSE event per reply, ended by an `error` event
/// carrying the error body of a failing status.
fn stream(route: &Route, updates: tonic::Streaming<Bytes>) -> Response {
    let route = route.clone();
    let events = futures_util::stream::unfold(Some(updates), move |state| {
        let route = route.clone();
        async move {
            let mut updates = state?;
            let failed = match updates.message().await {
                Ok(Some(bytes)) => match reply_json(&route, &bytes) {
                    Ok(json) => {
                        let e = event(None, &json.to_string());
                        return Some((Ok::<_, Infallible>(e), Some(updates)));
                    }
                    Err(status) => status,
                },
                Ok(None) => return None,
                Err(status) => status,
            };
            let body = error_body(&failed).1.to_string();
            Some((Ok(named_event("error", None, &body)), None))
        }
    });
    let mut reply = Response::new(Body::from_stream(events));
    let headers = reply.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_parameter_becomes_its_header_unless_one_is_sent() {
        let mut headers = HeaderMap::new();
        let rest = header_params(
            "Api-Version",
            Some("pageSize=2&api-version=1.0&x=y"),
            &mut headers,
        );
        assert_eq!(rest.as_deref(), Some("pageSize=2&x=y"));
        assert_eq!(
            headers.get("api-version").and_then(|v| v.to_str().ok()),
            Some("1.0")
        );
        // A header sent wins; the parameter is still not a field of the request.
        let rest = header_params("Api-Version", Some("Api-Version=0.3"), &mut headers);
        assert_eq!(rest, None);
        assert_eq!(
            headers.get("api-version").and_then(|v| v.to_str().ok()),
            Some("1.0")
        );
        // No parameter declared: the query is untouched.
        let mut none = HeaderMap::new();
        let rest = header_params("", Some("Api-Version=1.0"), &mut none);
        assert_eq!(rest.as_deref(), Some("Api-Version=1.0"));
        assert!(none.is_empty());
    }
}
