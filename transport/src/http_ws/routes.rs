//! The server's HTTP handlers: create, callback and the WebSocket upgrade, each answering
//! refusals in the protocol's own error body.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State, WebSocketUpgrade};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::engine::{Engine, get_path};
use super::layout::{ApiError, Binding};
use super::limits::Limits;
use super::server::{ServerError, Shared};
use super::socket;

pub(crate) fn json(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

pub(crate) fn api<B: Binding>(
    engine: &Engine<B>,
    status: StatusCode,
    code: ApiError,
    message: &str,
) -> Response {
    match engine.error_body(code.word(), message) {
        Ok(body) => json(status, &body),
        Err(e) => internal(&ServerError::Build(e)),
    }
}

/// The last resort, when not even the protocol's error body can be built.
pub(crate) fn internal(e: &ServerError) -> Response {
    crate::error_throttled!(error = %e, "session server failure");
    (StatusCode::INTERNAL_SERVER_ERROR, "internal error").into_response()
}

/// `/a/:b/c` to axum's `/a/{b}/c`.
pub fn axum_path(path: &str) -> String {
    path.split('/')
        .map(|s| match s.strip_prefix(':') {
            Some(n) => format!("{{{n}}}"),
            None => s.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// A method router for `handler` on the spec's `method` (POST when it names no method
/// axum routes).
pub fn method_router<H, T, S>(method: &str, handler: H) -> axum::routing::MethodRouter<S>
where
    H: axum::handler::Handler<T, S>,
    T: 'static,
    S: Clone + Send + Sync + 'static,
{
    let filter = axum::http::Method::from_bytes(method.to_ascii_uppercase().as_bytes())
        .ok()
        .and_then(|m| axum::routing::MethodFilter::try_from(m).ok())
        .unwrap_or(axum::routing::MethodFilter::POST);
    axum::routing::on(filter, handler)
}

/// Reads a request body as text: 413 past the size limit, 400 when it is not UTF-8.
async fn read_text<B: Binding>(
    engine: &Engine<B>,
    limits: &Limits,
    body: Body,
) -> Result<String, Response> {
    let max = limits.max_body_bytes;
    let bytes = axum::body::to_bytes(body, max).await.map_err(|_| {
        let m = format!("the body exceeds {max} bytes (or was cut off)");
        api(
            engine,
            StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::PayloadTooLarge,
            &m,
        )
    })?;
    String::from_utf8(bytes.into()).map_err(|_| {
        api(
            engine,
            StatusCode::BAD_REQUEST,
            ApiError::InvalidRequest,
            "the body is not UTF-8",
        )
    })
}

/// The JSON pointer of a dotted path.
pub(crate) fn pointer(path: &str) -> String {
    format!("/{}", path.replace('.', "/"))
}

pub(crate) async fn create<B: Binding>(
    State(s): State<Arc<Shared<B>>>,
    extensions: axum::http::Extensions,
    body: Body,
) -> Response {
    let l = B::LAYOUT;
    let text = match read_text(&s.engine, &s.limits, body).await {
        Ok(t) => t,
        Err(r) => return r,
    };
    let bad_id = |inv: &agentwire_runtime::Invalid| {
        let at = pointer(l.create_session);
        inv.errors.iter().any(|e| e.pointer.starts_with(&at))
    };
    let req = match B::decode(l.create.body, &text) {
        Ok(r) => r,
        Err(inv) => {
            let code = if bad_id(&inv) {
                ApiError::InvalidSessionId
            } else {
                ApiError::InvalidRequest
            };
            return s.api(StatusCode::BAD_REQUEST, code, &inv.to_string());
        }
    };
    let owner = get_path(&req, l.create_owner)
        .and_then(Value::as_str)
        .unwrap_or_default();
    let session = match get_path(&req, l.create_session).and_then(Value::as_str) {
        None => None,
        Some(raw) => match s.engine.session_id(raw) {
            Ok(id) => Some(id),
            Err(inv) => {
                return s.api(
                    StatusCode::BAD_REQUEST,
                    ApiError::InvalidSessionId,
                    &inv.to_string(),
                );
            }
        },
    };
    let client = crate::budget::ClientKey::of_request(&extensions);
    s.or_failure(s.create(owner, session, client))
}

pub(crate) async fn callback<B: Binding>(
    State(s): State<Arc<Shared<B>>>,
    raw_id: Result<Path<String>, axum::extract::rejection::PathRejection>,
    body: Body,
) -> Response {
    // A segment that does not percent-decode to UTF-8 is a bad id too, answered in the
    // protocol's error form rather than axum's plain-text rejection.
    let Ok(Path(raw_id)) = raw_id else {
        let m = "the session id in the path is not valid percent-encoded UTF-8";
        return s.api(StatusCode::BAD_REQUEST, ApiError::InvalidSessionId, m);
    };
    let session_id = match s.engine.session_id(&raw_id) {
        Ok(id) => id,
        Err(inv) => {
            let inv = inv.under(&format!("/path/{}", B::LAYOUT.callback_session));
            return s.api(
                StatusCode::BAD_REQUEST,
                ApiError::InvalidSessionId,
                &inv.to_string(),
            );
        }
    };
    let text = match read_text(&s.engine, &s.limits, body).await {
        Ok(t) => t,
        Err(r) => return r,
    };
    if text.trim().is_empty() {
        return s.api(
            StatusCode::BAD_REQUEST,
            ApiError::EmptyMessage,
            "the message is blank",
        );
    }
    s.or_failure(s.callback(&session_id, &text))
}

pub(crate) async fn ws<B: Binding>(
    State(s): State<Arc<Shared<B>>>,
    extensions: axum::http::Extensions,
    upgrade: WebSocketUpgrade,
) -> Response {
    if s.shutdown.is_cancelled() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down").into_response();
    }
    let client = crate::budget::ClientKey::of_request(&extensions);
    let Ok(share) = s.connection_shares.try_take(client) else {
        let why = "too many connections from this client";
        return (StatusCode::TOO_MANY_REQUESTS, why).into_response();
    };
    let Ok(permit) = s.connections.clone().try_acquire_owned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "too many connections").into_response();
    };
    let hard_cap = s.limits.max_frame_bytes.saturating_mul(4);
    upgrade
        .max_message_size(hard_cap)
        .max_frame_size(hard_cap)
        .on_upgrade(move |socket| socket::run(s, socket, (permit, share)))
}
