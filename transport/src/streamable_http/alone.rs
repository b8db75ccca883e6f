//! Messages served on their own, outside any session: a protocol whose messages name their
//! version ([`Profile::version_source`] with a `meta:` path or a `header:`) sends each
//! request as a POST of its own, with no session header and no opening request first. The
//! version is read from every place the source lists; places naming different versions, a
//! place the source lists left empty, or a mirrored header that disagrees with the body are
//! refused with 400 and the profile's mismatch code, and a version the profile does not
//! accept with 400 and its unsupported-version code (`data: {supported, requested}`).
//! An accepted request is handed to an engine of its version made for it alone
//! ([`super::SessionPipe::version`]), which ends with its answer.
//!
//! [`Profile::version_source`]: super::Profile::version_source

use agentwire_runtime::jsonrpc::RequestId;
use agentwire_runtime::version::Named;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::message::Kind;
use super::mirror;
use super::server::{Call, Shared, on_request, open_refusal, pass_in, refuse};
use super::service::Delivered;
use crate::budget::ClientKey;

/// A 400 answering `id` (or null) with `code`, `message` and optional `data`.
fn bad_request(id: Option<&RequestId>, code: i64, message: &str, data: Option<Value>) -> Response {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string();
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

/// The version `message` (sent with `headers`) names, or the answer refusing it.
fn version_of(
    shared: &Shared,
    headers: &HeaderMap,
    message: &Value,
    id: Option<&RequestId>,
) -> Result<String, Response> {
    let profile = shared.profile();
    let Some(source) = profile.version_source else {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            profile.mismatch_code,
            "no version source",
        ));
    };
    let mismatch = |why: String| bad_request(id, profile.mismatch_code, &why, None);
    let header_name = source.header().unwrap_or(profile.version_header);
    let header = match headers.get(header_name).map(|v| v.to_str()) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(_)) => {
            return Err(mismatch(format!(
                "{header_name} header holds bytes that are not visible ASCII"
            )));
        }
    };
    match source.named_in(message, header) {
        // Naming no version, it is a message of a session that left its header out: the
        // answer a server of sessions alone gives.
        Named::Nowhere => Err(refuse(
            StatusCode::BAD_REQUEST,
            super::server::TRANSPORT_ERROR,
            &format!(
                "{} header is required (send {} first), or name the version in {source}",
                profile.session_header, profile.opens_with
            ),
        )),
        Named::Disagree { first, second } => Err(mismatch(format!(
            "the version is named twice, as {first:?} and as {second:?}"
        ))),
        // A request must name its version in every header the source lists; a notification
        // in one place suffices. A body that leaves its version out while the header names
        // it goes on: its version's own schema judges it (an invalid request, not a header
        // that disagrees).
        Named::Version { missing, .. }
            if id.is_some() && missing.iter().any(|m| header_missing(source, m)) =>
        {
            Err(mismatch(format!(
                "the version must also be named in {}",
                missing.join(" and ")
            )))
        }
        Named::Version { version, .. } => Ok(version),
    }
}

/// Whether `place` (one of [`Named::Version`]'s `missing`) is `source`'s header.
fn header_missing(source: agentwire_runtime::version::Source, place: &str) -> bool {
    source.header().is_some_and(|name| {
        place == agentwire_runtime::version::Source::Header { name }.to_string()
    })
}

/// A POST outside any session that is not the opening request: served alone, as the
/// version it names.
pub(super) async fn on_post(
    shared: &Shared,
    headers: &HeaderMap,
    client: Option<ClientKey>,
    kind: Kind,
    delivered: Delivered,
) -> Response {
    let profile = shared.profile();
    let id = match &kind {
        Kind::Request { id, .. } => Some(id.clone()),
        Kind::Notification { .. } => None,
        Kind::Response { .. } => {
            return refuse(
                StatusCode::BAD_REQUEST,
                agentwire_runtime::jsonrpc::codes::INVALID_REQUEST,
                "a response outside any session answers nothing",
            );
        }
    };
    // `classify` read it, so it is JSON.
    let message: Value = serde_json::from_str(&delivered.text).unwrap_or_default();
    let version = match version_of(shared, headers, &message, id.as_ref()) {
        Ok(v) => v,
        Err(r) => return r,
    };
    if !profile.versions.contains(&version.as_str()) {
        let why = format!(
            "unsupported protocol version {version:?} (supported: {})",
            profile.versions.join(", ")
        );
        let data = json!({"supported": profile.versions, "requested": version});
        return bad_request(id.as_ref(), profile.unsupported_code, &why, Some(data));
    }
    let expected = shared.config.expected.as_ref();
    if profile.mirrors(Some(&version))
        && let Err(why) = mirror::check_with(profile, expected, headers, &message)
    {
        return bad_request(id.as_ref(), profile.mismatch_code, &why, None);
    }
    let alone = match shared
        .sessions
        .open_alone(shared.service.as_ref(), client, version.clone())
    {
        Ok(a) => a,
        Err(e) => return open_refusal(e),
    };
    match kind {
        Kind::Request { id, method } => {
            let session = alone.0.clone();
            let call = Call {
                id,
                method,
                delivered,
            };
            on_request(shared, session, call, false, Some(version), Some(alone)).await
        }
        _ => {
            // The engine takes it before the session ends: its queue is read to the end.
            if pass_in(&alone.0, delivered).await {
                StatusCode::ACCEPTED.into_response()
            } else {
                refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    super::server::TRANSPORT_ERROR,
                    "the engine ended before taking the message",
                )
            }
        }
    }
}
